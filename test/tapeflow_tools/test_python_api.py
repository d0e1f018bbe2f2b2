"""
docs/python-api.md is true: its example, taken from the page itself, runs as
written (it checks its own values against the derivative computed by hand), and
every call its table names exists where it says.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"


def test_the_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (block,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "python_api_example"}
    exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 - the page's own code
    printed = capsys.readouterr().out
    assert "kernels, ii" in printed
    report = namespace["report"]
    assert isinstance(report, dict)
    assert report["hardware"]["variant"] == "tapeflow" and report["layers"] > 0
    assert report["streams"]["write_bytes"] == report["tape_bytes"]


def test_the_table_names_real_calls() -> None:
    rows = re.findall(
        r"^\| [^|]+ \| `([a-z_]+)\((?:[^`]*)\)`[^|]*\| `([a-z_.]+)` \|$", DOC.read_text(), re.M
    )
    assert len(rows) >= 10
    for name, module in rows:
        assert hasattr(importlib.import_module(module), name), f"{module}.{name}"
