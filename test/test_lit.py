"""
Runs the lit/FileCheck suite under pytest, so one `pytest` runs everything.

lit runs once for the whole suite (it parallelises across cores); each .mlir
test is then reported as its own pytest case with lit's output on failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "test" / "filecheck"
LIT_TESTS = sorted(
    p for p in SUITE.rglob("*.mlir") if "Inputs" not in p.parts and "Output" not in p.parts
)


@pytest.fixture(scope="session")
def lit_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | None]:
    """Maps each test's path (relative to the repo) to None (pass) or lit's log."""
    report = tmp_path_factory.mktemp("lit") / "lit.xml"
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")])}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from lit.main import main; main()",
            "-q",
            f"--xunit-xml-output={report}",
            str(SUITE),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if not report.exists():
        pytest.fail(f"lit did not run:\n{proc.stdout}\n{proc.stderr}")
    results: dict[str, str | None] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        # classname "TapeFlow.test/filecheck/dialects/tape", name "ops.mlir"
        folder = case.get("classname", "").split(".", 1)[-1]
        failure = case.find("failure")
        results[f"{folder}/{case.get('name')}"] = (
            None if failure is None else (failure.text or "failed")
        )
    return results


@pytest.mark.parametrize("test_file", LIT_TESTS, ids=[str(p.relative_to(SUITE)) for p in LIT_TESTS])
def test_filecheck(test_file: Path, lit_results: dict[str, str | None]) -> None:
    key = str(test_file.relative_to(ROOT))
    assert key in lit_results, f"lit did not run {key}"
    failure = lit_results[key]
    assert failure is None, failure


def test_suite_is_not_empty() -> None:
    assert len(LIT_TESTS) >= 14
