"""
Conflict misses in the cost model of `tapeflow-layers{stream=auto}`
(`lowering.layers.cost.AccessReuse.conflicts`): a line that the next iteration of
its loop reads again is evicted where the lines the rest of the iteration touches
fill its cache set. Each case is worked by hand and replayed through the timing
models' cache (`sim.cache.simulate_cache`, set-associative LRU) with the buffers
where the simulator's allocator puts them (`sim.trace.MemoryTrace`: packed from
4096 at 64 B, in the order they are first touched):

- a column walk whose row is the cache's way size (2 KB: 2-way, 4 KB, 64 B
  lines, 32 sets) puts every line of the column in one set: 16 lines evict the
  line `g[c]` shares with the next 7 iterations, which then misses every
  iteration, not every 8th;
- one line of the column leaves it (fewer lines than ways); two arrays with a
  line each in that set evict it;
- where a buffer's size is not a multiple of the sets' span, which set its lines
  go to depends on the order the buffers are first touched in: the replay
  finds a conflict in one order and none in the other, and the model counts
  none (a lower bound);
- batchnorm's per-feature values (`gamma[c]`, `beta[c]`) share a set with the
  column walks of `x` and `y` (rows of 12 lines, 2 lines each in 32 of the 128
  sets of the 32 KB 4-way cache): missed every feature, as the replay of its
  run finds; kalman's `q[c]` and `r[c]`, beside row walks, are not; so
  kalman's channel nest streams and batchnorm's per-feature nest is kept, as
  forcing each choice measures.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from xdsl.dialects import func, memref

from lowering.layers import cost
from lowering.layers.cost import StreamMachine
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_layers import nest_choices
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from sim.cache import simulate_cache
from sim.trace import MemoryTrace
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from targets.hardware import CacheConfig

SMALL = replace(StreamMachine(), cache_bytes=4096, cache_ways=2)
"""A 4 KB 2-way cache of 64 B lines: 32 sets, a way of 2 KB."""

COLUMNS = """
func.func @f(%a: memref<16x256xf64>, %b: memref<16x256xf64>, %g: memref<GSIZExf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %cn = arith.constant TRIPS : index
  scf.for %c = %c0 to %c16 step %c1 {
    %v = memref.load %g[%c] : memref<GSIZExf64>
    scf.for %n = %c0 to %cn step %c1 {
      %x = memref.load %a[%n, %c] : memref<16x256xf64>
      SECOND
    }
  }
  func.return
}
"""
SECOND = "memref.store %x, %b[%n, %c] : memref<16x256xf64>"


def _columns(n: int, second: bool, g_size: int = 256) -> tuple[func.FuncOp, memref.LoadOp]:
    text = (
        COLUMNS.replace("GSIZE", str(g_size))
        .replace("TRIPS", str(n))
        .replace("SECOND", SECOND if second else "")
    )
    module = LocatingParser(make_context(), text, "columns.mlir").parse_module()
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    g = next(op for op in module.walk() if isinstance(op, memref.LoadOp))
    return function, g


def _replayed_misses(
    n: int, second: bool, g_size: int = 256, g_first: bool = True, assoc: int = 2
) -> int:
    """The misses of `g[c]` over the 16 iterations of `COLUMNS`, replayed through
    a 4 KB cache of `assoc` ways with the buffers placed as the simulator places
    them (first touched first: `g` at the first load, unless `g_first` is false,
    then after the arrays)."""
    trace = MemoryTrace()
    a, b, g = np.zeros((16, 256)), np.zeros((16, 256)), np.zeros(g_size)
    if not g_first:
        trace.record(a, (0, 0), False, False)
        trace.record(b, (0, 0), False, False)
    is_g: list[bool] = [False] * len(trace)
    for c in range(16):
        trace.record(g, (c,), False, False)
        is_g.append(True)
        for row in range(n):
            trace.record(a, (row, c), False, False)
            is_g.append(False)
            if second:
                trace.record(b, (row, c), True, False)
                is_g.append(False)
    addresses, writes, _ = trace.arrays()
    result = simulate_cache(addresses, writes, CacheConfig(size_bytes=4096, assoc=assoc))
    return int(np.count_nonzero(~result.hit[np.array(is_g)]))


def test_a_column_walk_of_the_way_size_evicts_the_line_a_loop_reads_again() -> None:
    # a's rows are 2 KB, the way size: a column's 16 lines are all in one set,
    # the set of g[c]'s line (every buffer of a size a multiple of the 32 sets'
    # 2 KB, from 4096: their bases are congruent modulo the sets). 16 >= 2 ways:
    # g[c]'s line is evicted every iteration, a miss in each of the 16.
    function, g = _columns(16, second=False)
    reuse = cost.AccessReuse(function)
    assert reuse.conflicts(g, SMALL) == 1.0
    assert reuse.lines(g, 64, 4096, SMALL) == 1.0
    assert reuse.lines(g, 64, 4096) == 1 / 8  # the capacity rule alone
    assert _replayed_misses(16, second=False) == 16
    # The column walks 16 of the cache's 64 lines: fully associative (64 ways,
    # one set), g's line stays, missed once per 8 iterations (2 of 16).
    assert reuse.conflicts(g, replace(SMALL, cache_ways=64)) == 0.0
    assert _replayed_misses(16, second=False, assoc=64) == 2


def test_two_arrays_with_a_line_each_in_the_set_evict_it() -> None:
    # One line of a's column (n < 1 row) in g's set: fewer than the 2 ways, g's
    # line stays (a miss per 8 iterations). With b's line in the same set too,
    # 2 lines >= 2 ways: evicted every iteration.
    function, g = _columns(1, second=False)
    assert cost.AccessReuse(function).conflicts(g, SMALL) == 0.0
    assert _replayed_misses(1, second=False) == 2
    function, g = _columns(1, second=True)
    reuse = cost.AccessReuse(function)
    assert reuse.conflicts(g, SMALL) == 1.0
    assert reuse.lines(g, 64, 4096, SMALL) == 1.0
    assert _replayed_misses(1, second=True) == 16


def test_a_placement_that_depends_on_the_order_counts_no_conflict() -> None:
    # g of 20 elements: 160 B, 3 lines at 64 B alignment. First touched first,
    # g sits at 4096 and a 3 lines on: a's column is 3 sets from g's line, no
    # conflict. Touched after a and b (64 KB), g's base is congruent to a's
    # modulo the sets: every iteration misses. The model cannot know the order:
    # it counts none.
    function, g = _columns(16, second=True, g_size=20)
    assert cost.AccessReuse(function).conflicts(g, SMALL) == 0.0
    assert _replayed_misses(16, second=True, g_size=20, g_first=True) == 2
    assert _replayed_misses(16, second=True, g_size=20, g_first=False) == 16
    # Buffers at a program's own addresses (`buffers_packed` false): none known.
    function, g = _columns(16, second=False)
    unplaced = replace(SMALL, buffers_packed=False)
    assert cost.AccessReuse(function).conflicts(g, unplaced) == 0.0


def _gradient(key: str) -> func.FuncOp:
    ctx = make_context()
    module = parse_kernel(ctx, key, "paper")
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    return next(
        op
        for op in module.walk()
        if isinstance(op, func.FuncOp) and op.sym_name.data.startswith("diffe")
    )


@pytest.mark.parametrize(
    ("key", "vectors", "expected"),
    [("batchnorm", (2, 4), 1.0), ("kalman", (2, 4), 0.0)],
)
def test_per_channel_values_beside_column_walks_conflict(
    key: str, vectors: tuple[int, ...], expected: float
) -> None:
    # batchnorm (64 x 96 f64: rows of 768 B, 12 lines; gamma and beta 768 B):
    # every buffer's size is a multiple of 4 lines, so their bases are congruent
    # modulo 4 lines; a column's 64 lines fall 2 in each of the 32 sets of its
    # class (12 n modulo 128 sets), the class of gamma[c]'s and beta[c]'s lines
    # (the same line offset, c / 8). x's walk and y's: 4 lines >= 4 ways.
    # kalman walks rows of z and e (contiguous, 16 lines of 128): none.
    function = _gradient(key)
    machine = StreamMachine()  # 32 KB, 4 ways, 64 B lines: 128 sets
    loads = [
        op
        for op in function.walk()
        if isinstance(op, memref.LoadOp)
        and function.body.block.args.index(op.memref) in vectors
        and len(op.indices) == 1
    ]
    assert loads
    reuse = cost.AccessReuse(function)
    assert {reuse.conflicts(op, machine) for op in loads} == {expected}


def test_batchnorm_s_replayed_forward_sweep_misses_gamma_every_feature() -> None:
    # batchnorm's FWD sweep as the simulator places its buffers (x, gamma, beta,
    # y first touched in that order; the tape streamed, out of the cache): per
    # feature c, two column walks of x, gamma[c], beta[c], a walk of x reading
    # and y writing. gamma and beta miss in each of the 96 features, where the
    # capacity rule alone (12 lines) would have 12 misses each.
    trace = MemoryTrace()
    x, gamma, beta, y = np.zeros((64, 96)), np.zeros(96), np.zeros(96), np.zeros((64, 96))
    kinds: list[str] = []

    def touch(arr: np.ndarray, where: tuple[int, ...], kind: str, write: bool = False) -> None:
        trace.record(arr, where, write, False)
        kinds.append(kind)

    for c in range(96):
        for _ in range(2):
            for n in range(64):
                touch(x, (n, c), "x")
        touch(gamma, (c,), "gamma")
        touch(beta, (c,), "beta")
        for n in range(64):
            touch(x, (n, c), "x")
            touch(y, (n, c), "y", write=True)
    addresses, writes, _ = trace.arrays()
    hit = simulate_cache(addresses, writes, CacheConfig()).hit  # 32 KB, 4 ways
    named = np.array(kinds)
    assert int(np.count_nonzero(~hit[named == "gamma"])) == 96
    assert int(np.count_nonzero(~hit[named == "beta"])) == 96
    # The model's count for the same loads: a line each feature.
    function = _gradient("batchnorm")
    reuse, machine = cost.AccessReuse(function), StreamMachine()
    args = function.body.block.args
    loads = [
        op for op in function.walk() if isinstance(op, memref.LoadOp) and op.memref in args[2:5:2]
    ]
    assert len(loads) == 2
    assert [reuse.lines(op, 64, machine.cache_bytes, machine) for op in loads] == [1.0, 1.0]


def _streams(key: str) -> list[bool]:
    """The cost model's choice per nest of `key`'s gradient at paper size on the
    default machine (Tflow32k's numbers), in the pass's order: streamed or kept."""
    ctx = make_context()
    module = parse_kernel(ctx, key, "paper")
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    ((choices,),) = nest_choices(module, 512, [StreamMachine()], 2, 4)
    return [choice.stream for choice in choices]


def test_kalman_s_channel_nest_streams_and_batchnorm_s_feature_nest_is_kept() -> None:
    # Measured under `cgra` (paper size, Tflow32k, each choice forced): kalman
    # with its channels' nest (its first: one r[c] a channel, loaded in a REV
    # kernel of its own before the step loop) streamed takes 325,507 cycles, kept
    # 325,859; its steps' nest is a tie (5 cycles), kept. batchnorm with its
    # per-feature nest (its second: the variance and gamma[c]) kept takes
    # 206,065 cycles, streamed 212,423 (gamma's and beta's loads, in kernels of
    # their own, miss every feature); its two other nests stream.
    assert _streams("kalman") == [True, False]
    assert _streams("batchnorm") == [True, False, True]
