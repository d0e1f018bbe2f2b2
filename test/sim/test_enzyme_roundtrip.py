"""The real Enzyme through tapeflow-enzyme, executed, against an analytic gradient."""

from __future__ import annotations

import numpy as np
import pytest

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

LOGSUM = """
func.func @logsum(%x: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  %a = memref.load %x[%c0] : memref<8xf64>
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %one) -> (f64) {
    %v = memref.load %x[%i] : memref<8xf64>
    %d = arith.subf %v, %a : f64
    %e = math.exp %d : f64
    %m = arith.mulf %acc, %e : f64
    scf.yield %m : f64
  }
  %l = math.log %s : f64
  %r = arith.addf %l, %a : f64
  func.return %r : f64
}
func.func @grad(%x: memref<8xf64>, %dx: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @logsum(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], \
ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<8xf64>, memref<8xf64>, f64) -> f64
  func.return %r : f64
}
"""


def test_logsum_gradient_matches_the_analytic_one() -> None:
    ctx = make_context()
    module = LocatingParser(ctx, LOGSUM, "logsum.mlir").parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    module.verify()
    names = [op.sym_name.data for op in module.ops]
    assert names == ["logsum", "grad", "diffelogsum"]  # the caller keeps its name
    x = np.random.default_rng(1).uniform(-1.0, 1.0, 8)
    out = run_function(module, "grad", {"arg0": x})
    # log(prod_i exp(x_i - x_0)) + x_0 = sum_i x_i - 7 x_0: d/dx_0 = -6, d/dx_i = 1
    assert out["result0"] == pytest.approx(x.sum() - 7 * x[0], rel=1e-12)
    expected = np.ones(8)
    expected[0] = -6.0
    np.testing.assert_allclose(out["arg1"], expected, rtol=1e-12)
    np.testing.assert_array_equal(out["arg0"], x)
