"""Every tool answers `--version` with its name and the installed package's
version (as pip records it), exit 0."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import version

import pytest

from tapeflow_benchmarks import tapeflow_bench
from tapeflow_tools import tapeflow_run, tapeflow_sim


@pytest.mark.parametrize(
    "name, main",
    [
        ("tapeflow-run", tapeflow_run.main),
        ("tapeflow-sim", tapeflow_sim.main),
        ("tapeflow-bench", tapeflow_bench.main),
    ],
)
def test_a_tool_prints_its_version(
    name: str, main: Callable[..., object], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"{name} {version('tapeflow')}\n"
