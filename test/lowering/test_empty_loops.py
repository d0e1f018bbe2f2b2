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
- A nest's caches are clamped too: its buffer of handles (a triangle whose outer
  bounds cross) and each cache per outer iteration whose count the loops do not
  prove at least zero (a row over `[lo, i)`; a band clipped at the matrix edge,
  Numerical Recipes' `bandec`; PolyBench's trmm with shifted bounds): gradients of
  central differences for crossing and ordered inputs, and the Enzyme stage's bits
  at every later stage, both variants under both timing models.
- The ragged-extent analysis reads through the clamps: the band whose rows run out
  packs to the columns its rows run (counted here by enumeration), at a constant or
  run-time row count; an extent that grows past its crossing keeps the bounding box,
  with the reason; where no row crosses, the band lowers as the unclamped gradient
  does (same cycles, layers, streamed and kept tape); PolyBench's triangles get no
  clamp.
- A negative size of the program's own buffer is still refused, and named as the
  program's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from stage_checks import (
    assert_matches_central_differences,
    check_stages,
    differentiate,
    function_named,
    same_bits,
)
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import ModuleOp

from lowering.ir import ragged
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_pack_tapes import TapeflowPackTapesPass
from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass, raise_module
from sim.errors import ExecutionError
from sim.models import MODELS
from sim.simulator import evaluate, execute, prepare
from sim.trace import TAPE
from tapeflow_benchmarks.kernels import ALL_KERNELS
from tapeflow_dialects import tape
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import bind_arguments, run_function
from targets.hardware import PRESETS

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


def test_an_inner_loop_that_runs_no_iteration_on_some_rows_gives_the_gradient() -> None:
    rng = np.random.default_rng(3)
    given = {
        "arg0": rng.uniform(-1, 1, 8),
        "arg1": rng.uniform(-1, 1, 8),
        "arg2": rng.uniform(-1, 1, 8),
        "arg3": rng.uniform(-1, 1, 8),
        "arg4": np.array(3),
    }
    text = (
        NESTED.replace("BUF", "memref<8xf64>")
        .replace("DUP", "#enzyme.activity<enzyme_dup>")
        .replace("CONST", "#enzyme.activity<enzyme_const>")
        .replace("UPPER", "%ub = arith.addi %i, %c0 : index")
    )
    crossing = _parse(text)  # rows i < 3 = lo: reversed (an alloc of extent i - 3 before)
    TapeflowEnzymePass().apply(make_context(), crossing)
    out = run_function(crossing, "f_grad", {k: v.copy() for k, v in given.items()})
    args = [given["arg0"], given["arg2"], given["arg4"]]
    seeds = [given["arg1"], given["arg3"], None]
    assert_matches_central_differences(
        _parse(text), args, seeds, [out["arg1"], out["arg3"]], "rows over [lo, i)"
    )
    check_stages(text, "f_grad", given, spad_bytes=(64, 4096), unrolls=(1,))


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


@pytest.mark.parametrize(("lo", "hi"), [(11, 3), (2, 14), (5, 5)])
def test_a_triangle_whose_outer_loop_runs_no_iteration_gives_the_gradient(lo: int, hi: int) -> None:
    """The buffer of handles, sized `hi - lo` (negative for `hi < lo` before its
    clamp), and every stage after it."""
    text = (
        TRIANGLE.replace("BUF", "memref<16xf64>")
        .replace("DUP", "#enzyme.activity<enzyme_dup>")
        .replace("CONST", "#enzyme.activity<enzyme_const>")
        .replace("UPPER", "%ub = arith.addi %hi, %c0 : index")
    )
    given = _inputs(lo, hi)
    module = _parse(text)
    TapeflowEnzymePass().apply(make_context(), module)
    out = run_function(module, "f_grad", {k: v.copy() for k, v in given.items()})
    args = [given["arg0"], given["arg2"], given["arg4"], given["arg5"]]
    seeds = [given["arg1"], given["arg3"], None, None]
    assert_matches_central_differences(
        _parse(text), args, seeds, [out["arg1"], out["arg3"]], f"triangle {lo, hi}"
    )
    if hi <= lo:
        assert np.array_equal(out["arg1"], given["arg1"])
    check_stages(text, "f_grad", given, spad_bytes=(64, 4096), unrolls=(1,))


BAND = """
func.func @f(%x: memref<16xf64>, %y: memref<16xf64>, %n: index, %lo: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to OUTER step %c1 {
    BOUNDS
    %xi = memref.load %x[%i] : memref<16xf64>
    %ci = math.cos %xi : f64
    %r = scf.for %j = %lb to %ub step %c1 iter_args(%acc = %ci) -> (f64) {
      %xj = memref.load %x[%j] : memref<16xf64>
      %s = math.sin %xj : f64
      %p = arith.mulf %s, %acc : f64
      %t = arith.addf %p, %xj : f64
      scf.yield %t : f64
    }
    %q = arith.mulf %r, %ci : f64
    memref.store %q, %y[%i] : memref<16xf64>
  }
  return
}
func.func @f_grad(%x: memref<16xf64>, %dx: memref<16xf64>, %y: memref<16xf64>,
                  %dy: memref<16xf64>, %n: index, %lo: index) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %n, %lo)
    <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>,
                  #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>],
      ret_activity = []}>
    : (memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>, index, index) -> ()
  return
}
"""
"""Row `i` runs a recurrence over the columns `[lb(i), ub(i))`, caching per column
the carried value and `x[j]`, and per row `cos(x[i])`. The bounds (`SHAPES`):

- `edge`: `j = i + 4 to 12`, the band above the diagonal of a banded solver clipped
  at the matrix edge (Numerical Recipes' `bandec`, whose rows near the last one
  have fewer band entries): empty for `i = 8` and reversed past it; the extent
  `8 - i` falls as `i` grows.
- `shifted`: `j = lo to i - 3`, PolyBench's trmm (`for k = i + 1 .. M`) with its
  bounds shifted, starting at a run-time `lo`: reversed for `i < lo + 3`.
- `shifted0`: the same from column 0, an affine extent `i - 3` that grows with `i`,
  reversed for `i < 3`.

`OUTER` is 16 rows, or `n` (run-time)."""

SHAPES = {
    "edge": "%lb = arith.addi %i, %c4 : index\n    %ub = arith.addi %c12, %c0 : index",
    "shifted": "%lb = arith.addi %lo, %c0 : index\n    %ub = arith.subi %i, %c3 : index",
    "shifted0": "%lb = arith.addi %c0, %c0 : index\n    %ub = arith.subi %i, %c3 : index",
}

BANDS = [("edge", "%c16"), ("edge", "%n"), ("shifted", "%c16"), ("shifted0", "%n")]


def _band(shape: str, outer: str) -> str:
    return BAND.replace("OUTER", outer).replace("BOUNDS", SHAPES[shape])


def _band_inputs(n: int, lo: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(31 * n + lo)
    return {
        "arg0": rng.uniform(-1, 1, 16),
        "arg1": rng.uniform(-1, 1, 16),
        "arg2": rng.uniform(-1, 1, 16),
        "arg3": rng.uniform(-1, 1, 16),
        "arg4": np.array(n),
        "arg5": np.array(lo),
    }


def _crosses(shape: str, outer: str, n: int, lo: int) -> bool:
    """Some row that runs has its bounds reversed (upper below lower)."""
    rows = range(16 if outer == "%c16" else n)
    bounds = {
        "edge": lambda i: (i + 4, 12),
        "shifted": lambda i: (lo, i - 3),
        "shifted0": lambda i: (0, i - 3),
    }[shape]
    return any(bounds(i)[1] < bounds(i)[0] for i in rows)


BAND_INPUTS = [(16, 2), (9, 0), (5, 1), (0, 0)]
"""Rows and `lo`: every band crosses on some row of the first; the second and third
cross for `shifted0` and `shifted` alone (not the run-time `edge`); no row runs
in the last for the run-time outer counts."""


@pytest.mark.parametrize(("shape", "outer"), BANDS)
@pytest.mark.parametrize(("n", "lo"), BAND_INPUTS)
def test_a_band_whose_bounds_cross_gives_the_gradient_of_central_differences(
    shape: str, outer: str, n: int, lo: int
) -> None:
    text = _band(shape, outer)
    given = _band_inputs(n, lo)
    module = _parse(text)
    TapeflowEnzymePass().apply(make_context(), module)
    out = run_function(module, "f_grad", {k: v.copy() for k, v in given.items()})
    args = [given["arg0"], given["arg2"], given["arg4"], given["arg5"]]
    seeds = [given["arg1"], given["arg3"], None, None]
    assert_matches_central_differences(
        _parse(text), args, seeds, [out["arg1"], out["arg3"]], f"{shape} over {outer}, {n, lo}"
    )


@pytest.mark.parametrize(("shape", "outer"), BANDS)
def test_a_band_whose_bounds_cross_keeps_its_values_through_every_stage(
    shape: str, outer: str
) -> None:
    assert _crosses(shape, outer, 16, 2)
    check_stages(_band(shape, outer), "f_grad", _band_inputs(16, 2), unrolls=(1, 2))


def _simulated(module: ModuleOp, inputs: dict[str, np.ndarray], variant: str, model: str) -> Run:
    machine = "Tflow32k" if variant == "tapeflow" else "Enzyme32k"
    lowered = module.clone()
    hardware = MODELS[model].hardware(PRESETS[machine])
    tape_bytes = prepare(make_context(), lowered, variant, hardware, 1, model)
    args = bind_arguments(
        function_named(lowered, "f_grad"), {k: v.copy() for k, v in inputs.items()}
    )
    execution = execute(lowered, "f_grad", args, hardware, tape_bytes, variant=variant, model=model)
    report = evaluate(execution)
    return Run(
        int(report["cycles"]["total"]),
        int(report["layers"]),
        int(report["streams"]["write_bytes"]),
        int(np.count_nonzero((execution.roles.all() == TAPE) & execution.writes)),
        execution.outputs,
    )


@dataclass(frozen=True)
class Run:
    cycles: int
    layers: int
    streamed_bytes: int
    kept_entries: int
    outputs: dict[str, np.ndarray]


@pytest.mark.parametrize("model", ["cgra", "salam"])
@pytest.mark.parametrize(("shape", "outer"), [("edge", "%n"), ("shifted", "%c16")])
def test_both_variants_under_both_timing_models_compute_the_enzyme_stage(
    shape: str, outer: str, model: str
) -> None:
    given = _band_inputs(16, 2)
    module = _parse(_band(shape, outer))
    TapeflowEnzymePass().apply(make_context(), module)
    reference = run_function(module, "f_grad", {k: v.copy() for k, v in given.items()})
    for variant in ("enzyme", "tapeflow"):
        problem = same_bits(_simulated(module, given, variant, model).outputs, reference)
        assert problem is None, f"{variant} under {model}: {problem}"


def _unclamped(module: ModuleOp) -> ModuleOp:
    """The gradient as Enzyme gives it: every per-iteration cache sized by its
    count, not clamped (what ran before the clamp; right where no row crosses)."""
    module = module.clone()
    for op in module.walk():
        if isinstance(op, memref.AllocOp) and op.parent_block() is not None:
            for k, size in enumerate(op.dynamic_sizes):
                if isinstance(size.owner, arith.MaxSIOp):
                    op.operands[k] = size.owner.lhs
    return module


@pytest.mark.parametrize("model", ["cgra", "salam"])
def test_where_no_row_crosses_the_band_lowers_as_it_did_without_the_clamp(model: str) -> None:
    """The run-time `edge` band on 9 rows (none crosses): the tapeflow variant
    tiles, streams and keeps what the unclamped gradient does, in as many cycles."""
    assert not _crosses("edge", "%n", 9, 0)
    given = _band_inputs(9, 0)
    module = _parse(_band("edge", "%n"))
    TapeflowEnzymePass().apply(make_context(), module)
    clamped = _simulated(module, given, "tapeflow", model)
    unclamped = _simulated(_unclamped(module), given, "tapeflow", model)
    assert (clamped.cycles, clamped.layers, clamped.streamed_bytes, clamped.kept_entries) == (
        unclamped.cycles,
        unclamped.layers,
        unclamped.streamed_bytes,
        unclamped.kept_entries,
    )
    assert clamped.layers > 0 and clamped.streamed_bytes > 0
    assert same_bits(clamped.outputs, unclamped.outputs) is None


def _band_entries(shape: str, rows: int, lo: int) -> int:
    """Columns the rows `i < rows` run, by enumeration."""
    bounds = {"edge": (lambda i: i + 4, lambda i: 12), "shifted0": (lambda i: 0, lambda i: i - 3)}
    lower, upper = bounds[shape]
    return sum(max(upper(i) - lower(i), 0) for i in range(rows))


def test_a_band_that_runs_out_packs_to_the_columns_its_rows_run() -> None:
    """Its extent `8 - i` falls as `i` grows: the rows that have entries are a
    prefix (`i < 8`), and the packed tape holds exactly their 8 + 7 + .. + 1
    columns (the unclamped count summed `8 - i` over all 16 rows: 8)."""
    module = _parse(_band("edge", "%c16"))
    TapeflowEnzymePass().apply(make_context(), module)
    (report,) = raise_module(module.clone())
    nested = [t for t in report.tapes if t.ragged is not None]
    assert len(nested) == 2  # the carried value and x[j]
    assert all(t.values == _band_entries("edge", 16, 0) == 36 for t in nested)
    packed = module.clone()
    for p in (TapeflowRaiseTapePass(), TapeflowPackTapesPass()):
        p.apply(make_context(), packed)
    shapes = [
        op.results[0].type.get_shape() for op in packed.walk() if isinstance(op, tape.AllocOp)
    ]
    assert sorted(shapes).count((36,)) == 2
    given = _band_inputs(16, 0)
    reference = run_function(module, "f_grad", {k: v.copy() for k, v in given.items()})
    got = run_function(packed, "f_grad", {k: v.copy() for k, v in given.items()})
    assert same_bits(got, reference) is None


@pytest.mark.parametrize("n", [16, 9, 8, 1, 0])
def test_a_run_time_band_packs_to_the_columns_its_rows_run(n: int) -> None:
    """Run-time rows: the packed count is computed at run time over the rows that
    have entries, `min(n, 8)`; the executor checks every packed index against it,
    and the tape holds exactly the columns FWD writes."""
    module = _parse(_band("edge", "%n"))
    TapeflowEnzymePass().apply(make_context(), module)
    packed = module.clone()
    for p in (TapeflowRaiseTapePass(), TapeflowPackTapesPass()):
        p.apply(make_context(), packed)
    assert not [op for op in packed.walk() if ragged.RAGGED_CLIP in op.attributes]
    (report,) = raise_module(module.clone())
    (layout,) = {t.ragged for t in report.tapes if t.ragged is not None}
    (clip,) = {t.clip for t in report.tapes if t.clip is not None}
    rows = ragged.count(layout, clip)
    assert rows.evaluate({ragged.CLIPPED: min(n, 8)}) == _band_entries("edge", n, 0)
    given = _band_inputs(n, 0)
    reference = run_function(module, "f_grad", {k: v.copy() for k, v in given.items()})
    got = run_function(packed, "f_grad", {k: v.copy() for k, v in given.items()})
    assert same_bits(got, reference) is None


def test_an_extent_that_grows_past_its_crossing_keeps_the_bounding_box() -> None:
    """`shifted0`'s rows have columns from `i = 4` on, a suffix: no packed count,
    the reason given, and the bounding box runs (the stages above)."""
    module = _parse(_band("shifted0", "%n"))
    TapeflowEnzymePass().apply(make_context(), module)
    (report,) = raise_module(module.clone())
    nested = [t for t in report.tapes if len(t.tape_type.get_shape()) == 2]
    assert nested and all(t.ragged is None for t in nested)
    assert all("may be negative" in (t.not_packed or "") for t in nested)


@pytest.mark.parametrize("name", ["lu", "cholesky", "syrk_tri", "trmm"])
def test_a_triangle_whose_loops_always_run_gets_no_clamp(name: str) -> None:
    """PolyBench's triangles: each inner loop's count is at least zero on every
    iteration that runs (lu's `k < j` inside `j < i`), as the loops prove, so
    their caches keep the sizes Enzyme gives them (and pack as before)."""
    kernel = ALL_KERNELS[name]
    module = differentiate(kernel.mlir("small"), f"{name}.mlir")
    per_iteration = [
        op
        for op in module.walk()
        if isinstance(op, memref.AllocOp) and isinstance(op.parent_op(), scf.ForOp)
    ]
    assert per_iteration
    assert not [
        size
        for op in per_iteration
        for size in op.dynamic_sizes
        if isinstance(size.owner, arith.MaxSIOp)
    ]


OWN_BUFFER = """
func.func @f(%x: memref<4xf64>, %y: memref<4xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = arith.subi %n, %c1 : index
  %s = memref.alloc(%m) : memref<?xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %w = math.sin %v : f64
    memref.store %w, %s[%c0] : memref<?xf64>
    %u = memref.load %s[%c0] : memref<?xf64>
    memref.store %u, %y[%i] : memref<4xf64>
  }
  memref.dealloc %s : memref<?xf64>
  return
}
func.func @f_grad(%x: BUF, %dx: BUF, %y: BUF, %dy: BUF, %n: index) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %n) <{activity = [#enzyme.activity<enzyme_dup>,
    #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}>
    : (BUF, BUF, BUF, BUF, index) -> ()
  return
}
""".replace("BUF", "memref<4xf64>")
"""The function's own scratch buffer of `n - 1` entries: negative for `n = 0`, the
caller's error, which the gradient repeats."""


def test_a_negative_size_of_the_programs_own_buffer_is_named_as_such() -> None:
    module = _parse(OWN_BUFFER)
    TapeflowEnzymePass().apply(make_context(), module)
    given = {f"arg{k}": np.ones(4) for k in range(4)} | {"arg4": np.array(0)}
    with pytest.raises(
        ExecutionError, match=r"7:3: 'memref.alloc' of negative extent.*differentiated function"
    ):
        run_function(module, "f_grad", given)
