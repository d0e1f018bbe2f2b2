"""
Which stores `route_inactive_stores` routes (lowering/enzyme/inactive_stores.py):
exactly the stores of a value with no derivative into a buffer that may have a
shadow, decided on the primal before Enzyme runs. The gradients themselves are
checked against central differences with the kernels of test/lowering/kernels
(polybench_*, const_store_*) and by test/filecheck/passes/tapeflow-enzyme/
inactive-store.mlir.
"""

from __future__ import annotations

import re

import pytest
from xdsl.dialects import func, memref

from lowering.enzyme.inactive_stores import (
    STORE_ROUTE,
    primal_activities,
    route_inactive_stores,
    undo_store_routes,
)
from lowering.enzyme.upstream_mlir import MlirRejected, no_locator, run_pipeline
from lowering.tapeflow_enzyme import CHECKPOINT_REJECTION
from tapeflow_dialects.enzyme import Activity, AutoDiffOp
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser

KERNEL = """
func.func @f(%x: memref<4xf64>, %c: memref<4xf64>, %s: f64, %t: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %two = arith.constant 2.0 : f64
  %local = memref.alloca() : memref<4xf64>
  %table = memref.alloca() : memref<4xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %k = arith.index_cast %i : index to i64
    %ki = arith.sitofp %k : i64 to f64
    %ck = memref.load %c[%i] : memref<4xf64>
    %v = memref.load %x[%i] : memref<4xf64>
    %tv = memref.load %table[%i] : memref<4xf64>
    %even = arith.cmpf ogt, %ki, %two : f64
    %pick = arith.select %even, %zero, %two : f64
    %sum = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %n = arith.addf %acc, %two : f64
      scf.yield %n : f64
    }
    %carried = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %n = arith.addf %acc, %v : f64
      scf.yield %n : f64
    }
    memref.store %zero, %x[%i] {expect = "routed: a constant"} : memref<4xf64>
    memref.store %ki, %x[%i] {expect = "routed: from the loop index"} : memref<4xf64>
    memref.store %ck, %x[%i] {expect = "routed: loaded from an enzyme_const buffer"} : memref<4xf64>
    memref.store %t, %x[%i] {expect = "routed: an enzyme_const scalar"} : memref<4xf64>
    memref.store %pick, %x[%i] {expect = "routed: a select of constants"} : memref<4xf64>
    memref.store %sum, %x[%i] {expect = "routed: a loop-carried sum of constants"} : memref<4xf64>
    memref.store %tv, %x[%i] {expect = "routed: loaded from a buffer holding constants"} : \
memref<4xf64>
    memref.store %two, %table[%i] {expect = "kept: a buffer that never holds a derivative"} : \
memref<4xf64>
    memref.store %zero, %c[%i] {expect = "kept: an enzyme_const buffer"} : memref<4xf64>
    memref.store %v, %x[%i] {expect = "kept: an active load"} : memref<4xf64>
    memref.store %s, %x[%i] {expect = "kept: an active scalar"} : memref<4xf64>
    memref.store %carried, %x[%i] {expect = "kept: a loop-carried sum of active values"} : \
memref<4xf64>
    memref.store %v, %local[%i] {expect = "kept: an active value into a local buffer"} : \
memref<4xf64>
    memref.store %zero, %local[%i] \
{expect = "routed: a constant into a local buffer that holds derivatives"} : memref<4xf64>
  }
  return
}
func.func @f_grad(%x: memref<4xf64>, %dx: memref<4xf64>, %c: memref<4xf64>, %s: f64, %t: f64) -> \
f64 {
  %r = enzyme.autodiff @f(%x, %dx, %c, %s, %t) <{activity = [#enzyme<activity enzyme_dup>, \
#enzyme<activity enzyme_const>, #enzyme<activity enzyme_active>, #enzyme<activity enzyme_const>], \
ret_activity = []}> : (memref<4xf64>, memref<4xf64>, memref<4xf64>, f64, f64) -> f64
  return %r : f64
}
"""


def test_stores_of_values_without_derivative_into_shadowed_buffers_are_routed() -> None:
    module = LocatingParser(make_context(), KERNEL, "kernel.mlir").parse_module()
    requests = [op for op in module.walk() if isinstance(op, AutoDiffOp)]
    activities = primal_activities(module, requests)
    assert activities == {"f": [Activity.DUP, Activity.CONST, Activity.ACTIVE, Activity.CONST]}
    assert route_inactive_stores(module, activities) == ["f"]
    primal = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "f"
    )
    scratch = [
        op
        for op in primal.walk()
        if isinstance(op, memref.AllocaOp) and STORE_ROUTE in op.attributes
    ]
    assert len(scratch) == 1  # one f64 scratch for all of them
    for store in primal.walk():
        if isinstance(store, memref.StoreOp) and "expect" in store.attributes:
            expect = store.attributes["expect"].data  # type: ignore[attr-defined]
            routed = (
                isinstance(store.value.owner, memref.LoadOp)
                and store.value.owner.memref is scratch[0].memref
            )
            assert routed == expect.startswith("routed"), expect
    # Undoing the routes gives each store its own value back and drops the scratch.
    undo_store_routes(primal)
    assert not any(STORE_ROUTE in op.attributes for op in primal.walk())
    assert not any(
        isinstance(op, memref.LoadOp) and op.memref.type == memref.MemRefType(op.res.type, [])
        for op in primal.walk()
    )
    module.verify()


CHECKPOINTED = """
func.func @k(%x: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 0.5 : f64
  %t = memref.alloca() : memref<f64>
  BEFORE
  scf.for %i = %c0 to %c4 step %c1 {
    BODY
  } {enzyme.enable_checkpointing = true}
  return
}
func.func @k_grad(%x: memref<4xf64>, %dx: memref<4xf64>) {
  enzyme.autodiff @k(%x, %dx) <{activity = [#enzyme.activity<enzyme_dup>], \
ret_activity = []}> : (memref<4xf64>, memref<4xf64>) -> ()
  return
}
"""
ROUND_TRIP = "memref.store %half, %t[] : memref<f64>\n  %v = memref.load %t[] : memref<f64>"


@pytest.mark.parametrize(
    ("before", "body"),
    [
        # Enzyme's alone: no TapeFlow rewrite (the reproducer of docs/enzyme-bugs.md)
        (
            "",
            "%v = memref.load %x[%i] : memref<4xf64>\n    %s = math.sin %v : f64\n"
            "    memref.store %s, %x[%i] : memref<4xf64>",
        ),
        # the route of `x[i] = 0.5` as route_inactive_stores places it
        ("", f"{ROUND_TRIP}\n    memref.store %v, %x[%i] : memref<4xf64>"),
        # the same route with its read hoisted out of the checkpointed loop
        (ROUND_TRIP, "memref.store %v, %x[%i] : memref<4xf64>"),
    ],
)
def test_enzyme_cannot_checkpoint_a_loop_storing_a_value_read_from_memory(
    before: str, body: str
) -> None:
    """Enzyme-MLIR 0.0.16 (its `enzyme` pass alone) rejects its own output for
    this checkpointed loop that stores into an argument's buffer a value read from
    memory, wherever that read is: no placement of the route of this constant store
    avoids it, so tapeflow-enzyme reports it (CHECKPOINT_REJECTION, with notes)
    rather than route differently. If a later Enzyme accepts these, the route can
    be used under checkpointing and this test says so."""
    text = CHECKPOINTED.replace("BEFORE", before).replace("BODY", body)
    with pytest.raises(MlirRejected, match=re.escape(CHECKPOINT_REJECTION)):
        run_pipeline(text, "enzyme", no_locator, what="Enzyme")
