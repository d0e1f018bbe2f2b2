"""
The issue's command lines, end to end, as a user runs them:
`tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape'` writes tape-dialect IR, and
`tapeflow-run` on it (and on the Enzyme output) writes the gradient to an .npz that
equals the autograd reference.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tapeflow_benchmarks.kernels import KERNELS

ROOT = Path(__file__).parents[2]


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    assert found, f"{name} is not installed next to {sys.executable}"
    return found


@pytest.mark.parametrize("key", ["matdescent", "pathfinder"])
@pytest.mark.parametrize("passes", ["tapeflow-enzyme", "tapeflow-enzyme,tapeflow-raise-tape"])
def test_opt_then_run(tmp_path: Path, key: str, passes: str) -> None:
    kernel = KERNELS[key]
    source = ROOT / "tapeflow_benchmarks" / "mlir" / f"{key}.small.mlir"
    lowered = tmp_path / "lowered.mlir"
    subprocess.run(
        [tool("tapeflow-opt"), "-p", passes, str(source), "-o", str(lowered)],
        check=True,
        capture_output=True,
        text=True,
    )
    text = lowered.read_text()
    assert ("tape.load" in text) == passes.endswith("raise-tape")

    inputs = kernel.inputs("small")
    np.savez(tmp_path / "in.npz", **{f"arg{i}": a for i, a in enumerate(inputs)})
    subprocess.run(
        [
            tool("tapeflow-run"),
            str(lowered),
            "--function",
            f"{key}_grad",
            "--inputs",
            str(tmp_path / "in.npz"),
            "--out",
            str(tmp_path / "out.npz"),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    expected = kernel.expected("small", inputs)
    with np.load(tmp_path / "out.npz") as out:
        assert sorted(out.files) == sorted(expected)
        for name, want in expected.items():
            scale = float(np.max(np.abs(want)))
            np.testing.assert_allclose(out[name], want, rtol=1e-9, atol=1e-9 * scale)
