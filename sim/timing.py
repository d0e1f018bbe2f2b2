"""
The timing, traffic and energy model of the simulator.

While the executor computes values it reports, through a `TimingRecorder`, the
program as a sequence of *windows*: a run of a loop whose body is a `cgra.kernel`
(N iterations issued every `ii` cycles, each taking `length` cycles), or a stretch
of ops outside kernels, which issue one after another, each waiting its latency.
Each window knows which memory accesses (of the address trace) it made, which
stream transfers it started, and which sweep (FWD or REV) it belongs to. After the
run the trace goes through the cache model, and each window gets its cycles:

- a kernel loop: `max(compute, memory)`, with compute `(N-1)*ii + length` and
  memory the larger of its DRAM bytes over the bandwidth and its misses, in
  groups of `mshrs` outstanding ones, times the DRAM latency (misses overlap with
  each other and with compute);
- ops outside kernels: the sum of their latencies, plus the DRAM latency for
  every miss (nothing to overlap with);
- a REV stream starts when the previous REV layer starts (double buffering) and
  delays its own layer only if it has not arrived by then; a FWD stream drains
  in the background; both take DRAM bandwidth.

`cycles.memory_stall` is the part of the total spent beyond the windows' compute
(memory-bound kernel loops, misses outside kernels), `cycles.stream_stall` the
part spent waiting for REV tiles: together, what the memory system costs.

DRAM traffic is the missed lines, the written-back dirty lines and the streamed
tiles; energy is per event (`targets.energy`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from sim.cache import CacheResult
from sim.trace import MemoryTrace
from targets.hardware import Hardware


@dataclass
class Window:
    kind: str
    """'kernel' or 'ops'."""
    phase: str
    start: int
    """First access of the trace made in the window."""
    end: int = -1
    compute: int = 0
    fu: Counter[str] = field(default_factory=Counter)
    spad_accesses: int = 0
    memory_ops: int = 0
    stream_write_bytes: int = 0
    stream_read_bytes: int = 0
    rev_stream_bytes: int = 0
    """Bytes of the REV stream that must arrive before this window starts."""


@dataclass
class TimingRecorder:
    trace: MemoryTrace
    hardware: Hardware
    phase: str = "fwd"
    windows: list[Window] = field(default_factory=list)
    layers: int = 0
    spad_peak_entries: int = 0
    _open: Window | None = None

    def _ops_window(self) -> Window:
        if self._open is None or self._open.phase != self.phase:
            self._close()
            self._open = Window("ops", self.phase, len(self.trace))
            self.windows.append(self._open)
        return self._open

    def _close(self) -> None:
        if self._open is not None:
            self._open.end = len(self.trace)
            self._open = None

    def set_phase(self, phase: str) -> None:
        self._close()
        self.phase = phase

    def op(self, latency: int, fu_class: str | None, memory: str | None) -> None:
        """One op outside kernels ran."""
        w = self._ops_window()
        w.compute += latency
        if fu_class is not None:
            w.fu[fu_class] += 1
        if memory is not None:
            w.memory_ops += 1
            if memory == "spad":
                w.spad_accesses += 1

    def kernel_loop(
        self, trips: int, ii: int, length: int, fu: Counter[str], memory_ops: int, spad: int
    ) -> Window:
        """A loop of kernel iterations is about to run; returns its window."""
        self._close()
        w = Window("kernel", self.phase, len(self.trace))
        w.compute = (trips - 1) * ii + length if trips > 0 else 0
        w.fu = Counter({k: v * trips for k, v in fu.items()})
        w.memory_ops = memory_ops * trips
        w.spad_accesses = spad * trips
        self.windows.append(w)
        return w

    def end_kernel_loop(self, w: Window) -> None:
        w.end = len(self.trace)

    def stream(self, direction: str, nbytes: int) -> None:
        w = self._ops_window()
        # The stream engine reads (FWD) or writes (REV) the tile's entries.
        w.spad_accesses += nbytes // 8
        if direction == "fwd":
            w.stream_write_bytes += nbytes
        else:
            w.stream_read_bytes += nbytes
            w.rev_stream_bytes += nbytes
        self._close()

    def layer(self) -> None:
        self.layers += 1

    def finish(self) -> None:
        self._close()


def _sum_range(prefix: np.ndarray, start: int, end: int) -> int:
    return int(prefix[end] - prefix[start])


def report(
    recorder: TimingRecorder,
    cache: CacheResult,
    tape_flags: np.ndarray,
    hardware: Hardware,
    tape_bytes: int,
) -> dict[str, object]:
    """The simulator's JSON report (stable keys, see DESIGN.md)."""
    line = hardware.cache.line_bytes
    bw = hardware.dram_bytes_per_cycle
    latency = hardware.dram.latency_cycles
    mshrs = hardware.cache.mshrs
    miss = ~cache.hit
    prefix_miss = np.concatenate([[0], np.cumsum(miss)])
    prefix_wb = np.concatenate([[0], np.cumsum(cache.evicts_dirty)])
    prefix_tape_miss = np.concatenate([[0], np.cumsum(miss & tape_flags)])
    prefix_tape_wb = np.concatenate([[0], np.cumsum(cache.evicts_dirty & tape_flags)])
    prefix_hit = np.concatenate([[0], np.cumsum(cache.hit)])
    cycles = {"fwd": 0, "rev": 0}
    hits = {"fwd": 0, "rev": 0}
    misses = {"fwd": 0, "rev": 0}
    fu: Counter[str] = Counter()
    spad_accesses = 0
    memory_ops = 0
    stream_read = stream_write = 0
    since_previous_rev_layer = 0
    stall_memory = stall_stream = 0
    for w in recorder.windows:
        m = _sum_range(prefix_miss, w.start, w.end)
        wb = _sum_range(prefix_wb, w.start, w.end)
        dram = (m + wb) * line + w.stream_write_bytes + w.stream_read_bytes
        if w.kind == "kernel":
            memory = max(dram / bw, -(-m // mshrs) * latency)
            spent = int(np.ceil(max(w.compute, memory)))
        else:
            # FWD streams drain in the background; their bytes count as traffic.
            spent = w.compute + m * latency
        stall_memory += spent - w.compute
        if w.rev_stream_bytes:
            arrival = latency + w.rev_stream_bytes / bw
            wait = int(np.ceil(max(0.0, arrival - since_previous_rev_layer)))
            spent += wait
            stall_stream += wait
            since_previous_rev_layer = 0
        since_previous_rev_layer += spent
        cycles[w.phase] += spent
        hits[w.phase] += _sum_range(prefix_hit, w.start, w.end)
        misses[w.phase] += m
        fu.update(w.fu)
        spad_accesses += w.spad_accesses
        memory_ops += w.memory_ops
        stream_read += w.stream_read_bytes
        stream_write += w.stream_write_bytes
    total_hits, total_misses = cache.hits, cache.misses
    accesses = total_hits + total_misses
    read = cache.miss_lines * line + stream_read
    write = cache.writebacks * line + stream_write
    tape_traffic = (
        (int(prefix_tape_miss[-1]) + int(prefix_tape_wb[-1])) * line + stream_read + stream_write
    )
    energy = hardware.energy
    e_cache = accesses * energy.cache_pj(hardware.cache.size_bytes)
    e_spad = spad_accesses * energy.spad_pj
    e_fu = sum(count * energy.op_pj(cls) for cls, count in fu.items())
    e_dram = read * 8 * energy.dram_read_pj_per_bit + write * 8 * energy.dram_write_pj_per_bit
    return {
        "hardware": hardware.name,
        "cycles": {
            "fwd": cycles["fwd"],
            "rev": cycles["rev"],
            "total": cycles["fwd"] + cycles["rev"],
            "memory_stall": stall_memory,
            "stream_stall": stall_stream,
        },
        "ops": {"total": sum(fu.values()) + memory_ops, "fu": dict(fu), "memory": memory_ops},
        "cache": {
            "hits": total_hits,
            "misses": total_misses,
            "hit_rate": total_hits / accesses if accesses else 0.0,
            "fwd": {"hits": hits["fwd"], "misses": misses["fwd"]},
            "rev": {"hits": hits["rev"], "misses": misses["rev"]},
        },
        "dram_bytes": {
            "read": read,
            "write": write,
            "tape": tape_traffic,
            "total": read + write,
        },
        "spad": {"accesses": spad_accesses, "peak_bytes": recorder.spad_peak_entries * 8},
        "streams": {"write_bytes": stream_write, "read_bytes": stream_read},
        "sram_bytes": hardware.sram_bytes,
        "layers": recorder.layers,
        "tape_bytes": tape_bytes,
        "energy_pj": {
            "cache": e_cache,
            "spad": e_spad,
            "fu": e_fu,
            "dram": e_dram,
            "onchip": e_cache + e_spad + e_fu,
        },
    }
