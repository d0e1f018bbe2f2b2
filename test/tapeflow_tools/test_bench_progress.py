"""The progress bar counts every run (one per group: a lowering timed by one
model) and labels each with the models that time it."""

from __future__ import annotations

import pytest

from tapeflow_benchmarks.harness.points import Group, Point
from tapeflow_benchmarks.harness.result_cache import ResultCache
from tapeflow_benchmarks.harness.runner import run_points


def test_two_models_of_one_lowering_are_two_runs_labelled_with_both(
    capsys: pytest.CaptureFixture[str],
) -> None:
    points = [
        Point(Group("logsum", "small", "enzyme", model=m), 32 * 1024) for m in ("cgra", "salam")
    ]
    found, summary = run_points(points, ResultCache(None), jobs=1, progress=True)
    assert len(found) == 2 and summary.computed_groups == 2
    bar = capsys.readouterr().err.replace("\r", "\n")
    assert "2/2" in bar and "1/1" not in bar
    assert "logsum/small enzyme [cgra+salam]" in bar
