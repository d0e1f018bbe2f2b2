"""
`tapeflow-run --native` on a user's gradient: lowered by `tapeflow-to-upstream`, run
by MLIR 19's mlir-opt and mlir-cpu-runner, its shadow zero-filled as without
`--native`. The values are checked against numpy's analytic derivative and against
the reference executor (`tapeflow-run` without `--native`); a machine without the
tools and a signature the native harness cannot call get a message, not a traceback.

The command's entry point runs in the test process (`tapeflow_run.main`, with its
standard streams captured): what is tested is what it computes and says, not the
interpreter it starts in (test_bad_inputs.py's `test_console_scripts` runs the
installed commands themselves). MLIR's tools still run as the processes they are.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tapeflow_tools import tapeflow_run
from tapeflow_tools.native_mlir import AGREEMENT, INSTALL_HINT, difference, find_mlir_tools

KERNELS = Path(__file__).parent / "native_kernels"
needs_mlir = pytest.mark.skipif(find_mlir_tools() is None, reason=INSTALL_HINT)

X = np.array([-2.0, -1.1, 1e-05, 0.7, 1.6, 2.5])  # 1e-05: a literal MLIR reads only as 1.e-05


def run(tmp_path: Path, kernel: str, function: str, *extra: str) -> subprocess.CompletedProcess:
    """`tapeflow-run KERNEL --function FUNCTION --inputs in.npz EXTRA`: its exit
    status and what it printed."""
    argv = [str(KERNELS / kernel), "--function", function, "--inputs", str(tmp_path / "in.npz")]
    argv += extra
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            tapeflow_run.main(argv)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
    return subprocess.CompletedProcess(argv, code, stdout.getvalue(), stderr.getvalue())


@needs_mlir
@pytest.mark.parametrize("seed", [1.0, -0.5])
def test_native_gradient_equals_the_analytic_one_and_the_executors(
    tmp_path: Path, seed: float
) -> None:
    np.savez(tmp_path / "in.npz", arg0=X, arg2=np.array(seed))  # arg1, the shadow: zeros
    native = run(
        tmp_path, "sum_x2_sin.mlir", "@f_grad", "--out", str(tmp_path / "n.npz"), "--native"
    )
    assert native.returncode == 0, native.stderr
    reference = run(tmp_path, "sum_x2_sin.mlir", "f_grad", "--out", str(tmp_path / "r.npz"))
    assert reference.returncode == 0, reference.stderr
    with np.load(tmp_path / "n.npz") as got, np.load(tmp_path / "r.npz") as want:
        assert sorted(got.files) == sorted(want.files) == ["arg0", "arg1", "result0"]
        for key in want.files:
            assert difference(got[key], want[key]) <= AGREEMENT, key
        analytic = seed * (2 * X * np.sin(X) + X * X * np.cos(X))
        np.testing.assert_allclose(got["arg1"], analytic, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(got["result0"], np.sum(X * X * np.sin(X)), rtol=1e-13)
        np.testing.assert_array_equal(got["arg0"], X)


@needs_mlir
def test_native_shadow_accumulates_what_the_inputs_give(tmp_path: Path) -> None:
    start = np.arange(6.0)
    np.savez(tmp_path / "in.npz", arg0=X, arg1=start, arg2=np.array(1.0))
    done = run(tmp_path, "sum_x2_sin.mlir", "f_grad", "--out", str(tmp_path / "n.npz"), "--native")
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "n.npz") as got:
        want = start + 2 * X * np.sin(X) + X * X * np.cos(X)
        np.testing.assert_allclose(got["arg1"], want, rtol=1e-13, atol=1e-15)


@needs_mlir
@pytest.mark.parametrize(
    ("function", "message"),
    [
        (
            "f32_buffer",
            "argument arg0 of @f32_buffer is memref<4xf32>: the native run takes "
            "memrefs of f64 only",
        ),
        ("i64_result", "result 0 of @i64_result is i64: the native run returns f64 results only"),
    ],
)
def test_unsupported_signature_is_refused(tmp_path: Path, function: str, message: str) -> None:
    np.savez(tmp_path / "in.npz")
    done = run(tmp_path, "unsupported.mlir", function, "--out", str(tmp_path / "o.npz"), "--native")
    assert done.returncode == 1
    assert done.stderr == f"tapeflow-run: error: --native: {message}\n"
    assert not (tmp_path / "o.npz").exists()


@needs_mlir
def test_non_finite_input_is_refused(tmp_path: Path) -> None:
    np.savez(tmp_path / "in.npz", arg0=np.array([1.0, np.nan, 0, 0, 0, 0]), arg2=np.array(1.0))
    done = run(tmp_path, "sum_x2_sin.mlir", "f_grad", "--out", str(tmp_path / "o.npz"), "--native")
    assert done.returncode == 1
    assert "--native: input arg0 holds nan: the native run takes finite values only" in done.stderr
    assert "Traceback" not in done.stderr


def test_missing_mlir_tools_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tapeflow_run, "find_mlir_tools", lambda: None)
    np.savez(tmp_path / "in.npz", arg0=X, arg2=np.array(1.0))
    argv = [str(KERNELS / "sum_x2_sin.mlir"), "--function", "f_grad", "--native"]
    argv += ["--inputs", str(tmp_path / "in.npz"), "--out", str(tmp_path / "o.npz")]
    with pytest.raises(SystemExit) as exited:
        tapeflow_run.main(argv)
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("tapeflow-run: error: --native: mlir-opt or mlir-cpu-runner not found")
    assert "apt-get install mlir-19-tools" in err
    assert not (tmp_path / "o.npz").exists()
