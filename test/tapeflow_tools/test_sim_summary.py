"""
What `tapeflow-sim` prints: a summary of a dozen lines without `--json`, the whole
report with `--json -` (and nothing with `--json FILE`); a warning, one line, when
no `--inputs` are given (the run simulates zeros); `--function @name`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from _pytest.capture import CaptureResult

from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools import tapeflow_sim

SOURCE = Path(__file__).resolve().parents[2] / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"


def _sim(
    capsys: pytest.CaptureFixture[str], *extra: str, function: str = "logsum_grad"
) -> CaptureResult[str]:
    tapeflow_sim.main(
        [str(SOURCE), "--function", function, "--variant", "tapeflow", "--preset", "Tflow2k"]
        + list(extra)
    )
    return capsys.readouterr()


def _inputs(tmp_path: Path) -> str:
    path = tmp_path / "in.npz"
    np.savez(path, **{f"arg{i}": a for i, a in enumerate(KERNELS["logsum"].inputs("small"))})
    return str(path)


def _number(line: str, after: str) -> int:
    found = re.search(re.escape(after) + r"\s+([\d,]+)", line)
    assert found, (after, line)
    return int(found.group(1).replace(",", ""))


@pytest.mark.parametrize("model", ["cgra", "salam"])
def test_without_json_a_short_summary_of_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str
) -> None:
    inputs = _inputs(tmp_path)
    report = json.loads(_sim(capsys, "--inputs", inputs, "--model", model, "--json", "-").out)
    shown = _sim(capsys, "--inputs", inputs, "--model", model)
    lines = shown.out.splitlines()
    assert 10 <= len(lines) <= 15
    assert not shown.out.lstrip().startswith("{")
    by_name = {line.split()[0]: line for line in lines}
    cycles = report["cycles"]
    assert _number(by_name["cycles"], "cycles") == cycles["total"] == cycles["fwd"] + cycles["rev"]
    assert f"= {cycles['fwd']:,} FWD + {cycles['rev']:,} REV" in by_name["cycles"]
    assert _number(by_name["DRAM"], "DRAM") == report["dram_bytes"]["total"]
    assert _number(by_name["cache"], "cache") == report["cache"]["misses"]
    assert f"peak {report['spad']['peak_bytes']:,} of 512 bytes" in by_name["scratchpad"]
    assert f"{report['energy_pj']['onchip'] / 1e3:,.3f} nJ on chip" in by_name["energy"]
    assert by_name["@logsum_grad:"].startswith(f"@logsum_grad: variant tapeflow, model {model}")


def test_json_file_keeps_the_standard_output_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = _sim(capsys, "--inputs", _inputs(tmp_path), "--json", str(tmp_path / "r.json"))
    assert shown.out == ""
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["function"] == "logsum_grad"


def test_no_inputs_is_one_warning_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Streamed (the cost model keeps so small a tape, and says so on a line of its own).
    streamed = ("--set", "mapping.stream_by_cost=false")
    quiet = _sim(
        capsys, *streamed, "--inputs", _inputs(tmp_path), "--json", str(tmp_path / "a.json")
    )
    assert "--inputs" not in quiet.err
    warned = _sim(capsys, *streamed, "--json", str(tmp_path / "b.json"))
    (line,) = [line for line in warned.err.splitlines() if "--inputs" in line]
    assert line.startswith("tapeflow-sim: warning: no --inputs: every buffer argument is ")
    assert "zero-filled" in line and "--inputs IN.npz" in line
    assert len(warned.err.splitlines()) == 1


def test_function_with_an_at_sign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = _inputs(tmp_path)
    plain = json.loads(_sim(capsys, "--inputs", inputs, "--json", "-").out)
    at = json.loads(_sim(capsys, "--inputs", inputs, "--json", "-", function="@logsum_grad").out)
    for report in (plain, at):
        del report["simulator"]  # its own timing
    assert at == plain and at["function"] == "logsum_grad"
