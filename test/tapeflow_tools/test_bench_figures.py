"""tapeflow-bench's figures: one panel per kernel where series crowd (dram,
tradeoff), the size preset in every title, Table II's working set and inputs
never on one axis with the paper's numbers in another unit, and the formats
`--format` names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapeflow_benchmarks import tapeflow_bench
from tapeflow_benchmarks.harness.experiments import CACHE_SWEEP, EXPERIMENTS, Result
from tapeflow_benchmarks.harness.figures import FORMATS, figure, parse_formats, save

KERNELS = ["logsum", "nn", "pathfinder", "mttkrp", "lenet"]


def _dram() -> Result:
    return Result(
        "dram",
        rows=[
            {
                "kernel": k,
                "cache_kb": c // 1024,
                "enzyme_norm": 2.0 / (i + 1),
                "tapeflow_norm": 1.0 / (i + 1),
            }
            for k in KERNELS
            for i, c in enumerate(CACHE_SWEEP)
        ],
    )


def _tradeoff() -> Result:
    return Result(
        "tradeoff",
        rows=[
            {
                "kernel": k,
                "variant": v,
                "cache_kb": c // 1024,
                "performance": 1.0 + i,
                "energy_paper": 2.0**i,
            }
            for k in KERNELS
            for v in ("enzyme", "tapeflow")
            for i, c in enumerate(CACHE_SWEEP)
        ],
    )


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
        {
            "kernel": k,
            "layers": 10 * (i + 1),
            "layers_paper": 100 * (i + 1),
            "working_set_kb": 1.5 * (i + 1),
            "working_set_k_paper": 60.0 * (i + 1),
            "inputs_kb": 0.5 * (i + 1),
            "inputs_k_paper": 8.0 * (i + 1),
        }
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
    args = [
        "--quick",
        "--only",
        "table2",
        "--kernels",
        "logsum",
        "--no-progress",
        "--jobs",
        "1",
        "--no-cache",
        "--out",
        str(out),
        "--format",
        "svg,pdf",
        "--model",
        "cgra",
    ]
    assert tapeflow_bench.main(args) == 0
    names = sorted(p.name for p in (out / "figures").iterdir())
    assert names == ["table2-cgra.pdf", "table2-cgra.svg"]
    assert "![table2, cgra](figures/table2-cgra.svg)" in (out / "report.md").read_text()


# --------------------------------------------- what a reader sees in a figure
def _bar_boxes(ax: object, renderer: object) -> list:
    return [p.get_window_extent(renderer) for p in ax.patches if p.get_height() > 0]  # type: ignore[attr-defined]


def _performance() -> Result:
    rows = []
    for i, k in enumerate(KERNELS):
        for config in ("Tflow32k", "Tflow2k", "Tflow1k"):
            rows.append(
                {
                    "kernel": k,
                    "config": config,
                    "baseline": "Enzyme32k",
                    "speedup_fwd": 0.6 + 0.3 * i,
                    "speedup_rev": 1.8 - 0.3 * i,
                    "speedup_total": 1.0 + 0.1 * i,
                    "hit_rate_fwd": 0.9,
                    "hit_rate_fwd_baseline": 0.9 - 0.02 * (i - 2),
                    "hit_rate_rev": 0.8,
                    "hit_rate_rev_baseline": 0.8 + 0.05 * i,
                }
            )
    return Result("performance", rows=rows)


def test_titles_fit_and_legends_leave_the_bars_alone() -> None:
    layout = Result(
        "layout",
        rows=[
            {"kernel": k, "cache_kb": c, "aos_norm": 1.0 + 0.05 * i}
            for i, k in enumerate(KERNELS)
            for c in (1, 2, 32)
        ],
    )
    for result in (layout, _performance()):
        title = f"{EXPERIMENTS[result.name].title} ({EXPERIMENTS[result.name].paper}), salam model"
        fig = figure(result, title, "small")
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        box = fig._suptitle.get_window_extent(renderer)  # type: ignore[attr-defined]
        width = fig.get_figwidth() * fig.dpi
        assert box.x0 >= 0 and box.x1 <= width, result.name  # not cut at either end
        for ax in fig.axes:
            legend = ax.get_legend()
            if legend is None:
                continue
            frame = legend.get_window_extent(renderer)
            assert not any(frame.overlaps(b) for b in _bar_boxes(ax, renderer)), result.name


def test_twin_axes_put_no_change_at_one_height() -> None:
    fig = figure(_performance(), "performance", "small")
    fwd, rev = fig.axes[0], fig.axes[1]
    for ax in (fwd, rev):
        twin = next(t for t in fig.axes if t is not ax and t.bbox.bounds == ax.bbox.bounds)
        low, high = ax.get_ylim()
        t_low, t_high = twin.get_ylim()
        # The 1.0 speedup line and the 0-point hit-rate line are at the same height.
        assert abs((1.0 - low) / (high - low) - (0.0 - t_low) / (t_high - t_low)) < 1e-9


def test_a_narrow_range_is_not_drawn_on_a_log_axis() -> None:
    rows = [
        {
            "kernel": k,
            "cache_kb": c // 1024,
            "enzyme_norm": 1.0 + 0.08 * (i == 0),
            "tapeflow_norm": 0.96,
        }
        for k in KERNELS
        for i, c in enumerate(CACHE_SWEEP)
    ]
    fig = figure(Result("dram", rows=rows), "DRAM", "small")
    for ax in _drawn(fig):
        assert ax.get_yscale() == "linear"
        fig.canvas.draw()
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert not any("times" in t or "^" in t for t in labels), labels
    # A wide range is logarithmic.
    wide = figure(_dram(), "DRAM", "small")
    assert all(ax.get_yscale() == "log" for ax in _drawn(wide))


def test_unroll_figure_labels_the_factor_that_ran() -> None:
    rows = [
        {
            "kernel": "pathfinder",
            "study": "sweep",
            "unroll": u,
            "unroll_ran": ran,
            "speedup": 1.0,
            "parallelism_norm": 1.0,
        }
        for u, ran in ((1, 1), (8, 8), (16, 8))
    ]
    fig = figure(Result("unroll", rows=rows), "unroll", "small")
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["1", "8", "8\n(asked 16)"]


def test_sweep_of_ports_has_whole_number_ticks(tmp_path: Path) -> None:
    from tapeflow_benchmarks.harness.sweep.figure import sweep_figure
    from tapeflow_benchmarks.harness.sweep.plan import Sweep, SweepKernel

    sweep = Sweep(
        tmp_path / "s.yaml",
        "ports",
        "cgra",
        [SweepKernel("logsum", "small")],
        [],
        {"cache.ports": [1, 2, 3]},
        {},
    )
    rows = [
        {
            "kernel": "logsum",
            "variant": v,
            "unroll": 1,
            "cache.ports": p,
            "cycles_total": 100 - p,
            "dram_total": 10,
            "energy_onchip_pj": 5.0,
        }
        for v in ("enzyme", "tapeflow")
        for p in (1, 2, 3)
    ]
    fig = sweep_figure(sweep, rows)
    fig.canvas.draw()
    for ax in fig.axes:
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks


def test_figures_drawn_in_processes_are_the_ones_drawn_in_order(tmp_path: Path) -> None:
    """The report draws its figures in `--jobs` processes: the same files, byte
    for byte, and the same names in the same order as drawn one by one."""
    from tapeflow_benchmarks.harness.report import _draw_all

    names = {}
    for processes in (1, 2):
        folder = tmp_path / str(processes)
        folder.mkdir()
        jobs = [
            (make(), f"figure {n}", folder / f"f{n}", ("png", "svg"), "paper")
            for n, make in enumerate([_dram, _tradeoff, _dram])
        ]
        names[processes] = _draw_all(jobs, processes)
    assert names[1] == names[2] == [[f"f{n}.png", f"f{n}.svg"] for n in range(3)]
    for path in (tmp_path / "1").iterdir():
        assert path.read_bytes() == (tmp_path / "2" / path.name).read_bytes(), path.name
