"""
The cache model against an established cache simulator (pycachesim), on address
traces recorded from real kernels: identical hits, misses and write-backs for the
paper's cache sizes and associativities. Plus hand-computed cases, and the one-pass
replay of several caches (`simulate_caches`) against one replay per cache.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from cachesim import Cache, CacheSimulator, MainMemory
from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass
from lowering.tapeflow_regions import TapeflowRegionsPass
from sim import cache, kernel_compiler
from sim.cache import (
    CacheResult,
    LoopRuns,
    _any_in,
    _lines_beside,
    _repeats_left_out,
    _replay,
    _runs_block,
    _skip_certain_hits,
    _stable_order,
    simulate_cache,
    simulate_caches,
)
from sim.executor import Executor
from sim.simulator import execute, prepare
from sim.trace import MemoryTrace
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.tapeflow_run import bind_arguments
from targets.hardware import CacheConfig, associativity_for, configure


def record(key: str, module: ModuleOp) -> MemoryTrace:
    trace = MemoryTrace()
    executor = Executor(module, trace)
    inputs = KERNELS[key].inputs("small")
    function = executor.functions[f"{key}_grad"]
    args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
    executor.run(f"{key}_grad", args)
    return trace


def reference(
    addresses: np.ndarray, writes: np.ndarray, config: CacheConfig
) -> tuple[int, int, int]:
    memory = MainMemory()
    cache = Cache(
        "L1",
        config.sets,
        config.assoc,
        config.line_bytes,
        "LRU",
        write_back=True,
        write_allocate=True,
    )
    memory.load_to(cache)
    memory.store_from(cache)
    simulator = CacheSimulator(cache, memory)
    for address, write in zip(addresses.tolist(), writes.tolist(), strict=False):
        if write:
            simulator.store(address, length=8)
        else:
            simulator.load(address, length=8)
    simulator.force_write_back()
    stats = cache.stats()
    # pycachesim counts hits of loads only (a store that hits loads nothing); its
    # misses include the line fills of store misses (write-allocate), and its
    # evictions from a write-back cache are the dirty lines written back.
    return stats["HIT_count"], stats["MISS_count"], stats["EVICT_count"]


SIZES = [1024, 2048, 32 * 1024, 64 * 1024, 128 * 1024]


def _random_trace(
    rng: np.random.Generator, kind: int, n: int, lines: int
) -> tuple[np.ndarray, np.ndarray]:
    """`n` accesses to 8-byte words of `lines` 64-byte lines, and which write:
    random lines (kind 0), runs of three on one line (1), or a sequential sweep
    that wraps (2)."""
    match kind:
        case 0:
            line = rng.integers(0, lines, n)
        case 1:
            line = np.repeat(rng.integers(0, lines, n // 3 + 1), 3)[:n]
        case _:
            line = (np.arange(n) // int(rng.integers(1, 9))) % lines
    addresses = line * 64 + rng.integers(0, 8, n) * 8
    return addresses, rng.random(n) < rng.random()


@pytest.mark.parametrize("stage", ["enzyme", "aos"])
@pytest.mark.parametrize("key", ["logsum", "matdescent", "mttkrp", "pathfinder", "lenet"])
def test_hits_misses_and_writebacks_match_pycachesim(
    key: str, stage: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    module = differentiated(key)
    if stage == "aos":
        TapeflowRaiseTapePass().apply(make_context(), module)
        TapeflowRegionsPass().apply(make_context(), module)
    addresses, writes, tape = record(key, module).arrays()
    assert len(addresses) > 100
    assert tape.any() == (stage == "aos")
    for size in SIZES:
        # pycachesim's store hits do not refresh the LRU order; ours do by default.
        config = CacheConfig(size_bytes=size, assoc=associativity_for(size), lru_on_write=False)
        ours = simulate_cache(addresses, writes, config)
        load_hits = int(np.count_nonzero(ours.hit & ~writes))
        assert (load_hits, ours.misses, ours.writebacks) == reference(addresses, writes, config), (
            f"{key} ({stage}), {size} B {config.assoc}-way"
        )


def test_hand_computed_direct_mapped_conflicts() -> None:
    # 2 sets x 1 way x 64 B lines. Lines 0 and 2 map to set 0 and evict each other.
    config = CacheConfig(size_bytes=128, assoc=1, line_bytes=64)
    addresses = np.array([0, 8, 128, 0, 64, 72])
    writes = np.array([True, False, False, False, False, True])
    result = simulate_cache(addresses, writes, config)
    assert result.hit.tolist() == [False, True, False, False, False, True]
    # The dirty line 0 is evicted by line 2 (one write-back); line 1, dirty, is
    # written back by the final flush.
    assert result.writebacks == 2
    assert result.miss_lines == 4


def test_lru_keeps_the_recently_used_way() -> None:
    # One set of 2 ways: after touching A, B, A, the next line evicts B, not A.
    config = CacheConfig(size_bytes=128, assoc=2, line_bytes=64)
    a, b, c = 0, 64, 128
    result = simulate_cache(np.array([a, b, a, c, a, b]), np.zeros(6, bool), config)
    assert result.hit.tolist() == [False, False, True, False, True, False]


def test_a_store_hit_refreshes_lru_unless_told_not_to() -> None:
    # One set of 2 ways: load A, load B, store A, load C, load A.
    addresses = np.array([0, 64, 0, 128, 0])
    writes = np.array([False, False, True, False, False])
    true_lru = simulate_cache(addresses, writes, CacheConfig(size_bytes=128, assoc=2))
    assert true_lru.hit.tolist() == [False, False, True, False, True]  # C evicts B
    as_pycachesim = simulate_cache(
        addresses, writes, CacheConfig(size_bytes=128, assoc=2, lru_on_write=False)
    )
    assert as_pycachesim.hit.tolist() == [False, False, True, False, False]  # C evicts A
    assert as_pycachesim.writebacks == 1  # A was dirty


def test_distinct_buffers_never_share_a_line() -> None:
    trace = MemoryTrace()
    x, y = np.zeros(3), np.zeros((2, 2))
    trace.record(x, (2,), False, False)
    trace.record(y, (1, 1), True, True)
    trace.record(y[1:], (0, 0), False, True)  # a view: the same element as y[1, 0]
    addresses, writes, tape = trace.arrays()
    assert addresses[0] // 64 != addresses[1] // 64
    assert addresses[1] - addresses[2] == 8
    assert writes.tolist() == [False, True, False] and tape.tolist() == [False, True, True]


def _same_result(a: CacheResult, b: CacheResult) -> bool:
    return (
        a.hit.tolist() == b.hit.tolist()
        and a.victim.tolist() == b.victim.tolist()
        and sorted(a.flushed.tolist()) == sorted(b.flushed.tolist())
        and (a.writebacks, a.miss_lines) == (b.writebacks, b.miss_lines)
    )


@pytest.mark.parametrize("key", ["logsum", "mttkrp", "pathfinder", "lenet"])
def test_skipping_certain_hits_changes_nothing_on_kernel_traces(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    # True LRU (the default) replays only the accesses it cannot prove are hits;
    # `_replay` replays all of them.
    addresses, writes, _ = record(key, differentiated(key)).arrays()
    for size in SIZES:
        for assoc in {1, associativity_for(size)}:
            config = CacheConfig(size_bytes=size, assoc=assoc)
            for flush in (True, False):
                expected = _replay(addresses >> 6, writes, config, flush)
                assert _same_result(simulate_cache(addresses, writes, config, flush), expected), (
                    f"{key}, {size} B {assoc}-way, flush={flush}"
                )


def test_skipping_certain_hits_changes_nothing_on_random_traces() -> None:
    rng = np.random.default_rng(5)
    for trial in range(300):
        assoc = int(rng.choice([1, 2, 4, 8]))
        config = CacheConfig(size_bytes=64 * assoc * int(rng.choice([1, 2, 4])), assoc=assoc)
        n = int(rng.integers(1, 1500))
        lines = int(rng.integers(1, 64))
        addresses, writes = _random_trace(rng, trial % 3, n, lines)
        expected = _replay(addresses >> 6, writes, config, True)
        assert _same_result(simulate_cache(addresses, writes, config), expected), trial


def test_certain_hits_left_out_hand_computed() -> None:
    # One set's merged accesses: lines 1 2 1 2 1 3, the fifth a write; 4 ways.
    # Accesses 2, 3 and 4 are certain hits (their line two accesses back), one
    # run. Line 1 comes again in it (access 4) and access 2 reads: it is left
    # out, and accesses 1 and 3 (line 2 twice in a row) merge into the first.
    # Line 2's access 3 is the last of its line in the run, access 1 is before
    # the run (a miss may be there): both stay.
    line = np.array([1, 2, 1, 2, 1, 3])
    at = np.arange(6)
    wrote = np.array([False, False, False, False, True, False])
    kept_line, kept_at, kept_wrote = _skip_certain_hits(line, at, wrote, 4)
    assert kept_line.tolist() == [1, 2, 1, 3]
    assert kept_at.tolist() == [0, 1, 4, 5]
    assert kept_wrote.tolist() == [False, False, True, False]
    # A write whose line's next access in the run reads stays (its write must
    # reach the line's stay); one whose next access writes too is left out.
    wrote = np.array([False, False, True, False, False, False])
    assert _skip_certain_hits(line, at, wrote, 4)[0].tolist() == line.tolist()
    wrote = np.array([False, False, True, False, True, False])
    assert _skip_certain_hits(line, at, wrote, 4)[0].tolist() == [1, 2, 1, 3]
    # Two ways: nothing is certain beyond two back, and the run of three is
    # still one (accesses 2, 3, 4).
    assert _skip_certain_hits(line, at, wrote, 2)[0].tolist() == [1, 2, 1, 3]
    # Certain hits rare (fewer than a quarter): everything replayed.
    few = np.array([1, 2, 3, 4, 5, 1, 6, 7])
    assert _skip_certain_hits(few, np.arange(8), np.zeros(8, bool), 8)[0].tolist() == (few.tolist())


def test_leaving_certain_hits_out_changes_nothing_on_interleaved_streams() -> None:
    """Streams of accesses that walk their lines word by word, interleaved, with
    their lines in few sets (most accesses certain hits with a few ways, the
    traces `_skip_certain_hits` shortens): the same results as `_replay`, which
    replays every access."""
    rng = np.random.default_rng(17)
    shortened = 0
    for trial in range(400):
        assoc = int(rng.choice([2, 3, 4, 8]))
        sets = int(rng.choice([1, 2, 4]))
        config = CacheConfig(size_bytes=64 * assoc * sets, assoc=assoc)
        streams = int(rng.integers(2, assoc + 3))
        n = int(rng.integers(10, 1500))
        stream = rng.integers(0, streams, n) if trial % 2 else np.arange(n) % streams
        step = rng.integers(1, 9, streams)  # words per access: 8 is a line a step
        count = np.zeros(n, dtype=np.int64)
        for s in range(streams):
            mine = stream == s
            count[mine] = np.arange(np.count_nonzero(mine))
        base = rng.integers(0, 4 * sets, streams) * 64 * 1024
        addresses = base[stream] + count * step[stream] * 8
        writes = rng.random(n) < rng.choice([0.0, 0.3, 0.9, 1.0])
        lines = addresses >> 6
        order = np.argsort(lines & (sets - 1), kind="stable")
        merged = np.flatnonzero(np.concatenate([[True], lines[order][1:] != lines[order][:-1]]))
        kept = _skip_certain_hits(lines[order][merged], order[merged], writes[order][merged], assoc)
        shortened += kept[0].size < merged.size
        for flush in (True, False):
            expected = _replay(lines, writes, config, flush)
            got = simulate_cache(addresses, writes, config, flush)
            assert _same_result(got, expected), (trial, config, flush)
            # The positions the replay knows, not searched for: as searched.
            assert got.missed_at.tolist() == np.flatnonzero(~expected.hit).tolist()
            assert got.evicted_at.tolist() == np.flatnonzero(expected.victim >= 0).tolist()
    assert shortened > 100  # the shortened path ran, half the time


def test_lines_far_apart_take_the_wide_sort() -> None:
    """Lines whose tags span more than 16 bits (buffers far apart in the address
    space) are grouped by a sort of the lines themselves, not of 16-bit tags:
    the same results as the replay access by access, and as the same trace
    moved close together (every line's set kept)."""
    rng = np.random.default_rng(11)
    for trial in range(50):
        assoc = int(rng.choice([1, 2, 4, 8]))
        config = CacheConfig(size_bytes=64 * assoc * int(rng.choice([1, 4, 16])), assoc=assoc)
        n = int(rng.integers(1, 1200))
        addresses, writes = _random_trace(rng, trial % 3, n, int(rng.integers(1, 64)))
        far = addresses + (addresses >= 1024) * (config.sets * 64 << 20)  # tags 2**20 apart
        expected = _replay(far >> 6, writes, config, True)
        assert _same_result(simulate_cache(far, writes, config), expected), trial
        near = simulate_cache(addresses, writes, config)
        assert near.hit.tolist() == expected.hit.tolist(), trial


@pytest.mark.parametrize("offset", [1 << 32, 1 << 40])
def test_lines_beyond_32_bits_take_64_bit_columns(offset: int) -> None:
    """Addresses of 2^31 and more are shifted into 32-bit lines where these fit
    (addresses below 2^37), and lines of 2^31 and more stay 64-bit integers in
    the replay: the same results as the replay access by access."""
    rng = np.random.default_rng(13)
    for trial in range(30):
        assoc = int(rng.choice([1, 2, 4, 8]))
        config = CacheConfig(size_bytes=64 * assoc * int(rng.choice([1, 4])), assoc=assoc)
        addresses, writes = _random_trace(rng, trial % 3, int(rng.integers(1, 1000)), 40)
        high = addresses + offset
        expected = _replay(high >> 6, writes, config, True)
        assert _same_result(simulate_cache(high, writes, config), expected), trial


@pytest.mark.parametrize("size", [0, 1, 2, 1000, 70_000])
@pytest.mark.parametrize("bits", [1, 7, 16, 17, 24])
def test_the_packed_sort_is_a_stable_order(size: int, bits: int) -> None:
    """`_stable_order` (numpy's radix sort of keys of up to 16 bits, one sort of
    `key << b | position` words where wider keys and positions fit 32 bits,
    numpy's stable argsort otherwise) against numpy's stable argsort."""
    kind = np.uint16 if bits <= 16 else np.uint32
    keys = np.random.default_rng(size + bits).integers(0, 1 << bits, size).astype(kind)
    order = _stable_order(keys.copy(), bits)
    assert order.tolist() == np.argsort(keys, kind="stable").tolist()
    # 32-bit unsigned keys are sorted in place (the caller's scratch): a copy.
    wide = keys.astype(np.uint32)
    order = _stable_order(wide.copy(), bits)
    assert order.tolist() == np.argsort(wide, kind="stable").tolist()


@pytest.mark.parametrize("size", [1, 2, 1000, 70_000])
@pytest.mark.parametrize("share", [0.0, 0.01, 0.5, 1.0])
def test_any_in_is_a_reduction_per_segment(size: int, share: float) -> None:
    """`_any_in` (a running count of the flags at the segments' bounds) against
    `any` over each segment taken one by one, and numpy's `logical_or.reduceat`."""
    rng = np.random.default_rng(size)
    flags = rng.random(size) < share
    starts = np.flatnonzero(rng.random(size) < 0.3)
    starts = np.unique(np.concatenate([[0], starts]))
    bounds = [*starts.tolist(), size]
    expected = [bool(flags[a:b].any()) for a, b in zip(bounds, bounds[1:], strict=False)]
    assert _any_in(flags, starts).tolist() == expected
    assert _any_in(flags, starts).tolist() == np.logical_or.reduceat(flags, starts).tolist()
    assert _any_in(flags[:0], starts[:0]).tolist() == []


@pytest.mark.parametrize("evenly", [True, False])
@pytest.mark.parametrize("contiguous", [True, False])
def test_loop_run_blocks_are_the_runs_accesses(evenly: bool, contiguous: bool) -> None:
    """`_runs_block` (a view of the buffer where the runs are evenly spaced and
    the values contiguous, `as_strided` where not contiguous, a copy where not
    evenly spaced) against the accesses gathered one by one; a view writes
    through to the values."""
    n, width = 5, 3
    at = np.array([2, 30, 58] if evenly else [2, 30, 61])
    whole = np.arange(200, dtype=np.int64) * 7
    values = whole if contiguous else whole[::2]
    block = _runs_block(values, at, n, width)
    expected = [
        [[int(values[a + t * width + j]) for j in range(width)] for t in range(n)] for a in at
    ]
    assert block.tolist() == expected
    if evenly:
        block[1, 2, 0] = -1
        assert values[at[1] + 2 * width] == -1


@pytest.mark.parametrize("many", [False, True])
def test_a_negative_address_is_refused(many: bool) -> None:
    """The replays mark empty ways and padding with negative lines: a negative
    address (which the executor never makes) is refused, naming the access."""
    addresses = np.array([0, 64, -64, 128])
    writes = np.zeros(4, dtype=bool)
    configs = [CacheConfig(size_bytes=64 * w, assoc=w) for w in (1, 16, 32)]
    with pytest.raises(ValueError, match="access 2 has the negative address -64"):
        if many:
            simulate_caches(addresses, writes, configs)
        else:
            simulate_cache(addresses, writes, configs[1])


def test_one_pass_over_ways_hand_computed() -> None:
    # One set; lines A B C A D B, A and D written. 2 ways: every access misses;
    # C evicts A (dirty: a write-back), A (read) evicts B, D evicts C, B evicts A
    # (clean: fetched again by a load); the flush writes D back. 4 ways: A and B
    # hit the second time (2 and 3 other lines in between); nothing is evicted;
    # the flush writes A and D back.
    a, b, c, d = 0, 64, 128, 192
    addresses = np.array([a, b, c, a, d, b])
    writes = np.array([True, False, False, False, True, False])
    two, four = CacheConfig(size_bytes=128, assoc=2), CacheConfig(size_bytes=256, assoc=4)
    results = simulate_caches(addresses, writes, [four, two])
    assert results[two].hit.tolist() == [False] * 6
    assert results[two].victim.tolist() == [-1, -1, 0, -1, -1, -1]
    assert results[two].flushed.tolist() == [3]  # D; B is clean
    assert results[two].writebacks == 2
    assert results[four].hit.tolist() == [False, False, False, True, False, True]
    assert results[four].victim.tolist() == [-1] * 6
    assert sorted(results[four].flushed.tolist()) == [0, 3]
    assert results[four].miss_lines == 4


def _sweep_configs(sets_choices: list[int], ways: list[int]) -> list[CacheConfig]:
    return [CacheConfig(size_bytes=64 * s * w, assoc=w) for s in sets_choices for w in ways]


@pytest.mark.parametrize("key", ["logsum", "mttkrp", "pathfinder", "lenet"])
def test_one_pass_over_ways_equals_one_replay_per_cache_on_kernel_traces(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    addresses, writes, _ = record(key, differentiated(key)).arrays()
    table = [CacheConfig(size_bytes=s, assoc=associativity_for(s)) for s in (*SIZES, 16384)]
    configs = [*table, *_sweep_configs([8, 32], [1, 2, 3, 4, 8, 16])]
    configs += _sweep_configs([1, 4], [9, 12, 16, 32])  # one replay for several sizes
    configs.append(CacheConfig(size_bytes=2048, assoc=2, lru_on_write=False))
    for flush in (True, False):
        results = simulate_caches(addresses, writes, configs, flush)
        assert set(results) == set(configs)
        for config in configs:
            expected = (
                _replay(addresses >> 6, writes, config, flush)
                if config.lru_on_write
                else simulate_cache(addresses, writes, config, flush)
            )
            assert _same_result(results[config], expected), f"{key}, {config}, flush={flush}"
            assert results[config].flushed.tolist() == expected.flushed.tolist()


@given(
    seed=st.integers(0, 2**32 - 1),
    sets=st.sampled_from([1, 2, 4, 8]),
    ways=st.lists(st.integers(1, 24), min_size=1, max_size=5),
    length=st.integers(1, 600),
    lines=st.integers(1, 90),
    flush=st.booleans(),
)
def test_one_pass_over_ways_equals_one_replay_per_cache_on_random_traces(
    seed: int, sets: int, ways: list[int], length: int, lines: int, flush: bool
) -> None:
    rng = np.random.default_rng(seed)
    addresses, writes = _random_trace(rng, seed % 3, length, lines)
    configs = _sweep_configs([sets], ways)
    results = simulate_caches(addresses, writes, configs, flush)
    for config in configs:
        expected = _replay(addresses >> 6, writes, config, flush)
        assert _same_result(results[config], expected), config
        assert results[config].flushed.tolist() == expected.flushed.tolist()


def test_one_pass_over_ways_many_random_traces() -> None:
    # Beyond the property test's default budget: 600 traces, each through 1 to 9,
    # 12, 16 and 20 ways of one set count at once.
    rng = np.random.default_rng(11)
    for trial in range(600):
        sets = int(rng.choice([1, 2, 4, 16]))
        n, lines = int(rng.integers(1, 700)), int(rng.integers(1, 120))
        line = rng.integers(0, lines, n) if trial % 2 else (np.arange(n) // 3) % lines
        addresses = line * 64
        writes = rng.random(n) < rng.random()
        configs = _sweep_configs([sets], [*range(1, 10), 12, 16, 20])
        results = simulate_caches(addresses, writes, configs)
        for config in configs:
            expected = _replay(addresses >> 6, writes, config, True)
            assert _same_result(results[config], expected), (trial, config)


def _loop_runs_trace(
    rng: np.random.Generator, sets: int, line_bytes: int
) -> tuple[np.ndarray, np.ndarray, list[LoopRuns]]:
    """A trace of runs of a few loops between single random accesses, with the
    loops' `LoopRuns`. An access of a loop is affine in the iteration (a base
    and a stride in words) or not (the same, moved a word either way at random,
    as a clamped neighbour index is, or anywhere in 16 lines); it writes in
    every iteration or none, or (some loops) at random. Bases are often a
    multiple of the cache's way size apart (the same set), or half of it; runs
    of one loop come one after another at times, evenly spaced as in a loop
    nest, or not quite."""
    way = sets * line_bytes
    parts: list[np.ndarray] = []
    flags: list[np.ndarray] = []
    runs: dict[int, tuple[list[int], list[int]]] = {}
    loops = []
    for _ in range(int(rng.integers(1, 4))):
        width = int(rng.integers(1, 6))
        stride = rng.choice([0, 1, 1, 1, -1, 2, 9], 1 if rng.random() < 0.7 else width) * 8
        stride = np.broadcast_to(stride, (width,))
        affine = rng.random(width) < (0.7 if rng.random() < 0.5 else 1.0)
        loops.append((width, stride, rng.random(width) < 0.4, rng.random() < 0.2, affine))
    length = 0
    for _ in range(int(rng.integers(1, 8))):
        number = int(rng.integers(0, len(loops)))
        width, stride, writes, mixed, affine = loops[number]
        trips = int(rng.integers(1, 400))
        single = int(rng.integers(0, 6))
        spacing = rng.choice([way, 3 * way, way // 2, way // 4 + line_bytes, line_bytes, 8])
        base = int(rng.integers(2, 50)) * way + rng.integers(0, 8, width) * spacing
        base += rng.integers(0, line_bytes // 8, width) * 8
        base += np.where(stride < 0, trips * 80, 0)
        for _ in range(int(rng.choice([1, 1, 2, 5]))):  # runs of a nest, evenly spaced ...
            if rng.random() < 0.2:  # ... or not
                single = int(rng.integers(0, 6))
            parts.append(rng.integers(0, 64 * way, single) // 8 * 8)
            flags.append(rng.random(single) < 0.5)
            length += single
            t = np.arange(trips)[:, None]
            moved = base + t * stride
            jitter = rng.integers(-1, 2, (trips, width)) * 8
            scattered = base + rng.integers(0, 16 * line_bytes // 8, (trips, width)) * 8
            odd = np.where(rng.random(width) < 0.5, moved + jitter, scattered)
            parts.append(np.where(affine, moved, odd).reshape(-1))
            wrote = rng.random((trips, width)) < 0.5 if mixed else np.tile(writes, (trips, 1))
            flags.append(wrote.reshape(-1))
            starts, counts = runs.setdefault(number, ([], []))
            starts.append(length)
            counts.append(trips)
            length += trips * width
            base = base + trips * stride
    loop_runs = [
        LoopRuns(np.array(s), np.array(c), loops[n][0], tuple(bool(a) for a in loops[n][4]))
        for n, (s, c) in runs.items()
    ]
    return np.concatenate(parts), np.concatenate(flags), loop_runs


def test_repeats_left_out_by_loop_runs_change_nothing_on_random_traces() -> None:
    """The replay told the trace's loop runs (leaving out the repeats they prove
    hits) against `_replay`, which replays every access, access by access."""
    rng = np.random.default_rng(38)
    shortened = 0
    for trial in range(600):
        assoc = int(rng.choice([1, 2, 3, 4, 8]))
        sets = int(rng.choice([1, 2, 8, 64]))
        line_bytes = int(rng.choice([32, 64]))
        config = CacheConfig(
            size_bytes=line_bytes * assoc * sets, assoc=assoc, line_bytes=line_bytes
        )
        addresses, writes, runs = _loop_runs_trace(rng, sets, line_bytes)
        shift = line_bytes.bit_length() - 1
        left = _repeats_left_out(addresses, addresses >> shift, writes, runs, sets, assoc, shift)
        shortened += left is not None
        for flush in (True, False):
            expected = _replay(addresses >> shift, writes, config, flush)
            got = simulate_cache(addresses, writes, config, flush, runs)
            assert _same_result(got, expected), (trial, config, flush)
            assert got.missed_at.tolist() == np.flatnonzero(~expected.hit).tolist()
            assert got.evicted_at.tolist() == np.flatnonzero(expected.victim >= 0).tolist()
    assert shortened > 100  # the runs left half the accesses out or more (1 in 4)


def test_loop_runs_taken_in_chunks_leave_out_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_lines_beside` over a loop's runs a chunk at a time (`BESIDE_ENTRIES`: a
    run at a time when it is 1) leaves out what it leaves out over all at once."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        sets, ways, line_bytes = int(rng.choice([1, 8, 64])), int(rng.choice([1, 2, 8])), 64
        addresses, writes, runs = _loop_runs_trace(rng, sets, line_bytes)
        whole = _repeats_left_out(addresses, addresses >> 6, writes, runs, sets, ways, 6)
        with monkeypatch.context() as patched:
            patched.setattr(cache, "BESIDE_ENTRIES", 1)
            chunked = _repeats_left_out(addresses, addresses >> 6, writes, runs, sets, ways, 6)
        assert (whole is None) == (chunked is None)
        assert whole is None or whole.tolist() == chunked.tolist()


def test_lines_beside_few_counts_as_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_lines_beside_few` (a few runs in Python's integers) counts what
    `_lines_beside` counts, run by run, on the random loop-run traces, and
    `_repeats_left_out` leaves out the same with either (`FEW_BESIDE`), its
    loops' few runs grouped by length in Python or not (`FEW_RUNS`)."""
    rng = np.random.default_rng(19)
    compared = 0
    for _ in range(200):
        sets, ways, line_bytes = int(rng.choice([1, 8, 64])), int(rng.choice([1, 2, 8])), 64
        addresses, writes, runs = _loop_runs_trace(rng, sets, line_bytes)
        lines = addresses >> 6
        for loop in runs:
            for start, trips in zip(loop.start.tolist(), loop.trips.tolist(), strict=True):
                if trips < 2:
                    continue
                at = np.array([start])
                args = (addresses, lines, at, trips, loop.width, loop.affine, sets, 6)
                few = cache._lines_beside_few(*args)  # noqa: SLF001
                assert few is not None and few.tolist() == _lines_beside(*args).tolist()
                compared += 1
        plain = _repeats_left_out(addresses, lines, writes, runs, sets, ways, 6)
        with monkeypatch.context() as patched:
            patched.setattr(cache, "FEW_BESIDE", -1)
            patched.setattr(cache, "FEW_RUNS", -1)
            by_numpy = _repeats_left_out(addresses, lines, writes, runs, sets, ways, 6)
        assert (plain is None) == (by_numpy is None)
        assert plain is None or plain.tolist() == by_numpy.tolist()
    assert compared > 200
    # Addresses of 2**58 and more: left to numpy.
    far = (np.arange(8, dtype=np.int64) * 8) + (1 << 58)
    assert cache._lines_beside_few(far, far >> 6, np.array([0]), 4, 2, (True, True), 4, 6) is None  # noqa: SLF001


def test_lines_beside_hand_computed() -> None:
    # 4 sets of 64 B lines (a way of 256 B). One loop of two affine accesses,
    # both moving 8 B an iteration: access 0 from 0, access 1 from 256 (the same
    # set, the next line of it: one line beside), 128 (two sets away) or 0 (the
    # same line), 32 iterations.
    def beside(addresses: np.ndarray, trips: int, affine: tuple[bool, ...]) -> list[int]:
        lines = addresses >> 6
        at = np.array([0])
        counts = _lines_beside(addresses, lines, at, trips, 2, affine, 4, 6).tolist()[0]
        few = cache._lines_beside_few(addresses, lines, at, trips, 2, affine, 4, 6)  # noqa: SLF001
        assert few is not None and few.tolist()[0] == counts
        return counts

    for second, lines in ((256, 1), (128, 0), (0, 0), (512, 1)):
        addresses = np.array([[t * 8, second + t * 8] for t in range(32)]).reshape(-1)
        assert beside(addresses, 32, (True, True)) == [lines, lines]
    # 128 B apart, but access 1 moves 16 B an iteration: after 8 iterations it
    # is 256 B ahead (the same set, another line); within 4 it is not.
    addresses = np.array([[t * 8, 128 + t * 16] for t in range(32)]).reshape(-1)
    assert beside(addresses, 32, (True, True)) == [1, 1]
    assert beside(addresses[:8], 4, (True, True)) == [0, 0]
    # Access 1 not affine: the lines it touches in the run, 4 to 5 (256 to 383),
    # are 4 to 5 lines from access 0's, 0 to 3 (0 to 255): the multiples of 4
    # in [1, 5] (access 1 from 0) and [-5, -1] (0 from 1): one line beside each.
    addresses = np.array([[t * 8, 256 + (t * 40) % 128] for t in range(32)]).reshape(-1)
    assert beside(addresses, 32, (True, False)) == [1, 1]


def test_repeats_left_out_hand_computed() -> None:
    # Two runs of one access walking a line's words: all but the first access
    # of each line are left out (the first of each run stays).
    addresses = np.arange(128) * 8
    writes = np.zeros(128, dtype=bool)
    runs = [LoopRuns(np.array([0, 64]), np.array([64, 64]), 1, (True,))]
    kept = _repeats_left_out(addresses, addresses >> 6, writes, runs, 4, 2, 6)
    assert kept is not None and kept.tolist() == list(range(0, 128, 8))
    # Each line read four times, then written four times: a write after a read
    # of its line stays (the line's merged access must write), a write after
    # a write is left out.
    writes = np.arange(128) % 8 >= 4
    kept = _repeats_left_out(addresses, addresses >> 6, writes, runs, 4, 2, 6)
    assert kept is not None and kept.tolist() == sorted([*range(0, 128, 8), *range(4, 128, 8)])
    # Two accesses walking lines of one set (256 B apart, 4 sets): each has one
    # line beside it. With 2 ways an access inside its line's iterations is a
    # hit that changes nothing: the first and last of each line stay.
    addresses = np.array([[t * 8, 256 + t * 8] for t in range(64)]).reshape(-1)
    writes = np.zeros(128, dtype=bool)
    runs = [LoopRuns(np.array([0]), np.array([64]), 2, (True, True))]
    kept = _repeats_left_out(addresses, addresses >> 6, writes, runs, 4, 2, 6)
    edges = sorted({2 * t + j for t in range(64) if t % 8 in (0, 7) for j in (0, 1)})
    assert kept is not None and kept.tolist() == edges
    # One way: the two lines evict each other, nothing is left out.
    assert _repeats_left_out(addresses, addresses >> 6, writes, runs, 4, 1, 6) is None


def test_a_loop_run_past_the_trace_is_refused() -> None:
    runs = [LoopRuns(np.array([0]), np.array([100]), 1, (True,))]
    with pytest.raises(ValueError, match="past the trace's end"):
        simulate_cache(np.arange(64) * 8, np.zeros(64, bool), CacheConfig(1024, 2), runs=runs)


@pytest.mark.parametrize(
    ("key", "preset"), [("logsum", "paper"), ("pathfinder", "small"), ("lenet", "small")]
)
def test_loop_runs_of_kernel_traces_change_nothing(
    key: str, preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled kernel loops' recorded runs (`MemoryTrace.loop_runs`) of a
    simulated gradient, given to the replay, against `_replay` on every access."""
    # The runs are the generated code's records: every kernel loop runs it from
    # its first iteration (a table's runs, `sim.kernel_table`, record each access).
    monkeypatch.setattr(kernel_compiler, "TABLE", False)
    ctx = make_context()
    module = parse_kernel(ctx, key, preset)
    hardware = configure("Enzyme32k")
    tape_bytes = prepare(ctx, module, "enzyme", hardware)
    args = caller_arguments(module, key, preset)
    execution = execute(module, f"{key}_grad", args, hardware, tape_bytes)
    addresses, writes = execution.addresses, execution.writes
    runs = execution.trace.loop_runs()
    assert runs
    for size in SIZES:
        for assoc in {1, associativity_for(size)}:
            config = CacheConfig(size_bytes=size, assoc=assoc)
            expected = _replay(addresses >> 6, writes, config, True)
            got = simulate_cache(addresses, writes, config, True, runs)
            assert _same_result(got, expected), f"{key}, {size} B {assoc}-way"
            kept = _repeats_left_out(
                addresses, addresses >> 6, writes, runs, config.sets, config.assoc, 6
            )
            if key == "logsum":
                # Two runs of 10,000 iterations whose three and four accesses
                # walk buffers of 80,000 B word by word: each access's line is
                # another set's than the others' at any one time, or (a cache
                # of one set) one of a few lines beside it in a set of 1,024
                # ways. Seven accesses in eight repeat their line of the
                # iteration before, left out but those before a line's last
                # iteration where it shares its set (one in eight or two stay,
                # and the ten accesses outside the runs' repeats).
                share = 8 if config.sets > 1 else 4
                assert kept is not None and kept.size <= addresses.size // share + 10, config


@pytest.mark.parametrize("few", [-1, cache.FEW_RUNS])
def test_loop_runs_past_the_end_or_overlapping_are_refused(
    few: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs that the trace cannot hold are an error, whichever way a loop's
    runs are grouped (`FEW_RUNS`)."""
    monkeypatch.setattr(cache, "FEW_RUNS", few)
    addresses = np.arange(200, dtype=np.int64) * 8
    writes = np.zeros(200, dtype=bool)
    lines = addresses >> 6
    past = LoopRuns(np.array([0, 150]), np.array([70, 70]), 1, (True,))
    with pytest.raises(ValueError, match="reaches past the trace's end"):
        _repeats_left_out(addresses, lines, writes, [past], 4, 2, 6)
    overlapping = LoopRuns(np.array([0, 50]), np.array([70, 70]), 1, (True,))
    with pytest.raises(ValueError, match="runs overlap"):
        _repeats_left_out(addresses, lines, writes, [overlapping], 4, 2, 6)


@pytest.mark.parametrize("steps", [0, 1, cache.STAY_STEPS])
def test_stays_followed_back_a_few_steps_change_nothing(
    steps: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether an evicted or flushed line is dirty is found by following its
    hits back from the access asked about (`sim.cache._stay_wrote`), at most
    `STAY_STEPS` steps, the rest from every access's answer: with none, one and
    the default steps, every write-back of a replay is the one access by access
    gives (`_replay`), on random traces of hot lines (long runs of hits) and
    streams (no hits), with and without the final flush."""
    monkeypatch.setattr(cache, "STAY_STEPS", steps)
    rng = np.random.default_rng(17 + steps)
    for trial in range(200):
        assoc = int(rng.choice([1, 2, 3, 4, 8]))
        config = CacheConfig(size_bytes=64 * assoc * int(rng.choice([1, 2, 4])), assoc=assoc)
        n = int(rng.integers(1, 1200))
        lines = int(rng.integers(1, 8 if trial % 2 else 200))  # hot lines, or many
        addresses, writes = _random_trace(rng, trial % 3, n, lines)
        flush = bool(trial % 4)
        expected = _replay(addresses >> 6, writes, config, flush)
        assert _same_result(simulate_cache(addresses, writes, config, flush), expected), trial


def test_stay_wrote_hand_computed() -> None:
    """One line's accesses 0 (a read miss), 1 (a write hit), 2 (a read hit), 3 (a
    read miss) and 4 (a read hit), another's 5 (a read miss) and 6 (a write
    miss): a stay wrote from its write to its next miss."""
    wrote = np.array([False, True, False, False, False, False, True])
    hit = np.array([False, True, True, False, True, False, False])
    prev = np.array([-1, 0, 1, 2, 3, -1, 5])
    by_line = np.arange(7)
    expected = [False, True, True, False, False, False, True]
    assert cache._stays_wrote(wrote, hit, by_line).tolist() == expected
    every = np.arange(7)
    for steps in (0, 1, 2):
        cache_steps = cache.STAY_STEPS
        try:
            cache.STAY_STEPS = steps
            assert cache._stay_wrote(every, wrote, hit, prev, by_line).tolist() == expected
            assert (
                cache._stay_wrote(every[::-1], wrote, hit, prev, by_line).tolist()
                == (expected[::-1])
            )
        finally:
            cache.STAY_STEPS = cache_steps
