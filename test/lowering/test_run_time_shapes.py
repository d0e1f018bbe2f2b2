"""
Loops of run-time trip count whose regions the symbolic mirror proof of
`lowering.layers.run_time` used to leave in DRAM, now streamed, each through the
whole pipeline with the Enzyme stage's bits (hand-written kernels under
`run_time_shapes/`):

- `band_w`: a band clamped at 0 (`max(i - w, 0)`): FWD's constant 0 went through
  the mirror substitution, which drops zero coefficients, and REV's did not;
- `step2` and `down_hi`: CSR rows by twos and walked backwards;
- `fptosi`: a trip count computed from data (`fptosi(|x| * 3) + 1`), cached on
  the tape by Enzyme: the stored value is the tape element, REV's load of it
  the same atom.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stage_checks import same_bits

from lowering.pipelines import parse_pipeline
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_layers import layer_module
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

HERE = Path(__file__).parent / "run_time_shapes"
ROWS = np.array([0, 5, 6, 6, 20])
"""Row pointers: rows of 5, 1, 0 and 14 entries."""


def _inputs(name: str) -> list[np.ndarray | int]:
    rng = np.random.default_rng(7)
    n = 7
    if name == "band_w":
        return [rng.uniform(-1, 1, n), np.zeros(n), np.zeros(n), rng.uniform(-1, 1, n), n, 2]
    if name in ("step2", "down_hi"):
        out = 4 if name == "step2" else 20
        return [ROWS, rng.uniform(-1, 1, 20), np.zeros(20), np.zeros(out), rng.uniform(-1, 1, out)]
    return [rng.uniform(-1, 1, 4), np.zeros(4), np.zeros(4), rng.uniform(-1, 1, 4)]


def _differentiated(name: str):
    ctx = make_context()
    text = (HERE / f"{name}.mlir").read_text()
    module = LocatingParser(ctx, text, f"{name}.mlir").parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    return module


def _run(module, name: str) -> dict[str, np.ndarray]:
    args = {
        f"arg{i}": v.copy() if isinstance(v, np.ndarray) else v for i, v in enumerate(_inputs(name))
    }
    return run_function(module, f"{name}_grad", args)


NAMES = ["band_w", "step2", "down_hi", "fptosi"]


@pytest.mark.parametrize("spad", [64, 512])
@pytest.mark.parametrize("name", NAMES)
def test_every_region_is_streamed(name: str, spad: int) -> None:
    module = _differentiated(name)
    raise_module(module)
    form_regions(module)
    (report,) = layer_module(module, spad)
    assert not report.kept, report.table()
    # each row's entries are a tile of as many rows as the scratchpad holds
    tiled = [layer for layer in report.layers if layer.tiled]
    assert tiled and all(layer.rows * layer.slots <= spad // 8 for layer in tiled)


@pytest.mark.parametrize("spad", [64, 512])
@pytest.mark.parametrize("name", NAMES)
def test_the_pipeline_computes_the_enzyme_values(name: str, spad: int) -> None:
    want = _run(_differentiated(name), name)
    module = _differentiated(name)
    parse_pipeline(f"tapeflow-pipeline{{spad-bytes={spad}}}").apply(make_context(), module)
    module.verify()
    problem = same_bits(_run(module, name), want)
    assert problem is None, f"{name} at {spad} B: {problem}"
