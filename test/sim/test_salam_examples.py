"""
The read-modify-write examples of docs/research/salam-model.md, differentiated
with their loops unrolled by their `tapeflow.unroll` annotations (as
`tapeflow-enzyme` applies them), against autograd on the same loops in numpy.
"""

from __future__ import annotations

from pathlib import Path

import autograd.numpy as anp
import numpy as np
from autograd import grad

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

EXAMPLES = Path(__file__).parents[2] / "examples"


def gradient(name: str, function: str, given: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    path = EXAMPLES / name
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    TapeflowEnzymePass().apply(make_context(), module)
    assert "tapeflow.unroll" not in str(module)
    return run_function(module, function, {k: v.copy() for k, v in given.items()})


def test_the_drot_example_s_gradient_reaches_the_rotations() -> None:
    rng = np.random.default_rng(5)
    angles = rng.uniform(-np.pi, np.pi, (4, 32))
    x, y = rng.uniform(-1.0, 1.0, 16), rng.uniform(-1.0, 1.0, 16)
    c, s = np.cos(angles), np.sin(angles)

    def loss(x, y, c, s):  # type: ignore[no-untyped-def]
        for r in range(4):
            for t in range(32):
                x, y = c[r, t] * x + s[r, t] * y, c[r, t] * y - s[r, t] * x
        return anp.dot(x, y)

    got = gradient("salam-rot.mlir", "rot_grad", {"arg0": x, "arg2": y, "arg4": c, "arg6": s})
    assert np.isclose(got["result0"], loss(x, y, c, s), rtol=1e-13)
    for position, shadow in enumerate(("arg1", "arg3", "arg5", "arg7")):
        want = grad(loss, position)(x, y, c, s)
        np.testing.assert_allclose(got[shadow], want, rtol=1e-11, atol=1e-13)


def test_the_daxpy_example_s_gradient() -> None:
    rng = np.random.default_rng(1)
    y, x = rng.uniform(0.5, 1.0, 16), rng.uniform(0.8, 1.1, (4, 32, 16))

    def loss(y, x):  # type: ignore[no-untyped-def]
        for r in range(4):
            for t in range(32):
                y = y * x[r, t] + 0.5
        return anp.sum(y)

    got = gradient("salam-rmw.mlir", "rmw_grad", {"arg0": y, "arg2": x})
    assert np.isclose(got["result0"], loss(y, x), rtol=1e-13)
    np.testing.assert_allclose(got["arg1"], grad(loss, 0)(y, x), rtol=1e-11)
    np.testing.assert_allclose(got["arg3"], grad(loss, 1)(y, x), rtol=1e-11)
