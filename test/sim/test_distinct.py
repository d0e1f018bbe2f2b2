"""
`sim.models.base.distinct` against numpy's `unique`, and what it is for: a
simulation in a fresh process never imports `numpy.ma` (numpy's plain `unique`
does on its first call, a fixed cost of every `tapeflow-sim` run).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.models.base import distinct

ROOT = Path(__file__).resolve().parents[2]


SPANS = [(-5, 40), (0, 40), (3, 100_000)]  # sorted, counted, sorted (sparse)
CASES = [
    (dtype, span)
    for dtype in (np.int8, np.int32, np.int64, np.uint16)
    for span in SPANS
    if np.iinfo(dtype).min <= span[0] and span[1] <= np.iinfo(dtype).max
]


@pytest.mark.parametrize("size", [0, 1, 2, 17, 1000])
@pytest.mark.parametrize(("dtype", "span"), CASES)
def test_distinct_is_numpys_unique(size: int, dtype: type, span: tuple[int, int]) -> None:
    rng = np.random.default_rng(size)
    values = rng.integers(*span, size).astype(dtype)
    found = distinct(values)
    assert found.dtype == values.dtype
    assert found.tolist() == sorted(set(values.tolist()))
    assert np.array_equal(found, np.unique(values))


def test_distinct_flattens() -> None:
    assert distinct(np.array([[3, 1], [3, 2]])).tolist() == [1, 2, 3]


@pytest.mark.parametrize("model", ["cgra", "salam"])
def test_a_simulation_does_not_import_numpy_ma(model: str) -> None:
    script = f"""
import sys
from sim.models import MODELS
from sim.simulator import prepare, simulate
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_tools.context import make_context
from targets.hardware import configure
ctx = make_context()
module = parse_kernel(ctx, "logsum", "small")
hardware = MODELS["{model}"].hardware(configure("Enzyme32k"))
tape_bytes = prepare(ctx, module, "enzyme", hardware, model="{model}")
args = caller_arguments(module, "logsum", "small")
simulate(module, "logsum_grad", args, hardware, tape_bytes, model="{model}")
assert "numpy.ma" not in sys.modules, "numpy.ma imported"
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
