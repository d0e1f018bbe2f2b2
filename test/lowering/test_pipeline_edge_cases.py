"""
Edge cases of the TapeFlow pipeline found in review, run value for value: a
gradient Enzyme needs no tape for passes through unchanged, and a REV partner
that reads none of its tile still pops it, so the stack stays in step.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_pipeline import TapeflowPipelinePass
from tapeflow_dialects import stream
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

INPUTS = Path(__file__).parent / "inputs"


def load(name: str):  # type: ignore[no-untyped-def]
    path = INPUTS / name
    return LocatingParser(make_context(), path.read_text(), str(path)).parse_module()


def test_a_gradient_without_a_tape_passes_through() -> None:
    module = load("linear.mlir")
    TapeflowEnzymePass().apply(make_context(), module)
    before = str(module)
    TapeflowPipelinePass().apply(make_context(), module)
    assert str(module) == before
    # The kernel is sum(x): its gradient is 1 everywhere.
    x = np.array([1.0, 2.0, 3.0, 4.0])
    out = run_function(module, "k_grad", {"arg0": x, "arg1": np.zeros(4)})
    np.testing.assert_array_equal(out["arg1"], np.ones(4))


def test_a_rev_partner_reading_nothing_still_pops_its_tile() -> None:
    rng = np.random.default_rng(5)
    given = {"arg0": rng.standard_normal(4), "arg1": np.zeros(4), "arg2": np.asarray(1.5)}
    reference = run_function(
        load("unloaded-piece.mlir"), "diffef", {k: v.copy() for k, v in given.items()}
    )
    module = load("unloaded-piece.mlir")
    TapeflowPipelinePass(spad_bytes=8, stream="always").apply(make_context(), module)
    module.verify()
    revs = [op for op in module.walk() if isinstance(op, stream.RevOp)]
    fwds = [op for op in module.walk() if isinstance(op, stream.FwdOp)]
    assert len(revs) == len(fwds) == 2
    out = run_function(module, "diffef", {k: v.copy() for k, v in given.items()})
    for name, value in reference.items():
        np.testing.assert_array_equal(out[name], value)
