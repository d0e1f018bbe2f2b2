"""The atomic-write helpers (tapeflow_tools/atomic.py) and the determinism of
tapeflow-sim's outputs."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from tapeflow_tools import tapeflow_sim
from tapeflow_tools.atomic import (
    atomic_directory,
    atomic_write_text,
    atomic_writer,
    check_output_directory,
    check_output_file,
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


def test_directory_replaced_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "results"
    target.mkdir()
    (target / "old.txt").write_text("old")
    with pytest.raises(RuntimeError), atomic_directory(target) as temp:
        (temp / "new.txt").write_text("new")
        raise RuntimeError
    assert [p.name for p in target.iterdir()] == ["old.txt"]
    with atomic_directory(target) as temp:
        assert temp.parent == tmp_path and temp != target
        (temp / "new.txt").write_text("new")
    assert [p.name for p in target.iterdir()] == ["new.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["results"]


def test_a_linked_directory_is_replaced_behind_its_link(tmp_path: Path) -> None:
    real = tmp_path / "disk" / "results"
    real.mkdir(parents=True)
    (real / "old.txt").write_text("old")
    link = tmp_path / "results"
    link.symlink_to(real)
    with atomic_directory(link) as temp:
        (temp / "new.txt").write_text("new")
    assert link.is_symlink()
    assert [p.name for p in real.iterdir()] == ["new.txt"]
    assert sorted(p.name for p in (tmp_path / "disk").iterdir()) == ["results"]


def test_sim_outputs_are_deterministic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same simulation twice: the same .npz bytes, the same JSON apart from
    the simulator's own run time."""
    x = np.linspace(0.1, 1.6, 16)
    np.savez(tmp_path / "in.npz", arg0=x)
    reports = []
    for run in ("a", "b"):
        with _no_exit():
            tapeflow_sim.main([
                str(ROOT / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"),
                "--function", "logsum_grad", "--variant", "tapeflow", "--preset", "Tflow32k",
                "--inputs", str(tmp_path / "in.npz"),
                "--out", str(tmp_path / f"{run}.npz"), "--json", str(tmp_path / f"{run}.json"),
            ])
        reports.append(json.loads((tmp_path / f"{run}.json").read_text()))
    assert capsys.readouterr().err == ""
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    for report in reports:
        simulator = report.pop("simulator")
        assert set(simulator) == {"seconds", "ops_per_second", "accesses"}
        report["accesses"] = simulator["accesses"]
    assert reports[0] == reports[1]
    # Outputs are written exactly where asked: no ".npz" appended.
    tapeflow_sim.main([
        str(ROOT / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"),
        "--function", "logsum_grad", "--variant", "enzyme", "--preset", "Enzyme32k",
        "--inputs", str(tmp_path / "in.npz"), "--out", str(tmp_path / "plain"),
        "--json", str(tmp_path / "plain.json"),
    ])
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
