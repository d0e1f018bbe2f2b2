"""`python -m tapeflow_benchmarks.speed` prints one row per kernel, its ops those
the simulator's report counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.simulator import simulate
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_benchmarks.speed import (
    differing_csvs,
    evaluation_jobs,
    main,
    simulator_against_executor,
)
from tapeflow_tools.context import make_context
from targets.hardware import configure


def test_speed_rows(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--preset", "small", "--kernels", "logsum", "--repeat", "1"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| logsum")]
    assert len(rows) == 1


def test_speed_counts_the_simulated_ops() -> None:
    run, sim, median, ops = simulator_against_executor("logsum", "small", 1)
    assert run > 0 and sim > 0
    assert median == pytest.approx(sim / run)  # one repeat: its own ratio
    ctx = make_context()
    module = parse_kernel(ctx, "logsum", "small")
    from sim.simulator import prepare

    hardware = configure("Enzyme32k")
    tape = prepare(ctx, module, "enzyme", hardware)
    args = caller_arguments(module, "logsum", "small")
    report = simulate(module, "logsum_grad", args, hardware, tape, variant="enzyme").report
    assert ops == report["ops"]["total"]


def test_evaluation_jobs_time_every_job_and_sum_them(capsys: pytest.CaptureFixture[str]) -> None:
    evaluation_jobs("small", ["logsum"])
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if line.startswith("| logsum/small")]
    seconds = [float(row.rsplit("|", 2)[1]) for row in rows]
    summary = out[-1]
    assert summary.startswith(f"{len(rows)} jobs: ")
    total = float(summary.split(": ")[1].split(" CPU")[0])
    assert total == pytest.approx(sum(seconds), abs=0.05 * len(rows))
    two = float(summary.split("two workers in this order: ")[1].split(" s")[0])
    # `two` (at least the longest job) is printed to 0.1 s, each job to 0.01 s: a
    # longest job printed 0.53 can give `two` printed 0.5, never less than 0.53 - 0.055.
    assert max(seconds) - 0.06 <= two <= total


def test_differing_csvs_names_changed_and_missing_files(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for folder in (ours, theirs):
        (folder / "csv").mkdir(parents=True)
        (folder / "csv" / "same.csv").write_text("a,b\n1,2\n")
        (folder / "report.md").write_text(f"{folder.name}\n")  # not a csv: not compared
    (ours / "csv" / "changed.csv").write_text("a\n1\n")
    (theirs / "csv" / "changed.csv").write_text("a\n2\n")
    (ours / "csv" / "only_ours.csv").write_text("a\n")
    assert differing_csvs(ours, theirs) == ["csv/changed.csv", "csv/only_ours.csv"]
    assert differing_csvs(ours / "csv" / "..", ours) == []
