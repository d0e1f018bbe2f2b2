"""
A set-associative, LRU, write-back, write-allocate cache, driven by an address
trace (sim/trace.py). Values are computed once by the executor; the same trace is
replayed through as many cache configurations as a sweep needs.

Each access is one 8-byte word inside one line (the executor's buffers are
aligned, their elements 8 bytes). A miss brings the line in (a store too: write-
allocate); evicting a dirty line writes it back. `flush` writes back the dirty
lines left at the end, so that DRAM write traffic is complete. Each write-back
names its line (`CacheResult.victim`, `flushed`), so that its traffic is credited
to the buffer the line belongs to, not to the access that evicted it.

With true LRU (the default) most accesses are hits that numpy can prove, and
only the others are replayed in Python (`_replay_reduced`); with
`lru_on_write=False` (pycachesim's policy) every access is replayed (`_replay`).
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
    victim: np.ndarray
    """Per access: the dirty line its miss evicted and wrote back, or -1 (as a
    line number: the address over the line size). The write-back is the victim
    line's traffic, whichever access caused it."""
    flushed: np.ndarray
    """The dirty lines written back by the final flush (empty without one)."""
    miss_lines: int
    """Lines brought in from DRAM (one per miss)."""

    @property
    def evicts_dirty(self) -> np.ndarray:
        """Per access: True if its miss evicted a dirty line (a write-back)."""
        return self.victim >= 0

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
    lines = np.asarray(addresses, dtype=np.int64) >> shift
    writes = np.asarray(writes, dtype=bool)
    if config.lru_on_write and lines.size:
        return _replay_reduced(lines, writes, config, flush)
    return _replay(lines, writes, config, flush)


def _replay(lines: np.ndarray, writes: np.ndarray, config: CacheConfig, flush: bool) -> CacheResult:
    """Every access in order, one LRU-ordered dict of resident lines per set."""
    set_mask = config.sets - 1
    ways = config.assoc
    refresh_on_write = config.lru_on_write
    sets: list[OrderedDict[int, bool]] = [OrderedDict() for _ in range(config.sets)]
    hit = np.zeros(len(lines), dtype=bool)
    victim = np.full(len(lines), -1, dtype=np.int64)
    writebacks = 0
    for n, (line, write) in enumerate(zip(lines.tolist(), writes.tolist(), strict=False)):
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
            evicted, victim_dirty = resident.popitem(last=False)
            if victim_dirty:
                writebacks += 1
                victim[n] = evicted
        resident[line] = write
    left = [line for resident in sets for line, dirty in resident.items() if dirty]
    flushed = np.array(left if flush else [], dtype=np.int64)
    writebacks += flushed.size
    return CacheResult(hit, writebacks, victim, flushed, int(hit.size - np.count_nonzero(hit)))


LOOK_BACK = 16
"""How far back (in accesses to the same set) `_replay_reduced` looks for a
previous access to the same line."""


def _replay_reduced(
    lines: np.ndarray, writes: np.ndarray, config: CacheConfig, flush: bool
) -> CacheResult:
    """
    The same result as `_replay` when every hit refreshes the LRU order, with
    most hits found by numpy instead of replayed one by one.

    Sets are independent, so the accesses are taken set by set (a stable sort by
    set). Within a set, an access to a line that was accessed at most `ways`
    accesses earlier is a hit: fewer than `ways` other lines came in between.
    Take a run of such certain hits (between two other accesses of the set):
    nothing is evicted in it, and what it leaves behind is the run's lines moved
    to the most recently used end in the order of their last access in the run,
    each dirty if the run wrote it. Replaying only the last access of each line
    in the run, as a write if any access of the line in the run wrote, leaves
    exactly that. So all other accesses of the run are marked hits and skipped,
    and the rest is replayed in order, each set on its own.
    """
    n = lines.size
    ways = config.assoc
    set_of = lines & (config.sets - 1)
    small = set_of.astype(np.uint16) if config.sets <= 1 << 16 else set_of  # radix-sorted
    order = np.argsort(small, kind="stable")
    by_set = lines[order]
    set_writes = writes[order]
    certain = np.zeros(n, dtype=bool)
    for back in range(1, min(ways, LOOK_BACK) + 1):
        certain[back:] |= by_set[back:] == by_set[:-back]  # one line: one set
    run = np.cumsum(~certain)
    in_runs = np.flatnonzero(certain)
    keep = ~certain
    effective_writes = set_writes.copy()
    if in_runs.size:
        ids = by_set
        if int(run[-1]) >= (1 << 62) // (int(by_set.max()) + 1):  # pragma: no cover - huge traces
            ids = np.unique(by_set, return_inverse=True)[1].reshape(-1)
        # Group the runs' accesses by (run, line), each group in program order.
        key = run[in_runs] * (int(ids.max()) + 1) + ids[in_runs]
        by_key = np.argsort(key, kind="stable")
        grouped, key = in_runs[by_key], key[by_key]
        first = np.concatenate([[True], key[1:] != key[:-1]])
        starts = np.flatnonzero(first)
        lasts = grouped[np.concatenate([starts[1:] - 1, [grouped.size - 1]])]
        keep[lasts] = True
        effective_writes[lasts] = np.logical_or.reduceat(set_writes[grouped], starts)
    kept = np.flatnonzero(keep)
    kept_lines = by_set[kept]
    # The kept accesses are still grouped by set, each set in program order.
    bounds = np.flatnonzero(np.diff(set_of[order][kept])) + 1
    hit_kept, victims_kept, writebacks, left_dirty = _replay_sets(
        kept_lines.tolist(),
        effective_writes[kept].tolist(),
        [0, *bounds.tolist(), kept.size],
        ways,
    )
    hit_sorted = np.ones(n, dtype=bool)
    hit_sorted[kept] = np.frombuffer(hit_kept, dtype=bool)
    victim_sorted = np.full(n, -1, dtype=np.int64)
    for k, line in victims_kept.items():
        victim_sorted[kept[k]] = line
    hit = np.empty(n, dtype=bool)
    hit[order] = hit_sorted
    victim = np.empty(n, dtype=np.int64)
    victim[order] = victim_sorted
    flushed = np.array(left_dirty if flush else [], dtype=np.int64)
    writebacks += flushed.size
    return CacheResult(hit, writebacks, victim, flushed, int(n - np.count_nonzero(hit)))


def _replay_sets(
    lines: list[int], writes: list[bool], bounds: list[int], ways: int
) -> tuple[bytearray, dict[int, int], int, list[int]]:
    """Replay accesses given set by set (`lines[bounds[i]:bounds[i + 1]]` are one
    set's), every hit refreshing the LRU order. Returns the hit flags per access,
    the dirty line each evicting access wrote back (by the access's index), the
    write-backs, and the dirty lines left at the end."""
    hit = bytearray(len(lines))
    victims: dict[int, int] = {}
    writebacks = 0
    left_dirty: list[int] = []
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        resident: OrderedDict[int, bool] = OrderedDict()
        get, to_end, pop = resident.get, resident.move_to_end, resident.popitem
        for k in range(lo, hi):
            line = lines[k]
            dirty = get(line)
            if dirty is not None:
                hit[k] = 1
                to_end(line)
                if not dirty and writes[k]:
                    resident[line] = True
                continue
            if len(resident) >= ways:
                evicted, dirty = pop(last=False)
                if dirty:
                    writebacks += 1
                    victims[k] = evicted
            resident[line] = writes[k]
        left_dirty.extend(line for line, dirty in resident.items() if dirty)
    return hit, victims, writebacks, left_dirty
