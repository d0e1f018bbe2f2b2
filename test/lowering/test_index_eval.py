"""`IndexEvaluator.flat_elements`: the row-major element each iteration of a loop
nest touches, -1 where its indices fall outside the shape, checked against the
indices computed by hand with numpy."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import memref, scf

from lowering.ir.index_eval import IndexEvaluator
from tapeflow_tools.context import make_context
from tapeflow_tools.frontend import parse_module_text

NEST = """
func.func @k(%m: memref<3x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %m[%i, %j] : memref<3x4xf64>
      %k = arith.addi %i, %j : index
      %w = memref.load %m[%i, %k] : memref<3x4xf64>
    }
  }
  func.return
}
"""


def test_flat_elements_inside_and_partly_outside_the_shape() -> None:
    module = parse_module_text(make_context(), NEST, "nest.mlir")
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    inside, shifted = [op for op in module.walk() if isinstance(op, memref.LoadOp)]
    evaluator = IndexEvaluator(loops)
    i, j = np.meshgrid(np.arange(3), np.arange(4), indexing="ij")
    every = evaluator.flat_elements(inside.indices, (3, 4))
    assert every.dtype == np.int64 and every.shape == (3, 4)
    assert np.array_equal(every, i * 4 + j)
    k = i + j
    expected = np.where(k < 4, i * 4 + k, -1)
    some = evaluator.flat_elements(shifted.indices, (3, 4))
    assert some.dtype == np.int64 and np.array_equal(some, expected)
    assert (some == -1).any() and (some >= 0).any()
