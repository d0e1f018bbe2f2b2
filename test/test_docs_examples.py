"""
The shell examples of docs/*.md run as written: each ```sh block runs with bash
(stopping at the first failing command) in a fresh folder that holds the
repository's `examples/` and `tapeflow_benchmarks/`, with this environment's
tools first on PATH. Where a ```text block follows a ```sh block, it is what the
commands print, and their output must be exactly that. Example modules the docs
show inline and also ship as files must be the same text.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def _examples() -> list[tuple[str, str, str | None]]:
    """(where, commands, expected output or None) for every ```sh block."""
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        blocks = [(m.group(1), m.group(2), m.start(), m.end()) for m in FENCE.finditer(text)]
        for i, (kind, body, start, end) in enumerate(blocks):
            if kind != "sh":
                continue
            expected = None
            if i + 1 < len(blocks):
                nxt_kind, nxt_body, nxt_start, _ = blocks[i + 1]
                if nxt_kind == "text" and not text[end:nxt_start].strip():
                    expected = nxt_body
            line = text.count("\n", 0, start) + 1
            found.append((f"{doc.name}:{line}", body, expected))
    return found


EXAMPLES = _examples()


def test_the_docs_have_shell_examples() -> None:
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("where, commands, expected", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_a_docs_example_runs_and_prints_what_the_docs_show(
    tmp_path: Path, where: str, commands: str, expected: str | None
) -> None:
    for folder in ("examples", "tapeflow_benchmarks"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", commands],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"{where}: {done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr, f"{where}: {done.stderr[-2000:]}"
    if expected is not None:
        assert done.stdout == expected, where


def test_the_calling_conventions_example_file_is_the_page_s_module() -> None:
    page = (ROOT / "docs" / "calling-conventions.md").read_text(encoding="utf-8")
    module = (ROOT / "examples" / "calling-conventions.mlir").read_text(encoding="utf-8")
    assert module in [m.group(2) for m in FENCE.finditer(page)]
