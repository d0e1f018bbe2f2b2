"""
The ops Enzyme-MLIR refuses, rewritten before it (lowering/enzyme/refused_ops.py):
the gradient's forward values are the ops' own, bit for bit, on every input
(-0, infinities and NaN included: the erf rewrite differs from erf there until
it is restored), and the derivatives are the analytic ones. Inlined calls leave
their callee in the module. The kernels under kernels/ (rmsnorm, layernorm_rsqrt,
gelu, mlp_local_buffer, rk4_step_call, call_dot_normalize) check the same
against central differences at every stage.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from stage_checks import central_difference_gradients, differentiate, function_named
from xdsl.dialects import func

from lowering.enzyme.refused_ops import differentiated_functions, inline_memory_calls
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

UNARY = """
func.func @f(%x: memref<{n}x{t}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant {n} : index
  scf.for %i = %c0 to %cn step %c1 {{
    %v = memref.load %x[%i] : memref<{n}x{t}>
    %r = math.{op} %v : {t}
    memref.store %r, %x[%i] : memref<{n}x{t}>
  }}
  return
}}
func.func @f_grad(%x: memref<{n}x{t}>, %dx: memref<{n}x{t}>) {{
  enzyme.autodiff @f(%x, %dx) <{{activity = [#enzyme<activity enzyme_dup>], ret_activity = []}}> \
: (memref<{n}x{t}>, memref<{n}x{t}>) -> ()
  return
}}
"""

POINTS = [-0.0, 0.0, 0.3, -1.7, 2.5, 30.0, -30.0, math.inf, -math.inf, math.nan]
POSITIVE = [0.25, 1.0, 2.0, 1e-100, 1e100, 7.5]


def _gradient(op: str, kind: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gradient's outputs (values, shadow) for the seed 1, and the original
    primal's values, run by the reference executor."""
    text = UNARY.format(n=len(x), t=kind, op=op)
    seed = np.ones_like(x)
    out = run_function(differentiate(text), "f_grad", {"arg0": x.copy(), "arg1": seed})
    primal = LocatingParser(make_context(), text, f"{op}.mlir").parse_module()
    return out["arg0"], out["arg1"], run_function(primal, "f", {"arg0": x.copy()})["arg0"]


@pytest.mark.parametrize("kind", ["f64", "f32"])
def test_erf_keeps_its_values_everywhere_and_gets_its_derivative(kind: str) -> None:
    dtype = np.float64 if kind == "f64" else np.float32
    x = np.array(POINTS, dtype=dtype)
    values, gradient, primal = _gradient("erf", kind, x)
    assert values.tobytes() == primal.tobytes()  # -0 stays -0, erf(+-inf) = +-1, NaN stays
    if kind == "f64":
        assert values.tobytes() == np.array([math.erf(v) for v in POINTS]).tobytes()
    finite = np.isfinite(x)
    slope = [2 / math.sqrt(math.pi) * math.exp(-(float(v) ** 2)) for v in x[finite]]
    np.testing.assert_allclose(gradient[finite], slope, rtol=1e-6 if kind == "f32" else 1e-15)


def test_rsqrt_keeps_its_values_and_gets_its_derivative() -> None:
    x = np.array(POSITIVE)
    values, gradient, primal = _gradient("rsqrt", "f64", x)
    assert values.tobytes() == primal.tobytes()
    assert values.tobytes() == np.array([1.0 / math.sqrt(v) for v in x]).tobytes()
    np.testing.assert_allclose(gradient, [-0.5 / (v * math.sqrt(v)) for v in x], rtol=1e-15)


CALLS = """
func.func private @leaf(%x: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<2xf64>
  %s = math.sin %v : f64
  memref.store %s, %x[%c0] : memref<2xf64>
  return
}
func.func @middle(%x: memref<2xf64>) -> f64 {
  %c1 = arith.constant 1 : index
  func.call @leaf(%x) : (memref<2xf64>) -> ()
  %w = memref.load %x[%c1] : memref<2xf64>
  return %w : f64
}
func.func private @pure(%a: f64) -> f64 {
  %b = arith.mulf %a, %a : f64
  return %b : f64
}
func.func @f(%x: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %w = func.call @middle(%x) : (memref<2xf64>) -> f64
  %p = func.call @pure(%w) : (f64) -> f64
  memref.store %p, %x[%c0] : memref<2xf64>
  return
}
func.func @other(%x: memref<2xf64>) -> f64 {
  %w = func.call @middle(%x) : (memref<2xf64>) -> f64
  return %w : f64
}
"""


def test_calls_that_touch_memory_are_inlined_and_their_callees_kept() -> None:
    """@f's calls of @middle (which calls @leaf) are inlined, transitively; the
    call of @pure, which touches no memory, is left for Enzyme (it differentiates
    it); @other, which Enzyme does not differentiate, keeps its call, and @middle
    and @leaf stay for it."""
    module = LocatingParser(make_context(), CALLS, "calls.mlir").parse_module()
    before = run_function(module, "f", {"arg0": np.array([0.4, -1.2])})
    assert differentiated_functions(module, ["f"]) == ["f", "pure", "middle", "leaf"]
    inline_memory_calls(module, ["f"])
    module.verify()

    def callees(name: str) -> list[str]:
        return [
            op.callee.root_reference.data
            for op in function_named(module, name).walk()
            if isinstance(op, func.CallOp)
        ]

    assert callees("f") == ["pure"]
    assert callees("other") == ["middle"]
    assert {op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp)} == {
        "leaf",
        "middle",
        "pure",
        "f",
        "other",
    }
    after = run_function(module, "f", {"arg0": np.array([0.4, -1.2])})
    assert after["arg0"].tobytes() == before["arg0"].tobytes()
    assert after["arg0"].tolist() == [(-1.2) * (-1.2), -1.2]  # x[0] = x[1]^2 after sin


OPS = {
    # op: (body computing %r from %v, domain of the points)
    "erf": ("%r = math.erf %v : f64", (-2.0, 2.0)),
    "expm1": ("%r = math.expm1 %v : f64", (-2.0, 2.0)),
    "log10": ("%r = math.log10 %v : f64", (0.2, 3.0)),
    "tan": ("%r = math.tan %v : f64", (-1.2, 1.2)),
    "sinh": ("%r = math.sinh %v : f64", (-2.0, 2.0)),
    "cosh": ("%r = math.cosh %v : f64", (-2.0, 2.0)),
    "asinh": ("%r = math.asinh %v : f64", (-2.0, 2.0)),
    "acosh": ("%r = math.acosh %v : f64", (1.2, 3.0)),
    "atanh": ("%r = math.atanh %v : f64", (-0.8, 0.8)),
    "asin": ("%r = math.asin %v : f64", (-0.8, 0.8)),
    "acos": ("%r = math.acos %v : f64", (-0.8, 0.8)),
    "trunc": ("%t = math.trunc %v : f64\n    %r = arith.mulf %t, %v : f64", (-3.3, 3.3)),
    "round": ("%t = math.round %v : f64\n    %r = arith.mulf %t, %v : f64", (-3.3, 3.3)),
    "roundeven": ("%t = math.roundeven %v : f64\n    %r = arith.mulf %t, %v : f64", (-3.3, 3.3)),
    # Stored alone: an inactive value over x[i], whose adjoint zeroes the seed.
    "round alone": ("%r = math.round %v : f64", (-3.3, 3.3)),
    "atan2": (
        "%w = arith.mulf %v, %v : f64\n    %u = arith.addf %w, %h : f64\n"
        "    %a = math.atan2 %v, %u : f64\n    %b = math.atan2 %u, %v : f64\n"
        "    %r = arith.addf %a, %b : f64",
        (-2.0, 2.0),
    ),
    "minnumf": (
        "%a = arith.minnumf %v, %h : f64\n    %b = arith.minnumf %h, %v : f64\n"
        "    %r = arith.mulf %a, %b : f64",
        (-2.0, 2.0),
    ),
}

BODY = """
func.func @f(%x: memref<6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %h = arith.constant 0.5 : f64
  scf.for %i = %c0 to %c6 step %c1 {
    %v = memref.load %x[%i] : memref<6xf64>
    BODY
    memref.store %r, %x[%i] : memref<6xf64>
  }
  return
}
func.func @f_grad(%x: memref<6xf64>, %dx: memref<6xf64>) {
  enzyme.autodiff @f(%x, %dx) <{activity = [#enzyme<activity enzyme_dup>], ret_activity = []}> \
: (memref<6xf64>, memref<6xf64>) -> ()
  return
}
"""


@pytest.mark.parametrize("name", sorted(OPS))
def test_ops_without_an_enzyme_adjoint_get_their_derivative(name: str) -> None:
    """Each op Enzyme-MLIR 0.0.16 has no adjoint for: the gradient's forward values
    are the original primal's bits, and its derivative equals central differences
    (points kept away from the jumps of trunc and round, and from 0.5 for minnumf)."""
    body, (low, high) = OPS[name]
    text = BODY.replace("BODY", body)
    x = np.linspace(low, high, 6) + 0.0123
    seed = np.random.default_rng(len(name)).uniform(-1.0, 1.0, 6)
    out = run_function(differentiate(text), "f_grad", {"arg0": x.copy(), "arg1": seed.copy()})
    primal = LocatingParser(make_context(), text, "op.mlir").parse_module()
    assert out["arg0"].tobytes() == run_function(primal, "f", {"arg0": x.copy()})["arg0"].tobytes()
    (want,) = central_difference_gradients(primal, "f", [x], [seed])
    np.testing.assert_allclose(out["arg1"], want, rtol=1e-6, atol=1e-7)
