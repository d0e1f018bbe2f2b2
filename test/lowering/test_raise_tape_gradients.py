"""
The gradient of every benchmark kernel, through the real Enzyme and through
`tapeflow-raise-tape`, equals the independent references.

For each kernel at `small` size, the reference executor runs the caller on the
Enzyme output and on the raised (tape-dialect) IR. Everything the caller leaves
behind -- primal outputs, shadows holding the gradient, the returned value --
must equal the autograd reference of the numpy primal to 1e-9 relative, and the
shadows must equal central finite differences to 1e-6 (norm-wise).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp

from lowering.ir.gradients import gradient_functions
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass
from tapeflow_benchmarks.kernels import KERNELS, central_differences
from tapeflow_dialects import tape
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

PRESET = "small"


@cache
def differentiated(key: str) -> ModuleOp:
    """The kernel's module after the real Enzyme (computed once per kernel)."""
    ctx = make_context()
    module = LocatingParser(ctx, KERNELS[key].mlir(PRESET), f"{key}.mlir").parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    module.verify()
    return module


def raised(key: str) -> ModuleOp:
    module = differentiated(key).clone()
    TapeflowRaiseTapePass().apply(make_context(), module)
    module.verify()
    return module


def run_caller(key: str, module: ModuleOp) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
    inputs = KERNELS[key].inputs(PRESET)
    given = {f"arg{i}": a.copy() for i, a in enumerate(inputs)}
    return inputs, run_function(module, f"{key}_grad", given)


def assert_matches_references(key: str, module: ModuleOp) -> None:
    kernel = KERNELS[key]
    inputs, outputs = run_caller(key, module)
    expected = kernel.expected(PRESET, inputs)
    assert set(outputs) == set(expected)
    for name, want in expected.items():
        got = outputs[name]
        scale = float(np.max(np.abs(want))) if want.size else 0.0
        np.testing.assert_allclose(
            got, want, rtol=1e-9, atol=1e-9 * scale, err_msg=f"{key}: {name}"
        )
    numeric = central_differences(key, PRESET, inputs)
    for i, arg in enumerate(kernel.caller_args(PRESET)):
        if arg.is_shadow:
            want = numeric[arg.param.name]
            error = np.linalg.norm(outputs[f"arg{i}"] - want) / np.linalg.norm(want)
            assert error < 1e-6, f"{key}: shadow {arg.name} is {error:.1e} from central differences"


@pytest.mark.parametrize("key", KERNELS)
def test_enzyme_gradient_matches_references(key: str) -> None:
    assert_matches_references(key, differentiated(key))


@pytest.mark.parametrize("key", KERNELS)
def test_raised_gradient_matches_references(key: str) -> None:
    module = raised(key)
    (gradient,) = gradient_functions(module)
    ops = list(gradient.walk())
    assert any(isinstance(op, tape.StoreOp) for op in ops)
    assert any(isinstance(op, tape.LoadOp) for op in ops)
    assert not any(isinstance(op, memref.AllocOp) for op in ops), (
        "every cache buffer of the benchmark kernels is raised"
    )
    assert_matches_references(key, module)


@pytest.mark.parametrize("key", ["pathfinder", "massspring", "somier"])
def test_each_tape_of_a_gradient_has_its_own_name(key: str) -> None:
    """Kernels with several caches of one producer (pathfinder: three of loads
    from arg0): the stats and the IR name each tape once."""
    (gradient,) = gradient_functions(raised(key))
    names = [op.value_name.data for op in gradient.walk() if isinstance(op, tape.AllocOp)]
    assert any(n.endswith("_2") for n in names)  # a producer with a second tape
    assert len(set(names)) == len(names)
