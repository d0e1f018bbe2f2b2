"""
`tapeflow-to-cgra` erases the loop nests outside innermost loops whose results
nothing uses and which write nothing, where they hold a loop (`_dead_nest`): the
nest `tapeflow-raise-tape` clones to find the largest of a while loop's trip
counts (the region's extent) runs the while loop once more per element, and
once the region is streamed nothing reads that extent. A flat loop of loads
stays (the lines it brings in are those the nest after it reads).

By hand: which dead loops `_erase_dead` erases and which it keeps. On a kernel
(Newton's square root per element, a while loop of run-time trip count): the
tapeflow variant runs each element's iteration as often as the enzyme variant
(the divisions counted), under both models.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import func, scf

import lowering.tapeflow_to_cgra as to_cgra
from sim.models import MODELS
from sim.simulator import evaluate, execute, prepare
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_tools.context import make_context
from tapeflow_tools.frontend import parse_module_text
from targets.hardware import PRESETS

DEAD_LOOPS = """
func.func @f(%a: memref<4xf64>, %n: memref<4xindex>, %out: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %tol = arith.constant 1.0e-13 : f64
  %counted = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %c0) -> (index) {
    %av = memref.load %a[%i] : memref<4xf64>
    %k, %x = scf.while (%j = %c0, %y = %av) : (index, f64) -> (index, f64) {
      %q = arith.divf %av, %y : f64
      %s = arith.addf %y, %q : f64
      %ny = arith.mulf %s, %half : f64
      %d = arith.subf %ny, %y : f64
      %ad = math.absf %d : f64
      %c = arith.cmpf ogt, %ad, %tol : f64
      scf.condition(%c) %j, %ny : index, f64
    } do {
    ^bb0(%j2: index, %y2: f64):
      %j3 = arith.addi %j2, %c1 : index
      scf.yield %j3, %y2 : index, f64
    }
    %bigger = arith.maxsi %m, %k : index
    scf.yield %bigger : index
  }
  %swept = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %c0) -> (index) {
    %k = memref.load %n[%i] : memref<4xindex>
    %bigger = arith.maxsi %m, %k : index
    scf.yield %bigger : index
  }
  %written = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %one) -> (f64) {
    %inner = scf.for %j = %c0 to %c4 step %c1 iter_args(%p = %m) -> (f64) {
      %v = memref.load %a[%j] : memref<4xf64>
      memref.store %p, %out[%j] : memref<4xf64>
      %np = arith.mulf %p, %v : f64
      scf.yield %np : f64
    }
    scf.yield %inner : f64
  }
  func.return
}
"""


def _loops_left() -> list[str]:
    module = parse_module_text(make_context(), DEAD_LOOPS, "dead_loops.mlir")
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    to_cgra._erase_dead(function)
    return [
        op.body.block.first_op.name
        for op in function.body.block.ops
        if isinstance(op, scf.ForOp) and op.body.block.first_op is not None
    ]


def test_the_replayed_while_loop_goes_the_sweep_and_the_writer_stay() -> None:
    # The counting nest (its body starts with the load of `a`, then the while
    # loop) is erased; the flat sweep of `n` and the nest that stores stay.
    left = _loops_left()
    assert len(left) == 2
    assert left == ["memref.load", "scf.for"]


@pytest.mark.parametrize("model", ["cgra", "salam"])
def test_newton_runs_each_iteration_as_often_as_enzyme(model: str) -> None:
    divisions = {}
    for variant, machine in (("enzyme", "Enzyme32k"), ("tapeflow", "Tflow32k")):
        ctx = make_context()
        module = parse_kernel(ctx, "newton", "small")
        hardware = MODELS[model].hardware(PRESETS[machine])
        tape_bytes = prepare(ctx, module, variant, hardware, 1, model)
        args = caller_arguments(module, "newton", "small")
        execution = execute(
            module, "newton_grad", args, hardware, tape_bytes, variant=variant, model=model
        )
        divisions[variant] = evaluate(execution)["ops"]["fu"]["fdiv"]
    assert divisions["tapeflow"] == divisions["enzyme"]
