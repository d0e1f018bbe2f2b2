"""
The `salam` timing model: an emulator of the datapath the authors simulated
TapeFlow on (gem5-SALAM, `sfu-arch/gem5-SALAM` branch `binned`, commit
`a5e40f4be`), mechanism by mechanism, each with its source in the authors' files
as ../shared/papers/gem5-salam-mechanisms.md reads them. Its parameters are in
`targets/salam.py`, its issue rules in `targets/lockstep.py`. It times the run
our executor made: the values are still computed and checked the same way.

Mechanisms (cycles are 10 ns datapath cycles, `clock_period = 10` in the
kernels' `.ini`):

- **Lockstep groups** (`lockstep_mode = True`): all ready ops issue together and
  the next group waits until every op and memory request of this one has
  finished, so a group lasts as long as its slowest member, and at least one
  tick. `targets.lockstep` gives each op of a kernel loop its group.
- **Inner-loop iterations overlap** (only outermost loops latch,
  `llvm_interface.cc` ~L875-883): iteration k of a kernel loop issues its ops
  `k * period` groups after the loop's first, so one group holds ops of several
  iterations; a run of N iterations spans `(N-1) * period + groups` groups, each
  costing the slowest op or port among the iterations' ops that fall in it. An
  outermost kernel loop's iterations run one after another (its period is its
  depth); the runs of a loop nested two deep or more continue one another (one
  run over all their iterations, shared among their windows by trips). Ops
  outside kernel loops cost their latencies one after another.
- **Loads wait for older unissued stores**, **bins commit at once**, **0-cycle
  select**, **functional units per class** and **the scheduling threshold**: in
  the groups (`targets.lockstep`; the counts and the threshold are the hardware's
  `datapath` fields, `targets.hardware.DatapathConfig`: no unit limit and 10,000
  entries on the authors' machine).
- **Ports** (`comm_interface.cc` ~L267-272; `datapath.ports`, 2 on the authors'
  machine, `parser.py` L233-234 at `eaad97011`): each port has a read slot and a
  write slot, each holding one request until its response. A group's reads are
  served by the read slots, its writes by the write slots, side by side: n reads
  take `ceil(n / ports)` rounds of their mean time (exact when they take the same
  time), but never less than the longest of them; likewise the writes.
- **A request's time** (`targets.salam.SalamMachine.expected_cycles`): from issue
  to the response seen by the datapath, the request reaching memory at the next
  interface tick; a hit (local bus, parallel tag and data lookup of the 4-way
  cluster cache, 20 cache cycles each, `AccCluster.py` L15) 3.2 cycles on
  average, a miss (memory bus, DDR4-2400, response path) 11.4. Which access hits
  is the trace's replay through the cache model, access by access: the executor
  records a kernel loop's accesses iteration by iteration in body order, which
  is the order of `LockstepSchedule.accesses`.
- **Tape bins** (the `binned` branch): tape loads and stores commit without a
  memory request; pushes and pops only count spilled and fetched entries, and
  their capacity is not enforced (`IBin::pop` returns first), so the variant is
  lowered with a scratchpad as large as the tape (`lowering_hardware`) and the
  stream transfers and layer barriers are not timed.

Not modelled: row-buffer hits in DRAM, bank and bus contention beyond the port
slots, write-backs (they cost no datapath time), the outermost loop's latch
between continued runs (one run spans it).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sim.models.base import Cycles, WindowTable
from targets.hardware import Hardware
from targets.lockstep import LockstepSchedule
from targets.salam import SALAM, SALAM_FIELDS, SalamMachine, salam_hardware


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
    sums are those it would have alone.
    """
    trips = np.asarray(trips, dtype=np.int64)
    period, accesses = schedule.period, len(schedule.accesses)
    if accesses and latency.size != int(trips.sum()) * accesses:
        # Only an executor fallback: each run's accesses at the batch's mean.
        mean = float(latency.mean()) if latency.size else 0.0
        latency = np.full(int(trips.sum()) * accesses, mean)
    active = trips > 0
    length = np.where(active, (trips - 1) * period + schedule.groups, 0)
    begin = np.concatenate(([0], np.cumsum(length)))
    cost = np.ones(int(begin[-1]))  # a group is at least one tick
    # Where each iteration of each run launches on the shared axis.
    launch = np.repeat(begin[:-1], trips) + period * (
        np.arange(int(trips.sum()), dtype=np.int64) - np.repeat(np.cumsum(trips) - trips, trips)
    )
    for group, cycles in schedule.compute:
        lane = launch + group
        cost[lane] = np.maximum(cost[lane], cycles)
    if accesses:
        took_all = latency.reshape(-1, accesses)
        offsets = np.array([g for g, _ in schedule.accesses], dtype=np.int64)
        writes = np.array([w for _, w in schedule.accesses], dtype=bool)
        group_of = launch[:, None] + offsets[None, :]
        for kind in (~writes, writes):
            if not kind.any():
                continue
            where = group_of[:, kind].ravel()
            took = took_all[:, kind].ravel()
            count = np.bincount(where, minlength=cost.size)
            total = np.bincount(where, weights=took, minlength=cost.size)
            longest = np.zeros(cost.size)
            np.maximum.at(longest, where, took)
            rounds = -(-count // ports)
            mean = np.divide(total, count, out=np.zeros(cost.size), where=count > 0)
            np.maximum(cost, np.maximum(longest, rounds * mean), out=cost)
    sums = np.zeros(len(trips))
    if active.any():
        sums[active] = np.add.reduceat(cost, begin[:-1][active])
    return sums


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
    continued = np.array([s is not None and s.continued for s in windows.lockstep])
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
        "inner-loop iterations overlapping, 2 ports with a read and a write slot each, "
        "free tape bins"
    )
    lockstep = True
    fields = SALAM_FIELDS

    def __init__(self, machine: SalamMachine = SALAM):
        self.machine = machine

    def ways(self, size_bytes: int) -> int:
        """The cluster cache is 4-way at every size (`SalamMachine.cache_assoc`)."""
        return self.machine.cache_assoc

    def hardware(self, hardware: Hardware) -> Hardware:
        return salam_hardware(hardware, self.machine)

    def lowering_hardware(self, hardware: Hardware, tape_bytes: int) -> Hardware:
        """A scratchpad that holds the whole tape (the bins' capacity is never
        enforced), whatever the preset's; in whole banks of 8-byte entries. A tape
        whose size is known only at run time (a triangular nest's, measured as 0
        bytes) gets `SalamMachine.unsized_tape_bytes`. One tile may take all of it:
        the bins do not stream, so no tile waits for another's room
        (`mapping.tiles_in_flight` and `mapping.loop_tiles_in_flight` 1). No
        variant's kernels are modulo-scheduled: the lockstep groups, not the
        grid's schedule, time them (`mapping.modulo_schedule` off)."""
        hardware = replace(hardware, mapping=replace(hardware.mapping, modulo_schedule=False))
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
        positive size is one run, the bins' unit of 8-byte entries in each bank."""
        size = hardware.scratchpad.size_bytes
        if size <= 0:
            return hardware
        unit = 8 * hardware.scratchpad.banks
        return replace(hardware, scratchpad=replace(hardware.scratchpad, size_bytes=unit))

    def cycles(self, windows: WindowTable, hardware: Hardware) -> Cycles:
        hit, miss = self.machine.hit_expected, self.machine.miss_expected
        ports = hardware.datapath.ports
        # Ops outside kernel loops: one after another, each access its request time.
        spent = windows.compute + windows.hits * hit + windows.misses * miss
        busy = windows.compute + (windows.hits + windows.misses) * hit
        latency = np.where(windows.access_hit, hit, miss)
        kernels, run_of = _runs(windows)
        ids = windows.kernel_id[kernels]
        for kernel in np.unique(ids).tolist():
            schedule = windows.lockstep[kernel]
            assert schedule is not None
            mine = ids == kernel
            members_w = kernels[mine]
            runs = run_of[mine]  # non-decreasing: a run's windows are consecutive
            which = np.cumsum(np.concatenate(([0], runs[1:] != runs[:-1])))  # each window's run
            sizes = np.bincount(which)
            trips = windows.trips[members_w]
            totals = np.bincount(which, weights=trips, minlength=sizes.size).astype(np.int64)
            taken = _gather(windows, members_w, latency)
            cycles = runs_cycles(schedule, totals, taken, ports)
            all_hit = runs_cycles(schedule, totals, np.full(taken.size, hit), ports)
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

__all__ = ["SALAM_MODEL", "SalamModel", "run_cycles", "runs_cycles", "whole_cycles"]
