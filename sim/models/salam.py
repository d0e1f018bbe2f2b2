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
- **Ports** (`comm_interface.cc` ~L267-272; 2 ports, `parser.py` L233-234 at
  `eaad97011`): each port has a read slot and a write slot, each holding one
  request until its response. A group's reads are served by the 2 read slots,
  its writes by the 2 write slots, side by side: n reads take `ceil(n / 2)`
  rounds of their mean time (exact when they take the same time), but never less
  than the longest of them; likewise the writes.
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
    if trips <= 0:
        return 0.0
    period = schedule.period
    span = (trips - 1) * period
    cost = np.ones(span + schedule.groups)  # a group is at least one tick
    for group, cycles in schedule.compute:
        lane = cost[group : group + span + 1 : period]
        np.maximum(lane, cycles, out=lane)
    accesses = len(schedule.accesses)
    if accesses:
        if latency.size != trips * accesses:
            mean = float(latency.mean()) if latency.size else 0.0
            latency = np.full(trips * accesses, mean)
        latency = latency.reshape(trips, accesses)
        offsets = np.array([g for g, _ in schedule.accesses], dtype=np.int64)
        writes = np.array([w for _, w in schedule.accesses], dtype=bool)
        group_of = np.arange(trips, dtype=np.int64)[:, None] * period + offsets[None, :]
        for kind in (~writes, writes):
            if not kind.any():
                continue
            where = group_of[:, kind].ravel()
            took = latency[:, kind].ravel()
            count = np.bincount(where, minlength=cost.size)
            total = np.bincount(where, weights=took, minlength=cost.size)
            longest = np.zeros(cost.size)
            np.maximum.at(longest, where, took)
            rounds = -(-count // ports)
            mean = np.divide(total, count, out=np.zeros(cost.size), where=count > 0)
            np.maximum(cost, np.maximum(longest, rounds * mean), out=cost)
    return float(cost.sum())


def _runs(windows: WindowTable) -> list[np.ndarray]:
    """The kernel windows grouped into runs of the datapath: one window each,
    but consecutive windows of a `continued` kernel (its loop's enclosing loop
    does not latch either), with only ops windows between them, form one run
    whose iterations overlap across the windows (layer barriers included: the
    authors' machine runs the program without layers)."""
    runs: list[list[int]] = []
    last = -1  # the kernel window the open run ended with
    for i in np.flatnonzero(windows.kernel).tolist():
        schedule = windows.lockstep[int(windows.kernel_id[i])]
        assert schedule is not None
        joins = (
            last >= 0
            and schedule.continued
            and windows.kernel_id[i] == windows.kernel_id[last]
            and not windows.kernel[last + 1 : i].any()
        )
        if joins:
            runs[-1].append(i)
        else:
            runs.append([i])
        last = i
    return [np.array(r, dtype=np.int64) for r in runs]


class SalamModel:
    name = "salam"
    summary = (
        "the authors' gem5-SALAM machine: 100 MHz datapath issuing in lockstep groups, "
        "inner-loop iterations overlapping, 2 ports with a read and a write slot each, "
        "free tape bins"
    )
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
        (`mapping.tiles_in_flight` 1)."""
        if hardware.scratchpad.size_bytes <= 0:
            return hardware  # the baseline: no bins, the tape goes through the cache
        unit = 8 * hardware.scratchpad.banks
        tape_bytes = tape_bytes or self.machine.unsized_tape_bytes
        size = max(unit, -(-tape_bytes // unit) * unit)
        return replace(
            hardware,
            scratchpad=replace(hardware.scratchpad, size_bytes=size),
            mapping=replace(hardware.mapping, tiles_in_flight=1),
        )

    def cycles(self, windows: WindowTable, hardware: Hardware) -> Cycles:
        hit, miss = self.machine.hit_expected, self.machine.miss_expected
        ports = self.machine.ports
        # Ops outside kernel loops: one after another, each access its request time.
        spent = windows.compute + windows.hits * hit + windows.misses * miss
        busy = windows.compute + (windows.hits + windows.misses) * hit
        latency = np.where(windows.access_hit, hit, miss)
        all_hits: dict[tuple[int, int], float] = {}
        for run in _runs(windows):
            kernel = int(windows.kernel_id[run[0]])
            schedule = windows.lockstep[kernel]
            assert schedule is not None
            trips = windows.trips[run]
            total = int(trips.sum())
            taken = np.concatenate([latency[windows.start[i] : windows.end[i]] for i in run])
            cycles = run_cycles(schedule, total, taken, ports)
            key = (kernel, total)
            if key not in all_hits:
                all_hits[key] = run_cycles(schedule, total, np.full(taken.size, hit), ports)
            # A continued run's cycles are shared by its windows by their trips.
            share = trips / total if total else np.full(len(run), 1.0 / len(run))
            spent[run] = cycles * share
            busy[run] = min(all_hits[key], cycles) * share
        cycles = np.ceil(spent).astype(np.int64)
        busy_cycles = np.ceil(busy).astype(np.int64)
        # What the misses cost beyond hits: the memory stall.
        stall = int((cycles - busy_cycles).sum())
        return Cycles(cycles, stall, 0, busy_cycles, np.zeros_like(cycles))


SALAM_MODEL = SalamModel()

__all__ = ["SALAM_MODEL", "SalamModel", "run_cycles"]
