"""
Kernels that read a constant table (`memref.global` + `memref.get_global`: a
layer's weights, a stencil's coefficients, a splat gain) go through every stage:
the front end reads MLIR's custom form of `memref.global`, Enzyme
differentiates through the table (inactive, as a constant), raise-tape, every
TapeFlow pass, the reference executor, and the simulator's variants under both
timing models.

- The primal's value and the Enzyme gradient equal numpy's and autograd's on the
  same formula (independent of the code under test).
- Every later stage computes the Enzyme stage's values bit for bit
  (`stage_checks.check_stages`).
- The table lives in memory: its loads are non-tape traffic through the cache,
  exactly as when the same table is passed as a constant argument (same accesses,
  hits, misses and DRAM bytes under both models).
"""

from __future__ import annotations

from collections.abc import Callable

import autograd.numpy as anp
import numpy as np
import pytest
from autograd import grad
from stage_checks import check_stages, differentiate

from sim.models import MODELS
from sim.simulator import prepare, simulate
from tapeflow_tools.arguments import bind_arguments
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function
from targets.hardware import configure

WEIGHTS = [0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 0.125]
COEF = [0.25, 0.5, 0.25]
GAIN = 1.5

_ACTIVE = "#enzyme.activity<enzyme_dup>"
_CONST = "#enzyme.activity<enzyme_const>"


def _dense(values: list[float]) -> str:
    return ", ".join(repr(v) for v in values)


def dot_kernel(table_as_argument: bool = False) -> str:
    """sum_i sin(x_i w_i) x_i over 8 weights: from a global, or (for the traffic
    comparison) from an argument."""
    table = (
        ""
        if table_as_argument
        else (
            'memref.global "private" constant @weights : memref<8xf64> = '
            f"dense<[{_dense(WEIGHTS)}]>\n"
        )
    )
    params = "%x: memref<8xf64>, %w: memref<8xf64>" if table_as_argument else "%x: memref<8xf64>"
    get = "" if table_as_argument else "  %w = memref.get_global @weights : memref<8xf64>\n"
    caller_params = "%x: memref<8xf64>, %d_x: memref<8xf64>" + (
        ", %w: memref<8xf64>" if table_as_argument else ""
    )
    operands = "%x, %d_x" + (", %w" if table_as_argument else "")
    types = "memref<8xf64>, memref<8xf64>" + (", memref<8xf64>" if table_as_argument else "")
    activity = _ACTIVE + (f", {_CONST}" if table_as_argument else "")
    return f"""{table}func.func @dot({params}) -> f64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
{get}  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {{
    %xi = memref.load %x[%i] : memref<8xf64>
    %wi = memref.load %w[%i] : memref<8xf64>
    %p = arith.mulf %xi, %wi : f64
    %e = math.sin %p : f64
    %t = arith.mulf %e, %xi : f64
    %n = arith.addf %acc, %t : f64
    scf.yield %n : f64
  }}
  return %s : f64
}}
func.func @dot_grad({caller_params}) -> f64 {{
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @dot({operands}, %seed) <{{activity = [{activity}], ret_activity = \
[#enzyme.activity<enzyme_active>]}}> : ({types}, f64) -> f64
  return %r : f64
}}
"""


STENCIL = f"""
memref.global "private" constant @coef : memref<3xf64> = dense<[{_dense(COEF)}]>
memref.global "private" constant @gain : memref<2xf64> = dense<{GAIN}>
func.func @smooth(%x: memref<16xf64>) -> f64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c15 = arith.constant 15 : index
  %zero = arith.constant 0.0 : f64
  %k = memref.get_global @coef : memref<3xf64>
  %g = memref.get_global @gain : memref<2xf64>
  %k0 = memref.load %k[%c0] : memref<3xf64>
  %k1 = memref.load %k[%c1] : memref<3xf64>
  %k2 = memref.load %k[%c2] : memref<3xf64>
  %s = scf.for %i = %c1 to %c15 step %c1 iter_args(%acc = %zero) -> (f64) {{
    %im = arith.subi %i, %c1 : index
    %ip = arith.addi %i, %c1 : index
    %a = memref.load %x[%im] : memref<16xf64>
    %b = memref.load %x[%i] : memref<16xf64>
    %c = memref.load %x[%ip] : memref<16xf64>
    %ta = arith.mulf %k0, %a : f64
    %tb = arith.mulf %k1, %b : f64
    %tc = arith.mulf %k2, %c : f64
    %s1 = arith.addf %ta, %tb : f64
    %s2 = arith.addf %s1, %tc : f64
    %gi = memref.load %g[%c1] : memref<2xf64>
    %s3 = arith.mulf %s2, %gi : f64
    %e = math.exp %s3 : f64
    %t = arith.mulf %e, %b : f64
    %n = arith.addf %acc, %t : f64
    scf.yield %n : f64
  }}
  return %s : f64
}}
func.func @smooth_grad(%x: memref<16xf64>, %d_x: memref<16xf64>) -> f64 {{
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @smooth(%x, %d_x, %seed) <{{activity = [{_ACTIVE}], ret_activity = \
[#enzyme.activity<enzyme_active>]}}> : (memref<16xf64>, memref<16xf64>, f64) -> f64
  return %r : f64
}}
"""


def dot_reference(x: np.ndarray) -> float:
    w = anp.array(WEIGHTS)
    return anp.sum(anp.sin(x * w) * x)  # type: ignore[no-any-return]


def smooth_reference(x: np.ndarray) -> float:
    k0, k1, k2 = COEF
    s = (k0 * x[:-2] + k1 * x[1:-1] + k2 * x[2:]) * GAIN
    return anp.sum(anp.exp(s) * x[1:-1])  # type: ignore[no-any-return]


KERNELS: dict[str, tuple[str, Callable[[np.ndarray], float], int]] = {
    "dot": (dot_kernel(), dot_reference, 8),
    "smooth": (STENCIL, smooth_reference, 16),
}


def _inputs(size: int) -> dict[str, np.ndarray]:
    return {"arg0": np.random.default_rng(24).uniform(-0.8, 0.8, size)}


@pytest.mark.parametrize("name", list(KERNELS))
def test_the_primal_reads_its_table(name: str) -> None:
    text, reference, size = KERNELS[name]
    module = LocatingParser(make_context(), text, f"{name}.mlir").parse_module()
    module.verify()
    inputs = _inputs(size)
    got = run_function(module, name, {k: v.copy() for k, v in inputs.items()})
    np.testing.assert_allclose(got["result0"], reference(inputs["arg0"]), rtol=1e-13)


@pytest.mark.parametrize("name", list(KERNELS))
def test_every_stage_computes_autograds_gradient(name: str) -> None:
    text, reference, size = KERNELS[name]
    inputs = _inputs(size)
    stages = check_stages(text, f"{name}_grad", inputs, spad_bytes=(64, 512), unrolls=(1, 2))
    x = inputs["arg0"]
    np.testing.assert_allclose(stages.reference["arg1"], grad(reference)(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(stages.reference["result0"], reference(x), rtol=1e-13)


def _simulated(
    text: str, function: str, inputs: dict[str, np.ndarray], variant: str, model: str
) -> dict:  # type: ignore[type-arg]
    module = differentiate(text)
    hardware = MODELS[model].hardware(configure("Tflow2k" if variant == "tapeflow" else "Enzyme1k"))
    tape_bytes = prepare(make_context(), module, variant, hardware, 1, model)
    caller = next(
        f for f in module.ops if getattr(f, "sym_name", None) and f.sym_name.data == function
    )
    args = bind_arguments(caller, {k: v.copy() for k, v in inputs.items()})  # type: ignore[arg-type]
    result = simulate(module, function, args, hardware, tape_bytes, variant=variant, model=model)
    return {"outputs": result.outputs, "report": result.report}


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
def test_the_table_is_memory_traffic_through_the_cache(variant: str, model: str) -> None:
    """The global's loads cost what the same table's loads cost when it is an
    argument: the same cache accesses, hits, misses and DRAM bytes, none of them
    tape; and the same values."""
    inputs = _inputs(8)
    as_global = _simulated(dot_kernel(), "dot_grad", inputs, variant, model)
    as_argument = _simulated(
        dot_kernel(table_as_argument=True),
        "dot_grad",
        {**inputs, "arg2": np.array(WEIGHTS)},
        variant,
        model,
    )
    np.testing.assert_array_equal(as_global["outputs"]["arg1"], as_argument["outputs"]["arg1"])
    got, want = as_global["report"], as_argument["report"]
    assert got["cache"] == want["cache"]
    assert got["dram_bytes"] == want["dram_bytes"]
    # 8 x and 8 weights read in FWD: 16 cache accesses at least, 2 lines missed.
    fwd = got["cache"]["fwd"]
    assert fwd["hits"] + fwd["misses"] >= 16 and fwd["misses"] >= 2
