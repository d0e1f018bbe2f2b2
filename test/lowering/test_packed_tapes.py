"""
Triangular tapes packed: a chain of Enzyme's per-iteration
caches is raised to one tape indexed by every loop index, with its ragged extents
(`lowering.ir.ragged`); `tapeflow-pack-tapes` lays it out as exactly the entries
FWD writes.

- The closed forms (Faulhaber's sums, the packed count and positions) against
  brute-force enumeration of ragged spaces.
- The packed sizes of PolyBench's triangular kernels (`polybench/`), computed by
  hand in each case.
- Every packed stage computes, bit for bit, what the Enzyme stage computes, and
  the packed gradient equals central differences of the primal.
- A rectangular tape is left as it is; an extent that is not affine keeps the
  bounding box, with the reason; a malformed layout is refused with a message.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from stage_checks import central_difference_gradients, differentiate, same_bits
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, AffineMapAttr, MemRefType, ModuleOp
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from lowering.ir import ragged
from lowering.ir.polynomials import Poly
from lowering.tapeflow_pack_tapes import TapeflowPackTapesPass
from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass, raise_module
from lowering.tapeflow_regions import TapeflowRegionsPass
from lowering.tapeflow_sink_tape import TapeflowSinkTapePass
from lowering.tapeflow_unroll import TapeflowUnrollPass
from sim.simulator import execute, prepare
from tapeflow_dialects import region, tape
from tapeflow_tools.context import make_context
from tapeflow_tools.tapeflow_run import bind_arguments, run_function
from targets.hardware import configure

POLYBENCH = Path(__file__).parent / "polybench"
d0, d1, d2, d3 = (AffineExpr.dimension(k) for k in range(4))
s0 = AffineExpr.symbol(0)


# ------------------------------------------------------------------ closed forms


@pytest.mark.parametrize("p", range(7))
def test_faulhaber_sums_equal_the_sums(p: int) -> None:
    summed = Poly.var("y").power(p).sum_below("y", Poly.var("n"))
    for n in range(13):
        assert summed.evaluate({"n": n}) == sum(y**p for y in range(n))


def _points(extents: list[Poly], symbols: dict[str, int]) -> list[tuple[int, ...]]:
    """The ragged space in lexicographic order, by enumeration."""
    points: list[tuple[int, ...]] = []

    def walk(prefix: tuple[int, ...]) -> None:
        if len(prefix) == len(extents):
            points.append(prefix)
            return
        env = {**symbols, **{ragged.dim(k): v for k, v in enumerate(prefix)}}
        for y in range(int(extents[len(prefix)].evaluate(env))):
            walk((*prefix, y))

    walk(())
    return points


SPACES = {
    # PolyBench lu's nests (N = 5) and tri4's, syrk's triangle of size n, a
    # triangle over a static row, and a rectangle of triangles.
    "lu j<i, k<j": (AffineMap(3, 0, (AffineExpr.constant(5), d0, d1)), [{}]),
    "lu j>=i, k<i": (AffineMap(3, 0, (AffineExpr.constant(5), d0 * -1 + 5, d0)), [{}]),
    "tri4": (AffineMap(4, 0, (AffineExpr.constant(6), d0, d1, d2)), [{}]),
    "syrk n": (
        AffineMap(3, 1, (s0, s0 + d0 * -1 + -1, AffineExpr.constant(4))),
        [{"s0": n} for n in range(6)],
    ),
    "row then triangle": (AffineMap(3, 0, (AffineExpr.constant(3), d0 + 2, d1 + 1)), [{}]),
    "box of triangles": (AffineMap(3, 1, (AffineExpr.constant(2), s0, d1)), [{"s0": 4}]),
}


@pytest.mark.parametrize("name", sorted(SPACES))
def test_packed_positions_enumerate_the_ragged_space(name: str) -> None:
    """Position of the k-th point in lexicographic order is k; the count is the
    number of points: packed, one entry per point, none left over."""
    layout, symbol_values = SPACES[name]
    extents = ragged.extents(layout)
    count, offset = ragged.count(layout), ragged.offset(layout)
    for symbols in symbol_values:
        points = _points(extents, symbols)
        assert count.evaluate(symbols) == len(points)
        positions = [
            offset.evaluate({**symbols, **{ragged.dim(k): v for k, v in enumerate(p)}})
            for p in points
        ]
        assert positions == [Fraction(k) for k in range(len(points))]


def test_an_extent_that_depends_on_its_own_index_is_refused() -> None:
    with pytest.raises(ragged.NotRagged, match="depend only on the dimensions before it"):
        ragged.extents(AffineMap(2, 0, (d1, AffineExpr.constant(4))))


# ------------------------------------------------------------------ the kernels


def _enzyme(name: str) -> ModuleOp:
    return differentiate((POLYBENCH / f"{name}.mlir").read_text(), f"{name}.mlir")


def _after(module: ModuleOp, *passes: ModulePass) -> ModuleOp:
    lowered = module.clone()
    for p in passes:
        p.apply(make_context(), lowered)
        lowered.verify()
    return lowered


def _shapes(module: ModuleOp) -> list[tuple[int, ...]]:
    return sorted(
        tuple(op.results[0].type.get_shape())  # type: ignore[attr-defined]
        for op in module.walk()
        if isinstance(op, tape.AllocOp | region.AllocOp)
    )


# Packed sizes by hand (Enzyme caches two or three values per nest, each its own
# tape; the bounding boxes they replace in brackets):
# - lu, N = 5: j < i: 0+1+2+3+4 = 10 [5x4]; j < i, k < j: sum of i(i-1)/2 =
#   0+0+1+3+6 = 10 [5x4x3]; i <= j < 5, k < i: sum of (5-i)i = 0+4+6+6+4 = 20 [5x5x4].
# - cholesky, N = 5: A[i][i] per i: 5; j < i: 10 (two tapes); k < j < i: 10 (two);
#   k < i: 10.
# - trisolv, N = 6: two per-i tapes of 6; j < i: 0+1+...+5 = 15 (two) [6x5].
# - tri4, N = 5: m < k < j < i: sum of i(i-1)(i-2)/6 = 1 + 4 = 5 (three) [5x4x3x2].
# - lu_batched, 2 matrices of N = 4: (4-i)i: 2*(0+3+4+3) = 20; i(i-1)/2:
#   2*(0+0+1+3) = 8; i: 2*(0+1+2+3) = 12 (two tapes each).
PACKED = {
    "lu": [(10,)] * 4 + [(20,)] * 2,
    "cholesky": [(5,)] + [(10,)] * 5,
    "trisolv": [(6,), (6,), (15,), (15,)],
    "tri4": [(5,)] * 3,
    "lu_batched": [(8,)] * 2 + [(12,)] * 2 + [(20,)] * 2,
}


@pytest.mark.parametrize("name", sorted(PACKED))
def test_triangular_tapes_pack_to_the_entries_written(name: str) -> None:
    module = _enzyme(name)
    (report,) = raise_module(module.clone())
    assert sum(t.values or 0 for t in report.tapes) == sum(s[0] for s in PACKED[name])
    packed = _after(module, TapeflowRaiseTapePass(), TapeflowPackTapesPass())
    assert _shapes(packed) == sorted(PACKED[name])
    assert not [op for op in packed.walk() if ragged.RAGGED in op.attributes]


def test_regions_pack_like_their_tapes() -> None:
    """lu's three nests: three regions of two slots, 10, 10 and 20 entries."""
    packed = _after(
        _enzyme("lu"), TapeflowRaiseTapePass(), TapeflowRegionsPass(), TapeflowPackTapesPass()
    )
    regions = [op.region.type for op in packed.walk() if isinstance(op, region.AllocOp)]
    assert sorted(r.get_shape() for r in regions) == [(10,), (10,), (20,)]
    assert all(len(r.slot_types()) == 2 for r in regions)


def _inputs(name: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    n = {"lu": 5, "cholesky": 5, "tri4": 5, "trisolv": 6}[name]
    a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n)
    if name == "cholesky":
        a = a @ a.T
    given = {"arg0": a, "arg1": rng.uniform(-1, 1, (n, n))}
    if name == "trisolv":
        given = {**given, **{f"arg{k}": rng.uniform(-1, 1, n) for k in range(2, 6)}}
    return given


def _run(module: ModuleOp, given: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return run_function(module, "f_grad", {k: v.copy() for k, v in given.items()})


STAGES = {
    "tape": lambda: [TapeflowRaiseTapePass(), TapeflowPackTapesPass()],
    "regions": lambda: [TapeflowRaiseTapePass(), TapeflowRegionsPass(), TapeflowPackTapesPass()],
    "unrolled baseline": lambda: [
        TapeflowRaiseTapePass(),
        TapeflowUnrollPass(factor=2),
        TapeflowPackTapesPass(),
        TapeflowSinkTapePass(),
    ],
}


@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize("name", ["cholesky", "lu", "tri4", "trisolv"])
def test_packed_stages_keep_the_values(name: str, stage: str) -> None:
    enzyme = _enzyme(name)
    given = _inputs(name)
    packed = _after(enzyme, *STAGES[stage]())
    assert not [op for op in packed.walk() if ragged.RAGGED in op.attributes]
    differs = same_bits(_run(packed, given), _run(enzyme, given))
    assert differs is None, f"{name} {stage}: {differs}"


@pytest.mark.parametrize("variant", ["aos", "tapeflow", "enzyme"])
def test_simulated_variants_with_packed_tapes_keep_the_values(variant: str) -> None:
    """lu through the simulator, the enzyme variant unrolled (its tape raised,
    packed and sunk back): the values of the Enzyme stage."""
    enzyme = _enzyme("lu")
    given = _inputs("lu")
    hardware = configure("Tflow1k")
    lowered = enzyme.clone()
    unroll = 2 if variant == "enzyme" else 1
    tape_bytes = prepare(make_context(), lowered, variant, hardware, unroll=unroll)
    assert tape_bytes == 8 * (10 * 4 + 20 * 2)  # the packed tapes of lu
    caller = next(
        op for op in lowered.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "f_grad"
    )
    args = bind_arguments(caller, {k: v.copy() for k, v in given.items()})
    got = execute(lowered, "f_grad", args, hardware, tape_bytes).outputs
    differs = same_bits(got, _run(enzyme, given))
    assert differs is None, f"{variant}: {differs}"


def test_the_packed_gradient_equals_central_differences() -> None:
    """lu's gradient at the packed tape stage, against the primal's central
    differences (L = sum(seed * A after lu))."""
    enzyme = _enzyme("lu")
    given = _inputs("lu")
    packed = _after(enzyme, TapeflowRaiseTapePass(), TapeflowPackTapesPass())
    numeric = central_difference_gradients(enzyme, "f", [given["arg0"]], [given["arg1"]])
    np.testing.assert_allclose(_run(packed, given)["arg1"], numeric[0], rtol=1e-6, atol=1e-7)


SYRK_N = """
func.func @f(%A: memref<?x4xf64>, %C: memref<?x?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %n step %c1 {
    %ip1 = arith.addi %i, %c1 : index
    scf.for %j = %ip1 to %n step %c1 {
      scf.for %k = %c0 to %c4 step %c1 {
        %a = memref.load %A[%i, %k] : memref<?x4xf64>
        %b = memref.load %A[%j, %k] : memref<?x4xf64>
        %c = memref.load %C[%i, %j] : memref<?x?xf64>
        %p = arith.mulf %a, %b : f64
        %q = arith.mulf %p, %c : f64
        %s = arith.addf %c, %q : f64
        memref.store %s, %C[%i, %j] : memref<?x?xf64>
      }
    }
  }
  return
}
func.func @f_grad(%A: memref<?x4xf64>, %dA: memref<?x4xf64>, %C: memref<?x?xf64>,
                  %dC: memref<?x?xf64>, %n: index) {
  enzyme.autodiff @f(%A, %dA, %C, %dC, %n) {activity = [#enzyme<activity enzyme_dup>,
    #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_const>], ret_activity = []}
    : (memref<?x4xf64>, memref<?x4xf64>, memref<?x?xf64>, memref<?x?xf64>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("n", [1, 2, 5])
def test_a_triangle_of_run_time_size_packs_to_its_run_time_count(n: int) -> None:
    """syrk's `j > i` triangle of size n (an argument): packed tapes of run-time
    size 4 * (n-1 + ... + 0) = 2n(n-1) (none for n = 1), the Enzyme stage's
    values for every n (the executor checks every index against the size)."""
    enzyme = differentiate(SYRK_N)
    packed = _after(enzyme, TapeflowRaiseTapePass(), TapeflowPackTapesPass())
    assert _shapes(packed) == [(DYNAMIC_INDEX,)] * 3
    rng = np.random.default_rng(n)
    given = {
        "arg0": rng.uniform(-1, 1, (n, 4)),
        "arg1": rng.uniform(-1, 1, (n, 4)),
        "arg2": rng.uniform(-1, 1, (n, n)),
        "arg3": rng.uniform(-1, 1, (n, n)),
        "arg4": np.int64(n),
    }
    differs = same_bits(_run(packed, given), _run(enzyme, given))
    assert differs is None, differs
    (report,) = raise_module(enzyme.clone())
    layout = report.tapes[0].ragged
    assert layout is not None
    assert ragged.count(layout).evaluate({"s0": n, "s1": 0}) == 2 * n * (n - 1)


RECTANGLE = """
func.func @f(%x: memref<?x3xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %a = memref.load %x[%i, %j] : memref<?x3xf64>
      %p = arith.mulf %a, %a : f64
      memref.store %p, %x[%i, %j] : memref<?x3xf64>
    }
  }
  return
}
func.func @f_grad(%x: memref<?x3xf64>, %dx: memref<?x3xf64>, %n: index) {
  enzyme.autodiff @f(%x, %dx, %n) {activity = [#enzyme<activity enzyme_dup>,
    #enzyme<activity enzyme_const>], ret_activity = []}
    : (memref<?x3xf64>, memref<?x3xf64>, index) -> ()
  return
}
"""


def test_a_rectangular_tape_is_not_touched() -> None:
    raised = _after(differentiate(RECTANGLE), TapeflowRaiseTapePass())
    assert not [op for op in raised.walk() if ragged.RAGGED in op.attributes]
    assert str(_after(raised, TapeflowPackTapesPass())) == str(raised)


SQUARES = """
func.func @f(%x: memref<16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %ii = arith.muli %i, %i : index
    scf.for %j = %c0 to %ii step %c1 {
      %a = memref.load %x[%j] : memref<16xf64>
      %p = arith.mulf %a, %a : f64
      memref.store %p, %x[%j] : memref<16xf64>
    }
  }
  return
}
func.func @f_grad(%x: memref<16xf64>, %dx: memref<16xf64>) {
  enzyme.autodiff @f(%x, %dx) {activity = [#enzyme<activity enzyme_dup>], ret_activity = []}
    : (memref<16xf64>, memref<16xf64>) -> ()
  return
}
"""


def test_an_extent_that_is_not_affine_keeps_the_bounding_box_with_the_reason() -> None:
    """`for j < i*i`: the bounding box (4 x 9), said so in the report."""
    enzyme = differentiate(SQUARES)
    (report,) = raise_module(enzyme.clone())
    (record,) = report.tapes
    assert record.ragged is None
    assert record.not_packed is not None and "'arith.muli'" in record.not_packed
    assert "bounding box, not packed" in report.table()
    given = {"arg0": np.linspace(0.1, 1.6, 16), "arg1": np.ones(16)}
    packed = _after(enzyme, TapeflowRaiseTapePass(), TapeflowPackTapesPass())
    assert same_bits(_run(packed, given), _run(enzyme, given)) is None


def test_a_layout_of_the_wrong_rank_is_refused() -> None:
    raised = _after(_enzyme("trisolv"), TapeflowRaiseTapePass())
    alloc = next(
        op
        for op in raised.walk()
        if isinstance(op, tape.AllocOp) and ragged.RAGGED in op.attributes
    )
    alloc.attributes[ragged.RAGGED] = AffineMapAttr(AffineMap(1, 0, (AffineExpr.constant(6),)))
    with pytest.raises(PassFailedException, match="has 1 dimension.*rank 2"):
        TapeflowPackTapesPass().apply(make_context(), raised)


def test_no_memref_of_handles_survives_packing() -> None:
    packed = _after(_enzyme("tri4"), TapeflowRaiseTapePass(), TapeflowPackTapesPass())
    assert not [
        op
        for op in packed.walk()
        if any(
            isinstance(r.type, MemRefType) and isinstance(r.type.element_type, MemRefType)
            for r in op.results
        )
    ]
    assert _shapes(packed) == [(5,)] * 3
