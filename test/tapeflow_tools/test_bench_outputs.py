"""
tapeflow-bench's cache and results folder: every cache entry in
`bad_inputs/bench_cache/` (wrong shape, NaN, a failed run, one digit changed with
or without its checksum redone, ...) is noticed in one line naming it and
recomputed, never trusted; the results folder is replaced as a whole and only
when complete; Ctrl-C stops the workers quietly; and the same command gives the
same results apart from timing.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tapeflow_benchmarks import tapeflow_bench
from tapeflow_benchmarks.harness import report as report_module
from tapeflow_benchmarks.harness.experiments import enzyme
from tapeflow_benchmarks.harness.result_cache import ResultCache
from tapeflow_benchmarks.harness.runner import run_points
from tapeflow_tools.atomic import FOLDER_MARKER, atomic_directory, written_files

CORPUS = Path(__file__).resolve().parent / "bad_inputs" / "bench_cache"
POINT = enzyme("logsum", "small", 32 * 1024)
ONE_POINT_ARGS = [
    "--quick",
    "--only",
    "table2",
    "--kernels",
    "logsum",
    "--model",
    "cgra",
    "--no-progress",
    "--jobs",
    "1",
]
TIMING = {"seconds", "ops_per_second", "group_seconds"}


def _without_timing(value: Any) -> Any:
    """A report or results.json with the fields that measure our own run time
    (and the cache bookkeeping of the run) taken out."""
    if isinstance(value, dict):
        return {
            k: _without_timing(v)
            for k, v in value.items()
            if k not in TIMING and k not in ("cached", "computed_groups", "command")
        }
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


@pytest.fixture(scope="module")
def good_entry(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """A freshly computed entry for POINT: (entry as written, its report)."""
    root = tmp_path_factory.mktemp("cache")
    cache = ResultCache(root, notify=lambda m: pytest.fail(f"unexpected notice: {m}"))
    runs, summary = run_points([POINT], cache, progress=False)
    assert summary.failed == [] and summary.computed_groups == 1
    entry = json.loads(cache.path(POINT).read_text())
    return entry, runs[POINT]


def _edit(entry: dict, case: dict) -> str:
    """The text of `entry` after the case's edits (see the corpus files)."""
    entry = json.loads(json.dumps(entry))
    if case.get("unwrap"):
        return json.dumps(entry["report"])
    if "replace_report" in case:
        entry["report"] = case["replace_report"]
    for dotted, value in case.get("set", {}).items():
        *path, last = dotted.split(".")
        target = entry
        for key in path:
            target = target[key]
        target[last] = target[last] + int(value[1:]) if value.startswith("+") else json.loads(value)
    for dotted in case.get("delete", []):
        *path, last = dotted.split(".")
        target = entry
        for key in path:
            target = target[key]
        del target[last]
    if case.get("rehash") or case.get("rehash_text"):
        text = json.dumps(entry["report"], sort_keys=True, separators=(",", ":"))
        entry["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    return json.dumps(entry)


def _corpus() -> list[Path]:
    files = sorted(CORPUS.glob("*.json"))
    assert files
    return files


@pytest.mark.parametrize("case_file", _corpus(), ids=lambda p: p.stem)
def test_bad_cache_entries_are_recomputed(
    case_file: Path, good_entry: tuple[dict, dict], tmp_path: Path
) -> None:
    entry, report = good_entry
    case = json.loads(case_file.read_text())
    notices: list[str] = []
    cache = ResultCache(tmp_path, notify=notices.append)
    path = cache.path(POINT)
    path.parent.mkdir(parents=True)
    path.write_text(case["content"] if "content" in case else _edit(entry, case))

    runs, summary = run_points([POINT], cache, progress=False)

    assert (summary.cached, summary.computed_groups, summary.failed) == (0, 1, [])
    assert len(notices) == 1, notices
    assert str(path) in notices[0] and case["reason"] in notices[0], notices[0]
    assert notices[0].endswith("; recomputing") and "\n" not in notices[0]
    assert _without_timing(runs[POINT]) == _without_timing(report)
    # The entry was rewritten whole and is trusted again, silently.
    again = ResultCache(tmp_path, notify=notices.append)
    assert _without_timing(again.get(POINT)) == _without_timing(report)
    assert len(notices) == 1


def test_changed_digit_does_not_reach_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case end to end: a cached number edited by one digit used to
    change results.json with exit 0; now the point is recomputed, said so, and
    results.json is what a clean run gives."""
    cache, clean, edited = tmp_path / "cache", tmp_path / "clean", tmp_path / "edited"
    assert (
        tapeflow_bench.main([*ONE_POINT_ARGS, "--out", str(clean), "--cache-dir", str(cache)]) == 0
    )
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == 2
    for entry_path in entries:
        entry = json.loads(entry_path.read_text())
        entry["report"]["cycles"]["fwd"] += 1
        entry_path.write_text(json.dumps(entry))
    capsys.readouterr()
    assert (
        tapeflow_bench.main([*ONE_POINT_ARGS, "--out", str(edited), "--cache-dir", str(cache)]) == 0
    )
    err = capsys.readouterr().err
    assert err.count("does not match its checksum") == 2
    assert "Traceback" not in err
    first = json.loads((clean / "results.json").read_text())
    second = json.loads((edited / "results.json").read_text())
    assert _without_timing(second) == _without_timing(first)
    assert second["meta"]["cached"] == 0


def test_results_folder_is_deterministic(tmp_path: Path) -> None:
    """One point twice from scratch: the same bytes, apart from timing."""
    outs = [tmp_path / "first", tmp_path / "second"]
    for out in outs:  # the same command line twice (the report quotes it)
        assert (
            tapeflow_bench.main([*ONE_POINT_ARGS, "--no-cache", "--out", str(tmp_path / "results")])
            == 0
        )
        (tmp_path / "results").rename(out)
    first, second = (json.loads((o / "results.json").read_text()) for o in outs)
    assert _without_timing(first) == _without_timing(second)
    files = sorted(str(p.relative_to(outs[0])) for p in outs[0].rglob("*") if p.is_file())
    assert files == sorted(str(p.relative_to(outs[1])) for p in outs[1].rglob("*") if p.is_file())
    for name in files:
        if name in ("results.json", "report.md"):
            continue
        if name == FOLDER_MARKER:  # the checksums of the two files above differ
            assert sorted(written_files(outs[0]) or {}) == sorted(written_files(outs[1]) or {})
            continue
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    reports = [(o / "report.md").read_text().splitlines() for o in outs]
    timing_line = [i for i, line in enumerate(reports[0]) if " s with " in line]
    assert len(timing_line) == 1
    for i, (a, b) in enumerate(zip(*reports, strict=True)):
        if i not in timing_line:
            assert a == b


def _older_results(out: Path) -> None:
    """A results folder as an earlier run wrote it (with the marker)."""
    with atomic_directory(out) as temp:
        (temp / "csv").mkdir()
        (temp / "results.json").write_text('{"an": "older run"}\n')
        (temp / "report.md").write_text("older\n")
        (temp / "csv" / "from_an_older_run.csv").write_text("stale\n")


def test_reused_out_folder_keeps_the_users_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An earlier run's files are replaced (none survives); a user's file in the
    folder is kept as it was, and the run says so."""
    out = tmp_path / "results"
    _older_results(out)
    (out / "notes.txt").write_text("mine\n")
    (out / "csv" / "my_table.csv").write_text("mine too\n")
    assert tapeflow_bench.main([*ONE_POINT_ARGS, "--no-cache", "--out", str(out)]) == 0
    assert not (out / "csv" / "from_an_older_run.csv").exists()
    assert (out / "notes.txt").read_text() == "mine\n"
    assert (out / "csv" / "my_table.csv").read_text() == "mine too\n"
    assert json.loads((out / "results.json").read_text())["meta"]["kernels"] == ["logsum"]
    assert [p.name for p in tmp_path.iterdir()] == ["results"]  # no temporary folder left
    assert (
        "kept what no earlier run wrote there: csv/my_table.csv, notes.txt"
        in capsys.readouterr().err
    )


def test_a_folder_with_a_users_report_is_not_a_results_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`report.md` and `draft.tex` of the user's: refused, both untouched."""
    out = tmp_path / "paper"
    out.mkdir()
    (out / "report.md").write_text("my report\n")
    (out / "draft.tex").write_text("my draft\n")
    with pytest.raises(SystemExit) as stop:
        tapeflow_bench.main([*ONE_POINT_ARGS, "--no-cache", "--out", str(out)])
    assert stop.value.code == 2
    assert "is not a tapeflow-bench results folder" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["draft.tex", "report.md"]
    assert (out / "report.md").read_text() == "my report\n"


def test_interrupt_while_writing_keeps_the_old_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results"
    _older_results(out)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    drawn: list[str] = []

    def draw_then_interrupt(
        result: Any, title: str, path: Path, *args: Any, **kwargs: Any
    ) -> list[str]:
        path.write_bytes(b"half a figure")
        drawn.append(path.name)
        raise KeyboardInterrupt

    monkeypatch.setattr(report_module, "draw", draw_then_interrupt)
    code = tapeflow_bench.main([*ONE_POINT_ARGS, "--no-cache", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 130 and drawn
    assert "interrupted while writing the results" in err and "Traceback" not in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["results"]


def test_ctrl_c_stops_workers_quietly(tmp_path: Path) -> None:
    """SIGINT to the whole process group (what a terminal's Ctrl-C does), while
    two workers run: one message from the parent, status 130, no traceback, no
    results folder, and no worker left running."""
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tapeflow_benchmarks.tapeflow_bench",
            "--quick",
            "--only",
            "performance",
            "--kernels",
            "logsum,pathfinder,nn",
            "--no-progress",
            "--jobs",
            "2",
            "--out",
            str(tmp_path / "results"),
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not (tmp_path / "cache").exists() and time.monotonic() < deadline:
        time.sleep(0.1)  # the first group finished: the workers are busy
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().startswith("tapeflow-bench: interrupted"), err
    assert err.count("interrupted") == 1
    assert not (tmp_path / "results").exists()
    # Every process of the group gone within half a second, looked for as it ends
    # rather than after a fixed wait. A process that has exited but whose new parent
    # (init) has not reaped it yet runs nothing: an Enzyme child a terminated worker
    # had forked dies with it (`lowering.enzyme.upstream_mlir`), after the worker,
    # and can be seen so for a moment.
    deadline = time.monotonic() + 0.5
    while True:
        group = subprocess.run(["pgrep", "-g", str(run.pid)], capture_output=True, text=True)
        states = {pid: _process_state(pid) for pid in group.stdout.split()}
        running = [pid for pid, state in states.items() if state and not state.startswith("Z")]
        if not running or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    assert running == [], "workers outlived the interrupted run"


def _process_state(pid: str) -> str:
    """`ps`'s state letters for `pid` ('' once it is gone; 'Z...' for a zombie)."""
    return subprocess.run(
        ["ps", "-o", "stat=", "-p", pid], capture_output=True, text=True
    ).stdout.strip()
