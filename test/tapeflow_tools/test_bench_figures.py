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


def _dram(kernels: list[str] = KERNELS) -> Result:
    return Result(
        "dram",
        rows=[
            {
                "kernel": k,
                "cache_kb": c // 1024,
                "enzyme_norm": 2.0 / (i + 1),
                "tapeflow_norm": 1.0 / (i + 1),
            }
            for k in kernels
            for i, c in enumerate(CACHE_SWEEP)
        ],
    )


def _tradeoff(kernels: list[str] = KERNELS) -> Result:
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
            for k in kernels
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
    # Each panel is its kernel's (MTTKRP's title adds the paper's "up to 14x").
    assert [ax.get_title().split(" ")[0] for ax in axes] == KERNELS
    for ax, kernel in zip(axes, KERNELS, strict=True):
        # Enzyme and TapeFlow; and the paper's point where it gives one for a cache
        # size (DRAM: LeNet and PathFinder at 1 KB), nothing else.
        paper = result.name == "dram" and kernel in ("lenet", "pathfinder")
        assert len(ax.get_lines()) == 2 + paper
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
    assert layers.get_ylabel() == "layer count (log scale)"
    for ax, what in ((working, "working set"), (inputs, "inputs")):
        assert ax.get_xlabel() == f"{what}, ours (KB, log scale)"
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
    names = save(figure(_dram(KERNELS[:1]), "DRAM", "small"), tmp_path / "dram", FORMATS)
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
    fig.canvas.draw()  # once: the tick labels of every panel
    for ax in _drawn(fig):
        assert ax.get_yscale() == "linear"
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
        jobs = [  # two kernels' panels each: the point is the files, not the panels
            (make(KERNELS[:2]), f"figure {n}", folder / f"f{n}", ("png", "svg"), "paper")
            for n, make in enumerate([_dram, _tradeoff, _dram])
        ]
        names[processes] = _draw_all(jobs, processes)
    assert names[1] == names[2] == [[f"f{n}.png", f"f{n}.svg"] for n in range(3)]
    for path in (tmp_path / "1").iterdir():
        assert path.read_bytes() == (tmp_path / "2" / path.name).read_bytes(), path.name


# ------------------------------------- the paper's values, n/a, order and axes
def _energy(iso: set[str]) -> Result:
    """Energy rows for KERNELS; only the kernels in `iso` reach ISO-performance."""
    rows = []
    for preset in ("paper", "cacti45"):
        for i, k in enumerate(KERNELS):
            configs = [("Tflow32k", 32), ("Tflow2k", 2), ("Tflow1k", 1)]
            configs += [("ISO-perf", 1)] if k in iso else []
            for config, kb in configs:
                rows.append(
                    {
                        "energy_preset": preset,
                        "kernel": k,
                        "config": config,
                        "cache_kb": kb,
                        "energy_reduction": 1.0 + i + 32 / kb,
                        "sram_reduction": 32 / (kb + 0.5),
                    }
                )
    return Result("energy", rows=rows)


def _texts(ax: object, text: str) -> list:
    return [t for t in ax.texts if t.get_text() == text]  # type: ignore[attr-defined]


def test_a_missing_iso_performance_bar_says_n_a() -> None:
    fig = figure(_energy({"logsum", "nn", "mttkrp"}), "energy", "small")
    paper, cacti, sram = fig.axes[:3]
    missing = [KERNELS.index("pathfinder"), KERNELS.index("lenet")]
    for ax in (paper, cacti, sram):
        labels = _texts(ax, "n/a")
        assert len(labels) == len(missing)  # one per kernel without an ISO-perf cache
        # each in its kernel's slot: within half a group of the kernel's tick
        assert sorted(round(t.get_position()[0]) for t in labels) == sorted(missing)
    # The title's "SRAM" is drawn: the third panel, against the paper's 5-40x.
    assert "SRAM" in sram.get_title() and sram.get_ylabel().startswith("SRAM")
    assert any(p.get_label() == "paper: 5-40x" for p in sram.patches)


def test_sweep_legends_in_increasing_order_one_colour_per_size() -> None:
    fig = figure(_performance(), "performance", "small")
    total = fig.axes[2]
    labels = [t.get_text() for t in total.get_legend().get_texts()]
    configs = [name for name in labels if name.startswith("Tflow")]
    assert configs == ["Tflow1k", "Tflow2k", "Tflow32k"]  # given 32k, 2k, 1k
    energy = figure(_energy(set(KERNELS)), "energy", "small")
    layout = figure(
        Result(
            "layout",
            rows=[
                {"kernel": k, "cache_kb": c, "aos_norm": 0.9} for k in KERNELS for c in (1, 2, 32)
            ],
        ),
        "layout",
        "small",
    )

    def colours(ax: object) -> dict:
        return {
            bars.get_label(): tuple(bars.patches[0].get_facecolor())
            for bars in ax.containers  # type: ignore[attr-defined]
        }

    perf, power, aos = colours(total), colours(energy.axes[0]), colours(layout.axes[0])
    for kb in (1, 2, 32):
        assert perf[f"Tflow{kb}k"] == power[f"Tflow{kb}k"] == aos[f"cache {kb}k"]
    assert len({perf["Tflow1k"], perf["Tflow2k"], perf["Tflow32k"]}) == 3


def test_the_papers_values_are_drawn() -> None:
    total = figure(_performance(), "performance", "small").axes[2]
    lines = {line.get_label(): line for line in total.get_lines()}
    assert lines["paper: 2.4x mean"].get_ydata()[0] == 2.4
    band = next(p for p in total.patches if p.get_label() == "paper: 1.3-2.5x per kernel")
    low, high = band.get_y(), band.get_y() + band.get_height()
    assert (low, high) == pytest.approx((1.3, 2.5))
    for ax in figure(_energy(set(KERNELS)), "energy", "small").axes[:2]:
        assert [line.get_ydata()[0] for line in ax.get_lines() if "8.2x" in line.get_label()] == [
            8.2
        ]
    wide = Result(
        "unroll",
        rows=[
            {"kernel": k, "study": "fully unrolled", "unroll": "full", "speedup": 1.2}
            for k in KERNELS
        ],
    )
    fig18 = figure(wide, "unroll", "small").axes[1]
    star = next(line for line in fig18.get_lines() if "14x" in line.get_label())
    assert (star.get_xdata()[0], star.get_ydata()[0]) == (KERNELS.index("pathfinder"), 14.0)
    assert fig18.get_ylim()[1] > 14.0


def test_a_small_difference_is_drawn_from_zero() -> None:
    # Matdescent's 1.000-1.037 under salam: linear, from zero, so 4% looks like 4%.
    rows = [
        {"kernel": "matdescent", "cache_kb": c // 1024, "enzyme_norm": 1.0, "tapeflow_norm": 1.037}
        for c in CACHE_SWEEP
    ]
    ax = _drawn(figure(Result("dram", rows=rows), "DRAM", "small"))[0]
    assert ax.get_yscale() == "linear" and ax.get_ylim()[0] == 0
    assert ax.get_ylim()[1] < 1.5


def test_coinciding_scratchpad_lines_stay_apart() -> None:
    rows = [
        {"kernel": k, "spad_bytes": s, "speedup": 1.08}
        for k in ("nn", "massspring", "lenet")
        for s in (64, 1024, 1 << 20)
    ]
    ax = figure(Result("scratchpad", rows=rows), "scratchpad", "small").axes[0]
    kernels = [line for line in ax.get_lines() if not line.get_label().startswith(("_", "paper"))]
    styles = {(line.get_marker(), line.get_linestyle()) for line in kernels}
    assert len(kernels) == 3 and len(styles) == 3
    assert ax.get_ylim()[0] == 0


def test_no_title_repeats_where_the_paper_shows_it() -> None:
    for experiment in EXPERIMENTS.values():
        assert experiment.paper not in experiment.title, experiment.name
