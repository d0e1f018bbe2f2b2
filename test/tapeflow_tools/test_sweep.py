"""`tapeflow-bench --sweep`: the example sweep over a user's own MLIR kernel runs,
its runs.csv has one column per swept key, every run records the machine it ran
on, its numbers are those `tapeflow-sim` gives for the same kernel and machine,
and a Dask cluster gives the same runs.csv as the local process pool."""

from __future__ import annotations

import contextlib
import csv
import json
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tapeflow_benchmarks import tapeflow_bench
from tapeflow_benchmarks.harness.points import grouped
from tapeflow_benchmarks.harness.sweep import load_sweep
from tapeflow_tools import tapeflow_sim
from tapeflow_tools.diagnostics import ToolError
from targets.energy import ENERGY_PRESETS
from targets.hardware import PRESETS
from targets.machine import layered
from targets.provenance import PACKAGES

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "sweep"
TIMING = {"seconds", "ops_per_second", "group_seconds"}


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _at(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        data = data[part]
    return data


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documented example, run as docs/sweeps.md says."""
    out = tmp_path_factory.mktemp("sweep") / "chain-sweep"
    code = tapeflow_bench.main(
        [
            "--sweep",
            str(EXAMPLE / "sweep.yaml"),
            "--out",
            str(out),
            "--no-cache",
            "--jobs",
            "2",
            "--no-progress",
        ]
    )
    assert code == 0
    return out


def test_example_folder_has_the_evaluation_layout(example: Path) -> None:
    assert (example / "report.md").read_text().startswith("# Sweep: chain-cache-and-dram")
    assert (example / "figures" / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((example / "results.json").read_text())
    assert data["sweep"]["grid"] == {
        "cache.size_bytes": [1024, 4096],
        "dram.latency_cycles": [100, 400],
    }
    rows = _csv(example / "csv" / "runs.csv")
    # 2 kernels x 2 variants x 2 x 2 grid values, each once.
    assert len(rows) == len(data["runs"]) == 16
    keys = {
        (r["kernel"], r["variant"], r["cache.size_bytes"], r["dram.latency_cycles"]) for r in rows
    }
    assert len(keys) == 16
    header = list(rows[0])
    # One column per swept key, named by the dotted key, after the point's fields.
    assert header[header.index("energy_preset") + 1 :][:2] == [
        "cache.size_bytes",
        "dram.latency_cycles",
    ]
    assert all("error" not in r for r in rows)


def test_each_run_records_the_machine_it_ran_on(example: Path) -> None:
    data = json.loads((example / "results.json").read_text())
    rows = _csv(example / "csv" / "runs.csv")
    for run, row in zip(data["runs"], rows, strict=True):
        record = run["report"]["hardware"]
        for key, value in run["swept"].items():
            assert _at(record, key) == value == int(row[key])
        assert record["cache"]["size_bytes"] == run["cache_bytes"]
        assert (record["variant"], record["unroll"], record["model"]) == (run["variant"], 1, "cgra")
        assert record["energy_preset"] == run["energy_preset"] == "paper"
        assert set(record["versions"]) == set(PACKAGES)
        # The variant's preset, with the variant's own scratchpad for TapeFlow.
        if run["variant"] == "tapeflow":
            assert record["name"] == "Tflow32k" and record["scratchpad"]["size_bytes"] == 256
        else:
            assert record["name"] == "Enzyme32k" and record["scratchpad"]["size_bytes"] == 0
        # Everything the sweep did not name is the preset's.
        preset = PRESETS[record["name"]]
        assert record["latencies"]["fadd"] == preset.latencies.fadd
        assert record["dram"]["bandwidth_gbs"] == preset.dram.bandwidth_gbs


def test_dram_latency_changes_time_not_traffic(example: Path) -> None:
    """The DRAM latency is a timing parameter: the same accesses, hits, misses and
    bytes; never fewer cycles when it grows. The stream cost model reads it, so a
    tapeflow run may stream a nest at one latency and keep it at the other (chain:
    streamed at 100 cycles, where its loops issue faster with the tape in the
    scratchpad, kept at 400): the same traffic holds where the choice is the same
    (the layers executed)."""
    rows = _csv(example / "csv" / "runs.csv")
    by = {
        (r["kernel"], r["variant"], r["cache.size_bytes"], r["dram.latency_cycles"]): r
        for r in rows
    }
    compared = set()
    for (kernel, variant, cache, latency), fast in by.items():
        if latency != "100":
            continue
        slow = by[(kernel, variant, cache, "400")]
        if slow["layers"] != fast["layers"]:
            # Each kernel is one loop: its tape streamed at one latency, kept
            # (no layer executed) at the other.
            assert variant == "tapeflow", (kernel, variant, cache)
            assert "0" in (slow["layers"], fast["layers"]), (kernel, cache)
            continue
        compared.add((kernel, variant, cache))
        for column in ("cache_hits", "cache_misses", "dram_total", "ops_total"):
            assert slow[column] == fast[column], (kernel, variant, cache, column)
        assert int(slow["cycles_total"]) >= int(fast["cycles_total"])
    enzyme = {(k, v, c) for k, v, c, _ in by if v == "enzyme"}
    assert enzyme < compared, enzyme - compared  # every enzyme pair, and a tapeflow one


@pytest.mark.parametrize(
    ("variant", "options", "cache"),
    [
        ("enzyme", ["--preset", "Enzyme32k"], 1024),
        ("tapeflow", ["--preset", "Tflow32k", "--spad-bytes", "256"], 4096),
    ],
)
def test_a_run_is_what_tapeflow_sim_reports(
    example: Path, tmp_path: Path, variant: str, options: list[str], cache: int
) -> None:
    """The user's kernel through `tapeflow-sim` on the same machine (the grid's
    DRAM latency of 100 cycles is the presets'): the same numbers."""
    report = tmp_path / "report.json"
    tapeflow_sim.main(
        [
            str(EXAMPLE / "chain.mlir"),
            "--function",
            "chain_grad",
            "--variant",
            variant,
            *options,
            "--cache-bytes",
            str(cache),
            "--inputs",
            str(EXAMPLE / "chain.npz"),
            "--json",
            str(report),
        ]
    )
    sim = json.loads(report.read_text())
    data = json.loads((example / "results.json").read_text())
    run = next(
        r["report"]
        for r in data["runs"]
        if (r["kernel"], r["variant"], r["cache_bytes"], r["swept"]["dram.latency_cycles"])
        == ("chain", variant, cache, 100)
    )
    for key in (
        "cycles",
        "cache",
        "dram_bytes",
        "spad",
        "layers",
        "tape_bytes",
        "energy_pj",
        "sram_bytes",
    ):
        assert run[key] == sim[key], key


def test_a_second_run_comes_from_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = tmp_path / "tiny.yaml"
    sweep.write_text(
        "kernels: [logsum]\nvariants: [enzyme]\ngrid:\n  dram.latency_cycles: [100, 200]\n"
    )
    args = [
        "--sweep",
        str(sweep),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--jobs",
        "1",
        "--no-progress",
    ]
    assert tapeflow_bench.main([*args, "--out", str(tmp_path / "a")]) == 0
    assert (
        "2 points (0 cached, 2 runs computed)" in capsys.readouterr().out
    )  # two latencies: two runs
    assert tapeflow_bench.main([*args, "--out", str(tmp_path / "b")]) == 0
    assert "2 points (2 cached, 0 runs computed)" in capsys.readouterr().out
    assert (tmp_path / "a" / "csv" / "runs.csv").read_bytes() == (
        tmp_path / "b" / "csv" / "runs.csv"
    ).read_bytes()
    # Another latency is another machine: not taken from the cache.
    sweep.write_text(
        "kernels: [logsum]\nvariants: [enzyme]\ngrid:\n  dram.latency_cycles: [100, 300]\n"
    )
    assert tapeflow_bench.main([*args, "--out", str(tmp_path / "c")]) == 0
    assert "2 points (1 cached, 1 runs computed)" in capsys.readouterr().out


def test_points_rebuild_the_layered_machine(tmp_path: Path) -> None:
    """Each point's hardware is the preset with the files, `set`, the variant's
    spad and the grid values layered over it, as `--hw`/`--set` layer them; points
    that differ only in cache size, ways or energy preset share one run."""
    (tmp_path / "base.yaml").write_text("dram:\n  bandwidth_gbs: 25.6\n")
    (tmp_path / "s.yaml").write_text(
        "hw: base.yaml\nset: {clock_ghz: 1.5}\nkernels: [logsum, nn]\n"
        "variants: [aos, {variant: tapeflow, spad: 1024, unroll: 2}]\n"
        "grid:\n  cache.size_bytes: [1024, 65536]\n  cache.assoc: [2, 4]\n"
        "  energy: [paper, cacti45]\n  rows: [4, 8]\n"
    )
    sweep = load_sweep(tmp_path / "s.yaml")
    assert len(sweep.points) == len(sweep.rows) == 2 * 2 * 16
    for point, swept in sweep.rows:
        g = point.group
        preset = "Tflow32k" if g.variant == "tapeflow" else "Enzyme32k"
        sets = ["clock_ghz=1.5"] + (
            ["scratchpad.size_bytes=1024"] if g.variant == "tapeflow" else []
        )
        sets += [f"{k}={v}" for k, v in swept.items()]
        expected = layered(PRESETS[preset], [str(tmp_path / "base.yaml")], sets)
        assert point.hardware() == expected, point.label()
        assert expected.energy == ENERGY_PRESETS[swept["energy"]]
        assert point.record()["energy_preset"] == swept["energy"]
    groups = grouped(list(sweep.points))
    # A run per kernel, variant and grid size (rows); cache and energy are replays.
    assert len(groups) == 2 * 2 * 2
    assert all(len(points) == 8 for points in groups.values())
    keys = {p.key() for p in sweep.points}
    assert len(keys) == len(sweep.points)


def test_a_cached_sweep_starts_no_dask_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--dask` starts (or reaches) a cluster only when a run is to be computed: a
    sweep found whole in the cache asks for none, one with a point missing does."""
    sweep = tmp_path / "tiny.yaml"
    sweep.write_text("kernels: [logsum]\nvariants: [enzyme]\n")
    cache = ["--cache-dir", str(tmp_path / "cache"), "--no-progress"]
    args = ["--sweep", str(sweep), *cache]
    assert tapeflow_bench.main([*args, "--jobs", "1", "--out", str(tmp_path / "a")]) == 0
    capsys.readouterr()
    asked: list[str] = []

    @contextlib.contextmanager
    def no_cluster(address: str, jobs: int) -> Iterator[tuple[object, int]]:
        asked.append(address)
        raise ToolError(f"--dask {address}: no cluster in this test")
        yield  # pragma: no cover

    monkeypatch.setattr(tapeflow_bench, "dask_executor", no_cluster)
    dask = ["--dask", "local", "--out"]
    assert tapeflow_bench.main([*args, *dask, str(tmp_path / "b")]) == 0
    assert asked == []
    assert "1 points (1 cached, 0 runs computed)" in capsys.readouterr().out
    assert (tmp_path / "a" / "csv" / "runs.csv").read_bytes() == (
        tmp_path / "b" / "csv" / "runs.csv"
    ).read_bytes()
    sweep.write_text("kernels: [logsum]\nvariants: [enzyme]\ngrid:\n  dram.latency_cycles: [7]\n")
    assert tapeflow_bench.main([*args, *dask, str(tmp_path / "c")]) == 1
    assert asked == ["local"]
    assert "no cluster in this test" in capsys.readouterr().err


def test_dask_local_gives_the_same_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same tiny sweep on the local pool and on `--dask local`: runs.csv
    byte for byte, and every report apart from timing; Dask's default HTTP port
    held by another program (as by another cluster) draws no warning."""
    with socket.socket() as held:
        with contextlib.suppress(OSError):  # taken already: held all the same
            held.bind(("", 8787))
            held.listen()
        _dask_local_gives_the_same_runs(tmp_path, capsys)


def _dask_local_gives_the_same_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = tmp_path / "sweep.yaml"
    for name in ("chain.mlir", "chain.npz"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    sweep.write_text(
        "kernels:\n  - {name: chain, file: chain.mlir, function: chain_grad, inputs: chain.npz}\n"
        "variants: [enzyme, tapeflow]\n"
        "grid:\n  cache.size_bytes: [1024, 2048]\n  dram.latency_cycles: [100, 250]\n"
    )
    args = ["--sweep", str(sweep), "--no-cache", "--no-progress"]
    # The local pool in this process; the Dask cluster from the command, whose
    # stderr shows what Dask's logging says.
    assert tapeflow_bench.main([*args, "--out", str(tmp_path / "local"), "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "already in use" not in err
    local, dask = tmp_path / "local", tmp_path / "dask"
    run = subprocess.run(
        [sys.executable, "-m", "tapeflow_benchmarks.tapeflow_bench", *args, "--out", str(dask)]
        + ["--jobs", "2", "--dask", "local"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert "already in use" not in run.stderr
    assert (local / "csv" / "runs.csv").read_bytes() == (dask / "csv" / "runs.csv").read_bytes()
    first, second = (json.loads((o / "results.json").read_text()) for o in (local, dask))
    assert _without_timing(first["runs"]) == _without_timing(second["runs"])
    assert second["meta"]["engine"] == "a local Dask cluster"
    assert len(first["runs"]) == 8


def test_dask_address_of_an_existing_scheduler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--dask ADDRESS`: the runs go to the scheduler already running there (a
    cluster this test starts), with the local pool's results."""
    distributed = pytest.importorskip("distributed")
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        "kernels: [logsum]\nvariants: [enzyme, aos]\ngrid:\n  cache.size_bytes: [1024, 2048]\n"
    )
    args = ["--sweep", str(sweep), "--no-cache", "--no-progress", "--jobs", "1"]
    assert tapeflow_bench.main([*args, "--out", str(tmp_path / "local")]) == 0
    # Its scheduler's HTTP server on a port of the system's choosing, as the tool's
    # local clusters do: another test's cluster (or Dask's default port held) then
    # draws no warning.
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},
    ) as cluster:
        address = cluster.scheduler_address
        assert (
            tapeflow_bench.main([*args, "--out", str(tmp_path / "remote"), "--dask", address]) == 0
        )
        assert cluster.scheduler is not None  # still up: the tool closed its client only
    assert "Traceback" not in capsys.readouterr().err
    local, remote = tmp_path / "local", tmp_path / "remote"
    assert (local / "csv" / "runs.csv").read_bytes() == (remote / "csv" / "runs.csv").read_bytes()
    meta = json.loads((remote / "results.json").read_text())["meta"]
    assert meta["engine"] == f"the Dask scheduler at {address}"


def test_a_sweep_point_on_the_papers_machine_is_the_evaluations(tmp_path: Path) -> None:
    """Named the same way or not, the same machine is the same point (one cache
    entry): a sweep of the paper's cache sizes gives the evaluation's points."""
    from tapeflow_benchmarks.harness.experiments import enzyme, tapeflow

    (tmp_path / "s.yaml").write_text(
        "kernels: [logsum]\nvariants: [enzyme, {variant: tapeflow, preset: Tflow32k}]\n"
        "grid:\n  cache.size_bytes: [1024, 32768]\n  energy: [paper, cacti45]\n"
    )
    points = set(load_sweep(tmp_path / "s.yaml").points)
    assert points == {
        make("logsum", "small", cache, energy=energy)
        for make in (enzyme, tapeflow)
        for cache in (1024, 32768)
        for energy in ("paper", "cacti45")
    }


def test_a_salam_sweep_runs_what_tapeflow_sim_reports(tmp_path: Path) -> None:
    """A sweep under `model: salam` builds each point's machine as the model
    simulates it (its clock, latencies, ways), then the grid: each run's numbers
    are `tapeflow-sim --model salam` on the same machine."""
    sweep = tmp_path / "salam.yaml"
    sweep.write_text(
        "kernels: [logsum]\nvariants: [enzyme, tapeflow]\nmodel: salam\n"
        "grid:\n  cache.size_bytes: [1024, 32768]\n"
    )
    out = tmp_path / "out"
    assert (
        tapeflow_bench.main(
            ["--sweep", str(sweep), "--out", str(out), "--no-cache", "--jobs", "1", "--no-progress"]
        )
        == 0
    )
    data = json.loads((out / "results.json").read_text())
    assert len(data["runs"]) == 4
    inputs = tmp_path / "in.npz"
    import numpy as np

    from tapeflow_benchmarks.kernels import KERNELS

    np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(KERNELS["logsum"].inputs("small"))})
    source = ROOT / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"
    for run in data["runs"]:
        report = tmp_path / "report.json"
        preset = "Tflow32k" if run["variant"] == "tapeflow" else "Enzyme32k"
        tapeflow_sim.main(
            [
                str(source),
                "--function",
                "logsum_grad",
                "--variant",
                run["variant"],
                "--model",
                "salam",
                "--preset",
                preset,
                "--set",
                f"cache.size_bytes={run['swept']['cache.size_bytes']}",
                "--inputs",
                str(inputs),
                "--json",
                str(report),
            ]
        )
        sim = json.loads(report.read_text())
        assert run["report"]["hardware"]["model"] == "salam"
        assert run["report"]["hardware"]["clock_ghz"] == 0.1  # the authors' 100 MHz datapath
        for key in ("cycles", "cache", "dram_bytes", "spad", "tape_bytes", "energy_pj"):
            assert run["report"][key] == sim[key], (run["swept"], key)
    small, large = (
        next(
            r
            for r in data["runs"]
            if r["variant"] == "enzyme" and r["swept"]["cache.size_bytes"] == v
        )
        for v in (1024, 32768)
    )
    assert small["report"]["hardware"]["cache"]["size_bytes"] == 1024
    assert small["report"]["cache"]["misses"] >= large["report"]["cache"]["misses"]
    # The authors' cluster cache is 4-way at every size (AccCluster.py L15): a
    # salam sweep's 1 KB point is 4-way, not Table III's 2-way, as the
    # evaluation's salam point at 1 KB is.
    assert small["report"]["hardware"]["cache"]["assoc"] == 4


def test_one_ways_rule_for_a_changed_cache_size() -> None:
    """A cache size given without its ways takes the ways of the machine the
    model simulates: Table III's under cgra (2-way at 1 KB), 4 at every size
    under salam; ways given explicitly are kept. The evaluation's points, a
    sweep's machines and `tapeflow-sim --set` agree."""
    from dataclasses import replace

    from sim.models import MODELS
    from tapeflow_benchmarks.harness.points import Group, Point
    from tapeflow_benchmarks.harness.sweep.grid import machines
    from tapeflow_benchmarks.harness.sweep.plan import SweepVariant
    from targets.hardware import PRESETS, overridden
    from targets.machine import layered

    salam, cgra = MODELS["salam"], MODELS["cgra"]
    base = salam.hardware(PRESETS["Enzyme32k"])
    one_k = ["cache.size_bytes=1024"]
    assert layered(base, [], one_k, salam.ways).cache.assoc == 4
    assert layered(PRESETS["Enzyme32k"], [], one_k, cgra.ways).cache.assoc == 2
    assert layered(base, [], [*one_k, "cache.assoc=2"], salam.ways).cache.assoc == 2
    assert overridden(base, cache_bytes=1024, ways=salam.ways).cache.assoc == 4
    assert overridden(base, cache_bytes=1024, assoc=2, ways=salam.ways).cache.assoc == 2
    for model in ("salam", "cgra"):
        point = Point(Group("logsum", "small", "enzyme", 0, 1, model), 1024).hardware()
        ((_, swept, _),) = machines(
            Path("s.yaml"),
            [SweepVariant("enzyme", 1, None, "Enzyme32k")],
            [],
            {"cache.size_bytes": [1024]},
            [(1024,)],
            model,
            [],
        )
        assert swept == point
        assert point.cache.assoc == (4 if model == "salam" else 2)
    assert replace(point, name="") == replace(layered(PRESETS["Enzyme32k"], [], one_k), name="")


@pytest.mark.parametrize(
    "key, values", [("cache.ports", "[1, 2]"), ("rows", "[2]"), ("dram.bandwidth_gbs", "[9.6]")]
)
def test_a_salam_sweep_refuses_a_field_salam_does_not_simulate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, values: str
) -> None:
    sweep = tmp_path / "salam.yaml"
    sweep.write_text(
        f"kernels: [logsum]\nvariants: [enzyme]\nmodel: salam\ngrid:\n  {key}: {values}\n"
    )
    with pytest.raises(SystemExit) as exit_:
        tapeflow_bench.main(["--sweep", str(sweep), "--out", str(tmp_path / "o"), "--no-progress"])
    assert exit_.value.code != 0
    err = capsys.readouterr().err
    assert f"the salam model does not simulate {key}" in err
    assert "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_dask_records_are_one_line_without_a_traceback() -> None:
    """A worker's late heartbeat, logged with its exception, prints as one
    `dask:` line: no traceback from a run that succeeded."""
    import io
    import logging

    from tapeflow_benchmarks.harness.dask_pool import OneLine

    try:
        raise OSError("Timed out during handshake")
    except OSError:
        record = logging.getLogger("distributed.worker").makeRecord(
            "distributed.worker",
            logging.WARNING,
            __file__,
            1,
            "Failed to communicate with scheduler during heartbeat.\nmore",
            (),
            sys.exc_info(),
        )
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(OneLine())
    handler.emit(record)
    assert (
        stream.getvalue()
        == "dask: warning: Failed to communicate with scheduler during heartbeat.\n"
    )


def test_a_local_worker_does_not_report_its_scheduler_gone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In a local cluster's worker, a heartbeat that finds the scheduler gone (the
    tool closing its cluster after Ctrl-C) prints nothing; other warnings still
    print as one line, and the tool's own process keeps the record."""
    import logging

    from tapeflow_benchmarks.harness.dask_pool import LOGGERS, quiet_dask_logs

    logger = logging.getLogger("distributed.worker")
    saved = {
        name: (
            logging.getLogger(name).handlers[:],
            logging.getLogger(name).level,
            logging.getLogger(name).propagate,
        )
        for name in LOGGERS
    }
    try:
        quiet_dask_logs(local_worker=True)
        logger.warning("Failed to communicate with scheduler during heartbeat.")
        logger.warning("Worker is at 85% memory usage.")
        assert capsys.readouterr().err == "dask: warning: Worker is at 85% memory usage.\n"
        quiet_dask_logs()
        logger.warning("Failed to communicate with scheduler during heartbeat.")
        assert capsys.readouterr().err == (
            "dask: warning: Failed to communicate with scheduler during heartbeat.\n"
        )
    finally:
        for name, (handlers, level, propagate) in saved.items():
            each = logging.getLogger(name)
            each.handlers[:] = handlers
            each.setLevel(level)
            each.propagate = propagate


def test_what_runs_is_what_is_recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`unroll: 3` on logsum's 16-iteration loop runs as unroll 2 (16's largest
    divisor up to 3, by hand): runs.csv, results.json and the hardware record say
    2 (and unroll_requested 3), a second run from the cache says the same, and the
    run warns once."""
    sweep = tmp_path / "unroll.yaml"
    sweep.write_text("kernels: [logsum]\nvariants:\n  - {variant: tapeflow, unroll: 3}\n")
    for attempt in range(2):
        out = tmp_path / f"results{attempt}"
        args = [
            "--sweep",
            str(sweep),
            "--out",
            str(out),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-progress",
            "--jobs",
            "1",
        ]
        assert tapeflow_bench.main(args) == 0
        err = capsys.readouterr().err
        assert err.count("logsum small tapeflow: unroll 3 ran as unroll 2") == 1
        (row,) = _csv(out / "csv" / "runs.csv")
        assert (row["unroll"], row["unroll_requested"]) == ("2", "3")
        (run,) = json.loads((out / "results.json").read_text())["runs"]
        assert (run["unroll"], run["unroll_requested"]) == (2, 3)
        record = run["report"]["hardware"]
        assert (record["unroll"], record["unroll_requested"]) == (2, 3)
        assert "recomputing" not in err  # the cached report is accepted as the point's


def test_axes_that_set_one_field_are_refused(tmp_path: Path) -> None:
    """Two axes writing one field would collapse points (4 combinations run as
    2); refused naming both, as is an axis written twice."""
    for text, message in [
        (
            "grid:\n  energy: [paper, cacti45]\n  energy.spad_pj: [1.0, 100.0]\n",
            "grid: energy and energy.spad_pj set the same field (energy.spad_pj)",
        ),
        (
            "grid:\n  energy.dram_write_pj_per_bit: [1.0, 2.0]\n  energy: [paper, cacti45]\n",
            "grid: energy and energy.dram_write_pj_per_bit set the same field "
            "(energy.dram_write_pj_per_bit)",
        ),
        (
            "grid:\n  cache.ports: [1, 2]\n  cache.ports: [4]\n",
            "key 'cache.ports' is given twice in one mapping (first at line 4, column 3)",
        ),
        (
            "set:\n  energy: cacti45\n  energy.dram_read_pj_per_bit: 1.0\n",
            "set: energy and energy.dram_read_pj_per_bit set the same field",
        ),
    ]:
        sweep = tmp_path / "s.yaml"
        sweep.write_text("kernels: [logsum]\nvariants: [enzyme]\n" + text)
        with pytest.raises(ToolError) as err:
            load_sweep(sweep)
        assert message in str(err.value), str(err.value)


def test_a_variant_without_streams_runs_once_over_a_scratchpad_axis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The enzyme variant never uses the scratchpad: over a scratchpad axis it
    runs once, on its machine without one, its row at every value with the SRAM
    it uses (the cache alone); the tapeflow variant runs at each value, its SRAM
    the cache plus that scratchpad. Said once on stderr."""
    sweep = tmp_path / "spad.yaml"
    sweep.write_text(
        "kernels: [logsum]\nvariants: [enzyme, tapeflow]\n"
        "grid:\n  scratchpad.size_bytes: [256, 512, 1024]\n"
    )
    loaded = load_sweep(sweep)
    assert len(loaded.rows) == 6 and len(loaded.points) == 4
    (enzyme,) = {p for p, _ in loaded.rows if p.group.variant == "enzyme"}
    assert enzyme.hardware().scratchpad.size_bytes == 0
    out = tmp_path / "out"
    args = ["--sweep", str(sweep), "--out", str(out), "--no-cache", "--no-progress"]
    assert tapeflow_bench.main([*args, "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert err.count("variants[0] (enzyme) never uses the scratchpad: it runs once") == 1
    rows = _csv(out / "csv" / "runs.csv")
    cache = PRESETS["Enzyme32k"].cache.size_bytes
    assert cache == PRESETS["Tflow32k"].cache.size_bytes == 32 * 1024
    by_variant: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_variant.setdefault(row["variant"], []).append(row)
    assert [r["scratchpad.size_bytes"] for r in by_variant["enzyme"]] == ["256", "512", "1024"]
    for variant, rows_of in by_variant.items():
        for row in rows_of:
            used = int(row["scratchpad.size_bytes"]) if variant == "tapeflow" else 0
            assert int(row["sram_bytes"]) == cache + used
    numbers = [
        {k: v for k, v in r.items() if k != "scratchpad.size_bytes"} for r in by_variant["enzyme"]
    ]
    assert numbers[0] == numbers[1] == numbers[2]


def test_a_salam_sweep_over_the_scratchpad_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """salam's bins hold the whole tape, so a scratchpad axis changes no number:
    the field is named on stderr, as tapeflow-sim names it; other axes are not."""
    sweep = tmp_path / "salam.yaml"
    sweep.write_text(
        "model: salam\nkernels: [logsum]\nvariants: [tapeflow]\n"
        "grid:\n  scratchpad.size_bytes: [256, 512]\n  cache.size_bytes: [1024, 2048]\n"
    )
    (note,) = load_sweep(sweep).notes
    assert note == (
        f"{sweep}: grid: scratchpad.size_bytes: the salam model does not simulate "
        "scratchpad.size_bytes as given: it runs every value alike, so no number of the "
        "sweep reflects it (docs/DESIGN.md, Timing models)"
    )
    args = ["--sweep", str(sweep), "--out", str(tmp_path / "o"), "--no-cache", "--no-progress"]
    assert tapeflow_bench.main([*args, "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert err.count("does not simulate scratchpad.size_bytes") == 1
    rows = _csv(tmp_path / "o" / "csv" / "runs.csv")
    for size in ("1024", "2048"):
        same = [r["cycles_total"] for r in rows if r["cache_bytes"] == size]
        assert len(same) == 2 and same[0] == same[1]


def test_a_sweep_without_a_scratchpad_axis_shares_no_row() -> None:
    """Every other sweep runs one point per row, with nothing to say."""
    loaded = load_sweep(EXAMPLE / "sweep.yaml")
    assert loaded.notes == []
    assert len(loaded.points) == len(loaded.rows) == 16


def test_dask_local_closes_a_slow_worker_without_killing_it(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A local cluster's worker that takes 6 s to exit (its interpreter's teardown,
    as on a loaded machine: here an exit handler that sleeps) is waited for, not
    killed with Dask's 'Worker process still alive after 4.0 seconds, killing'."""
    import atexit
    import time

    pytest.importorskip("distributed")
    from tapeflow_benchmarks.harness.dask_pool import dask_executor

    with dask_executor("local", 1) as (executor, _):
        assert executor.submit(atexit.register, time.sleep, 6).result() is time.sleep
        started = time.monotonic()
    assert time.monotonic() - started >= 6  # the worker did take its time
    err = capfd.readouterr().err
    assert "still alive" not in err and "killing" not in err, err


def test_the_load_ordering_and_the_adjoint_additions_are_settable_fields() -> None:
    """`datapath.ordering`, `datapath.adjoint_additions` and `datapath.latch` from
    a hardware file, `--set` and a sweep's grid; the salam machine's defaults
    otherwise."""
    from sim.models import MODELS

    salam = MODELS["salam"]
    base = salam.hardware(PRESETS["Enzyme32k"])
    assert (base.datapath.ordering, base.datapath.adjoint_additions) == ("release", True)
    assert base.datapath.latch == "exit"
    release = str(EXAMPLE / "table3-release" / "release.yaml")
    from_file = layered(base, [release], [], salam.ways).datapath
    assert (from_file.ordering, from_file.adjoint_additions) == ("release", True)
    assert from_file.latch == "exit"
    sets = ["datapath.ordering=release", "datapath.adjoint_additions=true", "datapath.latch=exit"]
    assert layered(base, [], sets, salam.ways).datapath == from_file
    drains = layered(base, [], ["datapath.latch=iterations"], salam.ways).datapath
    assert drains.latch == "iterations"
    # Table III's associativities, each file one of them, all under release.yaml.
    table = {
        "2way.yaml": {(size * 1024, 2) for size in (1, 2, 4, 8, 16)},
        "4way.yaml": {(32 * 1024, 4)},
        "full.yaml": {(64 * 1024, 64 * 1024 // 64)},
        "8way.yaml": {(128 * 1024, 8)},
    }
    for name, caches in table.items():
        sweep = load_sweep(EXAMPLE / "table3-release" / name)
        machines = [point.hardware() for point, _ in sweep.rows]
        assert {(h.cache.size_bytes, h.cache.assoc) for h in machines} == caches
        assert {h.datapath for h in machines} == {from_file}


def test_a_sweep_grid_sets_the_load_ordering(tmp_path: Path) -> None:
    sweep_file = tmp_path / "ordering.yaml"
    sweep_file.write_text(
        "kernels: [logsum]\nvariants: [enzyme]\nmodel: salam\n"
        "grid:\n  datapath.ordering: [strict, release]\n"
    )
    sweep = load_sweep(sweep_file)
    assert [(swept, point.hardware().datapath.ordering) for point, swept in sweep.rows] == [
        ({"datapath.ordering": "strict"}, "strict"),
        ({"datapath.ordering": "release"}, "release"),
    ]
