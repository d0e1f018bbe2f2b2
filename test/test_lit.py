"""
Runs the lit/FileCheck suite under pytest, so one `pytest` runs everything.

Each .mlir test is its own pytest case (so `pytest -n auto` spreads them over
the workers), and its RUN lines run in the pytest process: lit's own shell
parser (`lit.ShUtil`) reads each line, and the tools the suite uses
(`tapeflow-opt`, `tapeflow-sim`, `xdsl-opt`, `filecheck`, `not`, `diff`) are called through
their Python entry points with in-memory standard streams, instead of a process
per command that would import xDSL (and Enzyme) again. Any other command runs
as a process. `%s`, `%S` and `%t` mean what they mean to lit; `%t` is under the
test's own temporary directory. `lit test/filecheck` runs the same files with
lit itself (`lit.cfg.py`), which one case here checks on one file.
"""

from __future__ import annotations

import difflib
import io
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from lit.ShUtil import Command, Pipeline, Seq, ShParser

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "test" / "filecheck"
LIT_TESTS = sorted(
    p for p in SUITE.rglob("*.mlir") if "Inputs" not in p.parts and "Output" not in p.parts
)
BIN = os.path.dirname(sys.executable)


@dataclass
class Outcome:
    code: int
    stdout: bytes
    stderr: bytes


def _call_main(main: Callable[[], object], argv: list[str], stdin: bytes, merge: bool) -> Outcome:
    """`main()` with `sys.argv` = `argv` and in-memory standard streams (`merge`:
    the standard error into the standard output, as `2>&1`)."""
    out, err = io.BytesIO(), io.BytesIO()
    out_text = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    err_text = out_text if merge else io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    saved_argv, saved_stdin = sys.argv, sys.stdin
    sys.argv = argv
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    code = 0
    try:
        with redirect_stdout(out_text), redirect_stderr(err_text):
            try:
                main()
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else (exit_.code is not None)
                if isinstance(exit_.code, str):
                    print(exit_.code, file=sys.stderr)
            sys.stdout.flush()
            sys.stderr.flush()
    finally:
        sys.argv, sys.stdin = saved_argv, saved_stdin
    return Outcome(int(code), out.getvalue(), err.getvalue())


def _tapeflow_opt(args: list[str], stdin: bytes, merge: bool) -> Outcome:
    from tapeflow_tools.tapeflow_opt import main

    return _call_main(lambda: main(args), ["tapeflow-opt", *args], stdin, merge)


def _tapeflow_sim(args: list[str], stdin: bytes, merge: bool) -> Outcome:
    from tapeflow_tools.tapeflow_sim import main

    return _call_main(lambda: main(args), ["tapeflow-sim", *args], stdin, merge)


def _xdsl_opt(args: list[str], stdin: bytes, merge: bool) -> Outcome:
    from xdsl.xdsl_opt_main import xDSLOptMain

    return _call_main(lambda: xDSLOptMain(args=args).run(), ["xdsl-opt", *args], stdin, merge)


def _filecheck(args: list[str], stdin: bytes, merge: bool) -> Outcome:
    from filecheck.main import main

    return _call_main(lambda: main(["filecheck", *args]), ["filecheck", *args], stdin, merge)


def _diff(args: list[str], stdin: bytes, merge: bool) -> Outcome:
    """`diff A B` (`-` reads the standard input): 0 if equal, else 1 and the diff."""
    texts = []
    for name in args:
        data = stdin if name == "-" else Path(name).read_bytes()
        texts.append(data.decode("utf-8").splitlines(keepends=True))
    if texts[0] == texts[1]:
        return Outcome(0, b"", b"")
    delta = "".join(difflib.unified_diff(texts[0], texts[1], args[0], args[1]))
    return Outcome(1, delta.encode(), b"")


TOOLS: dict[str, Callable[[list[str], bytes, bool], Outcome]] = {
    "tapeflow-opt": _tapeflow_opt,
    "tapeflow-sim": _tapeflow_sim,
    "xdsl-opt": _xdsl_opt,
    "filecheck": _filecheck,
    "diff": _diff,
}


def _process(args: list[str], stdin: bytes, merge: bool) -> Outcome:
    env = {**os.environ, "PATH": os.pathsep.join([BIN, os.environ.get("PATH", "")])}
    err = subprocess.STDOUT if merge else subprocess.PIPE
    proc = subprocess.run(args, input=stdin, stdout=subprocess.PIPE, stderr=err, env=env)
    return Outcome(proc.returncode, proc.stdout, proc.stderr or b"")


def _command(command: Command, stdin: bytes) -> Outcome:
    """Run one command; its `stdout` is what goes down the pipe, its `stderr`
    what goes to the terminal (the log), after the redirections, in their order."""
    args = list(command.args)
    negate = False
    while args and args[0] == "not":
        negate, args = not negate, args[1:]
    sinks: dict[int, tuple[str, str]] = {1: ("pipe", ""), 2: ("log", "")}
    for op, target in command.redirects:
        match op:
            case ("<",):
                stdin = Path(target).read_bytes()
            case (">" | ">>" as mode,) | (">" | ">>" as mode, 1 | 2):
                sinks[op[1] if len(op) > 1 else 1] = (mode, target)
            case (">&", fd) if target in ("1", "2"):
                sinks[fd] = sinks[int(target)]
            case _:
                raise NotImplementedError(f"redirection {op} {target}")
    merge = sinks[1] == sinks[2]
    tool = TOOLS.get(args[0], lambda a, s, m: _process([args[0], *a], s, m))
    outcome = tool(args[1:], stdin, merge)
    streams = {1: outcome.stdout} if merge else {1: outcome.stdout, 2: outcome.stderr}
    sent = {"pipe": b"", "log": b""}
    for fd, data in streams.items():
        kind, target = sinks[fd]
        if kind in sent:
            sent[kind] += data
        else:
            with open(target, "ab" if kind == ">>" else "wb") as file:
                file.write(data)
    code = int(outcome.code == 0) if negate else outcome.code
    return Outcome(code, sent["pipe"], sent["log"])


def _run(node: Seq | Pipeline, log: list[str]) -> int:
    if isinstance(node, Seq):
        code = _run(node.lhs, log)
        if node.op == "&&" and code != 0 or node.op == "||" and code == 0:
            return code
        return _run(node.rhs, log)
    data, code = b"", 0
    for command in node.commands:
        outcome = _command(command, data)
        data = outcome.stdout
        if outcome.stderr:
            log.append(outcome.stderr.decode("utf-8", "replace"))
        if outcome.code != 0:
            code = outcome.code  # pipefail: the last command that failed
    if data:
        log.append(data.decode("utf-8", "replace"))
    return int(code == 0) if node.negate else code


def run_lines(test_file: Path) -> list[str]:
    """The test's RUN lines, continuations joined, substitutions not yet made."""
    lines: list[str] = []
    pending = ""
    for line in test_file.read_text(encoding="utf-8").splitlines():
        found = re.search(r"RUN:(.*)$", line)
        if found is None:
            continue
        text = pending + found.group(1).strip()
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        lines.append(text)
    return lines


def substitute(line: str, test_file: Path, tmp: Path) -> str:
    table = {
        "%s": str(test_file),
        "%S": str(test_file.parent),
        "%t": str(tmp / f"{test_file.name}.tmp"),
        "%%": "%",
    }
    return re.sub(r"%[sSt%]", lambda m: table[m.group(0)], line)


@pytest.mark.parametrize("test_file", LIT_TESTS, ids=[str(p.relative_to(SUITE)) for p in LIT_TESTS])
def test_filecheck(test_file: Path, tmp_path: Path) -> None:
    lines = run_lines(test_file)
    assert lines, f"{test_file} has no RUN line"
    for line in lines:
        command = substitute(line, test_file, tmp_path)
        log: list[str] = []
        code = _run(ShParser(command, pipefail=True).parse(), log)
        assert code == 0, f"RUN: {line}\n$ {command}\nexit {code}\n" + "".join(log)


def _codes(tmp_path: Path, text: str) -> list[int]:
    test_file = tmp_path / "case.mlir"
    test_file.write_text(text)
    return [
        _run(ShParser(substitute(line, test_file, tmp_path), pipefail=True).parse(), [])
        for line in run_lines(test_file)
    ]


def test_runner_fails_what_lit_fails(tmp_path: Path) -> None:
    """A check that does not match, a tool's error, and `not` of a success fail;
    `2>&1 >/dev/null` sends the diagnostics alone down the pipe, as a shell does."""
    good = "builtin.module {\n  %0 = arith.constant 1 : i32\n}\n"
    assert _codes(
        tmp_path, "// RUN: tapeflow-opt %s | filecheck %s\n// CHECK: arith.constant 1\n" + good
    ) == [0]
    assert _codes(
        tmp_path, "// RUN: tapeflow-opt %s | filecheck %s\n// CHECK: arith.addi\n" + good
    ) == [1]
    assert _codes(tmp_path, "// RUN: not tapeflow-opt %s\n" + good) == [1]
    bad = "builtin.module {\n  %0 = arith.constant 1 : i32\n  %0 = arith.constant 2 : i32\n}\n"
    assert _codes(tmp_path, "// RUN: tapeflow-opt %s\n" + bad) == [1]
    # A process (no entry point here) writing both streams; only stderr reaches filecheck.
    both = f"{sys.executable} -c 'import sys; print(1234); print(5678, file=sys.stderr)'"
    checks = "// CHECK: 5678\n// CHECK-NOT: 1234\n"
    assert _codes(tmp_path, f"// RUN: {both} 2>&1 >/dev/null | filecheck %s\n{checks}") == [0]
    assert _codes(tmp_path, f"// RUN: {both} 2>&1 | filecheck %s\n// CHECK: 1234\n") == [0]
    assert _codes(tmp_path, "// RUN: tapeflow-opt %s > %t.out && diff %t.out %t.out\n" + good) == [
        0
    ]


def test_lit_runs_the_suite_files(tmp_path: Path) -> None:
    """lit itself, with `lit.cfg.py`, passes one file of the suite (the
    configuration stays usable for `lit test/filecheck`)."""
    one = SUITE / "tools" / "tapeflow-opt" / "version.mlir"
    if not one.exists():
        one = LIT_TESTS[0]
    report = tmp_path / "lit.xml"
    env = {**os.environ, "PATH": os.pathsep.join([BIN, os.environ.get("PATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-c", "from lit.main import main; main()", "-q"]
        + [f"--xunit-xml-output={report}", str(one)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert report.exists(), f"lit did not run:\n{proc.stdout}\n{proc.stderr}"
    cases = list(ET.parse(report).getroot().iter("testcase"))
    assert len(cases) == 1
    assert cases[0].find("failure") is None, proc.stdout


def test_suite_is_not_empty() -> None:
    assert len(LIT_TESTS) >= 14
