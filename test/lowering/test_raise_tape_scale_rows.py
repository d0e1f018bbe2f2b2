"""
The lit example of tapeflow-raise-tape (a loop nest, an `scf.if`, an in-place
update), run: its raised gradient equals central differences of a numpy primal,
with inputs chosen so that both branches of the `scf.if` are taken.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_raise_tape import raise_module
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

SOURCE = Path(__file__).parents[1] / "filecheck/passes/tapeflow-raise-tape/scale-rows.mlir"


def scale_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    norm = np.sum(x * x, axis=1)
    return y * np.where(norm > 1.0, np.sin(norm), norm)


def test_scale_rows_gradient_matches_central_differences() -> None:
    ctx = make_context()
    module = LocatingParser(ctx, SOURCE.read_text(), str(SOURCE)).parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    (report,) = raise_module(module)
    assert [t.values for t in report.tapes] == [12, 4, 4]
    module.verify()

    rng = np.random.default_rng(7)
    x = rng.uniform(-0.9, 0.9, (4, 3))
    x[0] *= 0.2  # a small row: the `else` branch
    y = rng.standard_normal(4)
    seed = rng.standard_normal(4)  # the adjoint of the updated y
    assert len({bool(v) for v in np.sum(x * x, axis=1) > 1.0}) == 2, "both branches"

    out = run_function(
        module,
        "scale_rows_grad",
        {"arg0": x.copy(), "arg1": np.zeros((4, 3)), "arg2": y.copy(), "arg3": seed.copy()},
    )
    np.testing.assert_allclose(out["arg2"], scale_rows(x, y), rtol=1e-12)

    def phi(x: np.ndarray, y: np.ndarray) -> float:
        return float(np.sum(seed * scale_rows(x, y)))

    h = 1e-6
    dx = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[index] = h
        dx[index] = (phi(x + e, y) - phi(x - e, y)) / (2 * h)
    dy = np.array([(phi(x, y + h * e) - phi(x, y - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(out["arg1"], dx, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(out["arg3"], dy, rtol=1e-6, atol=1e-8)
