"""
A set-associative, LRU, write-back, write-allocate cache, driven by an address
trace (sim/trace.py). Values are computed once by the executor; the same trace is
replayed through as many cache configurations as a sweep needs.

Each access is one 8-byte word inside one line (the executor's buffers are
aligned, their elements 8 bytes). A miss brings the line in (a store too: write-
allocate); evicting a dirty line writes it back. `flush` writes back the dirty
lines left at the end, so that DRAM write traffic is complete. Each write-back
names its line (`CacheResult.evicted_at` and `evicted`, `flushed`; `victim`, per
access, is built on request), so that its traffic is credited to the buffer the
line belongs to, not to the access that evicted it. Addresses are byte addresses
from 0, as the executor lays its buffers out (the replays use negative sentinels).

With true LRU (the default), a cache of up to `VECTOR_WAYS` ways is simulated
in numpy alone, its LRU stacks a depth at a time (`_replay_stack`), without the
repeats the trace's loop runs prove hits that change nothing, if it is given
them (`LoopRuns`, `_repeats_left_out`); with more,
most accesses are hits that numpy can prove, and only the others are replayed in
Python (`replay_reduced`), one replay serving every number of ways of one
number of sets (`simulate_caches`, Mattson's LRU stack). With
`lru_on_write=False` (pycachesim's policy) every access is replayed (`_replay`).
Why each is exact: docs/research/cache-replay.md.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from targets.hardware import CacheConfig


@dataclass(frozen=True)
class CacheResult:
    hit: np.ndarray
    """Per access: True for a hit."""
    writebacks: int
    """Dirty lines written back (evictions, plus the final flush if asked)."""
    evicted_at: np.ndarray
    """The positions, in order, of the accesses whose miss evicted a dirty line
    and wrote it back."""
    evicted: np.ndarray
    """Per access of `evicted_at`, the line it wrote back (as a line number: the
    address over the line size). The write-back is the victim line's traffic,
    whichever access caused it."""
    flushed: np.ndarray
    """The dirty lines written back by the final flush (empty without one)."""
    miss_lines: int
    """Lines brought in from DRAM (one per miss)."""

    @classmethod
    def of_victims(
        cls, hit: np.ndarray, writebacks: int, victim: np.ndarray, flushed: np.ndarray
    ) -> CacheResult:
        """The result of a replay that found `victim` (as `CacheResult.victim`)."""
        evicted_at = np.flatnonzero(victim >= 0)
        misses = int(hit.size - np.count_nonzero(hit))
        return cls(hit, writebacks, evicted_at, victim[evicted_at], flushed, misses)

    @cached_property
    def victim(self) -> np.ndarray:
        """Per access: the dirty line its miss evicted and wrote back, or -1
        (made when asked: the report reads `evicted_at` and `evicted` alone)."""
        victim = np.full(self.hit.size, -1, dtype=np.int64)
        victim[self.evicted_at] = self.evicted
        return victim

    @property
    def evicts_dirty(self) -> np.ndarray:
        """Per access: True if its miss evicted a dirty line (a write-back)."""
        evicts = np.zeros(self.hit.size, dtype=bool)
        evicts[self.evicted_at] = True
        return evicts

    @cached_property
    def missed_at(self) -> np.ndarray:
        """The positions of the misses, in order (computed once: the report
        and the DRAM attribution both read them)."""
        return np.flatnonzero(~self.hit)

    @property
    def hits(self) -> int:
        return int(self.hit.size - self.missed_at.size)

    @property
    def misses(self) -> int:
        return int(self.missed_at.size)

    @property
    def hit_rate(self) -> float:
        return self.hits / self.hit.size if self.hit.size else 0.0


@dataclass(frozen=True)
class LoopRuns:
    """The runs of one loop in a trace (`sim.trace.MemoryTrace.loop_runs`): run
    r's accesses are the positions `start[r] + t * width + j` for its iterations
    t < `trips[r]` and the loop's accesses j < `width`, in that order and with
    nothing in between; the address of access j moves by the same number of
    bytes from each iteration to the next where `affine[j]`."""

    start: np.ndarray
    trips: np.ndarray
    width: int
    affine: tuple[bool, ...]


def simulate_cache(
    addresses: np.ndarray,
    writes: np.ndarray,
    config: CacheConfig,
    flush: bool = True,
    runs: Sequence[LoopRuns] = (),
) -> CacheResult:
    """The replay of the accesses (`addresses`, `writes`) through `config`;
    `runs`, the trace's loop runs, let a true-LRU cache of up to `VECTOR_WAYS`
    ways leave out, unreplayed, the repeats they prove hits (`_repeats_left_out`)."""
    config.validate()
    shift = config.line_bytes.bit_length() - 1
    addresses = _checked(addresses)
    writes = np.asarray(writes, dtype=bool)
    if config.lru_on_write and addresses.size and config.assoc <= VECTOR_WAYS:
        lines = _narrow_lines(addresses, shift)
        kept = _repeats_left_out(addresses, lines, writes, runs, config.sets, config.assoc, shift)
        if kept is None:
            return _replay_stack(lines, writes, config.sets, config.assoc, flush)
        return _replay_stack(
            lines[kept], writes[kept], config.sets, config.assoc, flush, kept, lines.size
        )
    lines = addresses >> shift
    if config.lru_on_write and lines.size:
        return replay_reduced(lines, writes, config, flush)
    return _replay(lines, writes, config, flush)


def _checked(addresses: np.ndarray) -> np.ndarray:
    """`addresses` as 64-bit integers, if none is negative."""
    addresses = np.asarray(addresses, dtype=np.int64)
    if addresses.size and int(addresses.min()) < 0:
        at = int(np.argmax(addresses < 0))
        raise ValueError(
            f"cache replay: access {at} has the negative address {int(addresses[at])}; "
            "addresses are byte offsets from 0 (the replay's sentinels are negative)"
        )
    return addresses


def _narrow_lines(addresses: np.ndarray, shift: int) -> np.ndarray:
    """`addresses >> shift` (`addresses` not negative), as 32-bit integers where
    every line fits (half the bytes for the sorts and gathers to move): where
    the addresses fit too, narrowed first and shifted in place (a shift into
    an array of another type is a buffered cast, three times slower)."""
    top = int(addresses.max())
    if top < 1 << 31:
        lines = addresses.astype(np.int32)
        lines >>= shift
        return lines
    if top >> shift < 1 << 31:
        lines = np.empty(addresses.size, dtype=np.int32)
        return np.right_shift(addresses, shift, out=lines, casting="unsafe")
    return addresses >> shift


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
    return CacheResult.of_victims(hit, writebacks, victim, flushed)


LOOK_BACK = 16
"""How far back (in accesses to the same set) `replay_reduced` looks for a
previous access to the same line."""


def replay_reduced(
    lines: np.ndarray, writes: np.ndarray, config: CacheConfig, flush: bool
) -> CacheResult:
    """The same result as `_replay` (of `lines`, the addresses over the line size)
    when every hit refreshes the LRU order, with most hits found by numpy
    (`_reduce`) instead of replayed one by one; `tapeflow_benchmarks.speed` times
    it, the method every size once took, against `simulate_caches`."""
    reduced = _reduce(lines, writes, config.sets, config.assoc)
    hit_kept, victims_kept, writebacks, left_dirty = _replay_sets(
        reduced.lines, reduced.writes, reduced.bounds, config.assoc
    )
    return reduced.result(hit_kept, victims_kept, writebacks, left_dirty, flush)


@dataclass(frozen=True)
class _Reduced:
    """The accesses `_reduce` keeps, set by set, and how to map back."""

    n: int
    order: np.ndarray
    """The stable sort of the accesses by set."""
    kept: np.ndarray
    """Positions (in `order`) of the accesses to replay."""
    lines: list[int]
    writes: list[bool]
    bounds: list[int]
    """`lines[bounds[i]:bounds[i + 1]]` are one set's kept accesses."""

    def result(
        self,
        hit_kept: bytearray | np.ndarray,
        victims_kept: dict[int, int],
        writebacks: int,
        left_dirty: list[int],
        flush: bool,
    ) -> CacheResult:
        """The `CacheResult` of a replay of the kept accesses (every other one a hit)."""
        n, kept, order = self.n, self.kept, self.order
        hit_sorted = np.ones(n, dtype=bool)
        hit_sorted[kept] = np.frombuffer(hit_kept, dtype=bool)
        where = np.fromiter(victims_kept.keys(), dtype=np.int64, count=len(victims_kept))
        line = np.fromiter(victims_kept.values(), dtype=np.int64, count=len(victims_kept))
        at = order[kept[where]]
        in_order = np.argsort(at, kind="stable")
        hit = np.empty(n, dtype=bool)
        hit[order] = hit_sorted
        flushed = np.array(left_dirty if flush else [], dtype=np.int64)
        writebacks += flushed.size
        misses = int(n - np.count_nonzero(hit))
        return CacheResult(hit, writebacks, at[in_order], line[in_order], flushed, misses)


def _stable_order(keys: np.ndarray, bits: int) -> np.ndarray:
    """The stable order of `keys` (non-negative, below 2^bits; a 32-bit unsigned
    `keys` is the caller's scratch, overwritten), as `intp`, the type numpy
    indexes with (another would be converted at each gather through it). Keys
    of up to 16 bits: numpy's stable argsort of them as 8- or 16-bit integers,
    a radix sort, linear in the keys (PathFinder's 219 k kept accesses by set:
    1.9 ms against 5.7 ms for the sort below). Wider keys, where a key and a
    position fit 32 bits together: one sort of `key << position bits |
    position` (distinct words); else numpy's stable argsort."""
    if bits <= 16:
        narrow = np.uint8 if bits <= 8 else np.uint16
        return np.argsort(keys.astype(narrow, copy=False), kind="stable")
    shift = _position_bits(keys.size)
    if bits + shift > 32:
        return np.argsort(keys, kind="stable")
    packed = keys.astype(np.uint32, copy=False)
    packed <<= np.uint32(shift)
    packed |= np.arange(keys.size, dtype=np.uint32)
    packed.sort()
    order = np.empty(keys.size, dtype=np.intp)
    return np.bitwise_and(packed, np.uint32((1 << shift) - 1), out=order, casting="unsafe")


def _position_bits(n: int) -> int:
    """The bits that every position among `n` takes."""
    return max(n - 1, 1).bit_length()


def _any_in(flags: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per segment of the booleans `flags` from each of `starts` (ascending, the
    first 0) to the next (the last to the end), whether any of it is set: the
    differences of a running count of the set flags at the segments' bounds
    (numpy's `logical_or.reduceat` over PathFinder's 117 k runs of one line:
    1.3 ms against 0.47 ms)."""
    if not starts.size:
        return np.zeros(0, dtype=bool)
    count = np.empty(flags.size + 1, dtype=np.int32 if flags.size < 1 << 31 else np.int64)
    count[0] = 0
    np.cumsum(flags, dtype=count.dtype, out=count[1:])
    return count[np.append(starts[1:], flags.size)] > count[starts]  # type: ignore[no-any-return]


def _by_set(lines: np.ndarray, sets: int) -> np.ndarray:
    """The stable order of `lines` by set (`_stable_order` of the set numbers,
    computed in one pass into the fewest bytes that hold them). One set: the
    accesses' own order."""
    if sets == 1:
        return np.arange(lines.size, dtype=np.intp)
    bits = (sets - 1).bit_length()
    for dtype in (np.uint8, np.uint16, np.uint32):
        if bits <= 8 * np.dtype(dtype).itemsize:  # the low bytes hold the set
            keys = np.empty(lines.size, dtype=dtype)
            return _stable_order(np.bitwise_and(lines, sets - 1, out=keys, casting="unsafe"), bits)
    return np.argsort(lines & (sets - 1), kind="stable")


def _by_line(heads: np.ndarray, real: np.ndarray, line: np.ndarray, sets: int) -> np.ndarray:
    """A stable order of `line` (the lines `heads` of accesses taken set by set
    where `real`, negative sentinels elsewhere) in which each line's accesses
    are together: by tag (the line over the sets), a `_stable_order` of 16-bit
    keys where the tags span fewer (the sentinels' key 0). Lines of one tag but
    different sets stay apart: the accesses are in set order."""
    tag = heads >> (sets.bit_length() - 1)
    low = int(tag.min())
    span = int(tag.max()) - low + 1
    if span < 1 << 16:
        key = np.zeros(line.size, dtype=np.uint16)
        key[real] = tag - (low - 1)
        return _stable_order(key, span.bit_length())
    return np.argsort(line, kind="stable")


def _reduce(lines: np.ndarray, writes: np.ndarray, sets: int, ways: int) -> _Reduced:
    """
    The accesses a true-LRU cache of `sets` sets and at least `ways` ways must
    replay, the others being hits that numpy proves.

    Sets are independent, so the accesses are taken set by set (a stable sort by
    set). Within a set, an access to a line that was accessed at most `ways`
    accesses earlier is a hit: fewer than `ways` other lines came in between.
    Take a run of such certain hits (between two other accesses of the set):
    nothing is evicted in it, and what it leaves behind is the run's lines moved
    to the most recently used end in the order of their last access in the run,
    each dirty if the run wrote it. Replaying only the last access of each line
    in the run, as a write if any access of the line in the run wrote, leaves
    exactly that. So all other accesses of the run are marked hits and skipped,
    and the rest is replayed in order, each set on its own. (A certain hit with
    `ways` ways is one with more, so the same holds for every larger cache of
    `sets` sets.)
    """
    n = lines.size
    set_of = lines & (sets - 1)
    order = _by_set(lines, sets)
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
        effective_writes[lasts] = _any_in(set_writes[grouped], starts)
    kept = np.flatnonzero(keep)
    # The kept accesses are still grouped by set, each set in program order.
    bounds = np.flatnonzero(np.diff(set_of[order][kept])) + 1
    return _Reduced(
        n,
        order,
        kept,
        by_set[kept].tolist(),
        effective_writes[kept].tolist(),
        [0, *bounds.tolist(), kept.size],
    )


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


def simulate_caches(
    addresses: np.ndarray,
    writes: np.ndarray,
    configs: Iterable[CacheConfig],
    flush: bool = True,
    runs: Sequence[LoopRuns] = (),
) -> dict[CacheConfig, CacheResult]:
    """`simulate_cache` for each of `configs`, with one replay for all the true-LRU
    caches of more than `VECTOR_WAYS` ways that share a line size and a number of
    sets (`_replay_ways`). The others each on its own: up to `VECTOR_WAYS` ways
    numpy alone (`_replay_stack`) is faster than any replay; with
    `lru_on_write=False` a write hit leaves the order as it is, so that a smaller
    cache's content is not always in a larger one's and no one replay serves
    several."""
    addresses = _checked(addresses)
    results: dict[CacheConfig, CacheResult] = {}
    shared: dict[tuple[int, int], list[CacheConfig]] = {}
    for config in dict.fromkeys(configs):
        config.validate()
        if config.lru_on_write and config.assoc > VECTOR_WAYS and len(addresses):
            shared.setdefault((config.line_bytes, config.sets), []).append(config)
        else:
            results[config] = simulate_cache(addresses, writes, config, flush, runs)
    for (line_bytes, sets), group in shared.items():
        ways = sorted({c.assoc for c in group})
        if len(ways) == 1 or len(ways) > 255:  # per access, the caches missed: a byte
            results.update({c: simulate_cache(addresses, writes, c, flush) for c in group})
            continue
        shift = line_bytes.bit_length() - 1
        lines = addresses >> shift
        by_ways = _replay_ways(lines, np.asarray(writes, dtype=bool), sets, ways, flush)
        results.update({c: by_ways[c.assoc] for c in group})
    return results


def _replay_ways(
    lines: np.ndarray, writes: np.ndarray, sets: int, ways: list[int], flush: bool
) -> dict[int, CacheResult]:
    """
    True-LRU caches of `sets` sets and each of `ways` (ascending) ways, in one
    replay: per set, the lines in the order of their last access (Mattson's LRU
    stack, the most recent first), which is the same for every number of ways;
    a cache of W ways holds the stack's first W lines. An access at stack depth
    d hits every cache of more than d ways and misses the others, each of which
    (if full) evicts the line at depth W - 1. What stays per cache is whether a
    line is dirty there: a bit per number of ways, set by a write, cleared when
    the cache evicts the line or (a read miss) fetches it clean. The accesses
    replayed are those `_reduce` keeps for the fewest ways (a certain hit there
    is one in every larger cache too).
    """
    reduced = _reduce(lines, writes, sets, ways[0])
    count, deepest = len(ways), ways[-1]
    every = (1 << count) - 1
    line_list, write_list, bounds = reduced.lines, reduced.writes, reduced.bounds
    missed = bytearray(len(line_list))  # per access: how many of the caches it misses
    victims: list[dict[int, int]] = [{} for _ in ways]
    writebacks = [0] * count
    left_dirty: list[list[int]] = [[] for _ in ways]
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        stack: list[int] = []  # the most recent first, as deep as the largest cache
        dirty: dict[int, int] = {}  # per line of the stack: the caches it is dirty in
        for k in range(lo, hi):
            line = line_list[k]
            depth = stack.index(line) if line in stack else deepest
            size = len(stack)
            misses = 0
            for i, w in enumerate(ways):
                if depth < w:
                    break
                misses = i + 1
                if size >= w:  # full: the line at depth w - 1 leaves this cache
                    evicted = stack[w - 1]
                    bits = dirty[evicted]
                    if bits >> i & 1:
                        dirty[evicted] = bits & ~(1 << i)
                        writebacks[i] += 1
                        victims[i][k] = evicted
            missed[k] = misses
            if depth < size:
                del stack[depth]
            elif size == deepest:
                del dirty[stack.pop()]  # evicted from every cache: clean everywhere
            stack.insert(0, line)
            if write_list[k]:
                dirty[line] = every
            else:  # fetched clean where it missed
                dirty[line] = dirty.get(line, 0) & ~((1 << misses) - 1)
        for i, w in enumerate(ways):
            left_dirty[i].extend(x for x in reversed(stack[:w]) if dirty[x] >> i & 1)
    missed_array = np.frombuffer(missed, dtype=np.uint8)
    return {
        w: reduced.result(
            (missed_array <= i).tobytes(), victims[i], writebacks[i], left_dirty[i], flush
        )
        for i, w in enumerate(ways)
    }


VECTOR_WAYS = 8
"""Up to this many ways, `_replay_stack` (numpy, one step per way) beats the
replay on the paper-size traces (LeNet's 4 ways: 0.25 s against 0.62 s; 16 ways
of one set: 1.0 s against 0.7 s)."""


def _skip_certain_hits(
    line: np.ndarray, at: np.ndarray, wrote: np.ndarray, ways: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """
    The merged accesses `_replay_stack` must replay (set by set, each with its
    `line`, its first position in program order `at` and whether it writes),
    fewer where numpy proves many of them hits (docs/research/cache-replay.md).
    An access to a line that one of the `ways` accesses before it touched is a
    certain hit (at most `ways - 1` other lines came in between). In a run of
    certain hits nothing is evicted, and the LRU order after it is the order of
    each line's last access in it: an access whose line comes again later in
    the run is left out, unless it writes and that next access does not (a
    write anywhere in a line's stay makes the line dirty when the stay ends).
    The accesses left that touch the line of the one before them are merged
    into it again. Only where certain hits are common (a quarter at least).
    """
    m = line.size
    match = {back: line[back:] == line[:-back] for back in range(2, min(ways, m - 1) + 1)}
    certain = np.zeros(m, dtype=bool)  # (merged accesses alternate lines: 1 back never matches)
    for back, same in match.items():
        certain[back:] |= same
    if 4 * np.count_nonzero(certain) < m:
        return line, at, wrote
    nearer = np.zeros(m, dtype=bool)  # the line came at a smaller distance back
    span = np.zeros(m, dtype=bool)  # the accesses from that distance back are certain hits
    span[1:] = certain[:-1]
    again = np.zeros(m, dtype=bool)  # the line comes again in the run
    written = np.zeros(m, dtype=bool)  # ... and that next access writes
    for back, same in match.items():
        span[back:] &= certain[:-back]
        span[:back] = False
        linked = same & ~nearer[back:] & span[back:]  # access i's own run, `back` before i
        again[:-back] |= linked
        written[:-back] |= linked & wrote[back:]
        nearer[back:] |= same
    keep = ~again | (wrote & ~written)
    line, at, wrote = line[keep], at[keep], wrote[keep]
    starts = np.flatnonzero(np.concatenate([[True], line[1:] != line[:-1]]))
    return line[starts], at[starts], _any_in(wrote, starts)


LONG_RUN = 64
"""`_repeats_left_out` looks at the runs of at least this many accesses (and
three iterations); shorter ones are replayed whole."""


def _repeats_left_out(
    addresses: np.ndarray,
    lines: np.ndarray,
    writes: np.ndarray,
    runs: Sequence[LoopRuns],
    sets: int,
    ways: int,
    shift: int,
) -> np.ndarray | None:
    """
    The positions of the accesses a true-LRU cache of `sets` sets, `ways` ways
    and lines of `1 << shift` bytes must replay, in order, the others being hits
    that the loop runs `runs` prove change nothing; None where fewer than half
    are left out (the replay then takes every access). Why each rule is exact:
    docs/research/cache-replay.md ("Loop runs").

    In a run, take access j in iteration t, touching line L of set X, and
    count the lines other than L that the run's other accesses may touch in X
    (`_lines_beside`):

    - none: if access j touched L in iteration t - 1 too, nothing of X came in
      between; the replay merges the access into an earlier one (taken set by
      set), and it is left out unless it writes and access j of iteration
      t - 1 does not;
    - at most `ways - 1`: if access j touches L in iterations t - 1 and t + 1
      too, it is a hit that changes nothing (X holds L from its first access
      in those iterations to its last, and evicts only lines older than every
      line the run touched since), left out unless it writes and iteration
      t + 1's does not.
    """
    groups: list[tuple[LoopRuns, np.ndarray, int]] = []  # a loop's runs of one length
    for loop in runs:
        if loop.trips.size <= FEW_RUNS:
            groups += _few_runs_groups(loop, addresses.size)
            continue
        chosen = (loop.trips >= 3) & (loop.trips * loop.width >= LONG_RUN)
        start, trips = loop.start[chosen], loop.trips[chosen]
        if not start.size:
            continue
        if int((start + trips * loop.width).max()) > addresses.size:
            raise ValueError("cache replay: a loop run reaches past the trace's end")
        if (np.diff(start) < trips[:-1] * loop.width).any():
            raise ValueError("cache replay: a loop's runs overlap")
        lengths = np.sort(trips)  # distinct (numpy's `unique` imports `numpy.ma`)
        lengths = lengths[np.concatenate([[True], lengths[1:] != lengths[:-1]])]
        groups.extend((loop, start[trips == n], n) for n in lengths.tolist())
    groups.sort(key=lambda g: g[1].size * g[2] * g[0].width, reverse=True)
    groups = groups[:RUN_GROUPS]
    if 2 * sum((n - 2) * at.size * loop.width for loop, at, n in groups) < addresses.size:
        return None  # at most these left out: not worth looking
    plans: list[tuple[np.ndarray, int, int, np.ndarray, np.ndarray]] = []
    estimate = 0
    for loop, at, n in groups:
        chunk = max(1, BESIDE_ENTRIES // loop.width**2)
        beside = None
        if at.size * loop.width**2 <= FEW_BESIDE:
            beside = _lines_beside_few(
                addresses, lines, at, n, loop.width, loop.affine, sets, shift
            )
        if beside is None:
            beside = np.concatenate(
                [
                    _lines_beside(
                        addresses, lines, at[k : k + chunk], n, loop.width, loop.affine, sets, shift
                    )
                    for k in range(0, at.size, chunk)
                ]
            )
        alone, fits = beside == 0, beside < ways
        if fits.any():
            plans.append((at, n, loop.width, alone, fits))
            estimate += (n - 2) * int(fits.sum())
    if 2 * estimate < addresses.size:
        return None
    keep = np.ones(addresses.size, dtype=bool)
    for at, n, width, alone, fits in plans:
        line, wrote = _runs_block(lines, at, n, width), _runs_block(writes, at, n, width)
        same = line[:, 1:] == line[:, :-1]  # as in the iteration before
        beside = fits & ~alone
        if beside.any():  # the same line before and after, a write only before a write
            inside = same[:, :-1] & same[:, 1:]
            inside &= wrote[:, 2:] >= wrote[:, 1:-1]
            inside &= beside[:, None, :]
        # The same line before, nothing of its set between, a write only after a write.
        merged = same
        merged &= wrote[:, :-1] >= wrote[:, 1:]
        if not alone.all():
            merged &= alone[:, None, :]
        if beside.any():
            merged[:, :-1] |= inside
        if _evenly(at):
            np.logical_not(merged, out=_runs_block(keep, at, n, width)[:, 1:])
        else:
            keep[at[:, None, None] + width * np.arange(1, n)[:, None] + np.arange(width)] = ~merged
    kept_at = np.flatnonzero(keep)
    return kept_at if 2 * kept_at.size <= addresses.size else None


FEW_RUNS = 16
"""A loop of this many runs at most has its runs grouped by length in Python
(`_few_runs_groups`): numpy's ten calls for it cost more on a few."""


def _few_runs_groups(loop: LoopRuns, size: int) -> list[tuple[LoopRuns, np.ndarray, int]]:
    """`_repeats_left_out`'s groups of `loop`'s runs (of at least three
    iterations and `LONG_RUN` accesses; one group per length, ascending, each
    its runs' starts in order) among a trace of `size` accesses, its checks
    the same."""
    width = loop.width
    chosen = [
        (start, trips)
        for start, trips in zip(loop.start.tolist(), loop.trips.tolist(), strict=True)
        if trips >= 3 and trips * width >= LONG_RUN
    ]
    if not chosen:
        return []
    if max(start + trips * width for start, trips in chosen) > size:
        raise ValueError("cache replay: a loop run reaches past the trace's end")
    if any(b[0] - a[0] < a[1] * width for a, b in zip(chosen, chosen[1:], strict=False)):
        raise ValueError("cache replay: a loop's runs overlap")
    by_length: dict[int, list[int]] = {}
    for start, trips in chosen:
        by_length.setdefault(trips, []).append(start)
    dtype = loop.start.dtype
    return [(loop, np.array(by_length[n], dtype=dtype), n) for n in sorted(by_length)]


RUN_GROUPS = 64
"""`_repeats_left_out` looks at this many groups of a loop's runs of one length
at most (those of most accesses): one per length of a triangular nest's runs
would cost more than they save."""


BESIDE_ENTRIES = 1 << 20
"""`_lines_beside` takes a loop's runs this many (run, access, access) entries at
a time at most (its arrays are that large, 8 MB each): a wide loop's runs in
chunks, each run's counts its own, and a loop wider than `BESIDE_ENTRIES ** 0.5`
(a fully unrolled body) a block of its accesses at a time."""


def _evenly(at: np.ndarray) -> bool:
    """Runs at positions `at` are evenly spaced (a loop nest's usually are)."""
    return at.size < 3 or bool((np.diff(at) == at[1] - at[0]).all())


def _runs_block(values: np.ndarray, at: np.ndarray, n: int, width: int) -> np.ndarray:
    """The runs of `n` iterations of `width` accesses at positions `at` (apart)
    of `values`, as (run, iteration, access): a view where they are evenly
    spaced, else a copy."""
    if not _evenly(at):
        return values[at[:, None, None] + width * np.arange(n)[:, None] + np.arange(width)]
    space = int(at[1] - at[0]) if at.size > 1 else 0
    step = values.strides[0]  # bytes from one access to the next
    shape, strides = (at.size, n, width), (space * step, width * step, step)
    if values.flags.c_contiguous:  # a view of its buffer (`as_strided` costs six times more)
        return np.ndarray(shape, values.dtype, values, int(at[0]) * step, strides)
    return np.lib.stride_tricks.as_strided(values[int(at[0]) :], shape, strides)


def _lines_beside(
    addresses: np.ndarray,
    lines: np.ndarray,
    at: np.ndarray,
    n: int,
    width: int,
    affine: tuple[bool, ...],
    sets: int,
    shift: int,
) -> np.ndarray:
    """Per run (of `n` iterations from positions `at`) and access j, how many
    lines other than the one access j touches in an iteration t the run's other
    accesses may touch in its set, in iteration t - 1 or t (at most). The
    addresses of an affine access i are `a[i] + t * s[i]`: the difference of
    access i's in iteration t - d (d = 0, 1) and access j's in iteration t is
    linear in t, between its values at t = 0 and t = n - 1, and their lines
    differ by that over the line size, rounded down and up. Otherwise their
    lines differ by at most what separates the lowest and highest each touches
    in the run. A set holds lines a multiple of `sets` apart: i may touch as
    many other lines of j's set as there are nonzero multiples of `sets` in
    that range."""
    steps = np.arange(width)
    first = addresses[at[:, None] + steps]  # (run, access)
    last = addresses[at[:, None] + (n - 1) * width + steps]
    stride = (last - first) // (n - 1)  # exact where affine
    low_line = np.minimum(first, last) >> shift
    high_line = np.maximum(first, last) >> shift
    moving = [j for j in range(width) if not affine[j]]
    if moving:
        touched = _runs_block(lines, at, n, width)[:, :, moving]
        low_line[:, moving], high_line[:, moving] = touched.min(axis=1), touched.max(axis=1)
    beside = np.zeros((at.size, width), dtype=np.int64)
    rows = max(1, BESIDE_ENTRIES // (at.size * width))  # a wide loop's accesses i in blocks
    for i in range(0, width, rows):
        block = slice(i, min(i + rows, width))
        beside += _beside_block(first, stride, low_line, high_line, block, n, affine, sets, shift)
    return beside


FEW_BESIDE = 256
"""Up to this many (run, access, access) entries, `_repeats_left_out` counts
them in Python's integers (`_lines_beside_few`): `_lines_beside` takes some
fifty numpy calls whatever their size."""


def _lines_beside_few(
    addresses: np.ndarray,
    lines: np.ndarray,
    at: np.ndarray,
    n: int,
    width: int,
    affine: tuple[bool, ...],
    sets: int,
    shift: int,
) -> np.ndarray | None:
    """`_lines_beside` of a few runs, the same counts in Python's integers; None
    if an address is 2**58 or more (then numpy's int64 steps there could wrap,
    and `_lines_beside` counts them)."""
    address = addresses.item
    bits = sets.bit_length() - 1
    counts: list[list[int]] = []
    for start in at.tolist():
        end = start + (n - 1) * width
        first = [address(start + j) for j in range(width)]
        last = [address(end + j) for j in range(width)]
        if max(*first, *last) >= 1 << 58:
            return None
        stride = [(b - a) // (n - 1) for a, b in zip(first, last, strict=True)]
        low_line = [min(a, b) >> shift for a, b in zip(first, last, strict=True)]
        high_line = [max(a, b) >> shift for a, b in zip(first, last, strict=True)]
        for j in range(width):
            if not affine[j]:  # the lines it touched, lowest to highest
                touched = lines[start + j : end + j + 1 : width]
                low_line[j], high_line[j] = int(touched.min()), int(touched.max())
        row = [0] * width
        for i in range(width):
            for j in range(width):
                if i == j:
                    continue
                if affine[i] and affine[j]:
                    base = first[i] - first[j]
                    moved = base + (n - 1) * (stride[i] - stride[j])
                    corners = (base, base - stride[i], moved, moved - stride[i])
                    low, high = min(corners) >> shift, -(-max(corners) >> shift)
                else:
                    low = low_line[i] - high_line[j]
                    high = high_line[i] - low_line[j]
                least, most = -(-low >> bits), high >> bits
                row[j] += max(most - least + 1, 0) - (least <= 0 <= most)
        counts.append(row)
    return np.array(counts, dtype=np.int64).reshape(at.size, width)


def _beside_block(
    first: np.ndarray,
    stride: np.ndarray,
    low_line: np.ndarray,
    high_line: np.ndarray,
    block: slice,
    n: int,
    affine: tuple[bool, ...],
    sets: int,
    shift: int,
) -> np.ndarray:
    """`_lines_beside`'s counts from the accesses i of `block` alone, as (run, j)."""
    base = first[:, block, None] - first[:, None, :]  # (run, i, j)
    drift = stride[:, block, None] - stride[:, None, :]
    low = high = base
    for t, d in ((0, 1), (n - 1, 0), (n - 1, 1)):
        corner = base + t * drift - d * stride[:, block, None]
        low, high = np.minimum(low, corner), np.maximum(high, corner)
    low, high = low >> shift, -(-high >> shift)  # lines apart, rounded down and up
    both = np.array(affine[block])[:, None] & np.array(affine)[None, :]
    low = np.where(both, low, low_line[:, block, None] - high_line[:, None, :])
    high = np.where(both, high, high_line[:, block, None] - low_line[:, None, :])
    bits = sets.bit_length() - 1
    least, most = -(-low >> bits), high >> bits  # the multiples of `sets` in range
    count = np.maximum(most - least + 1, 0) - ((least <= 0) & (most >= 0))
    own = np.arange(block.start, block.stop)
    count[:, own - block.start, own] = 0  # an access is not beside itself
    return count.sum(axis=1)  # type: ignore[no-any-return]


def _replay_stack(
    lines: np.ndarray,
    writes: np.ndarray,
    sets: int,
    ways: int,
    flush: bool,
    kept: np.ndarray | None = None,
    size: int = 0,
) -> CacheResult:
    """
    The same result as `_replay` for a true-LRU cache of `ways` ways, all in
    numpy: each set's LRU stack is computed a depth at a time, for every access
    at once (docs/research/cache-replay.md). Take the accesses set by set (a
    stable sort by set), merge each run of accesses to one line into its first
    (the others hit; the run writes if any of its accesses does), and replay
    them (`_stack_sets`).
    `kept`: the positions among `size` accesses of those given (None: all are),
    every other one a hit that changes nothing (`_repeats_left_out`).
    """
    n = lines.size if kept is None else size
    order = _by_set(lines, sets)
    by_set = lines[order]
    heads = np.flatnonzero(np.concatenate([[True], by_set[1:] != by_set[:-1]]))
    at = order[heads] if kept is None else kept[order[heads]]
    head_line, head_at, head_wrote = _skip_certain_hits(
        by_set[heads], at, _any_in(writes[order], heads), ways
    )
    head_set = head_line & (sets - 1)
    ends = np.append(np.flatnonzero(head_set[1:] != head_set[:-1]) + 1, head_line.size)
    hit, evicting, victim, held = _stack_sets(head_line, head_wrote, ends, sets, ways, flush)
    # Back in program order: only the misses and the evictions move. Both are
    # marked in one flag per access (1 a miss, 2 one that writes a line back)
    # and found there in order (a pass over the flags costs less than sorting
    # them, even as runs already in order, one per set); an eviction's line
    # through the merged access at its position.
    marks = np.zeros(n, dtype=np.int8)
    marks[head_at[~hit]] = 1
    evicting_at = head_at[evicting]
    marks[evicting_at] = 2
    result_hit = marks == 0
    missed_at = np.flatnonzero(~result_hit)  # (numpy searches booleans fastest)
    evicted_at = missed_at[marks[missed_at] == 2]
    merged_at = np.empty(n, dtype=np.intp)
    merged_at[evicting_at] = victim
    evicted = head_line[merged_at[evicted_at]].astype(np.int64)
    flushed = head_line[held].astype(np.int64) if flush else np.zeros(0, dtype=np.int64)
    writebacks = evicting.size + flushed.size
    result = CacheResult(result_hit, writebacks, evicted_at, evicted, flushed, missed_at.size)
    result.__dict__["missed_at"] = missed_at  # known: not searched for
    return result


STAY_STEPS = 4
"""`_stay_wrote` follows a line's hits back this many at most, one numpy step
each (a line's stay is usually its miss and few hits); the accesses left then
are answered from every access's answer."""


def _stay_wrote(
    asked: np.ndarray, wrote: np.ndarray, hit: np.ndarray, prev: np.ndarray, by_line: np.ndarray
) -> np.ndarray:
    """Per access of `asked` (merged accesses of `_stack_sets`, each writing if
    `wrote`, hitting if `hit`, `prev` its line's access before it and `by_line`
    the accesses line by line), whether its line's stay up to it wrote: it
    writes, or it hits and the stay up to the access before it wrote (a miss
    starts a stay). Followed back from the accesses asked about, a step for all
    at once, at most `STAY_STEPS`; the rest from every access's answer (`_stays_wrote`)."""
    found = wrote[asked]
    open_ = np.flatnonzero(~found & hit[asked])  # those of `asked` still open
    back = prev[asked[open_]]
    for _ in range(STAY_STEPS):
        if not open_.size:
            return found
        wrote_back = wrote[back]
        found[open_[wrote_back]] = True
        more = ~wrote_back & hit[back]
        open_, back = open_[more], prev[back[more]]
    if open_.size:
        found[open_] = _stays_wrote(wrote, hit, by_line)[back]
    return found


def _stays_wrote(wrote: np.ndarray, hit: np.ndarray, by_line: np.ndarray) -> np.ndarray:
    """`_stay_wrote` of every access: line by line (each line's first access a
    miss), whether its latest event so far (twice its position, plus one for a
    write, which outweighs a miss at the same access; -1 a hit that does not
    write) is a write."""
    write_in_line = wrote[by_line]
    event = np.arange(by_line.size, dtype=by_line.dtype) << 1
    event |= write_in_line
    event[hit[by_line] & ~write_in_line] = -1
    np.maximum.accumulate(event, out=event)
    dirty = np.empty(by_line.size, dtype=bool)
    dirty[by_line] = event & 1
    return dirty


def _stack_sets(
    head_line: np.ndarray,
    head_wrote: np.ndarray,
    ends: np.ndarray,
    sets: int,
    ways: int,
    flush: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """
    The LRU stacks of merged accesses given set by set (`head_line`, each
    writing if `head_wrote`; a set's end at each of `ends`), every set from
    empty: per access whether it hits, the accesses whose miss evicts a dirty
    line (in order) and per such access the last access to the line it evicts,
    and (with `flush`) the accesses that last touched the dirty lines left at
    the end, set by set, the least recently used first. Each set ends with a
    sentinel access to a line of its own (the stack it finds is the set's
    content at the end). `top[k][j]` is the access that last touched the line
    at depth k of the stack access j finds (-1: none). Access j pushes its line
    on top and takes it from where it was, at its previous access `prev[j]`:
    `top[0][j + 1] = j`, and below, `top[k][j + 1]` is `top[k - 1][j]` if that
    is above `prev[j]`, else `top[k][j]`: the latter a forward fill.
    """
    m = head_line.size + ends.size
    sentinel = ends + np.arange(ends.size)
    real = np.ones(m, dtype=bool)
    real[sentinel] = False
    line = np.empty(m, dtype=head_line.dtype)
    line[real] = head_line
    line[sentinel] = -1 - np.arange(ends.size)
    wrote = np.zeros(m, dtype=bool)
    wrote[real] = head_wrote
    first = np.concatenate([[0], sentinel[:-1] + 1])  # each set's first access
    by_line = _by_line(head_line, real, line, sets)
    grouped = line[by_line]
    same = grouped[1:] == grouped[:-1]
    index = np.int32 if 2 * m < 1 << 31 else np.int64  # half the bytes to move
    by_line = by_line.astype(index)
    # Each access's previous one to its line (-1: none), set through the line
    # order at once (a masked scatter of the repeats costs more).
    prev = np.empty(m, dtype=index)
    prev[by_line[0]] = -1
    prev[by_line[1:]] = np.where(same, by_line[:-1], -1)
    positions = np.arange(m, dtype=index)
    above = positions - 1  # top[0]
    above[first] = -1
    at_end = [above[sentinel]]  # the stack each sentinel finds, depth by depth
    if ways > 1:
        # top[1][j] = j - 2 within the set: merged accesses alternate lines, so
        # the line before the last one was last touched two accesses back.
        above = positions - 2
        above[first] = -1
        above[first + 1] = -1  # a set's first access is never its last (the sentinel)
        at_end.append(above[sentinel])
    for _ in range(2, ways):
        # top[k][j + 1] = top[k - 1][j] where that is above prev[j]; else carried;
        # -1 at each set's first access. The carry is a gather from the last
        # position taken so far, found by counting the positions taken (numpy's
        # running maximum of positions costs three times a running sum).
        taken = np.empty(m, dtype=bool)
        np.greater(above[:-1], prev[:-1], out=taken[1:])
        taken[first] = True  # first[0] is 0
        value = np.empty(m, dtype=index)
        value[1:] = above[:-1]
        value[first] = -1
        count = np.add.accumulate(taken, dtype=index)
        count -= 1
        above = value[np.flatnonzero(taken)][count]
        at_end.append(above[sentinel])
    deepest = above  # top[ways - 1]
    hit = (prev >= 0) & (prev >= deepest)
    evicting = np.flatnonzero(real & ~hit & (deepest >= 0))
    victim = deepest[evicting]
    if flush:
        # Per set, the lines held at the end, the least recently used first.
        held = np.stack(at_end[::-1], axis=1).reshape(-1)
        held = held[held >= 0]
        asked = np.concatenate([victim, held])
    else:
        held = np.zeros(0, dtype=index)
        asked = victim
    dirty = _stay_wrote(asked, wrote, hit, prev, by_line)
    chosen = dirty[: victim.size]
    evicting, victim, held = evicting[chosen], victim[chosen], held[dirty[victim.size :]]
    # Merged positions to the given accesses': a set's sentinel and those of
    # the sets before it are not among them.
    evicting -= np.searchsorted(sentinel, evicting)
    victim -= np.searchsorted(sentinel, victim)
    held -= np.searchsorted(sentinel, held)
    return hit[real], evicting, victim, held
