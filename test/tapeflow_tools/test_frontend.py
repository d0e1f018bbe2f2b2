"""
The front end reads what MLIR reads: kernels written by others (Enzyme-MLIR's own
tests, PolyBench as Polygeist emits it), in the spellings they use, go through the
real Enzyme, and their gradients equal central differences of the primal.

Each kernel in `frontend_kernels/` names its source in its header comment. The
primal is run by the reference executor on perturbed inputs, so the reference
gradient is independent of Enzyme.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp

from lowering.enzyme.upstream_mlir import relocate_diagnostics, resolve_locations
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from sim.executor import Executor
from tapeflow_tools.context import make_context
from tapeflow_tools.frontend import parse_module_text
from tapeflow_tools.tapeflow_run import run_function

KERNELS = Path(__file__).parent / "frontend_kernels"


def _differentiated(name: str) -> ModuleOp:
    path = KERNELS / f"{name}.mlir"
    ctx = make_context()
    module = parse_module_text(ctx, path.read_text(), str(path))
    TapeflowEnzymePass().apply(ctx, module)
    module.verify()
    return module


def _central(f: Callable[[float], float], x: float, h: float = 1e-6) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


def _primal(module: ModuleOp, name: str) -> Callable[..., float]:
    executor = Executor(module, fast=False)
    return lambda *args: float(executor.run(name, list(args))[0])


def test_nested_if_in_enzymes_own_spelling() -> None:
    module = _differentiated("nested_if")
    primal = _primal(module, "nested_if")
    for x in (0.3, -1.7):
        for c1 in (True, False):
            for c2 in (True, False):
                out = run_function(
                    module,
                    "nested_if_grad",
                    {
                        "arg0": np.array(x),
                        "arg1": np.array(c1),
                        "arg2": np.array(c2),
                        "arg3": np.array(1.0),
                    },
                )
                expected = _central(lambda v, c1=c1, c2=c2: primal(v, c1, c2), x)
                assert out["result0"] == pytest.approx(expected, rel=1e-7, abs=1e-9)


def test_affine_kernel_as_polygeist_writes_it() -> None:
    module = _differentiated("atax_affine")
    rng = np.random.default_rng(7)
    A, x = rng.uniform(-1, 1, (6, 5)), rng.uniform(-1, 1, 5)
    out = run_function(module, "atax_grad", {"arg0": A, "arg2": x})
    primal = _primal(module, "atax")

    def value(A_: np.ndarray, x_: np.ndarray) -> float:
        return primal(A_.copy(), x_.copy(), np.zeros(5))

    # An independent closed form as well: f = |A^T A x|^2.
    y = A.T @ (A @ x)
    assert out["result0"] == pytest.approx(y @ y, rel=1e-12)
    for i in range(5):
        e = np.zeros(5)
        e[i] = 1.0
        fd = _central(lambda h, e=e: value(A, x + h * e), 0.0)
        assert out["arg3"][i] == pytest.approx(fd, rel=1e-6, abs=1e-8)
    for i, j in ((0, 0), (2, 3), (5, 4)):
        E = np.zeros((6, 5))
        E[i, j] = 1.0
        fd = _central(lambda h, E=E: value(A + h * E, x), 0.0)
        assert out["arg1"][i, j] == pytest.approx(fd, rel=1e-6, abs=1e-8)


def test_memref_copy_in_custom_form() -> None:
    module = _differentiated("copy_scale")
    x = np.random.default_rng(3).uniform(-1, 1, 8)
    out = run_function(module, "scale_sum_grad", {"arg0": x})
    # f(x) = sum_i exp(x_i / 2) x_i, so df/dx_i = exp(x_i / 2) (1 + x_i / 2).
    np.testing.assert_allclose(out["arg1"], np.exp(x / 2) * (1 + x / 2), rtol=1e-12)
    np.testing.assert_array_equal(out["arg0"], x)  # the caller copied it


@pytest.mark.parametrize("name", ["nested_if", "atax_affine", "copy_scale"])
def test_every_gradient_op_is_located_in_the_users_file(name: str) -> None:
    module = _differentiated(name)
    path = str(KERNELS / f"{name}.mlir")
    lines = (KERNELS / f"{name}.mlir").read_text().count("\n")
    gradients = [
        f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data.startswith("diffe")
    ]
    assert gradients
    for function in gradients:
        for op in function.walk():
            loc = op.location
            assert isinstance(loc, FileLineColLoc), (op.name, loc)
            assert loc.filename.data == path
            assert 1 <= loc.line.data <= lines


def test_mlir_reads_what_xdsl_cannot_and_keeps_positions(tmp_path: Path) -> None:
    # An affine.if with an integer set: xDSL 0.74 does not read it, MLIR does
    # (and lowers it); every op keeps its line in the user's file.
    text = (
        "func.func @f(%a: memref<8xf64>) {\n"
        "  affine.for %i = 0 to 8 {\n"
        "    affine.if affine_set<(d0) : (d0 - 3 >= 0)>(%i) {\n"
        "      %v = affine.load %a[%i - 3] : memref<8xf64>\n"
        "      affine.store %v, %a[%i] : memref<8xf64>\n"
        "    }\n"
        "  }\n"
        "  return\n"
        "}\n"
    )
    module = parse_module_text(make_context(), text, "user.mlir")
    seen = {
        (op.name, op.location.line.data)
        for op in module.walk()
        if isinstance(op.location, FileLineColLoc)
    }
    assert ("memref.load", 4) in seen and ("memref.store", 5) in seen
    assert ("scf.if", 3) in seen and ("scf.for", 2) in seen
    a = np.arange(8.0)
    Executor(module, fast=False).run("f", [a])
    expected = np.arange(8.0)
    for i in range(3, 8):
        expected[i] = expected[i - 3]
    np.testing.assert_array_equal(a, expected)


def test_resolve_locations_inlines_aliases_and_maps_mlirs_input() -> None:
    text = (
        '#loc1 = loc("a.mlir":1:2)\n'
        'func.func @f(%a: f64 loc("-":3:4)) attributes {s = "loc(keep) #loc1"} {\n'
        "  func.return loc(fused[#loc2, #loc1])\n"
        "} loc(#loc1)\n"
        "#loc2 = loc(unknown)\n"
        '#loc3 = loc(callsite("b.mlir":7:8 at #loc1))\n'
    )
    resolved = resolve_locations(text, lambda line, col: ("user.mlir", line + 10, col))
    assert resolved == (
        'func.func @f(%a: f64 loc("user.mlir":13:4)) attributes {s = "loc(keep) #loc1"} {\n'
        '  func.return loc("a.mlir":1:2)\n'
        '} loc("a.mlir":1:2)\n'
    )
    assert (
        relocate_diagnostics(
            'loc("-":2:5): error: no\nloc(fused["k.mlir":4:1]): note: here\n',
            lambda line, col: ("user.mlir", line, col),
        )
        == "user.mlir:2:5: error: no\nk.mlir:4:1: note: here"
    )


def test_an_overwritten_dup_location_loses_its_adjoint() -> None:
    """Enzyme-MLIR 0.0.16 alone keeps the seed there (docs/enzyme-bugs.md);
    tapeflow-enzyme routes the constant store so that it is cleared."""
    module = _differentiated("overwrite_dup")
    out = run_function(module, "f_grad", {"arg0": np.array([3.0, 5.0])})
    # f = x0 * x1 + (x[0] after it is overwritten by 0): df/dx = (x1, x0).
    np.testing.assert_array_equal(out["arg1"], [5.0, 3.0])


def test_a_strided_loop_caches_every_iteration() -> None:
    """Enzyme-MLIR 0.0.16 alone gives `for i = 1 to 8 step 2` 3 cache entries for
    4 iterations (docs/enzyme-bugs.md); tapeflow-enzyme hands it the loop with
    step 1 (`tapeflow-unit-steps`), and the gradient is the hand-computed one and
    that of central differences."""
    module = _differentiated("strided_for")
    x, y, dy = np.arange(1.0, 10.0), np.arange(2.0, 11.0), np.ones(9)
    out = run_function(
        module, "f_grad", {"arg0": x, "arg1": np.zeros(9), "arg2": y.copy(), "arg3": dy.copy()}
    )
    odd = np.arange(9) % 2 == 1
    np.testing.assert_array_equal(out["arg1"], np.where(odd, y, 0.0))
    np.testing.assert_array_equal(out["arg3"], np.where(odd, x, 1.0))

    def loss(xs: np.ndarray, ys: np.ndarray) -> float:  # L = sum(dy * y after f)
        return float(np.sum(dy * run_function(module, "f", {"arg0": xs, "arg1": ys})["arg1"]))

    for k in range(9):
        along = np.eye(9)[k]
        numeric_x = _central(lambda t, e=along: loss(x + t * e, y), 0.0)
        numeric_y = _central(lambda t, e=along: loss(x, y + t * e), 0.0)
        assert out["arg1"][k] == pytest.approx(numeric_x, rel=1e-6, abs=1e-7), k
        assert out["arg3"][k] == pytest.approx(numeric_y, rel=1e-6, abs=1e-7), k
