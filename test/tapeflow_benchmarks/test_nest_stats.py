"""`python -m tapeflow_benchmarks.nest_stats` runs: every kernel's four runs (two
variants, two models) give the Enzyme run's outputs, a kernel whose regions
are all layered (conv1d: test_nest_kernels) is reported as fully streamed, and
the Enzyme caches left as memrefs (which `streamed %` cannot see) are named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapeflow_benchmarks import nest_stats
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser


def test_nest_stats_reports_a_streamed_kernel(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        nest_stats.main(["--preset", "small", "--kernels", "conv1d"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "| conv1d | 100 |" in out
    assert "geomean cgra:" in out and "geomean salam:" in out


def test_caches_left_as_memrefs_are_named() -> None:
    """A loop under a branch whose caches' count divides by a step read from
    memory (test/lowering/run_time_shapes/branch_step.mlir): its two cached
    values stay per-row memrefs, each under a buffer of handles, four buffers
    in all; a kernel whose caches are all raised has none."""
    path = Path(__file__).parents[1] / "lowering" / "run_time_shapes" / "branch_step.mlir"
    ctx = make_context()
    module = LocatingParser(ctx, path.read_text(), path.name).parse_module()
    left = nest_stats.caches_left(ctx, module)
    assert len(left) == 4, left
    assert sum("computed under a branch by 'arith.ceildivui'" in why for why in left) == 2
    ctx = make_context()
    assert nest_stats.caches_left(ctx, parse_kernel(ctx, "nbgroup", "small")) == ()
