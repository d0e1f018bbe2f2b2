"""
The `salam` timing model: the machine the authors simulated TapeFlow on
(gem5-SALAM, `sfu-arch/gem5-SALAM` branch `binned`; parameters and their source
files in `targets/salam.py`, the reading behind them in
docs/research/gem5-salam.md). It is a performance model of their machine run on
our executor: the values are still computed and checked the same way.

Mechanisms (cycles are 10 ns datapath cycles):

- Lockstep issue (`lockstep_mode = True`, `llvm_interface.cc`): all ready ops
  issue together and nothing more issues until every read, write and compute op
  in flight has finished; loop iterations do not overlap (a loop's exiting branch
  waits until the queues are clear). So a kernel loop of N iterations costs
  `N * steps` (`targets.costs.lockstep_steps`: the iteration's lockstep groups,
  each as long as its slowest compute op) plus the port occupancy of every cache
  access it made; ops outside kernels cost their latencies one after another plus
  their accesses' occupancy. Misses add to compute instead of hiding behind it.
- Memory ports (`comm_interface.cc`): one read and one write in flight per
  port, one port, so accesses are served one after another; an access holds its
  slot for `cache.hit_latency` cycles if it hits and `dram.latency_cycles` more
  if it misses (`targets.salam.SalamMachine.hit_cycles`/`miss_cycles`: bus,
  lookup, DDR4-2400 and response latencies on the 1 GHz system clock, seen at the
  next 10 ns tick). The read and write slots of the port could serve a read and a
  write of one group at once; counting them one after another is an upper bound
  (in these kernels a group's stores depend on its loads' results, so the two
  rarely share a group). A load waits for every older store (in the steps).
- Tape bins (the `binned` branch): with a bin hierarchy configured, tape loads
  and stores commit at once with no memory request, pushes and pops only count
  spilled and fetched entries. So scratchpad accesses cost nothing, the stream
  transfers are not timed, layer barriers are free, and the tape counts in DRAM
  traffic only as the bytes the streams spill and fetch. The bins' capacity is
  not enforced either (`IBin::pop` returns first), so the scratchpad size
  changes nothing: the variant is lowered with a scratchpad as large as the tape
  (`lowering_hardware`), one tile per loop.
- The cache: 4-way at every size, 64 B lines, 20 MSHRs (never more than one read
  outstanding), arrays packed back to back from a fixed base with 8 B alignment
  (`salam_hardware`).

Not modelled: row-buffer hits in DRAM, bank and bus contention beyond one access
at a time, write-buffer effects (write-backs cost no datapath time), the loop
control ops (branch, compare, induction increment) of each iteration.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sim.models.base import Cycles, WindowTable
from targets.hardware import Hardware
from targets.salam import SALAM, SalamMachine, salam_hardware


class SalamModel:
    name = "salam"
    summary = (
        "the authors' gem5-SALAM machine: 100 MHz lockstep datapath, one access in flight "
        "per port slot, misses added to compute, free tape bins"
    )

    def __init__(self, machine: SalamMachine = SALAM):
        self.machine = machine

    def hardware(self, hardware: Hardware) -> Hardware:
        return salam_hardware(hardware, self.machine)

    def lowering_hardware(self, hardware: Hardware, tape_bytes: int) -> Hardware:
        """A scratchpad that holds the whole tape (the bins' capacity is never
        enforced), whatever the preset's; in whole banks of 8-byte entries."""
        if hardware.scratchpad.size_bytes <= 0:
            return hardware  # the baseline: no bins, the tape goes through the cache
        unit = 8 * hardware.scratchpad.banks
        size = max(unit, -(-tape_bytes // unit) * unit)
        return replace(hardware, scratchpad=replace(hardware.scratchpad, size_bytes=size))

    def cycles(self, windows: WindowTable, hardware: Hardware) -> Cycles:
        hit = hardware.cache.hit_latency
        miss = hit + hardware.dram.latency_cycles
        occupancy = windows.hits * hit + windows.misses * miss
        compute = np.where(windows.kernel, windows.trips * windows.steps, windows.compute)
        spent = (compute + occupancy).astype(np.int64)
        # What the misses cost beyond a hit: the memory stall.
        waited = windows.misses * (miss - hit)
        stall = int(waited.sum())
        return Cycles(spent, stall, 0, spent - waited, np.zeros_like(spent))


SALAM_MODEL = SalamModel()

__all__ = ["SALAM_MODEL", "SalamModel"]
