"""`python -m tapeflow_benchmarks.nest_stats` runs: every kernel's four runs (two
variants, two models) give the Enzyme run's outputs, and a kernel whose regions
are all layered (conv1d: test_nest_kernels) is reported as fully streamed."""

from __future__ import annotations

import pytest

from tapeflow_benchmarks import nest_stats


def test_nest_stats_reports_a_streamed_kernel(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        nest_stats.main(["--preset", "small", "--kernels", "conv1d"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "| conv1d | 100 |" in out
    assert "geomean cgra:" in out and "geomean salam:" in out
