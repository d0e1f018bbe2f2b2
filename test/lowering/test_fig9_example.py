"""
The paper's Figure 9 example (examples/fig9-conv.mlir): its gradient through the
whole TapeFlow pipeline equals the analytic one, and docs/fig9.md, which shows the
IR after each pass, is current.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_pipeline import TapeflowPipelinePass
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

ROOT = Path(__file__).parents[2]


def test_filter_gradient_through_the_pipeline_is_analytic() -> None:
    ctx = make_context()
    source = ROOT / "examples" / "fig9-conv.mlir"
    module = LocatingParser(ctx, source.read_text(), str(source)).parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    TapeflowPipelinePass(spad_bytes=64).apply(ctx, module)
    module.verify()
    rng = np.random.default_rng(3)
    img, fil, seed = rng.standard_normal(19), rng.standard_normal(4), rng.standard_normal(16)
    out = run_function(
        module,
        "conv_grad",
        {"arg0": img, "arg1": fil, "arg2": np.zeros(4), "arg3": np.zeros(16), "arg4": seed.copy()},
    )
    windows = np.stack([img[k : k + 16] for k in range(4)])  # windows[k][i] = img[i + k]
    res = np.tanh(fil @ windows)
    np.testing.assert_allclose(out["arg3"], res, rtol=1e-13)
    # d/dfil[k] of sum_i seed[i] * res[i] = sum_i seed[i] (1 - res[i]^2) img[i + k]
    np.testing.assert_allclose(out["arg2"], windows @ (seed * (1 - res**2)), rtol=1e-12)


def test_fig9_page_is_current() -> None:
    spec = importlib.util.spec_from_file_location("make_fig9", ROOT / "docs" / "make_fig9.py")
    assert spec and spec.loader
    make_fig9 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_fig9)
    assert (ROOT / "docs" / "fig9.md").read_text() == make_fig9.render(), (
        "docs/fig9.md is stale: run `python docs/make_fig9.py`"
    )
