"""
`tapeflow-bench --sweep` warns as `tapeflow-sim` does about what a TapeFlow run
leaves on the table, once per kernel and finding with the points it holds at:
batchnorm at paper size, the nest of whose two values per channel the cost model
keeps in DRAM on every machine of the grid, gets one line per kept region that
calls it the cost model's choice, and the sweep's report lists them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tapeflow_benchmarks import tapeflow_bench


def test_a_sweep_warns_once_per_kernel_and_kept_region(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "sweep.yaml"
    spec.write_text(
        "name: batchnorm-kept\n"
        "kernels: [{name: batchnorm, size: paper}]\n"
        "variants: [tapeflow]\n"
        "grid: {cache.size_bytes: [16384, 32768], dram.latency_cycles: [100, 200]}\n"
    )
    out = tmp_path / "out"
    code = tapeflow_bench.main(
        ["--sweep", str(spec), "--out", str(out), "--no-cache", "--jobs", "1", "--no-progress"]
    )
    assert code == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "DRAM" in line]
    # One region, with the numbers of each DRAM latency (the first REV tile waits
    # the latency), alike at both caches.
    assert len(warnings) == 2, warnings
    for line in warnings:
        assert line.startswith(
            "tapeflow-bench: warning: batchnorm paper tapeflow: @diffebatchnorm:"
        )
        assert "by the cost model's choice (a decision, not a failure" in line
        latency = "100" if "dram.latency_cycles=100" in line else "200"
        assert line.endswith(
            f"(at cache.size_bytes=16384, dram.latency_cycles={latency}; "
            f"cache.size_bytes=32768, dram.latency_cycles={latency})"
        ), line
    report = (out / "report.md").read_text()
    assert report.count("by the cost model's choice") == 2
