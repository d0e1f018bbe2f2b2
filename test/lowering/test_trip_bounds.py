"""
Bounds on run-time trip counts proven from the IR (`lowering.layers.run_time.
trip_bound`) and the tiles of several outer iterations they size.

- Hand-worked bounds: a Sakoe-Chiba band `max(1, i - w) .. min(n, i + w + 1)` runs
  at most `2w + 1` iterations; a triangle `j < i` inside `i < 8` at most 7; a
  constant step divides the bound. What must get no bound: an argument, a value
  read from memory, a `max` where a `min` would bound, an unsigned `min`, a
  quotient, a triangle inside a loop of run-time trip count, a negative or variable
  step.
- Hand-worked tiles: a band of at most 3 iterations of one tape value each, in a
  tile of 8 entries, gives tiles of 2 outer iterations (8 // 3), 6 rows; in a tile
  of 2 entries one outer iteration does not fit and the band is strip-mined alone.
- Gradients: Soft-DTW's band (its `small` and `paper` sizes) lowered with tiles of
  several outer iterations computes the Enzyme stage's values bit for bit, and they
  are autograd's gradient of the numpy primal (and, at the small size, central
  differences of it).
"""

from __future__ import annotations

import numpy as np
import pytest
from stage_checks import (
    assert_kernel_gradient_is_the_reference,
    differentiate,
    kernel_enzyme_outputs,
    kernel_inputs,
    same_bits,
)
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from lowering.ir.walk import walk_ops
from lowering.layers.run_time import trip_bound
from lowering.pipelines import parse_pipeline
from lowering.tapeflow_layers import layer_module
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from tapeflow_benchmarks.kernels import ALL_KERNELS
from tapeflow_dialects import layer
from tapeflow_tools.context import make_context
from tapeflow_tools.tapeflow_run import run_function

NEST = """
func.func @g(%n: index, %s: index, %p: memref<40xindex>, %x: memref<40xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c12 = arith.constant 12 : index
  %c13 = arith.constant 13 : index
  %c97 = arith.constant 97 : index
  %cm1 = arith.constant -1 : index
  scf.for %i = OUTER step %c1 {
    DEFS
    scf.for %j = %lo to %hi step STEP {
      %v = memref.load %x[%c0] : memref<40xf64>
      memref.store %v, %x[%c1] : memref<40xf64>
    }
  }
  func.return
}
"""

BAND = """
    %from = arith.subi %i, %c12 : index
    %lo = arith.maxsi %from, %c1 : index
    %to = arith.addi %i, %c13 : index
    %hi = arith.minsi %to, %c97 : index
"""


def _bound(defs: str, outer: str = "%c1 to %c97", step: str = "%c1") -> int | None:
    text = NEST.replace("OUTER", outer).replace("DEFS", defs).replace("STEP", step)
    module = Parser(make_context(), text).parse_module()
    (function,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    loops = [op for op in walk_ops(function) if isinstance(op, scf.ForOp)]
    return trip_bound(loops[-1], function)


def test_a_band_runs_at_most_twice_its_radius_plus_one() -> None:
    # hi - lo <= (i + 13) - (i - 12) = 25, reached at i = 50 ([38, 63)); the other
    # pairs are larger: 97 - (i - 12) >= 13 + 12 + ..., (i + 13) - 1 <= 108, 96.
    assert _bound(BAND) == 25


def test_a_constant_step_divides_the_bound() -> None:
    assert _bound(BAND, step="%c2") == 13  # ceil(25 / 2)


def test_triangles_inside_a_loop_of_constant_bounds() -> None:
    lower = "%lo = arith.addi %c0, %c0 : index\n%hi = arith.addi %i, %c0 : index"
    assert _bound(lower, outer="%c0 to %c8") == 7  # j < i <= 7
    upper = "%lo = arith.addi %i, %c1 : index\n%hi = arith.addi %c8, %c0 : index"
    assert _bound(upper, outer="%c0 to %c8") == 7  # i + 1 <= j < 8, i >= 0


def test_a_min_with_an_argument_is_bounded_by_its_other_operand() -> None:
    defs = "%lo = arith.addi %i, %c0 : index\n%t = arith.addi %i, %c3 : index\n"
    defs += "%hi = arith.minsi %n, %t : index"
    assert _bound(defs) == 3


def test_a_constant_trip_count_is_its_own_bound() -> None:
    assert _bound("%lo = arith.addi %c2, %c0 : index\n%hi = arith.addi %c9, %c0 : index") == 7


@pytest.mark.parametrize(
    "defs",
    [
        # an argument: any trip count
        "%lo = arith.addi %c0, %c0 : index\n%hi = arith.addi %n, %c0 : index",
        # a value read from memory (a sparse row's end)
        "%lo = arith.addi %c0, %c0 : index\n%hi = memref.load %p[%i] : memref<40xindex>",
        # a max on the upper bound bounds it from below only
        "%lo = arith.addi %i, %c0 : index\n%t = arith.addi %i, %c3 : index\n"
        "%hi = arith.maxsi %t, %c5 : index",
        # an unsigned min: its operands' signed values bound nothing
        "%lo = arith.addi %i, %c0 : index\n%t = arith.addi %i, %c3 : index\n"
        "%hi = arith.minui %t, %c9 : index",
        # a quotient of the index
        "%lo = arith.addi %c0, %c0 : index\n%hi = arith.divsi %i, %c2 : index",
    ],
)
def test_no_bound_is_proven_where_none_follows_from_the_clamps(defs: str) -> None:
    assert _bound(defs) is None


def test_a_triangle_inside_a_loop_of_run_time_trip_count_is_unbounded() -> None:
    lower = "%lo = arith.addi %c0, %c0 : index\n%hi = arith.addi %i, %c0 : index"
    assert _bound(lower, outer="%c0 to %n") is None


@pytest.mark.parametrize("step", ["%cm1", "%s"])
def test_a_negative_or_variable_step_gets_no_bound(step: str) -> None:
    assert _bound(BAND, step=step) is None


REGIONS = """
func.func private @diffeg(%x: memref<5x5xf64>, %y: memref<5x5xf64>) attributes {
    tapeflow.gradient_of = @g, tapeflow.ret_activity = [],
    tapeflow.activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>]} {
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
    %from = arith.subi %i, %c1 : index
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


def _layered(spad_bytes: int) -> tuple[list[tuple[int, int, int]], list[str]]:
    module = Parser(make_context(), REGIONS).parse_module()
    assert isinstance(module, ModuleOp)
    (report,) = layer_module(module, spad_bytes)
    assert not report.kept
    tiles = [str(op.tile.type) for op in module.walk() if isinstance(op, layer.SAllocOp)]
    return [(r.rows, r.slots, r.tile_iterations) for r in report.layers], tiles


def test_a_band_tile_holds_the_outer_iterations_that_fit_at_the_bound() -> None:
    # The band max(1, i - 1) .. min(5, i + 2) runs at most (i + 2) - (i - 1) = 3
    # iterations of one value: 3 entries an outer iteration; 64 bytes hold 8
    # entries, so 8 // 3 = 2 outer iterations a tile, 6 rows of 1 slot.
    records, tiles = _layered(64)
    assert records == [(6, 1, 2)]
    assert tiles == ["!layer.spad<6x1>", "!layer.spad<6x1>"]


def test_a_band_wider_than_half_a_tile_is_strip_mined_alone() -> None:
    # 40 bytes hold 5 entries: one outer iteration (3) fits, two do not; the
    # band's own loop is strip-mined, 5 of its iterations a tile.
    records, _ = _layered(40)
    assert records == [(5, 1, 5)]


SOFTDTW = ALL_KERNELS["softdtw"]


@pytest.mark.parametrize(("preset", "spad"), [("small", 512), ("paper", 4096)])
def test_soft_dtw_in_tiles_of_outer_iterations_computes_the_reference(
    preset: str, spad: int
) -> None:
    # small: W = 2, 2W + 1 = 5 cells of 4 tape values, 20 entries an outer
    # iteration, 64 entries in 512 bytes: tiles of 3. paper: W = 12, 100 entries,
    # 512 entries in 4096 bytes: tiles of 5.
    per_tile = {"small": 3, "paper": 5}[preset]
    want = kernel_enzyme_outputs(SOFTDTW, preset)
    if preset == "small":  # central differences of every cell: the small size only
        assert_kernel_gradient_is_the_reference(SOFTDTW, preset, want)
    else:
        for name, value in SOFTDTW.expected(preset, SOFTDTW.inputs(preset)).items():
            np.testing.assert_allclose(want[name], value, rtol=1e-10, atol=1e-12, err_msg=name)
    module = differentiate(SOFTDTW.mlir(preset), "softdtw.mlir")
    staged = module.clone()
    raise_module(staged)
    form_regions(staged)
    (report,) = layer_module(staged, spad)
    assert not report.kept
    assert [(r.tile_iterations, r.rows) for r in report.layers] == [
        (per_tile, per_tile * (2 * SOFTDTW.sizes[preset]["W"] + 1))
    ]
    parse_pipeline(f"tapeflow-pipeline{{spad-bytes={spad}}}").apply(make_context(), module)
    got = run_function(module, "softdtw_grad", kernel_inputs(SOFTDTW, preset))
    assert same_bits(got, want) is None
