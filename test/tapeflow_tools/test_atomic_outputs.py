"""The atomic-write helpers (tapeflow_tools/atomic.py) and the determinism of
tapeflow-sim's outputs."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from tapeflow_tools import atomic, tapeflow_sim
from tapeflow_tools.atomic import (
    FOLDER_MARKER,
    atomic_directory,
    atomic_write_text,
    atomic_writer,
    check_distinct,
    check_output_directory,
    check_output_file,
    check_results_folder,
    commit_outputs,
    written_files,
)
from tapeflow_tools.diagnostics import ToolError

ROOT = Path(__file__).resolve().parents[2]


def test_a_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    with pytest.raises(RuntimeError), atomic_writer(target) as out:
        out.write("half of the new")
        raise RuntimeError("the run failed")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # permissions kept


def test_a_new_file_appears_only_complete(tmp_path: Path) -> None:
    target = tmp_path / "new.txt"
    with pytest.raises(KeyboardInterrupt), atomic_writer(target) as out:
        out.write("partial")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_a_symlink_is_followed_not_replaced(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_devices_are_written_in_place(tmp_path: Path) -> None:
    atomic_write_text("/dev/null", "discarded")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    check_output_file("/dev/null", "--out")


def test_output_checks_name_the_option(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    for check, path, message in (
        (check_output_file, tmp_path, "--opt {p}: is a directory"),
        (check_output_file, tmp_path / "no" / "x", "the directory {d} does not exist"),
        (check_output_directory, tmp_path / "file", "--opt {p}: is a file, not a directory"),
        (check_output_directory, tmp_path / "file" / "sub", "cannot be created, {f} is a file"),
    ):
        with pytest.raises(ToolError) as err:
            check(path, "--opt")
        expected = message.format(p=path, d=tmp_path / "no", f=tmp_path / "file")
        assert expected in str(err.value)
    check_output_directory(tmp_path / "new" / "deeper", "--opt")  # creatable


def test_directory_replaced_whole_or_not_at_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder the tool wrote before is replaced by the new one: none of the
    older run's files survive; a file a user put there is kept, and said so."""
    target = tmp_path / "results"
    target.mkdir()
    with atomic_directory(target) as temp:
        (temp / "old.txt").write_text("old")
    (target / "notes.md").write_text("mine")
    with pytest.raises(RuntimeError), atomic_directory(target) as temp:
        (temp / "new.txt").write_text("new")
        raise RuntimeError
    assert sorted(p.name for p in target.iterdir()) == [FOLDER_MARKER, "notes.md", "old.txt"]
    with atomic_directory(target) as temp:
        assert temp.parent == tmp_path and temp != target
        (temp / "new.txt").write_text("new")
    assert sorted(p.name for p in target.iterdir()) == [FOLDER_MARKER, "new.txt", "notes.md"]
    assert (target / "notes.md").read_text() == "mine"
    assert written_files(target) == {
        "new.txt": hashlib.sha256(b"new").hexdigest(),
    }
    assert [p.name for p in tmp_path.iterdir()] == ["results"]
    assert "kept what no earlier run wrote there: notes.md" in capsys.readouterr().err


def test_an_empty_folder_the_tool_made_is_its_own(tmp_path: Path) -> None:
    """A run whose results hold an empty folder (a sweep that draws no figure)
    can be written again into its folder: the marker lists the folders the tool
    made, so that one is not taken for a user's; a user's empty folder is kept.
    (Found by re-running a one-point salam sweep into its own folder.)"""
    target = tmp_path / "results"
    for _ in range(2):
        with atomic_directory(target) as temp:
            (temp / "figures").mkdir()
            (temp / "report.md").write_text("r")
    assert sorted(p.name for p in target.iterdir()) == [FOLDER_MARKER, "figures", "report.md"]
    (target / "figures" / "mine").mkdir()
    with atomic_directory(target) as temp:
        (temp / "figures").mkdir()
    assert (target / "figures" / "mine").is_dir()


def test_results_folder_recognised_by_its_marker_only(tmp_path: Path) -> None:
    """A folder with a `report.md` of the user's is not a results folder; one
    whose listed file the user changed is refused; a user's file of the same name
    as a new output stops the swap with the folder as it was."""
    target = tmp_path / "results"
    target.mkdir()
    (target / "report.md").write_text("my report")
    (target / "draft.tex").write_text("my draft")
    with pytest.raises(ToolError, match="no .tapeflow-results.json"):
        check_results_folder(target, "--out", "tapeflow-bench")
    with (
        pytest.raises(ToolError, match="report.md would be replaced"),
        atomic_directory(target) as temp,
    ):
        (temp / "report.md").write_text("generated")
    assert sorted(p.name for p in target.iterdir()) == ["draft.tex", "report.md"]
    fresh = tmp_path / "fresh"
    with atomic_directory(fresh) as temp:
        (temp / "report.md").write_text("generated")
    check_results_folder(fresh, "--out", "tapeflow-bench")
    (fresh / "report.md").write_text("edited by hand")
    with pytest.raises(ToolError, match="report.md changed since tapeflow-bench wrote it"):
        check_results_folder(fresh, "--out", "tapeflow-bench")


def test_a_linked_directory_is_replaced_behind_its_link(tmp_path: Path) -> None:
    real = tmp_path / "disk" / "results"
    real.mkdir(parents=True)
    link = tmp_path / "results"
    link.symlink_to(real)
    with atomic_directory(link) as temp:
        (temp / "old.txt").write_text("old")
    with atomic_directory(link) as temp:
        (temp / "new.txt").write_text("new")
    assert link.is_symlink()
    assert sorted(p.name for p in real.iterdir()) == [FOLDER_MARKER, "new.txt"]
    assert sorted(p.name for p in (tmp_path / "disk").iterdir()) == ["results"]


def test_sim_outputs_are_deterministic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same simulation twice: the same .npz bytes, the same JSON apart from
    the simulator's own run time."""
    x = np.linspace(0.1, 1.6, 16)
    np.savez(tmp_path / "in.npz", arg0=x)
    reports = []
    for run in ("a", "b"):
        with _no_exit():
            tapeflow_sim.main(
                [
                    str(ROOT / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"),
                    "--function",
                    "logsum_grad",
                    "--variant",
                    "tapeflow",
                    "--preset",
                    "Tflow32k",
                    # Streamed (the cost model keeps so small a tape, and says so).
                    "--set",
                    "mapping.stream_by_cost=false",
                    "--inputs",
                    str(tmp_path / "in.npz"),
                    "--out",
                    str(tmp_path / f"{run}.npz"),
                    "--json",
                    str(tmp_path / f"{run}.json"),
                ]
            )
        reports.append(json.loads((tmp_path / f"{run}.json").read_text()))
    assert capsys.readouterr().err == ""
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    for report in reports:
        simulator = report.pop("simulator")
        assert set(simulator) == {"seconds", "ops_per_second", "accesses"}
        report["accesses"] = simulator["accesses"]
    assert reports[0] == reports[1]
    # Outputs are written exactly where asked: no ".npz" appended.
    tapeflow_sim.main(
        [
            str(ROOT / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"),
            "--function",
            "logsum_grad",
            "--variant",
            "enzyme",
            "--preset",
            "Enzyme32k",
            "--inputs",
            str(tmp_path / "in.npz"),
            "--out",
            str(tmp_path / "plain"),
            "--json",
            str(tmp_path / "plain.json"),
        ]
    )
    with np.load(tmp_path / "plain") as out:
        assert "arg1" in out.files
    assert not (tmp_path / "plain.npz").exists()


class _no_exit:
    """A context that fails the test if the tool exits."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type | None, value: object, tb: object) -> bool:
        if kind is SystemExit:
            pytest.fail(f"the tool exited: {value}")
        return False


def test_outputs_committed_all_or_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk that fills up while the third output is written: the error names
    the option and the path, and neither the first two outputs nor any temporary
    file remain; older files are as they were."""
    first, second, third = tmp_path / "a.npz", tmp_path / "b.json", tmp_path / "c.json"
    second.write_bytes(b"older")
    real_fdopen = os.fdopen

    def fdopen(fd: int, mode: str, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        handle = real_fdopen(fd, mode, *args, **kwargs)  # type: ignore[arg-type]
        if "c.json" in os.readlink(f"/proc/self/fd/{fd}"):

            def write(data: bytes) -> int:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

            handle.write = write  # type: ignore[method-assign]
        return handle

    monkeypatch.setattr(atomic.os, "fdopen", fdopen)
    with pytest.raises(ToolError) as err:
        commit_outputs(
            [("--out", first, b"1"), ("--json", second, b"2"), ("--timeline", third, b"3")]
        )
    assert str(err.value) == (
        f"--timeline {third}: cannot be written: No space left on device; "
        "no output of this run was kept"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json"]
    assert second.read_bytes() == b"older"


def test_outputs_to_a_full_device(tmp_path: Path) -> None:
    """/dev/full as one output: it fails before any regular output is renamed."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with pytest.raises(ToolError, match="--json /dev/full: cannot be written: No space left"):
        commit_outputs([("--out", tmp_path / "a.npz", b"1"), ("--json", "/dev/full", b"2")])
    assert list(tmp_path.iterdir()) == []


def test_a_failed_rename_restores_the_older_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the second rename fails, the first output's older file comes back."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.write_bytes(b"old a")
    real_replace = os.replace
    calls = []

    def replace(source: object, target: object) -> None:
        calls.append(target)
        if Path(str(target)) == second:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real_replace(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(atomic.os, "replace", replace)
    with pytest.raises(ToolError, match="-o .*/b: cannot be written: Input/output error"):
        commit_outputs([("--out", first, b"new a"), ("-o", second, b"new b")])
    assert first.read_bytes() == b"old a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


def test_outputs_naming_inputs_or_each_other(tmp_path: Path) -> None:
    kernel = tmp_path / "k.mlir"
    kernel.write_text("module {}")
    link = tmp_path / "hard.mlir"
    os.link(kernel, link)
    with pytest.raises(ToolError, match=r"--timeline .*k.mlir: names an input \(the module "):
        check_distinct([("--timeline", kernel)], [("the module", kernel)])
    with pytest.raises(ToolError, match="--json .*hard.mlir: names an input"):
        check_distinct([("--json", link)], [("the module", kernel)])
    with pytest.raises(ToolError, match="--out and --json both name"):
        check_distinct([("--out", tmp_path / "x"), ("--json", tmp_path / "." / "x")])
    check_distinct([("--out", "/dev/null"), ("--json", "/dev/null")], [("the module", kernel)])
