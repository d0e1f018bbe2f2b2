"""
The issue's command lines, end to end, as a user runs them:
`tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape'` writes tape-dialect IR, and
`tapeflow-run` on it (and on the Enzyme output) writes the gradient to an .npz that
equals the autograd reference.

The installed commands run as processes for one kernel's whole command line;
the other cases call the same commands' entry points in the test process
(`main(argv)`): the same arguments, files and outputs, without an interpreter
started per command.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools import tapeflow_opt, tapeflow_run

ROOT = Path(__file__).parents[2]


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    assert found, f"{name} is not installed next to {sys.executable}"
    return found


PROCESSES = ("pathfinder", "tapeflow-enzyme,tapeflow-raise-tape")
"""The case whose commands run as the installed processes."""


def command(as_process: bool, name: str, argv: list[str]) -> None:
    """The command `name` with `argv`, as the installed process or through its entry
    point in this process; it must succeed."""
    if as_process:
        subprocess.run([tool(name), *argv], check=True, capture_output=True, text=True)
        return
    main = {"tapeflow-opt": tapeflow_opt.main, "tapeflow-run": tapeflow_run.main}[name]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            main(argv)
        except SystemExit as stop:
            assert stop.code in (0, None), stderr.getvalue()


@pytest.mark.parametrize("key", ["matdescent", "pathfinder"])
@pytest.mark.parametrize("passes", ["tapeflow-enzyme", "tapeflow-enzyme,tapeflow-raise-tape"])
def test_opt_then_run(tmp_path: Path, key: str, passes: str) -> None:
    kernel = KERNELS[key]
    source = ROOT / "tapeflow_benchmarks" / "mlir" / f"{key}.small.mlir"
    lowered = tmp_path / "lowered.mlir"
    as_processes = (key, passes) == PROCESSES
    command(as_processes, "tapeflow-opt", ["-p", passes, str(source), "-o", str(lowered)])
    text = lowered.read_text()
    assert ("tape.load" in text) == passes.endswith("raise-tape")

    inputs = kernel.inputs("small")
    np.savez(tmp_path / "in.npz", **{f"arg{i}": a for i, a in enumerate(inputs)})
    command(
        as_processes,
        "tapeflow-run",
        [
            str(lowered),
            "--function",
            f"{key}_grad",
            "--inputs",
            str(tmp_path / "in.npz"),
            "--out",
            str(tmp_path / "out.npz"),
        ],
    )
    expected = kernel.expected("small", inputs)
    with np.load(tmp_path / "out.npz") as out:
        assert sorted(out.files) == sorted(expected)
        for name, want in expected.items():
            scale = float(np.max(np.abs(want)))
            np.testing.assert_allclose(out[name], want, rtol=1e-9, atol=1e-9 * scale)
