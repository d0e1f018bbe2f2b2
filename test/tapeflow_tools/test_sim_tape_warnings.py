"""
`tapeflow-sim --variant tapeflow` warns when the run keeps tape in DRAM (naming
the region and the reason `tapeflow-layers` gave) or uses under a quarter of its
scratchpad at its peak (naming the largest tile); a run that streams its whole
tape through a well-used scratchpad gets no warning.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tapeflow_benchmarks.kernels import ALL_KERNELS
from tapeflow_tools import tapeflow_sim

ROOT = Path(__file__).resolve().parents[2] / "tapeflow_benchmarks" / "mlir"
KERNELS = Path(__file__).resolve().parents[1] / "lowering" / "kernels"


def _simulate(tmp_path: Path, key: str, *extra: str, size: str = "small") -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(ALL_KERNELS[key].inputs(size))})
    tapeflow_sim.main(
        [
            str(ROOT / f"{key}.{size}.mlir"),
            "--function",
            f"{key}_grad",
            "--variant",
            "tapeflow",
            "--inputs",
            str(inputs),
            "--json",
            str(tmp_path / "report.json"),
            *extra,
        ]
    )


def _stderr_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if "warning" in line]


def test_a_region_kept_in_dram_is_named_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A loop-invariant cache written 3x8 and read 3x10 (through `remsi`): its REV
    loops do not mirror its FWD loops, so the region stays in DRAM."""
    inputs = tmp_path / "in.npz"
    rng = np.random.default_rng(0)
    shapes = [(3, 8), (3, 8), (3, 10), (3, 10), (3, 10), (3, 10)]
    np.savez(inputs, **{f"arg{i}": rng.uniform(-1, 1, s) for i, s in enumerate(shapes)})
    tapeflow_sim.main(
        [
            str(KERNELS / "invariant_cache_only.mlir"),
            "--function",
            "f_grad",
            "--variant",
            "tapeflow",
            "--inputs",
            str(inputs),
            "--json",
            str(tmp_path / "report.json"),
            "--preset",
            "Tflow2k",
        ]
    )
    (kept,) = [line for line in _stderr_lines(capsys) if "DRAM" in line]
    assert "region !region.region<3x8, [f64]> keeps its tape in DRAM" in kept
    assert "the REV loops do not mirror the FWD loops" in kept


def test_a_region_the_cost_model_kept_is_called_its_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """batchnorm at paper size: on Tflow32k the cost model keeps the nest of its
    two values per channel (one region) in DRAM; the warning says it chose to,
    and how to stream."""
    _simulate(tmp_path, "batchnorm", "--preset", "Tflow32k", size="paper")
    kept = [line for line in _stderr_lines(capsys) if "DRAM" in line]
    assert len(kept) == 1
    for line in kept:
        assert "by the cost model's choice (a decision, not a failure" in line
        assert "mapping.stream_by_cost=false streams it" in line
        assert "tile bookkeeping" in line


def test_a_scratchpad_used_under_a_quarter_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """logsum (small: 16 iterations of 2 values) fills at most 256 of Tflow32k's
    512 bytes with one tile; on 4096 bytes its largest tile is still 256 bytes."""
    # Streamed: the cost model would keep so small a tape (its first REV tile
    # waiting a whole DRAM latency), and say so.
    _simulate(
        tmp_path,
        "logsum",
        "--preset",
        "Tflow32k",
        "--spad-bytes",
        "4096",
        "--set",
        "mapping.stream_by_cost=false",
    )
    (low,) = _stderr_lines(capsys)
    assert "the scratchpad's peak use is" in low and "of 4096 bytes, under a quarter" in low
    assert "holds 256 bytes" in low


def test_a_well_streamed_run_gets_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _simulate(
        tmp_path,
        "logsum",
        "--preset",
        "Tflow2k",
        "--spad-bytes",
        "512",
        "--set",
        "mapping.stream_by_cost=false",
    )
    assert _stderr_lines(capsys) == []
