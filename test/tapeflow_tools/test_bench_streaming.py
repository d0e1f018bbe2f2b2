"""
`tapeflow-bench`'s `streaming` experiment: per kernel and TapeFlow configuration,
the nests the cost model kept in DRAM and why, with the cycles of every nest
streamed beside the chosen ones. batchnorm at paper size keeps the nest of its
two values per channel (one region) on all three TapeFlow machines; `gain` is
the cycles with every nest streamed over the cycles of the choice.
"""

from __future__ import annotations

import csv
from pathlib import Path

from tapeflow_benchmarks import tapeflow_bench


def test_the_streaming_experiment_lists_batchnorm_s_kept_nest(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = tapeflow_bench.main(
        [
            "--kernels",
            "batchnorm",
            "--size",
            "paper",
            "--only",
            "streaming",
            "--model",
            "cgra",
            "--no-cache",
            "--jobs",
            "1",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    with (out / "csv" / "streaming.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["config"] for r in rows] == ["Tflow32k", "Tflow2k", "Tflow1k"]
    for r in rows:
        assert (r["kept_by_cost"], r["kept_otherwise"]) == ("1", "0")
        assert float(r["gain"]) == int(r["cycles_always"]) / int(r["cycles"])
        assert r["why"].count("streaming would add") == 1
    assert "| batchnorm | Tflow32k | 1 | 0 |" in (out / "report.md").read_text()
