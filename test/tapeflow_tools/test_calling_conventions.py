"""
docs/calling-conventions.md is true: its example module, taken from the page
itself, goes through the real Enzyme (`tapeflow-opt`) and `tapeflow-run`, called
through their `main` in this process, and gives the values the page states
(computed by hand there: f = x * y * a[1]).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tapeflow_tools import tapeflow_opt, tapeflow_run

DOC = Path(__file__).resolve().parents[2] / "docs" / "calling-conventions.md"


def _example() -> str:
    blocks = re.findall(r"```mlir\n(.*?)```", DOC.read_text(), re.S)
    (example,) = [b for b in blocks if "func.func @f(" in b]
    return example


@pytest.fixture(scope="module")
def differentiated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("conventions")
    (folder / "ex.mlir").write_text(_example())
    out = folder / "ex.enzyme.mlir"
    tapeflow_opt.main(["-p", "tapeflow-enzyme", str(folder / "ex.mlir"), "-o", str(out)])
    return out


def _run(module: Path, function: str, **inputs: object) -> dict[str, np.ndarray]:
    given = module.parent / f"{function}.in.npz"
    result = module.parent / f"{function}.out.npz"
    np.savez(given, **{k: np.asarray(v) for k, v in inputs.items()})
    tapeflow_run.main(
        [str(module), "--function", function, "--inputs", str(given), "--out", str(result)]
    )
    with np.load(result) as data:
        return {k: data[k] for k in data.files}


def test_active_result_returns_the_value_then_the_adjoints(differentiated: Path) -> None:
    out = _run(differentiated, "with_value", arg0=2.0, arg1=3.0, arg2=[1.0, 2.0, 3.0], arg4=1.0)
    assert out["result0"] == 12.0 and out["result1"] == 6.0
    np.testing.assert_array_equal(out["arg3"], [0.0, 6.0, 0.0])
    np.testing.assert_array_equal(out["arg2"], [1.0, 2.0, 3.0])


def test_activenoneed_returns_the_adjoints_scaled_by_the_seed(differentiated: Path) -> None:
    out = _run(differentiated, "adjoint_only", arg0=2.0, arg1=3.0, arg2=[1.0, 2.0, 3.0], arg4=10.0)
    assert set(k for k in out if k.startswith("result")) == {"result0"}
    assert out["result0"] == 60.0
    np.testing.assert_array_equal(out["arg3"], [0.0, 60.0, 0.0])


def test_shadows_accumulate(differentiated: Path) -> None:
    out = _run(
        differentiated,
        "with_value",
        arg0=2.0,
        arg1=3.0,
        arg2=[1.0, 2.0, 3.0],
        arg3=[1.0, 1.0, 1.0],
        arg4=1.0,
    )
    np.testing.assert_array_equal(out["arg3"], [1.0, 7.0, 1.0])
