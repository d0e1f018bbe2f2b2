"""
`tapeflow-unroll-primal` against the `artifact` kernels' hand-unrolled primals.

The `artifact` templates write a loop unrolled by U (`unrolled_body`), as clang's
`unroll_count(U)` leaves it before the authors' Enzyme. The same kernel written
rolled, unrolled by the pass and differentiated by `tapeflow-enzyme`, must leave
bit for bit what the hand-unrolled kernel leaves (primal buffers, shadows,
returned value): unrolling reorders no floating-point operation. Sizes are cut
down from the artifact's (pathfinder's keeping a remainder, 99 = 6 x 16 + 3) so
that the reference executor runs them in seconds.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.index_eval import constant_int
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_unroll_primal import UNROLL, unroll_primal
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

HAND_UNROLLED = {
    "logsum": {"N": 32, "U": 8},
    "nn": {"S": 32, "L": 3, "label": 1, "U": 8, "pixel_first": 1},
    "matdescent": {"R": 3, "C": 32, "U": 16, "start": 0},
    "mttkrp": {"I": 2, "J": 8, "K": 2, "L": 3, "U": 8, "reload_b": 1},
    # 99 cells a row: 6 trips of 16 copies and 3 copies in line, as at the artifact size.
    "pathfinder": {"R": 5, "C": 100, "U": 16},
}
"""Kernel -> sizes of its `artifact` form (the loop it unrolls by U; U = 1 is the
loop as written)."""


def parse(text: str) -> ModuleOp:
    return LocatingParser(make_context(), text, "kernel.mlir").parse_module()


def gradient(key: str, sizes: dict[str, int], factor: int) -> dict[str, np.ndarray]:
    """Run `@<key>_grad` of the kernel at `sizes`, its primal first unrolled by
    `tapeflow-unroll-primal{factor}` (1: as written), on the inputs of the hand-
    unrolled sizes (the same arrays either way: U changes no shape)."""
    kernel = replace(KERNELS[key], sizes={"hand": HAND_UNROLLED[key], "these": sizes})
    module = parse(kernel.mlir("these"))
    ctx = make_context()
    factors = unroll_primal(module, factor)
    assert factor == 1 or factor in factors  # the pass did unroll the kernel's loop
    TapeflowEnzymePass().apply(ctx, module)
    module.verify()
    given = {f"arg{i}": a.copy() for i, a in enumerate(kernel.inputs("hand"))}
    return run_function(module, f"{key}_grad", given)


@pytest.mark.parametrize("key", HAND_UNROLLED)
def test_unrolled_by_the_pass_is_bit_identical_to_unrolled_by_hand(key: str) -> None:
    sizes = HAND_UNROLLED[key]
    rolled = {**sizes, "U": 1}
    by_hand = gradient(key, sizes, 1)
    by_pass = gradient(key, rolled, sizes["U"])
    assert set(by_pass) == set(by_hand)
    for name, want in by_hand.items():
        assert np.array_equal(by_pass[name], want), f"{key}: {name} differs"
    # Not vacuous: the kernel's own gradient (autograd) is what both computed.
    kernel = replace(KERNELS[key], sizes={"hand": sizes})
    expected = kernel.expected("hand", kernel.inputs("hand"))
    for name, want in expected.items():
        np.testing.assert_allclose(by_hand[name], want, rtol=1e-9, atol=1e-12)


PRODUCT = """
func.func @f(%x: memref<12xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %one) -> (f64) {
    %base = arith.muli %i, %c4 : index
    %t = scf.for %j = %c0 to %c4 step %c1 iter_args(%b = %a) -> (f64) {
      %at = arith.addi %base, %j : index
      %v = memref.load %x[%at] : memref<12xf64>
      %r = arith.mulf %b, %v : f64
      scf.yield %r : f64
    }
    scf.yield %t : f64
  }
  func.return %s : f64
}
func.func @f_grad(%x: memref<12xf64>, %dx: memref<12xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>],
      ret_activity = [#enzyme.activity<enzyme_active>]}>
      : (memref<12xf64>, memref<12xf64>, f64) -> f64
  func.return %r : f64
}
"""


def loops(module: ModuleOp) -> list[scf.ForOp]:
    return [op for op in module.walk() if isinstance(op, scf.ForOp)]


def steps(module: ModuleOp) -> list[int]:
    return [op.step.op.value.value.data for op in loops(module)]  # type: ignore[attr-defined]


def test_a_count_that_does_not_divide_the_trips_leaves_the_remainder_in_line() -> None:
    module = parse(PRODUCT)
    # 4 iterations asked for 3: one trip of 3 copies, then the 4th iteration in line.
    assert unroll_primal(module, 3) == [3]
    module.verify()
    outer, inner = loops(module)
    assert steps(module) == [1, 3]
    assert constant_int(inner.ub) == 3
    loads = [op for op in outer.body.block.ops if isinstance(op, memref.LoadOp)]
    assert len(loads) == 1  # the remainder's copy, after the inner loop
    assert len([op for op in inner.body.walk() if isinstance(op, memref.LoadOp)]) == 3
    x = np.linspace(0.5, 1.6, 12)
    got = run_function(module, "f", {"arg0": x.copy()})["result0"]
    product = 1.0
    for v in x:  # the same multiplications in the same order
        product *= v
    assert got == product


def test_the_remainder_reads_what_the_last_trip_carried() -> None:
    module = parse(PRODUCT)
    # The inner loop's 4 iterations asked for 3 by its annotation; 5 asked of the
    # outer loop's 3 unroll it fully, copying the inner loop and its remainder: the
    # copies chain the carried product through every loop and remainder.
    outer, inner = loops(module)
    inner.attributes[UNROLL] = IntegerAttr(3, IntegerType(64))
    outer.attributes[UNROLL] = IntegerAttr(5, IntegerType(64))
    assert unroll_primal(module, 1) == [3, 3]
    module.verify()
    x = np.linspace(0.9, 1.3, 12)
    got = run_function(module, "f", {"arg0": x.copy()})["result0"]
    product = 1.0
    for v in x:
        product *= v
    assert got == product


def test_an_annotation_unrolls_its_loop_whatever_the_factor() -> None:
    module = parse(PRODUCT)
    outer = loops(module)[0]
    outer.attributes[UNROLL] = IntegerAttr(3, IntegerType(64))
    # The outer loop's 3 iterations fully; the inner one is not asked (factor 1).
    assert unroll_primal(module, 1) == [3]
    module.verify()
    assert UNROLL not in outer.attributes
    assert steps(module) == [3, 1, 1, 1]


def test_a_gradient_module_is_refused() -> None:
    module = parse(PRODUCT)
    TapeflowEnzymePass().apply(make_context(), module)
    with pytest.raises(PassFailedException, match="before tapeflow-enzyme"):
        unroll_primal(module, 2)


def test_a_bad_annotation_is_refused_by_location() -> None:
    module = parse(PRODUCT)
    loops(module)[1].attributes[UNROLL] = IntegerAttr(0, IntegerType(64))
    with pytest.raises(PassFailedException, match="kernel.mlir:.*positive integer"):
        unroll_primal(module, 1)


def test_factor_below_one_is_refused() -> None:
    with pytest.raises(PassFailedException, match="at least 1"):
        unroll_primal(parse(PRODUCT), 0)


def test_tapeflow_enzyme_applies_an_annotation_before_differentiating() -> None:
    """As clang's pragma before Enzyme for LLVM: a module whose loop carries the
    annotation is differentiated as the pass would have unrolled it, whichever tool
    runs `tapeflow-enzyme` (tapeflow-sim, sweeps and the API included)."""
    annotated, explicit = parse(PRODUCT), parse(PRODUCT)
    for module in (annotated, explicit):
        loops(module)[1].attributes[UNROLL] = IntegerAttr(4, IntegerType(64))
    assert unroll_primal(explicit, 1) == [4]
    for module in (annotated, explicit):
        TapeflowEnzymePass().apply(make_context(), module)
    assert str(annotated) == str(explicit)
    assert UNROLL not in str(annotated)
    x = np.linspace(0.5, 1.6, 12)
    got = run_function(annotated, "f_grad", {"arg0": x.copy(), "arg1": np.zeros(12)})
    product = np.prod(x)
    assert got["result0"] == run_function(parse(PRODUCT), "f", {"arg0": x.copy()})["result0"]
    np.testing.assert_allclose(got["arg1"], product / x, rtol=1e-13)
