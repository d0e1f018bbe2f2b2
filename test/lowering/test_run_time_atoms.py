"""
The symbolic mirror proof of `lowering.layers.run_time` with bounds that are not
affine forms of the loops' indices: a loop bound Enzyme cached on the tape (CSR row
pointers, `TapeValue`) and a bound that clamps an index (`max`/`min`, `IndexOp`).
Each is an atom of the forms; FWD and REV agree where the atoms do at mirrored
iterations (and an i32 loop's index, cast to `index`, is the same integer).
Hand-written region-stage functions, each with a variant that must not be proven:
REV reading another row's bound, REV recomputing another band, and a store index
that may repeat an element although its coefficients have full rank.
"""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from lowering.layers.run_time import affine_form, run_time_tiling_plans
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser

CSR = """
func.func private @g(%p: memref<5xindex>, %x: memref<9xf64>, %y: memref<9xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c9 = arith.constant 9 : index
  %b = region.alloc : !region.region<4, [index, index]>
  %a = region.alloc(%c9) : !region.region<4x?, [f64]>
  scf.for %i = %c0 to %c4 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %p[%i] : memref<5xindex>
    region.store %lo, %b[%i] slot 0 id 0 : index, !region.region<4, [index, index]>
    %hi = memref.load %p[%i1] : memref<5xindex>
    region.store %hi, %b[%i] slot 1 id 1 : index, !region.region<4, [index, index]>
    scf.for %k = %lo to %hi step %c1 {
      %o = arith.subi %k, %lo : index
      %s = arith.addi %i, %k : index
      %t = arith.addi %k, %lo : index
      %v = memref.load %x[%k] : memref<9xf64>
      region.store %v, %a[STORE_INDEX] slot 0 id 0 : f64, !region.region<4x?, [f64]>
    }
  }
  scf.for %u = %c0 to %c4 step %c1 {
    %i = arith.subi %c3, %u : index
    %lo = region.load %b[ROW] slot 0 from 0 : !region.region<4, [index, index]> -> index
    %hi = region.load %b[%i] slot 1 from 1 : !region.region<4, [index, index]> -> index
    scf.for %w = %lo to %hi step %c1 {
      %last = arith.subi %hi, %c1 : index
      %o = arith.subi %last, %w : index
      %k = arith.addi %o, %lo : index
      %s = arith.addi %i, %k : index
      %t = arith.addi %k, %lo : index
      %v = region.load %a[LOAD_INDEX] slot 0 from 0 : !region.region<4x?, [f64]> -> f64
      memref.store %v, %y[%k] : memref<9xf64>
    }
  }
  region.free %a : !region.region<4x?, [f64]>
  region.free %b : !region.region<4, [index, index]>
  func.return
}
"""

BAND = """
func.func private @g(%x: memref<5x5xf64>, %y: memref<5x5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %a = region.alloc(%c5) : !region.region<4x?, [f64]>
  scf.for %i = %c1 to %c5 step %c1 {
    %im = arith.subi %i, %c1 : index
    %lo = arith.maxsi %im, %c1 : index
    %to = arith.addi %i, %c2 : index
    %hi = arith.minsi %to, %c5 : index
    scf.for %j = %lo to %hi step %c1 {
      %o = arith.subi %j, %lo : index
      %v = memref.load %x[%i, %j] : memref<5x5xf64>
      region.store %v, %a[%im, %o] slot 0 id 0 : f64, !region.region<4x?, [f64]>
    }
  }
  scf.for %u = %c0 to %c4 step %c1 {
    %i = arith.subi %c4, %u : index
    %im = arith.subi %i, %c1 : index
    %from = arith.subi %i, REV_REACH : index
    %lo = arith.maxsi %c1, %from : index
    %to = arith.addi %i, %c2 : index
    %hi = arith.minsi %to, %c5 : index
    scf.for %w = %lo to %hi step %c1 {
      %last = arith.subi %hi, %c1 : index
      %o = arith.subi %last, %w : index
      %j = arith.addi %o, %lo : index
      %v = region.load %a[%im, %o] slot 0 from 0 : !region.region<4x?, [f64]> -> f64
      memref.store %v, %y[%i, %j] : memref<5x5xf64>
    }
  }
  region.free %a : !region.region<4x?, [f64]>
  func.return
}
"""


COUNT = """
func.func private @g(%x: memref<4xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c18 = arith.constant 18 : index
  %r = arith.constant 3.0 : f64
  %v = region.alloc : !region.region<4, [f64]>
  %a = region.alloc(%c18) : !region.region<4x?, [f64]>
  scf.for %i = %c0 to %c4 step %c1 {
    %xi = memref.load %x[%i] : memref<4xf64>
    region.store %xi, %v[%i] slot 0 id 0 : f64, !region.region<4, [f64]>
    %ab = math.absf %xi : f64
    %s = arith.mulf %ab, %r : f64
    %n64 = arith.fptosi %s : f64 to i64
    %n0 = arith.index_cast %n64 : i64 to index
    %n = arith.addi %n0, %c1 : index
    scf.for %t = %c0 to %n step %c1 {
      region.store %s, %a[%i, %t] slot 0 id 0 : f64, !region.region<4x?, [f64]>
    }
  }
  scf.for %u = %c0 to %c4 step %c1 {
    %i = arith.subi %c3, %u : index
    %xi = region.load %v[%i] slot 0 from 0 : !region.region<4, [f64]> -> f64
    %ab = math.absf %xi : f64
    %s = arith.mulf %ab, REV_SCALE : f64
    %n64 = arith.fptosi %s : f64 to i64
    %n0 = arith.index_cast %n64 : i64 to index
    %n = arith.addi %n0, %c1 : index
    scf.for %w = %c0 to %n step %c1 {
      %last = arith.subi %n, %c1 : index
      %t = arith.subi %last, %w : index
      %e = region.load %a[%i, %t] slot 0 from 0 : !region.region<4x?, [f64]> -> f64
      memref.store %e, %y[%i] : memref<4xf64>
    }
  }
  region.free %a : !region.region<4x?, [f64]>
  region.free %v : !region.region<4, [f64]>
  func.return
}
"""


def _function(text: str) -> func.FuncOp:
    module = Parser(make_context(), text).parse_module()
    assert isinstance(module, ModuleOp)
    (function,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    return function


def _outcome(text: str) -> tuple[set[str], dict[str, str]]:
    """The region types strip-mined at run time, and why the others are not."""
    function = _function(text)
    plans, reasons, _ = run_time_tiling_plans(function, 64)
    planned = {str(r.type) for plan in plans.values() for r in plan.regions}
    return planned, {str(r.type): why for r, why in reasons.items()}


def _csr(store: str = "%i, %o", row: str = "%i", load: str = "%i, %o") -> str:
    return CSR.replace("STORE_INDEX", store).replace("ROW", row).replace("LOAD_INDEX", load)


def test_bounds_cached_on_the_tape_are_proven_mirrored() -> None:
    planned, _ = _outcome(_csr())
    assert "!region.region<4x?, [f64]>" in planned


def test_a_bound_read_from_another_row_is_not_proven() -> None:
    planned, reasons = _outcome(_csr(row="%u"))
    assert "!region.region<4x?, [f64]>" not in planned
    assert "trip counts" in reasons["!region.region<4x?, [f64]>"]


def test_a_store_index_that_may_repeat_is_not_proven() -> None:
    """(i, k) -> (i + k, k + lo(i)): REV reads what FWD wrote at mirrored
    iterations, and the coefficients have full column rank, but lo is a function
    of i (lo(i) = i repeats elements), so only the level-by-level test applies."""
    text = _csr(store="%s, %t", load="%s, %t").replace("4x?, [f64]", "9x9, [f64]")
    text = text.replace(
        "region.alloc(%c9) : !region.region<9x9", "region.alloc : !region.region<9x9"
    )
    planned, reasons = _outcome(text)
    assert "!region.region<9x9, [f64]>" not in planned
    assert reasons["!region.region<9x9, [f64]>"] == "FWD may write some tape element more than once"


def test_a_band_recomputed_by_rev_is_proven_mirrored() -> None:
    planned, _ = _outcome(BAND.replace("REV_REACH", "%c1"))
    assert "!region.region<4x?, [f64]>" in planned


def test_another_band_in_rev_is_not_proven() -> None:
    planned, reasons = _outcome(BAND.replace("REV_REACH", "%c2"))
    assert "!region.region<4x?, [f64]>" not in planned
    assert "trip counts" in reasons["!region.region<4x?, [f64]>"]


def test_a_band_clamped_at_zero_is_proven_mirrored() -> None:
    """`max(i - 1, 0)` in FWD and `max(0, i - 1)` recomputed by REV: FWD's operand
    `0` passes through the mirror substitution (which drops zero coefficients)
    and REV's does not, so both must be the same form, the empty one (a band of
    Longformer's local attention, clamped at the sequence's start, was left in
    DRAM when the constant 0 was the form `{1: 0}`)."""
    text = BAND.replace("REV_REACH", "%c1")
    text = text.replace("arith.maxsi %im, %c1", "arith.maxsi %im, %c0")
    text = text.replace("arith.maxsi %c1, %from", "arith.maxsi %c0, %from")
    planned, reasons = _outcome(text)
    assert "!region.region<4x?, [f64]>" in planned, reasons
    # and a band clamped at 0 in FWD but at 1 in REV is still refused
    other = BAND.replace("REV_REACH", "%c1").replace("arith.maxsi %im, %c1", "arith.maxsi %im, %c0")
    planned, reasons = _outcome(other)
    assert "!region.region<4x?, [f64]>" not in planned
    assert "trip counts" in reasons["!region.region<4x?, [f64]>"]


def test_a_zero_constant_is_the_empty_form() -> None:
    function = _function(BAND.replace("REV_REACH", "%c1"))
    constants = {
        op.value.value.data: op.result
        for op in function.body.block.ops
        if isinstance(op, arith.ConstantOp)
    }
    assert affine_form(constants[0], set(), None) == {}
    assert affine_form(constants[2], set(), None) == {1: 2}


def test_a_loop_over_i32_bounds_with_a_clamped_tile_is_proven_mirrored() -> None:
    """MLIR's peeling test shape (frontend_kernels/strided_i32_tiles.mlir): an i32
    loop, its index cast to `index` (the same integer) and an inner loop to
    `min(4, 17 - start)`: the inner loop is strip-mined at run time."""
    path = Path(__file__).parents[1] / "tapeflow_tools" / "frontend_kernels"
    text = (path / "strided_i32_tiles.mlir").read_text()
    module = LocatingParser(make_context(), text, "strided_i32_tiles.mlir").parse_module()
    TapeflowEnzymePass().apply(make_context(), module)
    raise_module(module)
    form_regions(module)
    (function,) = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data.startswith("diffe")
    ]
    plans, reasons, _ = run_time_tiling_plans(function, 8)
    assert {str(r.type) for plan in plans.values() for r in plan.regions} == {
        "!region.region<5x?, [f64, f64]>"
    }, reasons


def test_a_count_computed_from_a_cached_float_is_proven_mirrored() -> None:
    """FWD's trip count `fptosi(|x| * 3) + 1`, REV's recomputed from the `x` it
    loads from the tape at the mirrored row: the same float ops of the same tape
    element, one atom, so the loop's region is strip-mined at run time."""
    planned, reasons = _outcome(COUNT.replace("REV_SCALE", "%r"))
    assert "!region.region<4x?, [f64]>" in planned, reasons


def test_a_count_computed_otherwise_in_rev_is_not_proven() -> None:
    """REV's count scaled by 2.0 where FWD's is by 3.0: the operands of the
    multiply differ, so do the atoms of the counts, and the region is refused."""
    text = COUNT.replace("REV_SCALE", "%two").replace(
        "%xi = region.load", "%two = arith.constant 2.0 : f64\n    %xi = region.load"
    )
    planned, reasons = _outcome(text)
    assert "!region.region<4x?, [f64]>" not in planned
    assert "trip counts" in reasons["!region.region<4x?, [f64]>"]
