"""
Enzyme's caches of a loop that may run no iteration (`lowering/enzyme/empty_loops.py`,
run by `tapeflow-enzyme`): Enzyme-MLIR sizes a loop's cache `ub - lb` before the loop
runs, negative where the caller's upper bound is below the lower bound. The caches'
sizes are clamped at zero, so such an input runs.

- On the window kernel (`frontend_kernels/empty_range.mlir`, a loop over a run-time
  `[lo, hi)`), the gradient equals central differences of the primal for windows
  that are long, one element, empty, and reversed (hi < lo, where the unclamped
  cache was `memref.alloc` of a negative extent), and every later stage computes the
  Enzyme stage's bits, reversed window included.
- The clamp is one `arith.maxsi` with zero per distinct size, and only the caches'
  sizes read it: the loop's bounds and the reverse sweep's index arithmetic still read
  Enzyme's count.
- A cache per iteration of an enclosing loop is not clamped: where an inner loop's
  bounds cross, the executor stops with a message that names the cause, and the
  way around it the message gives (an upper bound of `max(lb, ub)`) gives the
  gradient of central differences.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stage_checks import assert_matches_central_differences, check_stages
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import ModuleOp

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from sim.errors import ExecutionError
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

KERNEL = Path(__file__).parents[1] / "tapeflow_tools" / "frontend_kernels" / "empty_range.mlir"

WINDOWS = [(2, 14), (5, 6), (7, 7), (11, 3), (15, 0)]
"""Long, one element, empty, reversed, reversed from the end."""


def _inputs(lo: int, hi: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(100 * lo + hi)
    return {
        "arg0": rng.uniform(-1, 1, 16),
        "arg1": rng.uniform(-1, 1, 16),
        "arg2": rng.uniform(-1, 1, 16),
        "arg3": rng.uniform(-1, 1, 16),
        "arg4": np.array(lo),
        "arg5": np.array(hi),
    }


def _parse(text: str) -> ModuleOp:
    return LocatingParser(make_context(), text, str(KERNEL)).parse_module()


@pytest.fixture(scope="module")
def differentiated() -> ModuleOp:
    module = _parse(KERNEL.read_text())
    TapeflowEnzymePass().apply(make_context(), module)
    module.verify()
    return module


@pytest.mark.parametrize(("lo", "hi"), WINDOWS)
def test_every_window_gives_the_gradient_of_central_differences(
    differentiated: ModuleOp, lo: int, hi: int
) -> None:
    given = _inputs(lo, hi)
    out = run_function(differentiated, "f_grad", {k: v.copy() for k, v in given.items()})
    args = [given["arg0"], given["arg2"], given["arg4"], given["arg5"]]
    seeds = [given["arg1"], given["arg3"], None, None]
    assert_matches_central_differences(
        _parse(KERNEL.read_text()), args, seeds, [out["arg1"], out["arg3"]], f"window {lo, hi}"
    )
    if hi <= lo:  # an empty window: the shadows are the seeds, untouched
        assert np.array_equal(out["arg1"], given["arg1"])
        assert np.array_equal(out["arg3"], given["arg3"])


@pytest.mark.parametrize(("lo", "hi"), [(2, 14), (11, 3)])
def test_a_reversed_window_keeps_its_values_through_every_stage(lo: int, hi: int) -> None:
    check_stages(KERNEL.read_text(), "f_grad", _inputs(lo, hi), unrolls=(1, 2))


def test_only_the_caches_sizes_read_the_clamp(differentiated: ModuleOp) -> None:
    (gradient,) = [
        f
        for f in differentiated.body.block.ops
        if isinstance(f, func.FuncOp) and "tapeflow.gradient_of" in f.attributes
    ]
    clamps = [op for op in gradient.walk() if isinstance(op, arith.MaxSIOp)]
    assert len(clamps) == 1
    (clamp,) = clamps
    zero = clamp.rhs.owner
    assert isinstance(zero, arith.ConstantOp) and zero.value.value.data == 0
    count = clamp.lhs.owner
    assert isinstance(count, arith.SubiOp)  # Enzyme's `hi - lo`
    readers = {use.operation for use in clamp.result.uses}
    assert readers and all(isinstance(r, memref.AllocOp) for r in readers)
    assert all(r.parent_block() is gradient.body.block for r in readers)
    assert not any(isinstance(use.operation, memref.AllocOp) for use in count.result.uses)


NESTED = """
func.func @f(%x: memref<8xf64>, %y: memref<8xf64>, %lo: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c6 step %c1 {
    UPPER
    %r = scf.for %j = %lo to %ub step %c1 iter_args(%acc = %zero) -> (f64) {
      %xj = memref.load %x[%j] : memref<8xf64>
      %s = math.sin %xj : f64
      %p = arith.mulf %s, %acc : f64
      %t = arith.addf %p, %xj : f64
      scf.yield %t : f64
    }
    memref.store %r, %y[%i] : memref<8xf64>
  }
  return
}
func.func @f_grad(%x: BUF, %dx: BUF, %y: BUF, %dy: BUF, %lo: index) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %lo) <{activity = [DUP, DUP, CONST], ret_activity = []}>
    : (BUF, BUF, BUF, BUF, index) -> ()
  return
}
"""
"""Row `i` sums the recurrence over `[lo, i)`: empty for `i <= lo`, reversed for
`i < lo`."""


def test_crossing_bounds_in_a_nest_are_named_and_max_is_the_way_around() -> None:
    rng = np.random.default_rng(3)
    given = {
        "arg0": rng.uniform(-1, 1, 8),
        "arg1": rng.uniform(-1, 1, 8),
        "arg2": rng.uniform(-1, 1, 8),
        "arg3": rng.uniform(-1, 1, 8),
        "arg4": np.array(3),
    }
    nest = (
        NESTED.replace("BUF", "memref<8xf64>")
        .replace("DUP", "#enzyme.activity<enzyme_dup>")
        .replace("CONST", "#enzyme.activity<enzyme_const>")
    )
    crossing = _parse(nest.replace("UPPER", "%ub = arith.addi %i, %c0 : index"))
    TapeflowEnzymePass().apply(make_context(), crossing)
    with pytest.raises(ExecutionError, match="upper bound is below its lower bound"):
        run_function(crossing, "f_grad", {k: v.copy() for k, v in given.items()})
    text = nest.replace("UPPER", "%ub = arith.maxsi %lo, %i : index")
    ordered = _parse(text)
    TapeflowEnzymePass().apply(make_context(), ordered)
    out = run_function(ordered, "f_grad", {k: v.copy() for k, v in given.items()})
    args = [given["arg0"], given["arg2"], given["arg4"]]
    seeds = [given["arg1"], given["arg3"], None]
    assert_matches_central_differences(
        _parse(text), args, seeds, [out["arg1"], out["arg3"]], "ordered nest"
    )


TRIANGLE = """
func.func @f(%x: memref<16xf64>, %y: memref<16xf64>, %lo: index, %hi: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  UPPER
  scf.for %i = %lo to %ub step %c1 {
    %r = scf.for %j = %c0 to %i step %c1 iter_args(%acc = %zero) -> (f64) {
      %xj = memref.load %x[%j] : memref<16xf64>
      %s = math.sin %xj : f64
      %p = arith.mulf %s, %acc : f64
      %t = arith.addf %p, %xj : f64
      scf.yield %t : f64
    }
    memref.store %r, %y[%i] : memref<16xf64>
  }
  return
}
func.func @f_grad(%x: BUF, %dx: BUF, %y: BUF, %dy: BUF, %lo: index, %hi: index) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %lo, %hi)
    <{activity = [DUP, DUP, CONST, CONST], ret_activity = []}>
    : (BUF, BUF, BUF, BUF, index, index) -> ()
  return
}
"""
"""Row `i` of `[lo, hi)` sums the recurrence over `[0, i)`: a triangular nest whose
outer loop runs no iteration where `hi < lo`."""


def test_crossing_outer_bounds_of_a_triangle_are_named_and_max_is_the_way_around() -> None:
    given = _inputs(11, 3)
    nest = (
        TRIANGLE.replace("BUF", "memref<16xf64>")
        .replace("DUP", "#enzyme.activity<enzyme_dup>")
        .replace("CONST", "#enzyme.activity<enzyme_const>")
    )
    crossing = _parse(nest.replace("UPPER", "%ub = arith.addi %hi, %c0 : index"))
    TapeflowEnzymePass().apply(make_context(), crossing)
    with pytest.raises(ExecutionError, match="triangular nest.*outer loop's bounds ordered"):
        run_function(crossing, "f_grad", {k: v.copy() for k, v in given.items()})
    text = nest.replace("UPPER", "%ub = arith.maxsi %lo, %hi : index")
    for lo, hi in [(11, 3), (2, 14)]:
        given = _inputs(lo, hi)
        ordered = _parse(text)
        TapeflowEnzymePass().apply(make_context(), ordered)
        out = run_function(ordered, "f_grad", {k: v.copy() for k, v in given.items()})
        args = [given["arg0"], given["arg2"], given["arg4"], given["arg5"]]
        seeds = [given["arg1"], given["arg3"], None, None]
        assert_matches_central_differences(
            _parse(text), args, seeds, [out["arg1"], out["arg3"]], f"triangle {lo, hi}"
        )
        if hi <= lo:
            assert np.array_equal(out["arg1"], given["arg1"])
