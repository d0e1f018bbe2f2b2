"""
The `salam` timing model: an emulator of the datapath the authors simulated
TapeFlow on (gem5-SALAM, `sfu-arch/gem5-SALAM` branch `binned`, commit
`a5e40f4be`), mechanism by mechanism. It times the run our executor made; the
values are computed and checked as under every model.

- Before the run, `planner` (one `kernel_plan` per run) gives each kernel loop its lockstep schedule
  (`sim.models.salam.lockstep`: the group each op of each iteration of a run
  issues in, by the datapath's load ordering).
- After it, `cycles` lays the runs of each kernel loop on the schedule and charges
  each group its slowest op or port round, with each access's request time from
  the cache replay (`SalamMachine.expected_cycles`); ops outside kernel loops cost
  their latencies one after another. Tape bins commit at once and are not timed.
- `add_counts` reports what only this machine counts: DRAM traffic as the
  authors' scripts count it (`dram_bytes.authors`, `authors_dram_bytes`).

Parameters and their sources: `sim.models.salam.machine`. Each mechanism, with
the authors' files and lines it follows: docs/research/salam-model.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from sim.models.base import Cycles, WindowTable, distinct
from sim.models.salam.enzyme_llvm import FunctionAdjoints
from sim.models.salam.lockstep import LockstepSchedule, kernel_schedule
from sim.models.salam.machine import SALAM, SALAM_FIELDS, SalamMachine, salam_hardware
from tapeflow_dialects import cgra
from targets.costs import KernelPlanner
from targets.hardware import Hardware


def run_cycles(schedule: LockstepSchedule, trips: int, latency: np.ndarray, ports: int) -> float:
    """
    Cycles of `trips` iterations of the kernel loop `schedule` describes, whose
    cache accesses take `latency` cycles each (in trace order: iteration by
    iteration, `schedule.accesses` order within one; any other count is spread
    evenly at its mean, which only an executor fallback could cause).
    """
    return float(runs_cycles(schedule, np.array([trips]), latency, ports)[0])


def runs_cycles(
    schedule: LockstepSchedule, trips: np.ndarray, latency: np.ndarray, ports: int
) -> np.ndarray:
    """
    `run_cycles` of several runs of one kernel loop at once: run r has `trips[r]`
    iterations, and `latency` holds the runs' access times one run after another.
    The runs are laid side by side on one axis of groups, so that the whole batch
    takes a fixed number of array operations however many runs there are (a layer
    loop runs its kernels hundreds of thousands of times); each run's groups and
    sums are those it would have alone. The layout, with the compute, is made
    once per batch and kept on the schedule (`_layout`): each cache of a sweep
    evaluates the same run, and only the accesses' times differ.
    """
    trips = np.asarray(trips, dtype=np.int64)
    accesses = len(schedule.accesses)
    layout = _layout(schedule, trips)
    cost = layout.computed.copy()
    if accesses:
        if latency.size != int(trips.sum()) * accesses:
            # Only an executor fallback: each run's accesses at the batch's mean.
            mean = float(latency.mean()) if latency.size else 0.0
            latency = np.full(int(trips.sum()) * accesses, mean)
        took_all = latency.reshape(-1, accesses)
        for kind, where, (divisor, rounds) in zip(
            layout.kinds, layout.places, layout.port_terms(ports), strict=True
        ):
            # `take` of the kind's columns: a boolean mask on the second axis
            # costs several times as much.
            took = (
                took_all.ravel() if kind.all() else took_all.take(np.flatnonzero(kind), 1).ravel()
            )
            total = np.bincount(where, weights=took, minlength=cost.size)
            longest = np.zeros(cost.size)
            np.maximum.at(longest, where, took)
            # A group's mean access time times its rounds of `ports` requests
            # (0 where none of its accesses is of this kind: its total is 0).
            # (Over no accesses at all, `bincount` gives integer zeros.)
            mean = np.divide(total, divisor, out=total if total.dtype == np.float64 else None)
            mean *= rounds
            np.maximum(mean, longest, out=mean)
            np.maximum(cost, mean, out=cost)
    sums = np.zeros(len(trips))
    if layout.active.any():
        sums[layout.active] = np.add.reduceat(cost, layout.begin[:-1][layout.active])
    return sums


def all_hits_cycles(
    schedule: LockstepSchedule, trips: np.ndarray, hit: float, ports: int
) -> np.ndarray:
    """`runs_cycles` with every access taking `hit` cycles, kept with the batch's
    layout: the same for every cache of a sweep."""
    trips = np.asarray(trips, dtype=np.int64)
    layout = _layout(schedule, trips)
    found = layout.all_hits.get((hit, ports))
    if found is None:
        latency = np.full(int(trips.sum()) * len(schedule.accesses), hit)
        found = layout.all_hits[(hit, ports)] = runs_cycles(schedule, trips, latency, ports)
    return found


@dataclass(frozen=True)
class _Layout:
    """A batch of runs of one kernel loop laid out on one axis of groups: what
    timing it under any access times shares (`runs_cycles`)."""

    begin: np.ndarray
    """Each run's first group, then the total."""
    active: np.ndarray
    """The runs of at least one iteration."""
    computed: np.ndarray
    """Per group, its slowest compute op (at least one tick)."""
    kinds: list[np.ndarray]
    """The reads', then the writes', positions among the accesses (those present)."""
    places: list[np.ndarray]
    """Per kind, the group of each of its accesses, iteration by iteration."""
    counts: list[np.ndarray]
    """Per kind, its accesses in each group."""
    all_hits: dict[tuple[float, int], np.ndarray] = field(default_factory=dict)
    """`all_hits_cycles` by (hit, ports)."""
    by_ports: dict[int, list[tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)
    """`port_terms` by ports."""

    def port_terms(self, ports: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per kind, what `runs_cycles` divides each group's total access time by
        (its accesses of the kind, 1 where it has none) and multiplies the mean
        by (its rounds of `ports` requests, 0 where none), as floats: the same
        for every cache of a sweep. The counts are exact in a double, so the
        quotient and the product are those of the counts themselves."""
        found = self.by_ports.get(ports)
        if found is None:
            found = self.by_ports[ports] = [
                (np.maximum(count, 1).astype(np.float64), (-(-count // ports)).astype(np.float64))
                for count in self.counts
            ]
        return found


def _layout(schedule: LockstepSchedule, trips: np.ndarray) -> _Layout:
    """`trips`' runs laid out on `schedule`'s groups (kept on the schedule)."""
    key = trips.tobytes()
    found = schedule.laid_out.get(key)
    if isinstance(found, _Layout):
        return found
    active = trips > 0
    rows = schedule.groups(int(trips.max(initial=0)))
    # A run of n iterations spans the groups up to the latest of its first n.
    reach = np.maximum.accumulate(rows.max(axis=1, initial=-1)) + 1
    length = np.where(active, reach[np.maximum(trips - 1, 0)] if rows.size else 0, 0)
    begin = np.concatenate(([0], np.cumsum(length)))
    computed = np.ones(int(begin[-1]))  # a group is at least one tick
    if schedule.compute:
        # Every run of n iterations has the same slowest compute op per group: laid
        # out once per trip count (all its iterations' ops at once), copied to its runs.
        positions = np.array([n for n, _ in schedule.compute], dtype=np.int64)
        cycles = np.array([c for _, c in schedule.compute], dtype=np.float64)
        for n in distinct(trips[active]).tolist():
            own = np.ones(int(reach[n - 1]))
            np.maximum.at(own, rows[:n, positions].ravel(), np.tile(cycles, n))
            first = begin[:-1][trips == n]
            computed[(first[:, None] + np.arange(own.size)).ravel()] = np.tile(own, first.size)
    # Each iteration of each run: its place in the run, and the run's first group.
    index = np.arange(int(trips.sum()), dtype=np.int64) - np.repeat(np.cumsum(trips) - trips, trips)
    base = np.repeat(begin[:-1], trips)
    kinds: list[np.ndarray] = []
    places: list[np.ndarray] = []
    if schedule.accesses:
        positions = np.array([n for n, _ in schedule.accesses], dtype=np.int64)
        writes = np.array([w for _, w in schedule.accesses], dtype=bool)
        group_of = base[:, None] + rows[:, positions][index]
        kinds = [kind for kind in (~writes, writes) if kind.any()]
        places = [group_of[:, kind].ravel() for kind in kinds]
    counts = [np.bincount(where, minlength=computed.size) for where in places]
    layout = _Layout(begin, active, computed, kinds, places, counts)
    schedule.laid_out[key] = layout
    return layout


def authors_dram_bytes(misses: int, line_bytes: int, fetched_bytes: int) -> int:
    """DRAM traffic as the authors' `cache_stat_extractor.py` counts it: requests
    are the cluster cache's misses plus, in TapeFlow mode, `ceil(reads / 8)` for
    the bins' "Bins Total DRAM Reads" (8-byte entries, eight to a 64-B request:
    their logsum's 21 spilled bins of 512 entries count 1,344), and the bytes are
    the requests times the line (`* 8 * 8` there). Write-backs and the tape's
    spills are not counted. Our fetched bin bytes are the REV streams'
    (`streams.read_bytes`; 0 without a scratchpad)."""
    entries = fetched_bytes // 8
    return (misses + -(-entries // 8)) * line_bytes


def whole_cycles(spent: np.ndarray) -> np.ndarray:
    """Whole cycles, up from sums of fractional request times (a hit's mean 3.2).
    A sum is first rounded to 1e-6 of a cycle: fifteen hits added one by one
    give 48.00000000000001, which must stay 48 cycles, whatever order the sum
    was taken in (no mechanism fixes one)."""
    return np.ceil(np.round(spent, 6)).astype(np.int64)


def _runs(windows: WindowTable) -> tuple[np.ndarray, np.ndarray]:
    """The kernel windows grouped into runs of the datapath: one window each,
    but consecutive windows of a `continued` kernel (its loop's enclosing loop
    does not latch either), with only ops windows between them, form one run
    whose iterations overlap across the windows (layer barriers included: the
    authors' machine runs the program without layers). Gives the kernel windows
    in program order and the run each belongs to (runs numbered in order)."""
    kernels = np.flatnonzero(windows.kernel)
    ids = windows.kernel_id[kernels]
    continued = np.array([s is not None and s.continued for s in windows.plans])
    starts = np.ones(kernels.size, dtype=bool)
    starts[1:] = (ids[1:] != ids[:-1]) | ~continued[ids[1:]]
    return kernels, np.cumsum(starts) - 1


def _gather(windows: WindowTable, members: np.ndarray, values: np.ndarray) -> np.ndarray:
    """`values[start:end]` of the windows `members`, one after another."""
    start, end = windows.start[members], windows.end[members]
    size = end - start
    first = np.repeat(start - (np.cumsum(size) - size), size)
    return values[first + np.arange(int(size.sum()), dtype=np.int64)]


class SalamModel:
    name = "salam"
    summary = (
        "the authors' gem5-SALAM machine: 100 MHz datapath issuing in lockstep groups, "
        "loop iterations overlapping (a loop drains as it exits), "
        "2 ports with a read and a write slot each, free tape bins"
    )
    fields = SALAM_FIELDS

    def __init__(self, machine: SalamMachine = SALAM):
        self.machine = machine

    def ways(self, size_bytes: int) -> int:
        """The cluster cache is 4-way at every size (`SalamMachine.cache_assoc`)."""
        return self.machine.cache_assoc

    def hardware(self, hardware: Hardware) -> Hardware:
        return salam_hardware(hardware, self.machine)

    def kernel_plan(self, kernel: cgra.KernelOp, hardware: Hardware) -> LockstepSchedule:
        """The kernel loop's iteration on the lockstep datapath."""
        return kernel_schedule(kernel, hardware, self.machine)

    def planner(self) -> KernelPlanner:
        """`kernel_plan` for the kernels of one run, which share their functions'
        adjoints (`sim.models.salam.enzyme_llvm.FunctionAdjoints`)."""
        adjoints = FunctionAdjoints()
        return lambda kernel, hardware: kernel_schedule(kernel, hardware, self.machine, adjoints)

    def add_counts(self, report: dict[str, Any], hardware: Hardware) -> None:
        """The authors' count of DRAM traffic, `dram_bytes.authors`."""
        report["dram_bytes"]["authors"] = authors_dram_bytes(
            report["cache"]["misses"],
            hardware.cache.line_bytes,
            report["streams"]["read_bytes"],
        )

    def lowering_hardware(self, hardware: Hardware, tape_bytes: int) -> Hardware:
        """A scratchpad that holds the whole tape (the bins' capacity is never
        enforced), whatever the preset's; in whole banks of 8-byte entries. A tape
        whose size is known only at run time (a triangular nest's, measured as 0
        bytes) gets `SalamMachine.unsized_tape_bytes`. One tile may take all of it:
        the bins do not stream, so no tile waits for another's room
        (`mapping.tiles_in_flight` and `mapping.loop_tiles_in_flight` 1). No
        variant's kernels are modulo-scheduled: the lockstep groups, not the
        grid's schedule, time them (`mapping.modulo_schedule` off). Every nest is
        streamed (`mapping.stream_by_cost` off): the bins are not timed, so the cost
        model's misses, ports and bookkeeping are not this machine's."""
        mapping = replace(hardware.mapping, modulo_schedule=False, stream_by_cost=False)
        hardware = replace(hardware, mapping=mapping)
        if hardware.scratchpad.size_bytes <= 0:
            return hardware  # the baseline: no bins, the tape goes through the cache
        unit = 8 * hardware.scratchpad.banks
        tape_bytes = tape_bytes or self.machine.unsized_tape_bytes
        size = max(unit, -(-tape_bytes // unit) * unit)
        return replace(
            hardware,
            scratchpad=replace(hardware.scratchpad, size_bytes=size),
            mapping=replace(hardware.mapping, tiles_in_flight=1, loop_tiles_in_flight=1),
        )

    def run_hardware(self, hardware: Hardware) -> Hardware:
        """Of the scratchpad's size, the lowering reads only whether there is one
        (`lowering_hardware` sizes the bins by the tape) and the run nothing: every
        positive size is one run, the bins' unit of 8-byte entries in each bank. Nor
        does it read `mapping.stream_by_cost` (every nest is streamed)."""
        hardware = replace(hardware, mapping=replace(hardware.mapping, stream_by_cost=False))
        size = hardware.scratchpad.size_bytes
        if size <= 0:
            return hardware
        unit = 8 * hardware.scratchpad.banks
        return replace(hardware, scratchpad=replace(hardware.scratchpad, size_bytes=unit))

    def cycles_key(self, hardware: Hardware) -> tuple[int]:
        """What `cycles` reads of `hardware` besides the windows: the datapath's
        ports (the request times are this machine's, `SalamMachine`). Windows
        of one run and cache replay on machines of equal key take the same
        cycles (`sim.timing.report` makes them once)."""
        return (hardware.datapath.ports,)

    def cycles(self, windows: WindowTable, hardware: Hardware, transfers: bool = True) -> Cycles:
        hit, miss = self.machine.hit_expected, self.machine.miss_expected
        ports = hardware.datapath.ports
        # Ops outside kernel loops: one after another, each access its request time.
        spent = windows.compute + windows.hits * hit + windows.misses * miss
        busy = windows.compute + (windows.hits + windows.misses) * hit
        kernels, run_of = _runs(windows)
        ids = windows.kernel_id[kernels]
        # The kernel windows grouped by kernel at once (a stable sort keeps each
        # kernel's in program order): a mask per kernel passed over every kernel
        # window once per kernel (LeNet's 77 kernels, 250 k windows).
        order = np.argsort(ids, kind="stable")
        grouped = ids[order]
        bounds = (np.flatnonzero(grouped[1:] != grouped[:-1]) + 1).tolist()
        firsts = [0, *bounds] if grouped.size else []
        lasts = [*bounds, grouped.size] if grouped.size else []
        for kernel, first, last in zip(grouped[firsts].tolist(), firsts, lasts, strict=True):
            schedule = windows.plans[kernel]
            assert schedule is not None
            mine = order[first:last]  # ascending: the kernel's windows in order
            members_w = kernels[mine]
            runs = run_of[mine]  # non-decreasing: a run's windows are consecutive
            which = np.cumsum(np.concatenate(([0], runs[1:] != runs[:-1])))  # each window's run
            sizes = np.bincount(which)
            trips = windows.trips[members_w]
            totals = np.bincount(which, weights=trips, minlength=sizes.size).astype(np.int64)
            # Each access's request time, from the kernel's accesses alone.
            taken = np.where(_gather(windows, members_w, windows.access_hit), hit, miss)
            cycles = runs_cycles(schedule, totals, taken, ports)
            all_hit = all_hits_cycles(schedule, totals, hit, ports)
            # A continued run's cycles are shared by its windows by their trips.
            total = totals[which]
            share = np.divide(trips, total, out=1.0 / sizes[which], where=total > 0)
            spent[members_w] = cycles[which] * share
            busy[members_w] = np.minimum(all_hit, cycles)[which] * share
        cycles, busy_cycles = whole_cycles(spent), whole_cycles(busy)
        # What the misses cost beyond hits: the memory stall.
        stall = int((cycles - busy_cycles).sum())
        return Cycles(cycles, stall, 0, busy_cycles, np.zeros_like(cycles))


SALAM_MODEL = SalamModel()

__all__ = [
    "SALAM_MODEL",
    "SalamModel",
    "all_hits_cycles",
    "authors_dram_bytes",
    "run_cycles",
    "runs_cycles",
    "whole_cycles",
]
