"""
`tapeflow-unit-steps` (run by `tapeflow-enzyme`): every strided loop gets step 1
over its trip count, so that Enzyme-MLIR, which sizes a strided loop's caches
`(ub - lb) / s` rounded down (docs/enzyme-bugs.md), sizes them right.

- The rewrite changes no value: a nest of strided loops (run-time and constant
  steps, iter_args, an inner loop bounded by the outer induction variable) run
  with the reference executor before and after, on empty, one-trip, multiple and
  non-multiple ranges, gives the same bits, and the iteration counts Python's
  `range` gives.
- The trip count is exact where `ub - lb` overflows the signed range.
- Kernels with strided loops after MLIR's tests (sources in their headers:
  test/lowering/kernels/strided_*.mlir go through every stage in
  test_gradient_kernels.py): the run-time step kernel's gradient equals central
  differences for ranges of every kind, and every later stage computes the Enzyme
  stage's bits; the i32 kernel's gradient equals central differences, and every
  later stage computes the Enzyme stage's bits.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stage_checks import assert_matches_central_differences, check_stages, same_bits
from xdsl.dialects import affine, func, memref, scf
from xdsl.dialects.builtin import Float64Type, MemRefType, ModuleOp

from lowering.ir.loops import constant_value
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_unit_steps import unit_steps
from tapeflow_benchmarks.kernels import NEST_KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

FRONTEND = Path(__file__).parents[1] / "tapeflow_tools" / "frontend_kernels"

NEST = """
func.func @f(%x: memref<16xf64>, %lb: index, %ub: index, %s: index) -> (f64, index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %r:2 = scf.for %i = %lb to %ub step %s iter_args(%acc = %zero, %n = %c0) -> (f64, index) {
    %m = arith.remsi %i, %c16 : index
    %p = arith.addi %m, %c16 : index
    %at = arith.remsi %p, %c16 : index
    %v = memref.load %x[%at] : memref<16xf64>
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %w = arith.mulf %v, %fi : f64
    %a = arith.mulf %acc, %half : f64
    %acc2 = arith.addf %a, %w : f64
    %n2 = scf.for %j = %i to %ub step %c3 iter_args(%k = %n) -> (index) {
      %k2 = arith.addi %k, %j : index
      scf.yield %k2 : index
    }
    scf.yield %acc2, %n2 : f64, index
  }
  return %r#0, %r#1 : f64, index
}
"""
"""A strided loop (run-time step) carrying a float and an index, with a strided
loop (constant step 3) inside from the outer induction variable to `ub`: the
index result is the sum of every inner induction value."""


def _parse(text: str, name: str = "nest.mlir") -> ModuleOp:
    return LocatingParser(make_context(), text, name).parse_module()


def _nest_reference(x: np.ndarray, lb: int, ub: int, s: int) -> tuple[float, int]:
    acc, n = 0.0, 0
    for i in range(lb, ub, s):
        acc = acc * 0.5 + x[i % 16] * float(i)
        n += sum(range(i, ub, 3))
    return acc, n


RANGES = [
    (lb, ub, s) for lb in (-3, 0, 2) for ub in (-5, 0, 1, 2, 7, 8, 9) for s in (1, 2, 3, 5, 9)
]


def test_the_rewrite_keeps_every_value() -> None:
    original = _parse(NEST)
    rewritten = _parse(NEST)
    assert unit_steps(rewritten) == 2
    for loop in rewritten.walk():
        if isinstance(loop, scf.ForOp):
            assert constant_value(loop.step) == 1
            assert constant_value(loop.lb) == 0
    x = np.random.default_rng(3).uniform(-1, 1, 16)
    for lb, ub, s in RANGES:
        given = {"arg0": x, "arg1": np.array(lb), "arg2": np.array(ub), "arg3": np.array(s)}
        want = run_function(original, "f", {k: v.copy() for k, v in given.items()})
        got = run_function(rewritten, "f", {k: v.copy() for k, v in given.items()})
        assert same_bits(got, want) is None, (lb, ub, s)
        acc, n = _nest_reference(x, lb, ub, s)
        assert float(got["result0"]) == pytest.approx(acc, rel=1e-15, abs=1e-15), (lb, ub, s)
        assert int(got["result1"]) == n, (lb, ub, s)


COUNT = """
func.func @count(%lb: index, %ub: index, %s: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = scf.for %i = %lb to %ub step %s iter_args(%k = %c0) -> (index) {
    %k2 = arith.addi %k, %c1 : index
    scf.yield %k2 : index
  }
  return %n : index
}
"""

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


@pytest.mark.parametrize(
    ("lb", "ub", "s"),
    [
        (I64_MIN, I64_MAX - 2, 3),  # ub - lb = 2^64 - 3: overflows the signed range
        (I64_MIN, 2**62, 2**62 + 7),
        (-(2**62), 2**62 + 1, 2**60),
        (I64_MAX - 1, I64_MIN, 5),  # empty: ub < lb, ub - lb wraps to a small value
        (5, 5, 2),
        (0, 17, 4),
        (7, 2, 3),
    ],
)
def test_the_trip_count_is_exact_where_ub_minus_lb_overflows(lb: int, ub: int, s: int) -> None:
    """The loops are too long to run: the count the rewrite computes is returned
    instead of the loop's result, and compared with Python's `range`, for ranges
    where the original loop ends without its induction variable wrapping (its
    first value past `ub` is representable)."""
    trips = len(range(lb, ub, s))
    assert lb + trips * s <= I64_MAX  # the original ends without wrapping
    module = _parse(COUNT)
    unit_steps(module)
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    (ret,) = [op for op in module.walk() if isinstance(op, func.ReturnOp)]
    ret.operands[0] = loop.ub
    loop.detach()
    loop.erase()
    given = {"arg0": np.array(lb), "arg1": np.array(ub), "arg2": np.array(s)}
    assert int(run_function(module, "count", given)["result0"]) == trips


def _strided_dynamic_inputs(lb: int, ub: int, s: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(lb * 100 + ub * 10 + s)
    return {
        "arg0": rng.uniform(-1, 1, 24),
        "arg1": rng.uniform(-1, 1, 24),
        "arg2": rng.uniform(-1, 1, 24),
        "arg3": rng.uniform(-1, 1, 24),
        "arg4": np.array(lb),
        "arg5": np.array(ub),
        "arg6": np.array(s),
    }


DYNAMIC_RANGES = [(1, 22, 5), (0, 24, 4), (2, 23, 7), (3, 3, 2), (9, 2, 3), (0, 24, 30)]
"""Non-multiple, multiple, a partial last tile, empty, ub < lb, one trip."""


@pytest.fixture(scope="module")
def strided_dynamic() -> tuple[str, ModuleOp]:
    path = FRONTEND / "strided_dynamic.mlir"
    text = path.read_text()
    module = LocatingParser(make_context(), text, str(path)).parse_module()
    TapeflowEnzymePass().apply(make_context(), module)
    module.verify()
    return text, module


@pytest.mark.parametrize(("lb", "ub", "s"), DYNAMIC_RANGES)
def test_a_run_time_step_gives_the_gradient_of_central_differences(
    strided_dynamic: tuple[str, ModuleOp], lb: int, ub: int, s: int
) -> None:
    text, module = strided_dynamic
    given = _strided_dynamic_inputs(lb, ub, s)
    out = run_function(module, "f_grad", {k: v.copy() for k, v in given.items()})
    primal = _parse(text, "strided_dynamic.mlir")
    args = [given["arg0"], given["arg2"], given["arg4"], given["arg5"], given["arg6"]]
    seeds = [given["arg1"], given["arg3"], None, None, None]
    assert_matches_central_differences(
        primal, args, seeds, [out["arg1"], out["arg3"]], f"strided_dynamic {lb, ub, s}"
    )


@pytest.mark.parametrize(("lb", "ub", "s"), [(1, 22, 5), (3, 3, 2)])
def test_a_run_time_step_keeps_its_values_through_every_stage(
    strided_dynamic: tuple[str, ModuleOp], lb: int, ub: int, s: int
) -> None:
    text, _ = strided_dynamic
    check_stages(text, "f_grad", _strided_dynamic_inputs(lb, ub, s), unrolls=(1, 2))


def test_an_i32_strided_loop_gives_the_gradient_of_central_differences() -> None:
    path = FRONTEND / "strided_i32_tiles.mlir"
    text = path.read_text()
    module = LocatingParser(make_context(), text, str(path)).parse_module()
    TapeflowEnzymePass().apply(make_context(), module)
    rng = np.random.default_rng(17)
    x, dx, y, dy = (rng.uniform(0.5, 1.2, 17) for _ in range(4))
    out = run_function(module, "f_grad", {"arg0": x, "arg1": dx, "arg2": y, "arg3": dy})
    assert_matches_central_differences(
        _parse(text), [x, y], [dx, dy], [out["arg1"], out["arg3"]], "strided_i32_tiles"
    )


def test_an_i32_strided_loop_keeps_its_values_through_every_stage() -> None:
    """A regression: raise-tape once sized the tile's extent with a clone of the i32 loop
    counting in `index`, so the cloned `index_cast` of its induction variable
    cast index to index and failed to verify."""
    text = (FRONTEND / "strided_i32_tiles.mlir").read_text()
    rng = np.random.default_rng(17)
    x, dx, y, dy = (rng.uniform(0.5, 1.2, 17) for _ in range(4))
    check_stages(text, "f_grad", {"arg0": x, "arg1": dx, "arg2": y, "arg3": dy})


def test_an_affine_loop_stays_affine() -> None:
    """The strided tile loops of the affine tiling kernel become affine loops of
    step 1, their induction variables affine.apply ops (valid affine dimensions)."""
    path = Path(__file__).parent / "kernels" / "strided_affine_tiles.mlir"
    module = _parse(path.read_text())
    assert unit_steps(module) == 2
    loops = [op for op in module.walk() if isinstance(op, affine.ForOp)]
    assert len(loops) == 4 and all(op.step.value.data == 1 for op in loops)
    assert len([op for op in module.walk() if isinstance(op, affine.ApplyOp)]) == 2


SPANS = """
func.func @spans(%x: memref<16xf64>, %n: index) -> (f64, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %r:2 = scf.for %g = %c0 to %c3 step %c1 iter_args(%acc = %zero, %cnt = %c0) -> (f64, index) {
    %lo = arith.muli %g, %c4 : index
    %hi = arith.addi %lo, %c4 : index
    %s = scf.for %c = %lo to %hi step %c1 iter_args(%a = %acc) -> (f64) {
      %v = memref.load %x[%c] : memref<16xf64>
      %ci = arith.index_cast %c : index to i64
      %cf = arith.sitofp %ci : i64 to f64
      %w = arith.mulf %v, %cf : f64
      %h = arith.mulf %a, %half : f64
      %a2 = arith.addf %h, %w : f64
      scf.yield %a2 : f64
    }
    %end = arith.addi %c7, %lo : index
    %k = scf.for %j = %lo to %end step %c3 iter_args(%m = %cnt) -> (index) {
      %m2 = arith.addi %m, %j : index
      scf.yield %m2 : index
    }
    %k2 = scf.for %j = %lo to %n step %c1 iter_args(%m = %k) -> (index) {
      %m2 = arith.addi %m, %c1 : index
      scf.yield %m2 : index
    }
    scf.yield %s, %k2 : f64, index
  }
  return %r#0, %r#1 : f64, index
}
"""
"""Loops whose bounds vary with the outer induction variable: `4 g to 4 g + 4`
(step 1) and `4 g to 7 + 4 g` (step 3) have constant trip counts, 4 and 3;
`4 g to n` has not."""


def _spans_reference(x: np.ndarray, n: int) -> tuple[float, int]:
    acc, count = 0.0, 0
    for g in range(3):
        for c in range(4 * g, 4 * g + 4):
            acc = acc * 0.5 + x[c] * float(c)
        count += sum(range(4 * g, 4 * g + 7, 3))
        count += len(range(4 * g, n))
    return acc, count


def test_a_loop_of_constant_span_counts_from_zero_to_its_trip_count() -> None:
    """Enzyme-MLIR sizes the cache of a loop whose bounds vary with an enclosing
    loop once per enclosing iteration (a buffer of buffers); with a constant trip
    count the loop is rewritten `0 to trips` so that its cache is one static
    buffer. The values stay the same bits and the reference's."""
    original = _parse(SPANS)
    rewritten = _parse(SPANS)
    assert unit_steps(rewritten) == 2
    outer, inner, strided, open_ended = [op for op in rewritten.walk() if isinstance(op, scf.ForOp)]
    for loop, trips in ((inner, 4), (strided, 3)):
        assert (constant_value(loop.lb), constant_value(loop.ub)) == (0, trips)
        assert constant_value(loop.step) == 1
    assert constant_value(open_ended.lb) is None  # 4 g to n: left as it is
    x = np.random.default_rng(5).uniform(-1, 1, 16)
    for n in (0, 5, 12):
        given = {"arg0": x, "arg1": np.array(n)}
        want = run_function(original, "spans", {k: v.copy() for k, v in given.items()})
        got = run_function(rewritten, "spans", {k: v.copy() for k, v in given.items()})
        assert same_bits(got, want) is None, n
        acc, count = _spans_reference(x, n)
        assert float(got["result0"]) == pytest.approx(acc, rel=1e-15), n
        assert int(got["result1"]) == count, n


I32_SPAN = """
func.func @count(%lo: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %hi = arith.addi %lo, %c4 : i32
  %n = scf.for %i = %lo to %hi step %c1 iter_args(%k = %c0) -> (i32) : i32 {
    %k2 = arith.addi %k, %c1 : i32
    scf.yield %k2 : i32
  }
  return %n : i32
}
"""
"""A loop from `lo` to `lo + 4` counted in i32: `lo + 4` wraps for `lo` above
2**31 - 5, and the loop is then empty (its bounds compare signed)."""


@pytest.mark.parametrize("lo", [-7, 0, 2**31 - 5, 2**31 - 4, 2**31 - 1])
def test_a_span_counted_in_i32_runs_only_where_its_bound_did_not_wrap(lo: int) -> None:
    """Counted in i32, `lo + 4` is `lo` plus 4 or, where the sum wrapped, below
    `lo`: the loop gets the constant count 4 under `scf.if lo < lo + 4`, so it
    still runs as many times as the signed comparison of its bounds says
    (Python's `range` over the wrapped bound), 0 near 2**31."""
    original = _parse(I32_SPAN)
    rewritten = _parse(I32_SPAN)
    assert unit_steps(rewritten) == 1
    (loop,) = [op for op in rewritten.walk() if isinstance(op, scf.ForOp)]
    assert (constant_value(loop.lb), constant_value(loop.ub)) == (0, 4)
    assert isinstance(loop.parent_op(), scf.IfOp)
    hi = (lo + 4 + 2**31) % 2**32 - 2**31
    given = {"arg0": np.array(lo, dtype=np.int32)}
    got = run_function(rewritten, "count", dict(given))
    assert int(got["result0"]) == len(range(lo, hi))
    assert same_bits(got, run_function(original, "count", dict(given))) is None


def test_a_span_counted_in_i32_gives_the_gradient_of_central_differences() -> None:
    """A blocked loop counted in i32 (`i to i + 3`, 21 blocks of 3 over 64
    elements when n = 63) through Enzyme and every later stage: the gradient
    equals central differences, each stage computes the Enzyme stage's bits."""
    _check_blocked_i32(
        (FRONTEND / "blocked_i32_span.mlir").read_text(), "blocked_i32_span.mlir", 11
    )


def _check_blocked_i32(text: str, name: str, seed: int) -> None:
    """`text`'s `f_grad` (x, dx, y, dy over 64 elements, n = 61 in i32) through
    Enzyme: its gradient equals central differences of `f`, and every later
    stage computes the Enzyme stage's bits."""
    module = _parse(text, name)
    TapeflowEnzymePass().apply(make_context(), module)
    rng = np.random.default_rng(seed)
    given = {f"arg{k}": rng.uniform(-1, 1, 64) for k in range(4)}
    given["arg4"] = np.array(61, dtype=np.int32)
    out = run_function(module, "f_grad", {k: v.copy() for k, v in given.items()})
    args = [given["arg0"], given["arg2"], given["arg4"]]
    seeds = [given["arg1"], given["arg3"], None]
    assert_matches_central_differences(
        _parse(text, name), args, seeds, [out["arg1"], out["arg3"]], name
    )
    check_stages(text, "f_grad", given, unrolls=(1, 2))


def test_enzyme_caches_a_loop_of_constant_span_in_one_static_buffer() -> None:
    """Group normalization's passes over a group's channels run from `g * CG` to
    `g * CG + CG`: after the rewrite every cache Enzyme allocates has a static
    shape of f64 (Enzyme's output once held a `memref.cast` of a per-group cache
    into a buffer of buffers, which the reader refused)."""
    module = _parse(NEST_KERNELS["groupnorm"].mlir("small"), "groupnorm.mlir")
    TapeflowEnzymePass().apply(make_context(), module)
    allocs = [op for op in module.walk() if isinstance(op, memref.AllocOp)]
    assert allocs
    for alloc in allocs:
        kind = alloc.memref.type
        assert isinstance(kind, MemRefType) and isinstance(kind.element_type, Float64Type)
        assert all(d >= 0 for d in kind.get_shape()), kind


I8_WRAPPED_SPAN = """
func.func @count(%lo: i8, %acc0: i8) -> (i8, i8) {
  %c0 = arith.constant 0 : i8
  %c1 = arith.constant 1 : i8
  %c2 = arith.constant 2 : i8
  %c16 = arith.constant 16 : i8
  %c127 = arith.constant 127 : i8
  %c250 = arith.constant 250 : i8
  %a = arith.addi %lo, %c127 : i8
  %b = arith.addi %a, %c127 : i8
  %hi = arith.subi %b, %c250 : i8
  %r:2 = scf.for %i = %lo to %hi step %c1 iter_args(%k = %c0, %s = %acc0) -> (i8, i8) : i8 {
    %k2 = arith.addi %k, %c1 : i8
    %s2 = arith.addi %s, %i : i8
    scf.yield %k2, %s2 : i8, i8
  }
  %m = arith.muli %lo, %c16 : i8
  %m2 = arith.muli %m, %c16 : i8
  %l2 = arith.addi %m2, %lo : i8
  %top = arith.addi %l2, %c2 : i8
  %q:2 = scf.for %j = %lo to %top step %c1 iter_args(%k = %r#0, %s = %r#1) -> (i8, i8) : i8 {
    %k2 = arith.addi %k, %c1 : i8
    %s2 = arith.subi %s, %j : i8
    scf.yield %k2, %s2 : i8, i8
  }
  return %q#0, %q#1 : i8, i8
}
"""
"""Spans in i8 read modulo 2**8: `lo + 127 + 127 - 250` is `lo + 4` (the
constants sum to 4 - 256; `250` is `-6` stored unsigned), `lo * 16 * 16 + lo + 2`
is `lo + 2` (256 lo vanishes)."""


def _i8(value: int) -> int:
    return (value + 128) % 256 - 128


def test_a_span_in_i8_is_read_modulo_2_to_the_8_for_every_lo() -> None:
    """Both loops get their constant counts, 4 and 2, under `lo < hi`, and for every
    i8 `lo` the results are the original's bits and what Python's `range` over
    the wrapped bounds gives."""
    original = _parse(I8_WRAPPED_SPAN)
    rewritten = _parse(I8_WRAPPED_SPAN)
    assert unit_steps(rewritten) == 2
    loops = [op for op in rewritten.walk() if isinstance(op, scf.ForOp)]
    assert [constant_value(loop.ub) for loop in loops] == [4, 2]
    assert all(isinstance(loop.parent_op(), scf.IfOp) for loop in loops)
    for lo in range(-128, 128):
        k, s = 0, 5
        for i in range(lo, _i8(lo + 4)):
            k, s = _i8(k + 1), _i8(s + i)
        for j in range(lo, _i8(lo * 257 + 2)):
            k, s = _i8(k + 1), _i8(s - j)
        given = {"arg0": np.array(lo, dtype=np.int8), "arg1": np.array(5, dtype=np.int8)}
        got = run_function(rewritten, "count", dict(given))
        assert (int(got["result0"]), int(got["result1"])) == (k, s), lo
        assert same_bits(got, run_function(original, "count", dict(given))) is None, lo


I32_RUNNING_SUM = """
func.func @f(%x: memref<64xf64>, %y: memref<64xf64>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %n step %c3 : i32 {
    %end = arith.addi %i, %c3 : i32
    %sum = scf.for %k = %i to %end step %c1 iter_args(%a = %zero) -> (f64) : i32 {
      %ix = arith.index_cast %k : i32 to index
      %v = memref.load %x[%ix] : memref<64xf64>
      %w = memref.load %y[%ix] : memref<64xf64>
      %s = math.sin %v : f64
      %t = arith.mulf %s, %w : f64
      %a2 = arith.addf %a, %t : f64
      %u = math.tanh %a2 : f64
      memref.store %u, %y[%ix] : memref<64xf64>
      scf.yield %a2 : f64
    }
    %at = arith.index_cast %i : i32 to index
    %w = memref.load %y[%at] : memref<64xf64>
    %p = arith.mulf %w, %sum : f64
    memref.store %p, %y[%at] : memref<64xf64>
  }
  return
}

func.func @f_grad(%x: memref<64xf64>, %dx: memref<64xf64>, %y: memref<64xf64>,
                  %dy: memref<64xf64>, %n: i32) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %n) {activity = [#enzyme<activity enzyme_dup>,
      #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_const>], ret_activity = []}
      : (memref<64xf64>, memref<64xf64>, memref<64xf64>, memref<64xf64>, i32) -> ()
  return
}
"""
"""A blocked loop counted in i32 whose block (`i to i + 3`) carries a running sum:
the block's loop has a result, so its guard (`scf.if i < i + 3`) yields the sum,
or zero where the block does not run."""


def test_a_guarded_span_loop_with_a_result_gives_the_gradient_of_central_differences() -> None:
    """The running sum's block loop goes under an `scf.if` with a result: through
    Enzyme the gradient equals central differences (n = 61: 21 blocks of 3 over
    the 64 elements), and every later stage computes the Enzyme stage's bits."""
    rewritten = _parse(I32_RUNNING_SUM, "running_sum.mlir")
    unit_steps(rewritten)
    guards = [op for op in rewritten.walk() if isinstance(op, scf.IfOp)]
    assert [len(op.results) for op in guards] == [1]
    _check_blocked_i32(I32_RUNNING_SUM, "running_sum.mlir", 12)
