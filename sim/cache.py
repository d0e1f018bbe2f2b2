"""
A set-associative, LRU, write-back, write-allocate cache, driven by an address
trace (sim/trace.py). Values are computed once by the executor; the same trace is
replayed through as many cache configurations as a sweep needs.

Each access is one 8-byte word inside one line (the executor's buffers are
aligned, their elements 8 bytes). A miss brings the line in (a store too: write-
allocate); evicting a dirty line writes it back. `flush` writes back the dirty
lines left at the end, so that DRAM write traffic is complete.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from targets.hardware import CacheConfig


@dataclass(frozen=True)
class CacheResult:
    hit: np.ndarray
    """Per access: True for a hit."""
    writebacks: int
    """Dirty lines written back (evictions, plus the final flush if asked)."""
    evicts_dirty: np.ndarray
    """Per access: True if its miss evicted a dirty line (a write-back)."""
    miss_lines: int
    """Lines brought in from DRAM (one per miss)."""

    @property
    def hits(self) -> int:
        return int(np.count_nonzero(self.hit))

    @property
    def misses(self) -> int:
        return int(self.hit.size - self.hits)

    @property
    def hit_rate(self) -> float:
        return self.hits / self.hit.size if self.hit.size else 0.0


def simulate_cache(
    addresses: np.ndarray, writes: np.ndarray, config: CacheConfig, flush: bool = True
) -> CacheResult:
    config.validate()
    shift = config.line_bytes.bit_length() - 1
    lines = (np.asarray(addresses, dtype=np.int64) >> shift).tolist()
    set_mask = config.sets - 1
    ways = config.assoc
    refresh_on_write = config.lru_on_write
    sets: list[OrderedDict[int, bool]] = [OrderedDict() for _ in range(config.sets)]
    hit = np.zeros(len(lines), dtype=bool)
    evicts = np.zeros(len(lines), dtype=bool)
    writebacks = 0
    for n, (line, write) in enumerate(zip(lines, np.asarray(writes, dtype=bool).tolist())):
        resident = sets[line & set_mask]
        dirty = resident.get(line)
        if dirty is not None:
            hit[n] = True
            if not write or refresh_on_write:
                resident.move_to_end(line)
            if write and not dirty:
                resident[line] = True
            continue
        if len(resident) >= ways:
            _, victim_dirty = resident.popitem(last=False)
            if victim_dirty:
                writebacks += 1
                evicts[n] = True
        resident[line] = write
    if flush:
        writebacks += sum(d for resident in sets for d in resident.values())
    return CacheResult(hit, writebacks, evicts, int(hit.size - np.count_nonzero(hit)))
