"""
The `cgra` timing model: the project's pipelined CGRA (DESIGN.md, "A window's
cycles"; every parameter is a field of `targets.hardware.Hardware`).

- A kernel loop of N iterations costs `max(compute, memory)`. Compute is
  `(N-1)*ii + length` from its modulo schedule, or `N*ii` when the loop continues
  the previous layer's tile of the same strip-mined loop: the pipeline is filled
  once, not once per tile, unless the tile's REV stream stalled. Memory is the
  larger of its DRAM bytes over the bandwidth and the ports' time: its misses, in
  groups of `mshrs` outstanding ones, each group the DRAM latency, plus its hits,
  each holding one of the `ports` cache ports for a cycle (a hit does not hide
  under a waiting miss). A continued tile adds its misses at the loop's steady
  rate (`mshrs` per DRAM latency) and its hits at `ports` per cycle.
- Ops outside kernels issue one after another: the sum of their latencies
  (memory accesses at the cache's hit latency), plus the DRAM latency per miss.
  A kernel no loop iterates (a layer's straight-line dataflow) is a kernel loop
  of one trip: its schedule's length.
- A REV stream delays its own layer only by what has not arrived when the layer
  starts; FWD streams drain in the background. Both take DRAM bandwidth
  (`sim.models.streams`).

Why each rule (double buffering across layer barriers, in-order ports, the
stream mechanisms): docs/DESIGN.md, "Timing models".
"""

from __future__ import annotations

from collections import OrderedDict
from math import ceil
from typing import Any

import numpy as np

from sim.models.base import Cycles, PlainCycles, PlainWindows, WindowTable
from sim.models.streams import stream_times
from tapeflow_dialects import cgra
from targets.costs import KernelPlanner
from targets.fields import DATAPATH_FIELDS, HARDWARE_FIELDS
from targets.hardware import Hardware, associativity_for


class CgraModel:
    name = "cgra"
    summary = (
        "pipelined CGRA: modulo-scheduled kernel loops, misses overlapped with compute, "
        "hits holding a port, timed streams, tiles of one loop overlapped"
    )
    fields = HARDWARE_FIELDS - DATAPATH_FIELDS
    """Every field but the fixed datapath's: the grid, latencies, ports, MSHRs,
    bandwidth, clock..."""
    ways = staticmethod(associativity_for)
    """Table III's ways for a cache size (2-way up to 16 KB, ...)."""

    def hardware(self, hardware: Hardware) -> Hardware:
        return hardware

    def lowering_hardware(self, hardware: Hardware, tape_bytes: int) -> Hardware:
        return hardware

    def run_hardware(self, hardware: Hardware) -> Hardware:
        return hardware

    def kernel_plan(self, kernel: cgra.KernelOp, hardware: Hardware) -> None:
        """Nothing: a kernel's schedule is on its ops (`tapeflow-to-cgra`)."""
        return None

    def planner(self) -> KernelPlanner:
        """`kernel_plan`: nothing to share."""
        return self.kernel_plan

    def add_counts(self, report: dict[str, Any], hardware: Hardware) -> None:
        """Nothing beyond the simulator's own counts."""

    def cycles(self, windows: WindowTable, hardware: Hardware, transfers: bool = True) -> Cycles:
        bw = hardware.dram_bytes_per_cycle
        latency = hardware.dram.latency_cycles
        mshrs = hardware.cache.mshrs
        ports = hardware.cache.ports
        kernel = windows.kernel
        m, hits = windows.misses, windows.hits
        ii, length = windows.ii, windows.length
        compute = windows.compute.copy()
        # Tiles of one strip-mined loop: the pipeline continues across the barrier
        # (kernels run once in between, the layer's own bookkeeping, aside).
        continued = np.zeros(kernel.size, dtype=bool)
        k = np.flatnonzero(kernel & windows.looped)
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
        # (float64 holds these integers exactly; a continued tile's share of its
        # loop's accesses is a fraction.)
        ports_time = _ports_time(m, hits, continued, mshrs, ports, latency)
        memory = np.maximum(windows.dram_bytes / bw, ports_time)
        spent = np.where(
            kernel,
            np.ceil(np.maximum(compute.astype(np.float64), memory)).astype(np.int64),
            compute + windows.access_latency + m * latency,
        )
        busy = np.where(kernel, compute, compute + windows.access_latency)
        stall_memory = int((spent - busy).sum())
        fill_drain = int(np.maximum(np.where(kernel, compute - windows.trips * ii, 0), 0).sum())
        config = configuration_loads(windows, hardware)
        spent = spent + config
        busy = busy + config
        # The streams: a tile after a stall starts with an empty pipeline.
        refill = np.where(continued, np.maximum(0, compute + saved - (spent - config)), 0)
        rev = np.flatnonzero(windows.rev)
        times = stream_times(
            spent,
            windows.tile_list(),
            k,
            refill,
            capacity=hardware.scratchpad.size_bytes // 8,
            latency=latency,
            bytes_per_cycle=bw,
            rev_start=int(rev[0]) if rev.size else kernel.size,
            runahead=hardware.mapping.runahead,
            transfers=transfers,
        )
        spent = spent + times.stalled + times.refilled
        busy = busy + times.refilled  # the pipeline fills again: issue, not a stall
        return Cycles(
            spent,
            stall_memory,
            int(times.stalled.sum()),
            busy,
            times.stalled,
            times.transfers,
            int(config.sum()),
            fill_drain,
            times.prefetch_distance,
        )

    def plain_cycles(self, windows: PlainWindows, hardware: Hardware) -> PlainCycles:
        """`cycles` of few windows, the same numbers in Python's arithmetic (each
        step as `cycles` takes it: integers exact, the same float divisions and
        maxima, `ceil` of the same floats); the report's sums of them."""
        bw = hardware.dram_bytes_per_cycle
        latency = hardware.dram.latency_cycles
        mshrs = hardware.cache.mshrs
        ports = hardware.cache.ports
        per_miss = latency / mshrs
        kernel_id, trips, ii, length = windows.kernel_id, windows.trips, windows.ii, windows.length
        n = len(kernel_id)
        k = [w for w in range(n) if kernel_id[w] and windows.looped[w]]
        continued = [False] * n
        tiled, layer = windows.tiled, windows.layer
        for before, now in zip(k, k[1:], strict=False):
            continued[now] = (
                tiled[now]
                and tiled[before]
                and kernel_id[now] == kernel_id[before]
                and layer[now] == layer[before] + 1
                and trips[now] > 0
                and trips[before] > 0
            )
        config = plain_configuration_loads(windows, hardware)
        spent: list[int] = []
        refill: list[int] = []
        stall_memory = fill_drain = 0
        for w in range(n):
            saved = length[w] - ii[w] if continued[w] else 0
            compute = windows.compute[w] - saved
            misses, hits = windows.misses[w], windows.hits[w]
            if kernel_id[w]:
                if continued[w]:
                    ports_time = misses * per_miss + hits / ports
                else:
                    ports_time = float(-(-misses // mshrs) * latency + -(-hits // ports))
                took = ceil(max(float(compute), max(windows.dram_bytes[w] / bw, ports_time)))
                busy = compute
                fill_drain += max(compute - trips[w] * ii[w], 0)
            else:
                busy = compute + windows.access_latency[w]
                took = busy + misses * latency
            stall_memory += took - busy
            spent.append(took + config[w])
            refill.append(max(0, compute + saved - took) if continued[w] else 0)
        if not windows.tiles:  # no layer: nothing streams, nothing waits
            return PlainCycles(spent, stall_memory, 0, sum(config), fill_drain, 0.0)
        rev_start = next((w for w in range(n) if windows.rev[w]), n)
        times = stream_times(
            np.array(spent, dtype=np.int64),
            windows.tiles,
            np.array(k, dtype=np.intp),
            np.array(refill, dtype=np.int64),
            capacity=hardware.scratchpad.size_bytes // 8,
            latency=latency,
            bytes_per_cycle=bw,
            rev_start=rev_start,
            runahead=hardware.mapping.runahead,
        )
        added = (times.stalled + times.refilled).tolist()
        return PlainCycles(
            [s + a for s, a in zip(spent, added, strict=True)],
            stall_memory,
            int(times.stalled.sum()),
            sum(config),
            fill_drain,
            times.prefetch_distance,
        )


def _ports_time(
    misses: np.ndarray,
    hits: np.ndarray,
    continued: np.ndarray,
    mshrs: int,
    ports: int,
    latency: int,
) -> np.ndarray:
    """Each window's misses in groups of `mshrs`, each group the DRAM latency, plus
    its hits over the ports. A window that continues the tile before it (the same
    pipelined loop across a layer barrier) finds the miss file and the ports busy
    with the run so far: it adds its accesses at the loop's steady rate (`mshrs`
    misses per latency, `ports` hits per cycle), not a whole group of its own."""
    whole = (-(-misses // mshrs) * latency + -(-hits // ports)).astype(np.float64)
    steady = misses * (latency / mshrs) + hits / ports
    return np.where(continued, steady, whole)


def configuration_loads(windows: WindowTable, hardware: Hardware) -> np.ndarray:
    """Cycles each kernel window spends loading its kernel's configuration: at a
    switch to a kernel the grid does not hold, its placed ops times
    `config_cycles_per_op`. The grid holds the last kernels' configurations up to
    `rows * cols * config_contexts` words, least recently used first out."""
    config = np.zeros(windows.kernel.size, dtype=np.int64)
    k = np.flatnonzero(windows.kernel)
    if not k.size:
        return config
    switched = np.ones(k.size, dtype=bool)
    switched[1:] = windows.kernel_id[k[1:]] != windows.kernel_id[k[:-1]]
    capacity = hardware.rows * hardware.cols * hardware.config_contexts
    loads = k[switched]
    # Each kernel's first load (ids index the recorder's few kernels: a table of
    # them, a tenth of the time of `np.unique`'s sort on LeNet's 0.2 M loads).
    ids = windows.kernel_id[loads]
    first_at = np.full(int(ids.max()) + 1, ids.size, dtype=np.int64)
    np.minimum.at(first_at, ids, np.arange(ids.size))
    first = first_at[first_at < ids.size]
    if windows.kernel_ops[loads[first]].sum() <= capacity:  # all fit: each loaded once
        config[loads[first]] = windows.kernel_ops[loads[first]] * hardware.config_cycles_per_op
        return config
    held: OrderedDict[int, int] = OrderedDict()  # kernel -> words, least recent first
    words = 0
    for w in loads.tolist():
        kernel, size = int(windows.kernel_id[w]), int(windows.kernel_ops[w])
        if kernel in held:
            held.move_to_end(kernel)
            continue
        config[w] = size * hardware.config_cycles_per_op
        if size > capacity:
            continue  # streamed through, not kept
        while words + size > capacity:
            words -= held.popitem(last=False)[1]
        held[kernel] = size
        words += size
    return config


def plain_configuration_loads(windows: PlainWindows, hardware: Hardware) -> list[int]:
    """`configuration_loads` of few windows, as a list: the grid's kernels in
    least-recently-used order (where they all fit, as there, each is loaded
    once, at its first switch)."""
    kernel_id, kernel_ops = windows.kernel_id, windows.kernel_ops
    config = [0] * len(kernel_id)
    capacity = hardware.rows * hardware.cols * hardware.config_contexts
    held: OrderedDict[int, int] = OrderedDict()  # kernel -> words, least recent first
    words = 0
    last = 0  # the kernel of the kernel window before (ids are from 1)
    for w, kernel in enumerate(kernel_id):
        if not kernel or kernel == last:
            continue
        last = kernel
        if kernel in held:
            held.move_to_end(kernel)
            continue
        size = kernel_ops[w]
        config[w] = size * hardware.config_cycles_per_op
        if size > capacity:
            continue  # streamed through, not kept
        while words + size > capacity:
            words -= held.popitem(last=False)[1]
        held[kernel] = size
        words += size
    return config


CGRA = CgraModel()

__all__ = ["CGRA", "CgraModel", "configuration_loads", "plain_configuration_loads"]
