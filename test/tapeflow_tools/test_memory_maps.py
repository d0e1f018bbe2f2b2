"""
A user's memory map (`tapeflow-sim --addresses FILE`, a sweep kernel's `addresses:`):
the arguments sit where the file says, on a machine that keeps a program's memory
map (`placement.heap`: `--model salam`). Checked by its effect: `dot.mlir`'s REV
writes d_x[i] and d_y[i] in turn, so with its four 128-byte buffers 1 KiB apart
they share the sets of a direct-mapped 1 KiB cache and miss far more than when
they are packed side by side. A bad file is refused naming the entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tapeflow_benchmarks import tapeflow_bench
from tapeflow_benchmarks.harness.sweep import load_sweep
from tapeflow_tools import tapeflow_sim
from tapeflow_tools.diagnostics import ToolError

HERE = Path(__file__).parent / "memory_maps"
APART = {"x": 0x80C00000, "d_x": 0x80C00080, "y": 0x80C00100, "d_y": 0x80C00180}
ALIAS = {"x": 0x80C00000, "d_x": 0x80C00400, "y": 0x80C00800, "d_y": 0x80C00C00}
DIRECT_MAPPED_1K = ["--preset", "Enzyme1k", "--assoc", "1"]


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    path = tmp_path / "dot.npz"
    np.savez(path, arg0=np.arange(16.0), arg2=np.ones(16))  # the shadows: zeros
    return path


def _sim(
    capsys: pytest.CaptureFixture[str], inputs: Path, *extra: str, model: str = "salam"
) -> dict[str, Any]:
    tapeflow_sim.main(
        [str(HERE / "dot.mlir"), "--function", "dot_grad", "--variant", "enzyme"]
        + ["--model", model, "--inputs", str(inputs), "--json", "-", *DIRECT_MAPPED_1K, *extra]
    )
    report = json.loads(capsys.readouterr().out)
    del report["simulator"]
    return report


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        tapeflow_sim.main(argv)
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_the_arguments_sit_where_the_file_says(
    tmp_path: Path, inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "apart.yaml").write_text("".join(f"{k}: {v:#x}\n" for k, v in APART.items()))
    (tmp_path / "alias.yaml").write_text("".join(f"{k}: {v:#x}\n" for k, v in ALIAS.items()))
    # The same map by position, in JSON, with addresses as hex strings.
    positions = {f"arg{i}": f"{v:#x}" for i, v in enumerate(APART.values())}
    (tmp_path / "apart.json").write_text(json.dumps(positions))
    apart = _sim(capsys, inputs, "--addresses", str(tmp_path / "apart.yaml"))
    alias = _sim(capsys, inputs, "--addresses", str(tmp_path / "alias.yaml"))
    assert _sim(capsys, inputs, "--addresses", str(tmp_path / "apart.json")) == apart
    # Side by side: the four buffers' eight lines, and Enzyme's cache, fit the 16
    # lines; 1 KiB apart, d_x[i] and d_y[i] evict each other at every iteration.
    assert alias["cache"]["rev"]["misses"] >= 16 + apart["cache"]["rev"]["misses"]
    assert alias["cycles"]["total"] > apart["cycles"]["total"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x: 0x80c00000\nd_x: 0x80c00040\n", "x [0x80c00000, 0x80c00080) and d_x [0x80c00040, "),
        ("x: 0\nq: 8\n", "q: no argument of @dot_grad (its arguments: arg0 (x), arg1 (d_x), "),
        ("x: 0\narg0: 4096\n", "arg0: arg0 already has an address (x)"),
        ("x: 12\n", "x: 0xc is not a non-negative multiple of 8 bytes"),
        ("x: -8\n", "x: -0x8 is not a non-negative multiple of 8 bytes"),
        ("x: true\n", "x: True is not an address (an integer)"),
        ('{"x": "far"}', "x: 'far' is not an address (an integer)"),
        ("x: 0x1000000000000\n", "x [0x1000000000000, 0x1000000000080) ends beyond"),
        ("[1, 2]\n", "a memory map is a mapping of arguments"),
    ],
)
def test_a_bad_memory_map_is_refused(
    tmp_path: Path, inputs: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "map.yaml"
    path.write_text(text)
    argv = [str(HERE / "dot.mlir"), "--function", "dot_grad", "--variant", "enzyme"]
    argv += ["--model", "salam", "--preset", "Enzyme1k", "--inputs", str(inputs)]
    err = _refused(capsys, [*argv, "--addresses", str(path), "--out", str(tmp_path / "o.npz")])
    assert err.startswith(f"tapeflow-sim: error: --addresses {path}")
    assert message in err
    assert not (tmp_path / "o.npz").exists()


def test_a_scalar_argument_has_no_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = Path(__file__).parent / "native_kernels" / "sum_x2_sin.mlir"
    np.savez(tmp_path / "in.npz", arg0=np.ones(6), arg2=np.array(1.0))
    (tmp_path / "map.yaml").write_text("seed: 0x1000\n")
    err = _refused(
        capsys,
        [str(source), "--function", "f_grad", "--variant", "enzyme", "--model", "salam"]
        + ["--preset", "Enzyme1k", "--inputs", str(tmp_path / "in.npz")]
        + ["--addresses", str(tmp_path / "map.yaml")],
    )
    assert "seed: arg2 of @f_grad is a scalar (f64), not a buffer" in err


def test_a_machine_that_packs_its_buffers_refuses_a_memory_map(
    tmp_path: Path, inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "map.yaml").write_text("x: 0x1000\n")
    argv = [str(HERE / "dot.mlir"), "--function", "dot_grad", "--variant", "enzyme"]
    argv += ["--preset", "Enzyme1k", "--inputs", str(inputs)]
    err = _refused(capsys, [*argv, "--addresses", str(tmp_path / "map.yaml")])  # cgra
    assert "keeps no program's memory map (placement.heap is 0)" in err
    # With a heap the cgra machine keeps it too.
    _sim(
        capsys,
        inputs,
        "--addresses",
        str(tmp_path / "map.yaml"),
        "--set",
        "placement.heap=1048576",
        model="cgra",
    )


def _sweep(tmp_path: Path, inputs: Path, addresses: str, model: str = "salam") -> Path:
    (tmp_path / "dot.mlir").write_text((HERE / "dot.mlir").read_text())
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"model: {model}\nkernels:\n  - {{name: dot, file: dot.mlir, function: '@dot_grad', "
        f"inputs: {inputs.name}, addresses: {addresses}}}\n"
        "variants: [{variant: enzyme, preset: Enzyme1k}]\nset: {cache.assoc: 1}\n"
    )
    return sweep


def test_a_sweep_kernel_takes_a_memory_map(
    tmp_path: Path, inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Inline or from a file, a sweep kernel's map runs as tapeflow-sim's does."""
    (tmp_path / "alias.yaml").write_text(json.dumps(ALIAS))
    inline = "{" + ", ".join(f"{k}: {v:#x}" for k, v in ALIAS.items()) + "}"
    alone = _sim(capsys, inputs, "--addresses", str(tmp_path / "alias.yaml"))
    for name, given in (("file", "alias.yaml"), ("inline", inline)):
        out = tmp_path / name
        sweep = _sweep(tmp_path, inputs, given)
        assert (
            tapeflow_bench.main(
                [
                    "--sweep",
                    str(sweep),
                    "--out",
                    str(out),
                    "--no-cache",
                    "--no-progress",
                    "--jobs",
                    "1",
                ]
            )
            == 0
        )
        (run,) = json.loads((out / "results.json").read_text())["runs"]
        assert run["report"]["cycles"] == alone["cycles"]
        assert run["report"]["cache"] == alone["cache"]


@pytest.mark.parametrize(
    ("addresses", "model", "message"),
    [
        ("{x: 0x80c00000, y: 0x80c00040}", "salam", "kernels[0].addresses: x [0x80c00000, "),
        ("{z: 0}", "salam", "kernels[0].addresses: z: no argument of @dot_grad"),
        ("missing.yaml", "salam", "kernels[0].addresses "),
        ("{x: 4096}", "cgra", "kernels[0].addresses (enzyme on Enzyme1k): this machine packs"),
    ],
)
def test_a_sweep_refuses_a_bad_memory_map(
    tmp_path: Path, inputs: Path, addresses: str, model: str, message: str
) -> None:
    with pytest.raises(ToolError) as refused:
        load_sweep(_sweep(tmp_path, inputs, addresses, model))
    assert message in str(refused.value)


def test_a_built_in_kernel_takes_no_memory_map(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text("kernels: [{name: logsum, addresses: {x: 0}}]\nvariants: [enzyme]\n")
    with pytest.raises(ToolError, match=r"kernels\[0\]\.addresses: only a user's kernel"):
        load_sweep(sweep)
