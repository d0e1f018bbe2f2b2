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
  the same atom;
- `branch_row` and `branch_step2`: CSR rows under a branch (rows of more than two
  entries), walked by ones and by twos: Enzyme allocates each row's caches inside
  the branch, and `tapeflow-raise-tape` kept them as memrefs, read through the
  cache and not counted as tape (a CSR product so guarded ran at 0.30x of
  Enzyme32k under `cgra`); their extents' largest value over every row, taken or
  not, now sizes one tape.

`branch_mask` loads the row pointers inside the branch (LAMMPS' group mask): in
bounds on every row, so every row's extent is computed; `branch_rem` does the
same under a mask computed by `arith.remui` (every third row skipped), an op
xDSL declares without the memory-effect trait MLIR gives it
(`lowering.ir.effects`). `branch_step` walks each
row by a step read from memory where it is positive: the count Enzyme sizes the
caches by divides by that step inside the branch, which a skipped row (step 0)
must not compute; `branch_oob`'s row `i` reads `p[i + 2]` inside the branch,
past the buffer on the last row, which the mask skips. Their caches stay
memrefs, with the reason, and the pipeline still computes Enzyme's values.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stage_checks import same_bits
from xdsl.dialects.builtin import DYNAMIC_INDEX

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
    if name in ("branch_mask", "branch_oob"):
        mask = np.array([1, 0, 1, 0])  # branch_oob's last row would read past `p`
        x, y_seed = rng.uniform(-1, 1, 20), rng.uniform(-1, 1, 4)
        return [ROWS, mask, x, np.zeros(20), np.zeros(4), y_seed]
    if name == "branch_step":
        steps = np.array([2, 0, 1, 3])  # row 1 skipped: a step of 0
        return [
            ROWS,
            steps,
            rng.uniform(-1, 1, 20),
            np.zeros(20),
            np.zeros(4),
            rng.uniform(-1, 1, 4),
        ]
    if name in ("step2", "down_hi", "branch_row", "branch_step2", "branch_rem"):
        out = 20 if name == "down_hi" else 4
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


NAMES = [
    "band_w",
    "step2",
    "down_hi",
    "fptosi",
    "branch_row",
    "branch_step2",
    "branch_mask",
    "branch_rem",
]


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


@pytest.mark.parametrize("name", ["branch_row", "branch_step2", "branch_mask", "branch_rem"])
def test_caches_allocated_under_a_branch_become_one_tape(name: str) -> None:
    """Each row's two caches (the `tanh` and the carried sum) become a tape of
    the 4 rows by the longest row's entries, no memref left."""
    module = _differentiated(name)
    (report,) = raise_module(module)
    assert not report.kept, report.kept
    row_tapes = [t for t in report.tapes if t.tape_type.get_shape() == (4, DYNAMIC_INDEX)]
    assert len(row_tapes) == 2, [t.tape_type for t in report.tapes]


@pytest.mark.parametrize(
    ("name", "op"), [("branch_step", "arith.ceildivui"), ("branch_oob", "memref.load")]
)
def test_an_extent_that_may_trap_under_a_branch_stays_a_memref(name: str, op: str) -> None:
    module = _differentiated(name)
    (report,) = raise_module(module)
    reasons = [why for _, why in report.kept if "under a branch" in why]
    assert len(reasons) == 2 and all(f"'{op}'" in why for why in reasons), report.kept


@pytest.mark.parametrize("spad", [64, 512])
@pytest.mark.parametrize("name", [*NAMES, "branch_step", "branch_oob"])
def test_the_pipeline_computes_the_enzyme_values(name: str, spad: int) -> None:
    want = _run(_differentiated(name), name)
    module = _differentiated(name)
    parse_pipeline(f"tapeflow-pipeline{{spad-bytes={spad}}}").apply(make_context(), module)
    module.verify()
    problem = same_bits(_run(module, name), want)
    assert problem is None, f"{name} at {spad} B: {problem}"
