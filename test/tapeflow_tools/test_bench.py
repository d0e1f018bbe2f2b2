"""`tapeflow-bench --quick` on two kernels: the results folder is complete and its
numbers agree with each other and with the raw simulator reports they come from."""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import json
import re
import subprocess
from pathlib import Path

import pytest

from tapeflow_benchmarks import tapeflow_bench
from tapeflow_benchmarks.harness.claims import CLAIMS, judge
from tapeflow_benchmarks.harness.experiments import (
    ABLATION,
    CACHE_SWEEP,
    DEFAULT_EXPERIMENTS,
    EXPERIMENTS,
    ISO_PERF_SLACK,
    SPAD,
    Result,
)

KERNELS = "logsum,pathfinder"


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    """`tapeflow-bench --no-progress ARGS` in this process, not a new interpreter
    (test_killed_runs.py runs the command): its exit status and what it printed."""
    argv = ["--no-progress", *args]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = tapeflow_bench.main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
    return subprocess.CompletedProcess(argv, code, stdout.getvalue(), stderr.getvalue())


@pytest.fixture(scope="module")
def bench(
    tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """The run the module's tests read. Under `pytest -n` its workers share it: the
    first to take the lock runs it, the others find its folders and what it printed."""
    if worker_id == "master":  # no workers
        root = tmp_path_factory.mktemp("bench")
    else:  # the session's folder, shared by its workers
        root = tmp_path_factory.getbasetemp().parent / "bench-quick"
        root.mkdir(exist_ok=True)
    out, cache, printed = root / "out", root / "cache", root / "run.json"
    with (root / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if printed.exists():
            return out, cache, subprocess.CompletedProcess(**json.loads(printed.read_text()))
        locations = ["--out", str(out), "--cache-dir", str(cache)]
        run = _bench("--quick", "--kernels", KERNELS, "--jobs", "2", *locations)
        printed.write_text(json.dumps(vars(run)))
    return out, cache, run


@pytest.fixture(scope="module")
def results(bench: tuple[Path, Path, subprocess.CompletedProcess[str]]) -> dict:
    out, _, run = bench
    assert run.returncode == 0, run.stderr
    return json.loads((out / "results.json").read_text())


def _runs(results: dict) -> dict[tuple, dict]:
    """The runs on the experiments' machines, by their point; not the `streaming`
    experiment's runs with every nest streamed (`mapping.stream_by_cost` off), of
    the same point but another machine."""
    return {
        (
            r["model"],
            r["kernel"],
            r["variant"],
            r["spad_bytes"],
            r["unroll"],
            r["cache_bytes"],
            r["energy_preset"],
        ): r["report"]
        for r in results["runs"]
        if r["report"]["hardware"]["mapping"]["stream_by_cost"]
    }


def test_folder_is_complete(
    bench: tuple[Path, Path, subprocess.CompletedProcess[str]], results: dict
) -> None:
    out, _, run = bench
    assert "report" in run.stdout and "0 cached" in run.stdout
    report = (out / "report.md").read_text()
    models = results["meta"]["models"]
    assert models and "cgra" in models
    for name in DEFAULT_EXPERIMENTS:
        experiment = EXPERIMENTS[name]
        for model in models:
            png = out / "figures" / f"{name}-{model}.png"
            if not experiment.runs_under(model):  # measured under its models only
                assert not png.exists(), (name, model)
                continue
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", (name, model)
        assert (out / "csv" / f"{name}.csv").exists(), name
        assert f"({experiment.paper})" in report
        assert results["experiments"][name]["rows"], name
    assert len(results["claims"]) == len(CLAIMS)
    for claim in CLAIMS:
        assert claim.paper in report
    assert all("error" not in r["report"] for r in results["runs"])
    with (out / "csv" / "runs.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(results["runs"])
    # Every row says which timing model produced it, in runs.csv and results.json.
    assert {r["model"] for r in rows} == set(models)
    assert {r["model"] for r in results["runs"]} == set(models)
    for name in DEFAULT_EXPERIMENTS:
        with (out / "csv" / f"{name}.csv").open() as f:
            assert next(csv.reader(f))[0] == "model", name
    # Every op of every run was placed on the grid.
    assert {r["ops_unplaced"] for r in rows} == {"0"}


def test_the_ablation_switches_each_step_off_under_cgra(tmp_path: Path) -> None:
    """`--only ablation`: per kernel, one row per step switched off, measured
    under `cgra` only (its steps are that model's mechanisms)."""
    out = tmp_path / "out"
    run = _bench(
        "--quick",
        "--kernels",
        "nn",
        "--only",
        "ablation",
        "--model",
        "cgra,salam",
        "--jobs",
        "2",
        "--out",
        str(out),
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    assert run.returncode == 0, run.stderr
    with (out / "csv" / "ablation.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["model"], r["kernel"], r["without"]) for r in rows] == [
        ("cgra", "nn", step) for step in ABLATION
    ]
    for r in rows:  # each step's run against the run with every step
        assert float(r["speedup_without"]) == pytest.approx(
            int(r["enzyme_cycles"]) / int(r["tapeflow_cycles"])
        )
    streams = next(r for r in rows if r["without"] == "streams one layer ahead")
    assert float(streams["enzyme_gain"]) == 1.0  # Enzyme has no streams
    assert (out / "figures" / "ablation-cgra.png").exists()
    assert not (out / "figures" / "ablation-salam.png").exists()
    assert "measured under cgra only" in (out / "report.md").read_text()


def test_each_run_records_its_whole_machine(results: dict) -> None:
    """`hardware` in each run: the paper's preset for the variant with the
    point's cache (Table III's ways), scratchpad and energy preset, as the run's
    timing model simulates it (`sim.models`: salam's cache organisation and
    clock); every other field the preset's; the model, variant, unroll and
    package versions."""
    from dataclasses import replace

    from sim.models import MODELS
    from targets.hardware import PRESETS, associativity_for, describe
    from targets.provenance import PACKAGES

    for run in results["runs"]:
        record = run["report"]["hardware"]
        preset = "Tflow32k" if run["variant"] == "tapeflow" else "Enzyme32k"
        hardware = PRESETS[preset]
        cache = replace(
            hardware.cache,
            size_bytes=run["cache_bytes"],
            assoc=associativity_for(run["cache_bytes"]),
        )
        hardware = replace(hardware, cache=cache)
        if run["variant"] == "tapeflow":
            hardware = replace(
                hardware, scratchpad=replace(hardware.scratchpad, size_bytes=run["spad_bytes"])
            )
        expected = describe(MODELS[run["model"]].hardware(hardware))
        for section in ("cache", "scratchpad", "dram", "latencies"):
            assert record[section] == expected[section], (section, run)
        assert (record["name"], record["rows"], record["cols"], record["clock_ghz"]) == (
            preset,
            expected["rows"],
            expected["cols"],
            expected["clock_ghz"],
        )
        assert record["energy"]["name"] == record["energy_preset"] == run["energy_preset"]
        assert (record["model"], record["variant"], record["unroll"]) == (
            run["model"],
            run["variant"],
            run["unroll"],
        )
        assert set(record["versions"]) == set(PACKAGES)


def test_speedups_are_the_ratio_of_the_runs_cycles(results: dict) -> None:
    runs = _runs(results)
    caches = {
        "Enzyme32k": 32768,
        "Enzyme1k": 1024,
        "Tflow32k": 32768,
        "Tflow2k": 2048,
        "Tflow1k": 1024,
    }
    rows = results["experiments"]["performance"]["rows"]
    assert len(rows) == len(results["meta"]["models"]) * 2 * 2 * 3  # kernels x baselines x configs
    for row in rows:
        base = runs[(row["model"], row["kernel"], "enzyme", 0, 1, caches[row["baseline"]], "paper")]
        ours = runs[
            (row["model"], row["kernel"], "tapeflow", SPAD, 1, caches[row["config"]], "paper")
        ]
        for phase in ("fwd", "rev", "total"):
            assert row[f"speedup_{phase}"] == pytest.approx(
                base["cycles"][phase] / ours["cycles"][phase]
            )
        assert ours["cycles"]["total"] == ours["cycles"]["fwd"] + ours["cycles"]["rev"]


def test_sram_reduction_is_the_ratio_of_provisioned_sizes(results: dict) -> None:
    runs = _runs(results)
    rows = results["experiments"]["energy"]["rows"]
    assert {r["energy_preset"] for r in rows} == {"paper", "cacti45"}
    for row in rows:
        cache = int(row["cache_kb"] * 1024)
        assert row["sram_bytes"] == cache + SPAD
        assert row["sram_bytes_baseline"] == 32 * 1024
        assert row["sram_reduction"] == pytest.approx(32 * 1024 / (cache + SPAD))
        if row["config"] == "ISO-perf":
            # The smallest swept cache whose cycles stay within 5% of Enzyme32k's.
            base = runs[(row["model"], row["kernel"], "enzyme", 0, 1, 32768, row["energy_preset"])][
                "cycles"
            ]["total"]
            fits = [
                c
                for c in CACHE_SWEEP
                if runs[
                    (row["model"], row["kernel"], "tapeflow", SPAD, 1, c, row["energy_preset"])
                ]["cycles"]["total"]
                <= base * (1 + ISO_PERF_SLACK)
            ]
            assert cache == fits[0]


def test_dram_is_normalised_to_enzyme32k(results: dict) -> None:
    rows = results["experiments"]["dram"]["rows"]
    for row in rows:
        if row["cache_kb"] == 32:
            assert row["enzyme_norm"] == pytest.approx(1.0)
        assert row["reduction"] == pytest.approx(row["enzyme_norm"] / row["tapeflow_norm"])
    # The energy preset changes energy only: both presets' runs agree on traffic.
    runs = _runs(results)
    for key, report in runs.items():
        if key[-1] == "cacti45":
            paper = runs[(*key[:-1], "paper")]
            assert report["dram_bytes"] == paper["dram_bytes"]
            assert report["cycles"] == paper["cycles"]


def test_headline_matches_the_experiments(results: dict) -> None:
    perf = {
        (r["model"], r["kernel"], r["config"]): r
        for r in results["experiments"]["performance"]["rows"]
        if r["baseline"] == "Enzyme32k"
    }
    assert set(results["headline"]) == set(results["meta"]["models"])
    for model, rows in results["headline"].items():
        for row in rows:
            assert (
                row["Tflow32k speedup"] == perf[(model, row["kernel"], "Tflow32k")]["speedup_total"]
            )


def test_a_second_run_comes_from_the_cache(
    bench: tuple[Path, Path, subprocess.CompletedProcess[str]], results: dict, tmp_path: Path
) -> None:
    _, cache, _ = bench
    again = _bench(
        "--quick",
        "--kernels",
        KERNELS,
        "--only",
        "performance,table2",
        "--jobs",
        "1",
        "--out",
        str(tmp_path),
        "--cache-dir",
        str(cache),
    )
    assert again.returncode == 0, again.stderr
    assert "0 runs computed" in again.stdout
    second = json.loads((tmp_path / "results.json").read_text())
    assert (
        second["experiments"]["performance"]["rows"]
        == results["experiments"]["performance"]["rows"]
    )


def test_bad_options_are_usage_errors(tmp_path: Path) -> None:
    for args, needle in (
        (["--kernels", "nosuch"], "unknown kernel(s) nosuch"),
        (["--only", "fig99"], "unknown experiment(s) fig99"),
        (["--jobs", "0"], "--jobs must be at least 1"),
    ):
        run = _bench("--quick", "--out", str(tmp_path), *args)
        assert run.returncode == 2
        assert needle in run.stderr
        assert "Traceback" not in run.stderr


def _performance(speedups: dict[str, float]) -> dict[str, Result]:
    rows = [
        {"kernel": k, "config": "Tflow32k", "baseline": "Enzyme32k", "speedup_total": v}
        for k, v in speedups.items()
    ]
    return {"performance": Result("performance", rows=rows)}


def test_claim_verdicts_follow_the_stated_rule() -> None:
    per_kernel = CLAIMS[0]
    assert (per_kernel.tolerance.low, per_kernel.tolerance.high) == (1.3, 2.5)
    assert judge(_performance({"a": 1.4, "b": 2.0}))[0].verdict == "agrees"
    assert judge(_performance({"a": 0.9, "b": 1.2}))[0].verdict == "differs: lower"
    assert judge(_performance({"a": 2.6, "b": 3.0}))[0].verdict == "differs: higher"
    assert judge(_performance({"a": 1.0, "b": 2.0}))[0].verdict == "partly"
    assert judge(_performance({"a": 1.0, "b": 3.0}))[0].verdict == "partly"
    # A point claim stands for the values whose effect is within 25% of the
    # paper's: 2.4x (an effect of 1.4) is 1 + 1.4 * 0.75 = 2.05x to 2.75x.
    assert judge(_performance({"a": 1.0, "b": 2.05**2}))[1].verdict == "agrees"  # geomean 2.05
    assert judge(_performance({"a": 1.0, "b": 2.0**2}))[1].verdict == "differs: lower"  # 2.0
    unroll = {
        "unroll": Result(
            "unroll",
            rows=[
                {
                    "kernel": "pathfinder",
                    "study": "fully unrolled",
                    "unroll": "full",
                    "speedup": 11.0,
                },
            ],
        )
    }
    assert judge(unroll)[2].verdict == "agrees"  # 1 + 13 * 0.75 = 10.75x at least
    assert judge(unroll)[3].verdict == "not measured"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", text) if s.strip()]


def test_report_claims_are_short_lines_with_tolerance_and_count(
    bench: tuple[Path, Path, subprocess.CompletedProcess[str]],
    results: dict,
) -> None:
    out, _, _ = bench
    report = (out / "report.md").read_text()
    lines = report.splitlines()
    start = lines.index("| claim | model | ours | verdict |")
    table = [line for line in lines[start + 2 :] if line.startswith("|")]
    table = table[
        : next((i for i, line in enumerate(table) if not line.startswith("| [")), len(table))
    ]
    assert len(table) == len(CLAIMS) * len(results["meta"]["models"])
    assert max(len(line) for line in table) <= 600
    for line in table:
        verdict = line.rsplit("|", 2)[1]
        if "not testable under" in verdict:  # no tolerance applies: the field it varies
            assert "runs alike at every value of scratchpad.size_bytes" in verdict, line
            continue
        assert "tolerance" in verdict, line
        assert re.search(r"\b\d+ kernels?\b", verdict), line
        assert (
            "](#claim-" in line and f'<a id="{line.split("](#")[1].split(")")[0]}"></a>' in report
        )
    counts: dict[str, int] = {}
    for s in _sentences(report):
        if len(s) >= 60:
            counts[s] = counts.get(s, 0) + 1
    assert not {s: n for s, n in counts.items() if n > 2}


def test_unroll_is_labelled_with_the_factor_that_ran(results: dict) -> None:
    """A factor the trip count does not allow runs as a smaller one: that row is
    the same run as the smaller factor's, and is labelled with it."""
    rows = [r for r in results["experiments"]["unroll"]["rows"] if r["study"] == "sweep"]
    assert rows
    by_unroll = {(r["model"], r["unroll"]): r for r in rows}
    for r in rows:
        assert r["unroll_ran"] <= r["unroll"]
        if r["unroll_ran"] != r["unroll"]:
            same = by_unroll[(r["model"], r["unroll_ran"])]
            for key in ("speedup", "layers", "ops_per_cycle"):
                assert r[key] == same[key]
    for claim in results["claims"]:
        if claim["key"] == "unroll":
            for model, v in claim["models"].items():
                widest = max(r["unroll_ran"] for r in rows if r["model"] == model)
                assert f"(unroll {widest} over unroll 1)" in v["ours"]


def test_the_quick_reports_bottom_line_judges_nothing_and_counts_the_table(
    bench: tuple[Path, Path, subprocess.CompletedProcess[str]], results: dict
) -> None:
    out, _, _ = bench
    lines = (out / "report.md").read_text().splitlines()
    for model in results["meta"]["models"]:
        verdicts = [c["models"][model]["verdict"] for c in results["claims"]]
        table = [
            line.rsplit(" | ", 1)[1]
            for line in lines
            if line.startswith("| [") and f"| {model} |" in line and "**" in line
        ]
        assert [v.split("**")[1] for v in table] == verdicts
        untestable = verdicts.count(f"not testable under {model}")
        unjudged = verdicts.count("not judged at small size")
        # The rest name kernels this run left out (MTTKRP, NN, Matdescent).
        unmeasured = verdicts.count("not measured")
        assert unjudged and untestable + unjudged + unmeasured == len(CLAIMS)
        line = next(x for x in lines if x.startswith(f"- **{model}**"))
        assert line.endswith(
            f": 0 of {len(CLAIMS)} claims agree, 0 partly agree, 0 differ, {untestable} are "
            f"not testable under {model}, {unjudged} are not judged at small size, "
            f"{unmeasured} were not measured."
        )
    # The side-by-side rows carry our speedups as the performance rows give them.
    perf = {
        (r["model"], r["kernel"]): r["speedup_total"]
        for r in results["experiments"]["performance"]["rows"]
        if r["config"] == "Tflow32k" and r["baseline"] == "Enzyme32k"
    }
    rows = [r for r in results["authors_sweep"] if r["claim"].startswith("1.")]
    assert {r["kernel"] for r in rows} >= set(KERNELS.split(","))
    for r in rows:
        for model in results["meta"]["models"]:
            expected = perf.get((model, r["kernel"]))
            assert r[model] == (None if expected is None else f"{expected:.2f}x")
