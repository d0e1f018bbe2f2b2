"""
The `cgra` timing model: the project's pipelined CGRA (DESIGN.md, "A window's
cycles"; every parameter is a field of `targets.hardware.Hardware`).

- A kernel loop of N iterations costs `max(compute, memory)`. Compute is
  `(N-1)*ii + length` from its modulo schedule, or `N*ii` when the loop continues
  the previous layer's tile of the same strip-mined loop (see below). Memory is
  the larger of its DRAM bytes over the bandwidth and the ports' time: its misses,
  in groups of `mshrs` outstanding ones, each group the DRAM latency, plus its
  hits, each holding one of the `ports` cache ports for a cycle. Misses overlap
  with each other and with compute, but a hit needs its port like any access:
  while the miss file is full an in-order port cannot serve the hits behind the
  waiting miss, so hits add to the miss time instead of hiding under it.
- Ops outside kernels issue one after another: the sum of their latencies
  (memory accesses at the cache's hit latency), plus the DRAM latency per miss.
  A kernel no loop iterates (a layer's straight-line dataflow) is a kernel loop
  of one trip: its schedule's length.
- Consecutive layers of one strip-mined loop (the same kernel loop, marked
  strip-mined by `tapeflow-layers`, as the body of consecutive layers) overlap across the layer
  barrier: the scratchpad holds the next tile while the current one drains (double buffering, as the
  streams already assume), so the pipeline is filled once, not once per tile. Where the next tile is
  not resident in time (its REV stream stalled), the pipeline has drained meanwhile and fills again.
- A REV stream starts when the previous REV layer starts and delays its own
  layer only by what has not arrived by then; FWD streams drain in the
  background. Both take DRAM bandwidth.
"""

from __future__ import annotations

import numpy as np

from sim.models.base import Cycles, WindowTable
from targets.fields import HARDWARE_FIELDS
from targets.hardware import Hardware


class CgraModel:
    name = "cgra"
    summary = (
        "pipelined CGRA: modulo-scheduled kernel loops, misses overlapped with compute, "
        "hits holding a port, timed streams, tiles of one loop overlapped"
    )
    fields = HARDWARE_FIELDS
    """Every field: the grid, latencies, ports, MSHRs, bandwidth, clock..."""

    def hardware(self, hardware: Hardware) -> Hardware:
        return hardware

    def lowering_hardware(self, hardware: Hardware, tape_bytes: int) -> Hardware:
        return hardware

    def cycles(self, windows: WindowTable, hardware: Hardware) -> Cycles:
        bw = hardware.dram_bytes_per_cycle
        latency = hardware.dram.latency_cycles
        mshrs = hardware.cache.mshrs
        ports = hardware.cache.ports
        kernel = windows.kernel
        m, hits = windows.misses, windows.hits
        ii, length = windows.ii, windows.length
        compute = windows.compute.copy()
        # Tiles of one strip-mined loop: the pipeline continues across the barrier.
        continued = np.zeros(kernel.size, dtype=bool)
        k = np.flatnonzero(kernel)
        if k.size > 1:
            now, before = k[1:], k[:-1]
            continued[now] = (
                windows.tiled[now]
                & windows.tiled[before]
                & (windows.kernel_id[now] == windows.kernel_id[before])
                & (windows.layer[now] == windows.layer[before] + 1)
                & (windows.trips[now] > 0)
                & (windows.trips[before] > 0)
            )
        saved = np.where(continued, length - ii, 0)
        compute = compute - saved
        # max(compute, memory) for kernel loops; latencies plus misses outside.
        # (float64 holds these integers exactly.)
        ports_time = -(-m // mshrs) * latency + -(-hits // ports)
        memory = np.maximum(windows.dram_bytes / bw, ports_time.astype(np.float64))
        spent = np.where(
            kernel,
            np.ceil(np.maximum(compute.astype(np.float64), memory)).astype(np.int64),
            compute + windows.access_latency + m * latency,
        )
        busy = np.where(kernel, compute, compute + windows.access_latency)
        stall_memory = int((spent - busy).sum())
        # A REV stream was issued when the previous REV layer started: it delays
        # its own window by what is still missing of its transfer then, and the
        # tile after a stall starts with an empty pipeline.
        rev_bytes = windows.rev_stream_bytes
        before_sum = np.concatenate([[0], np.cumsum(spent)])  # unadjusted
        added: list[tuple[int, int]] = []  # (window, cycles) added after before_sum
        previous, stall_stream = 0, 0
        stalled = np.zeros_like(spent)
        rev_streams: list[tuple[int, int]] = []
        for i in np.flatnonzero(rev_bytes).tolist():
            since = int(before_sum[i] - before_sum[previous])
            since += sum(c for w, c in added if previous <= w < i)
            arrival = latency + int(rev_bytes[i]) / bw
            carried = int(np.ceil(max(0.0, arrival - since)))
            spent[i] += carried
            stall_stream += carried
            stalled[i] = carried
            rev_streams.append((previous, i))
            added = [(i, carried)]  # earlier ones are before the next `previous`
            previous = i
            if carried:
                after = np.searchsorted(k, i)
                if after < k.size and continued[k[after]]:
                    j = int(k[after])
                    refill = max(0, int(compute[j] + saved[j]) - int(spent[j]))
                    spent[j] += refill
                    busy[j] += refill  # the pipeline fills again: issue, not a stall
                    added.append((j, refill))
        return Cycles(spent, stall_memory, stall_stream, busy, stalled, tuple(rev_streams))


CGRA = CgraModel()

__all__ = ["CGRA", "CgraModel"]
