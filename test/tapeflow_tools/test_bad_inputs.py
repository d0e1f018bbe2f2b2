"""
The corpus of bad inputs in `bad_inputs/<kind>/`: each tool must answer each one
with the stated exit code and a message that names the file:line:col or the
option/argument at fault, print no traceback, and leave every file it was
pointed at as it was (when it fails) or complete (when it only warns).

A case is either a `.case` file or an `.mlir` file whose `// ` header lines hold
the same directives:

    TOOL: tapeflow-opt | tapeflow-run | tapeflow-sim | tapeflow-bench
    ARGS: the command line (shell words), with placeholders
    EXIT: the exit status (default 1, or 0 when WARNING is given)
    ERROR: text that stderr must contain (repeatable)
    WARNING: text that stderr must contain, for valid but suspicious input

Placeholders: {file} the case file, {dir} its folder, {root} the repository,
{tmp} a scratch folder holding the pre-existing outputs {copy} (a copy of the
case file), {existing} (a text file), {out} (an .npz) and {json} (a report).
Everything under the scratch folder's parent is compared byte for byte before
and after a failing run. Data files a case refers to are written by the folder's
`generate.py`.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from tapeflow_benchmarks import tapeflow_bench
from tapeflow_tools import tapeflow_opt, tapeflow_run, tapeflow_sim

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "bad_inputs"
DIRECTIVES = ("TOOL", "ARGS", "EXIT", "ERROR", "WARNING")
MAINS: dict[str, Callable[[list[str]], object]] = {
    "tapeflow-opt": tapeflow_opt.main,
    "tapeflow-run": tapeflow_run.main,
    "tapeflow-sim": tapeflow_sim.main,
    "tapeflow-bench": tapeflow_bench.main,
}
SENTINEL = b"an older output that a failed run must leave alone\n"


@dataclass
class Case:
    path: Path
    tool: str
    args: str
    exit: int
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return self.path.name


def _header(path: Path) -> list[str]:
    if path.suffix == ".case":
        return path.read_text().splitlines()
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []  # a data file (not UTF-8 on purpose)
    return [line[3:] for line in text.splitlines() if line.startswith("// ")]


def cases(kind: str) -> list[Case]:
    found = []
    for path in sorted((CORPUS / kind).iterdir()):
        if path.suffix not in (".case", ".mlir"):
            continue
        directives: dict[str, list[str]] = {}
        for line in _header(path):
            key, _, value = line.partition(": ")
            if key in DIRECTIVES:
                directives.setdefault(key, []).append(value.strip())
        if "TOOL" not in directives:
            continue  # a data file that cases refer to
        warnings = directives.get("WARNING", [])
        exit_code = int(directives.get("EXIT", ["0" if warnings else "1"])[0])
        found.append(
            Case(
                path,
                directives["TOOL"][0],
                directives.get("ARGS", ["{file}"])[0],
                exit_code,
                directives.get("ERROR", []),
                warnings,
            )
        )
    assert found, f"no cases in {CORPUS / kind}"
    return found


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def _call(tool: str, argv: list[str]) -> int:
    try:
        result = MAINS[tool](argv)
    except SystemExit as stop:
        code = stop.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return result if isinstance(result, int) else 0


def _setup(case: Case, tmp_path: Path) -> tuple[list[str], Callable[[str], str], dict[str, str]]:
    """The scratch folder with the pre-existing outputs, the command line, and
    the function that fills placeholders in."""
    work = tmp_path / "work"
    work.mkdir()
    copy = work / f"input{case.path.suffix}"
    shutil.copy(case.path, copy)
    places = {
        "{file}": str(case.path),
        "{dir}": str(case.path.parent),
        "{root}": str(ROOT),
        "{tmp}": str(work),
        "{copy}": str(copy),
        "{existing}": str(work / "existing.txt"),
        "{out}": str(work / "out.npz"),
        "{json}": str(work / "report.json"),
    }
    for name in ("existing.txt", "out.npz", "report.json"):
        (work / name).write_bytes(SENTINEL)

    def fill(text: str) -> str:
        for key, value in places.items():
            text = text.replace(key, value)
        return text

    return [fill(word) for word in shlex.split(case.args)], fill, places


def run_case(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, fill, places = _setup(case, tmp_path)
    before = _snapshot(tmp_path)
    code = _call(case.tool, argv)
    captured = capsys.readouterr()
    shown = (
        f"{case.tool} {shlex.join(argv)}\nstdout:\n{captured.out[-2000:]}\nstderr:\n{captured.err}"
    )
    assert code == case.exit, shown
    assert "Traceback" not in captured.err + captured.out, shown
    for expected in case.errors + case.warnings:
        assert fill(expected) in captured.err, shown
    if code != 0:
        assert _snapshot(tmp_path) == before, "a failed run changed its files\n" + shown
        return
    # A warning only: the run completed and its named outputs are whole.
    for name, load in (("{out}", np.load), ("{json}", lambda p: json.loads(Path(p).read_text()))):
        if places[name] in argv:
            load(places[name])


@pytest.mark.parametrize("case", cases("autodiff"), ids=str)
def test_autodiff_verifier(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`enzyme.autodiff` whose operands or results do not follow Enzyme's calling
    convention, or whose callee is missing: Enzyme would drop a derivative."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("dominance"), ids=str)
def test_def_before_use(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A value used before (or outside) its definition, reported at the use."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("symbols"), ids=str)
def test_duplicate_symbols(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A name defined twice, reported at the second definition."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("encoding"), ids=str)
def test_input_encoding(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Binary, UTF-16/32 or invalid UTF-8 input, named (with line:col for UTF-8)."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("stages_and_sizes"), ids=str)
def test_stages_and_sizes(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A pass-name typo (with its closest name), nesting too deep to parse (at its
    line:col), an Enzyme pipeline that does not differentiate, the TapeFlow
    pipeline on a lowered module or a gradient with no tape, a memref argument too
    large to zero-fill (refused before allocating)."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("pass_options"), ids=str)
def test_pass_options(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pipeline options that do not parse or are out of range, naming the pass and
    the option, before any input is read."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("inputs"), ids=str)
def test_run_inputs(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--inputs` archives that are not one, or arrays that do not fit the argument
    they are bound to (refused), or are suspicious (a warning)."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("sim_options"), ids=str)
def test_sim_options(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """tapeflow-sim's sizes out of range, the primal named instead of a gradient,
    output locations that cannot be written."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("hw_files"), ids=str)
def test_hardware_files(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--hw` files and `--set` overrides that do not describe schedulable
    hardware, named by file (with line:col for YAML syntax) or `--set`, and the key
    path; a variant that leaves a scratchpad idle (a warning); `--timeline`
    locations that cannot be written."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("user_kernels"), ids=str)
def test_user_kernels(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Kernels of one's own: constant tables (`memref.global`) run through every
    stage under both timing models; a table that is undefined, of another type or
    only declared is refused at its line; `--function` naming a global or a
    function that runs no gradient is refused with what can be named."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("output"), ids=str)
def test_outputs_survive_failures(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failed run leaves `-o`/`--out`/`--json` as they were (the input too, when
    `-o` names it) and creates nothing."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("owned_outputs"), ids=str)
def test_nothing_the_user_owns_is_destroyed(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output naming an input or another output, refused before anything runs;
    a full disk (/dev/full) on any output flag, named with its path, and none of
    the run's other outputs written; a folder of the user's never taken for a
    results folder; contradicting or overlapping cache options refused."""
    if any("/dev/full" in a for a in shlex.split(case.args)) and not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("bench_locations"), ids=str)
def test_bench_locations(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--out`/`--cache-dir` that cannot be used are refused before any run."""
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("case", cases("sweep"), ids=str)
def test_sweep_files(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`tapeflow-bench --sweep`: a sweep file checked whole before anything runs,
    each problem named by the sweep file and the key (unknown keys at any level,
    unknown or mistyped hardware keys by dotted path, impossible machines, missing
    or unparsable MLIR, a function that is missing or the primal, inputs that are
    no archive or do not fit); and the options that do not go with a sweep."""
    run_case(case, tmp_path, capsys)


def test_every_data_file_is_used() -> None:
    """The corpus does not rot: each data file is named by some case (or, for a
    file a sweep file refers to, by a sweep file some case names)."""
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir() and p.name != "bench_cache"):
        used = " ".join(c.args for c in cases(folder.name))
        used += " ".join(
            f"{{dir}}/{name}"
            for sweep in folder.glob("*.yaml")
            if f"{{dir}}/{sweep.name}" in used
            for name in (p.name for p in folder.iterdir())
            if name in sweep.read_text(errors="replace")
        )
        for data in folder.iterdir():
            if data.suffix in (".case", ".py") or any(c.path == data for c in cases(folder.name)):
                continue
            assert f"{{dir}}/{data.name}" in used, f"{data} is not used by any case"


@pytest.mark.parametrize(
    "kind, name",
    [
        ("encoding", "binary.opt.case"),
        ("inputs", "one_array.case"),
        ("sim_options", "cache_2_70.case"),
        ("owned_outputs", "bench_out_is_cache.case"),
    ],
)
def test_console_scripts(kind: str, name: str, tmp_path: Path) -> None:
    """The installed commands themselves: status and message, no traceback."""
    case = next(c for c in cases(kind) if c.path.name == name)
    argv, fill, _ = _setup(case, tmp_path)
    before = _snapshot(tmp_path)
    script = shutil.which(case.tool, path=str(Path(sys.executable).parent))
    assert script, f"{case.tool} is not installed next to {sys.executable}"
    run = subprocess.run([script, *argv], capture_output=True, text=True, timeout=300)
    assert run.returncode == case.exit, run.stderr
    assert "Traceback" not in run.stderr
    for expected in case.errors:
        assert fill(expected) in run.stderr
    assert _snapshot(tmp_path) == before
