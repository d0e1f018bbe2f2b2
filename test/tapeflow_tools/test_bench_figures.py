"""tapeflow-bench's figures: one panel per kernel where series crowd (dram,
tradeoff), the size preset in every title, Table II's working set and inputs
never on one axis with the paper's numbers in another unit, and the formats
`--format` names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapeflow_benchmarks.harness.experiments import CACHE_SWEEP, EXPERIMENTS, Result
from tapeflow_benchmarks.harness.figures import FORMATS, figure, parse_formats, save
from tapeflow_benchmarks import tapeflow_bench

KERNELS = ["logsum", "nn", "pathfinder", "mttkrp", "lenet"]


def _dram() -> Result:
    return Result("dram", rows=[
        {"kernel": k, "cache_kb": c // 1024, "enzyme_norm": 2.0 / (i + 1), "tapeflow_norm": 1.0 / (i + 1)}
        for k in KERNELS for i, c in enumerate(CACHE_SWEEP)
    ])


def _tradeoff() -> Result:
    return Result("tradeoff", rows=[
        {"kernel": k, "variant": v, "cache_kb": c // 1024, "performance": 1.0 + i, "energy_paper": 2.0 ** i}
        for k in KERNELS for v in ("enzyme", "tapeflow") for i, c in enumerate(CACHE_SWEEP)
    ])


def _drawn(fig: object) -> list:
    return [ax for ax in fig.axes if ax.get_visible()]  # type: ignore[attr-defined]


@pytest.mark.parametrize("make", [_dram, _tradeoff], ids=["dram", "tradeoff"])
def test_one_panel_per_kernel(make: object) -> None:
    result = make()  # type: ignore[operator]
    fig = figure(result, EXPERIMENTS[result.name].title, "paper")
    axes = _drawn(fig)
    assert [ax.get_title() for ax in axes] == KERNELS
    for ax in axes:
        assert len(ax.get_lines()) == 2  # Enzyme and TapeFlow, nothing else
        assert len(ax.get_lines()[0].get_xdata()) == len(CACHE_SWEEP)
    assert "kernels at 'paper' size" in fig._suptitle.get_text()  # type: ignore[attr-defined]


def test_table2_keeps_units_apart() -> None:
    rows = [
        {"kernel": k, "layers": 10 * (i + 1), "layers_paper": 100 * (i + 1), "working_set_kb": 1.5 * (i + 1),
         "working_set_k_paper": 60.0 * (i + 1), "inputs_kb": 0.5 * (i + 1), "inputs_k_paper": 8.0 * (i + 1)}
        for i, k in enumerate(KERNELS)
    ]
    fig = figure(Result("table2", rows=rows), "Table II", "small")
    layers, working, inputs = _drawn(fig)
    assert layers.get_ylabel() == "layer count"
    for ax, what in ((working, "working set"), (inputs, "inputs")):
        assert ax.get_xlabel() == f"{what}, ours (KB)"
        assert ax.get_ylabel().startswith(f"{what}, paper (K")
        xs = sorted(float(line.get_xdata()[0]) for line in ax.get_lines())
        ys = sorted(float(line.get_ydata()[0]) for line in ax.get_lines())
        key = "working_set" if what == "working set" else "inputs"
        assert xs == sorted(r[f"{key}_kb"] for r in rows)
        assert ys == sorted(r[f"{key}_k_paper"] for r in rows)
    assert "'small' size" in fig._suptitle.get_text()  # type: ignore[attr-defined]


def test_formats_are_checked() -> None:
    assert parse_formats("png") == ["png"]
    assert parse_formats("SVG, pdf,svg") == ["svg", "pdf"]
    for bad in ("", "gif", "png,jpeg"):
        with pytest.raises(ValueError, match="unknown figure format"):
            parse_formats(bad)


def test_each_format_is_written(tmp_path: Path) -> None:
    magic = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}
    assert set(magic) == set(FORMATS)
    names = save(figure(_dram(), "DRAM", "small"), tmp_path / "dram", FORMATS)
    assert names == ["dram.png", "dram.svg", "dram.pdf"]
    for fmt in FORMATS:
        assert (tmp_path / f"dram.{fmt}").read_bytes().startswith(magic[fmt])


def test_bench_writes_the_formats_asked_for(tmp_path: Path) -> None:
    out = tmp_path / "results"
    args = ["--quick", "--only", "table2", "--kernels", "logsum", "--no-progress", "--jobs", "1",
            "--no-cache", "--out", str(out), "--format", "svg,pdf", "--model", "cgra"]
    assert tapeflow_bench.main(args) == 0
    names = sorted(p.name for p in (out / "figures").iterdir())
    assert names == ["table2-cgra.pdf", "table2-cgra.svg"]
    assert "![table2, cgra](figures/table2-cgra.svg)" in (out / "report.md").read_text()
