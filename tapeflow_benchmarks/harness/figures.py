"""
One figure per experiment (matplotlib's Agg backend: no display needed), in each
of the formats asked for (`FORMATS`: png, svg, pdf; `--format png,svg`).

Every figure names the kernels' size preset in its title. Where one axis would
hold too many series (the DRAM sweep and the performance/energy trade-off: two
variants for each kernel), each kernel gets its own panel. No axis mixes units:
Table II's working set and inputs, ours in KB and the paper's as it prints them
("K"), are set against each other on two axes, one per source.

The paper's values are drawn where it gives them (`tapeflow_benchmarks.paper`: a
black dashed line, a grey band for a range, a black star for one point). Linear
value axes start at zero; series that may coincide keep distinct markers; a bar
without a value says "n/a"; a cache size has one colour in every figure and
legends list sizes in increasing order.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tapeflow_benchmarks import paper
from tapeflow_benchmarks.harness.experiments import Result
from tapeflow_benchmarks.harness.formats import FORMATS, parse_formats

Rows = list[dict[str, Any]]


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend, imported when the first figure is
    drawn: matplotlib takes a third of a second or more to import, and the
    modules that import this one (the report, the sweeps) are loaded by runs and
    tools that draw nothing (`--help`, a bad option, `--only` without figures)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _ticker() -> Any:
    """`matplotlib.ticker`, imported with pyplot (`pyplot`)."""
    pyplot()
    import matplotlib.ticker

    return matplotlib.ticker


def save(fig: Any, stem: Path, formats: Sequence[str] = ("png",)) -> list[str]:
    """Write `fig` as `stem.<format>` for each format and close it; returns the
    file names, in the order of `formats`."""
    names = []
    for fmt in formats:
        path = stem.with_name(f"{stem.name}.{fmt}")
        # No creation date in SVG/PDF metadata, and SVG ids from a fixed salt (not
        # a random one per figure): the same figure gives the same bytes.
        metadata = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}.get(fmt)
        with pyplot().rc_context({"svg.hashsalt": "tapeflow"}):
            fig.savefig(path, dpi=110, format=fmt, metadata=metadata)
        names.append(path.name)
    pyplot().close(fig)
    return names


def integer_ticks(axis: Any, values: list[Any]) -> None:
    """Whole-number ticks on an axis whose values are all whole numbers (no
    1.5 ports)."""
    if values and all(float(v).is_integer() for v in values):
        axis.set_major_locator(_ticker().MaxNLocator(integer=True))


def _panels(count: int, per_row: int = 3) -> tuple[int, int]:
    """Rows and columns of a grid of `count` panels."""
    cols = min(per_row, max(1, count))
    return math.ceil(max(1, count) / cols), cols


def _kernels(rows: Rows) -> list[str]:
    return list(dict.fromkeys(r["kernel"] for r in rows))


LEGEND_ROOM = 1.3
"""Bar charts leave the top 1/1.3 of the axis free for a legend laid out in one
row, so that it never covers a bar."""

MISSING = "n/a"
"""The label of a bar without a value (an ISO-performance cache that none of the
sweep's sizes reaches): a gap would read as a value of zero."""

PAPER = {"color": "black", "linestyle": "--", "linewidth": 1.2}
"""How a value of the paper is drawn."""


def cache_colour(kb: float) -> Any:
    """One colour per cache size in every figure, in order: the turbo colour map
    over 1-128 KB by powers of 2."""
    return pyplot().cm.turbo(0.1 + 0.8 * min(1.0, max(0.0, math.log2(max(kb, 1)) / 7)))


def config_kb(name: str) -> float | None:
    """The cache KB in a configuration's name ('Tflow2k': 2), None for another name."""
    digits = name.removeprefix("Tflow").removeprefix("Enzyme").removesuffix("k")
    return float(digits) if digits.isdigit() else None


def by_size(names: list[str]) -> list[str]:
    """Configurations with a cache size in increasing order, the others after."""
    return sorted(names, key=lambda n: (config_kb(n) is None, config_kb(n) or 0))


def _colour(name: str) -> Any:
    kb = config_kb(name)
    return cache_colour(kb) if kb is not None else "0.45"


def _bars(
    ax: Any,
    kernels: list[str],
    series: dict[str, list[float | None]],
    ylabel: str,
    colours: dict[str, Any] | None = None,
    room_for: tuple[float, ...] = (),
) -> None:
    """Grouped bars, a series per name; a missing value is an "n/a" label in its
    slot. `room_for`: values (the paper's) the axis must also hold."""
    width = 0.8 / max(1, len(series))
    x = np.arange(len(kernels))
    top = max(
        [v for values in series.values() for v in values if v is not None] + list(room_for),
        default=1.0,
    )
    for i, (name, values) in enumerate(series.items()):
        heights = [v if v is not None else 0.0 for v in values]
        where = x + (i - (len(series) - 1) / 2) * width
        colour = (colours or {}).get(name)
        ax.bar(where, heights, width, label=name, color=colour)
        for xi, v in zip(where, values, strict=True):
            if v is None:
                ax.text(
                    xi,
                    0.02 * top if ax.get_yscale() == "linear" else 1.0,
                    MISSING,
                    rotation=90,
                    ha="center",
                    va="bottom",
                    fontsize="x-small",
                    color="dimgray",
                )
    ax.set_xticks(x, kernels, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    if ax.get_yscale() == "linear":
        ax.set_ylim(0, max(top, 1.0) * LEGEND_ROOM)


def _legend_above_bars(ax: Any, count: int) -> None:
    """A one-row legend in the room `_bars` leaves above the bars."""
    size = "small" if count <= 3 else "x-small"
    columns = max(1, count) if count <= 4 else math.ceil(count / 2)  # two rows fit the room
    ax.legend(fontsize=size, loc="upper center", ncol=columns, frameon=False)


def _paper_line(ax: Any, value: float, text: str) -> None:
    ax.axhline(value, label=f"paper: {text}", **PAPER)


def _paper_band(ax: Any, low: float, high: float, text: str) -> None:
    ax.axhspan(low, high, color="0.6", alpha=0.25, label=f"paper: {text}", zorder=0)


def _paper_point(ax: Any, x: Any, y: float, text: str) -> None:
    ax.plot([x], [y], "*", color="black", markersize=11, label=f"paper: {text}", zorder=5)


def _align_zero(left: Any, right: Any, left_value: float, values: list[float]) -> None:
    """Set `right`'s limits so that its 0 sits at the height of `left_value` on
    `left` (a twin axis: the 1.0 speedup line is the no-change hit-rate line)."""
    low, high = left.get_ylim()
    share = (left_value - low) / (high - low)
    known = [v for v in values if v == v]  # not NaN
    below = max((-v for v in known if v < 0), default=0.0)
    above = max((v for v in known if v > 0), default=0.0)
    room = 1 / LEGEND_ROOM  # the markers stay below the legend, as the bars do
    span = max(below / share if share > 0 else 0.0, above / (room - share) if share < room else 0.0)
    span = span * 1.1 or 1.0
    right.set_ylim(-share * span, (1 - share) * span)


def _performance(result: Result, ax_grid: Any) -> None:
    rows = [r for r in result.rows if r["baseline"] == "Enzyme32k"]
    kernels = _kernels(rows)
    configs = by_size(list(dict.fromkeys(r["config"] for r in rows)))
    low, high = paper.SPEEDUP_RANGE
    for ax, phase in zip(ax_grid, ("fwd", "rev", "total"), strict=False):
        series = {
            c: [
                next(
                    (r[f"speedup_{phase}"] for r in rows if r["kernel"] == k and r["config"] == c),
                    None,
                )
                for k in kernels
            ]
            for c in configs
        }
        total = phase == "total"
        _bars(
            ax,
            kernels,
            series,
            f"{phase.upper()} speedup over Enzyme32k (x)",
            {c: _colour(c) for c in configs},
            (high,) if total else (),
        )
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_title(f"{phase.upper()} cycles")
        if total:  # the paper gives the total's range and mean
            _paper_band(ax, low, high, f"{low:g}-{high:g}x per kernel")
            _paper_line(ax, paper.SPEEDUP_MEAN, f"{paper.SPEEDUP_MEAN:g}x mean")
        _legend_above_bars(ax, len(series) + (2 if total else 0))
        if phase != "total":  # the paper's right axis: hit-rate change
            change = []
            for k in kernels:
                r = next((r for r in rows if r["kernel"] == k and r["config"] == "Tflow32k"), None)
                ours = r and r[f"hit_rate_{phase}"]
                base = r and r[f"hit_rate_{phase}_baseline"]
                change.append(
                    100 * (ours - base) if ours is not None and base is not None else np.nan
                )
            twin = ax.twinx()
            twin.plot(np.arange(len(kernels)), change, "D", color="C3", markersize=5)
            twin.axhline(0.0, color="C3", linewidth=0.6, linestyle=":")
            twin.set_ylabel(
                "hit rate, Tflow32k minus Enzyme32k\n(points; 0 at the 1.0x line)", color="C3"
            )
            _align_zero(ax, twin, 1.0, change)


def _dram(result: Result, axes: Any) -> None:
    """One panel per kernel: Enzyme's and TapeFlow's DRAM traffic over the cache
    sweep, normalised to that kernel's Enzyme32k."""
    caches = sorted({r["cache_kb"] for r in result.rows})
    for ax, k in zip(axes, _kernels(result.rows), strict=True):
        # Enzyme's hollow, larger markers stay visible where TapeFlow's line covers it.
        for variant, style, color, size in (("enzyme", "--", "C0", 8), ("tapeflow", "-", "C1", 4)):
            ys = [
                next(
                    (
                        r[f"{variant}_norm"]
                        for r in result.rows
                        if r["kernel"] == k and r["cache_kb"] == c
                    ),
                    None,
                )
                for c in caches
            ]
            ax.plot(
                caches,
                [np.nan if y is None else y for y in ys],
                style,
                marker="o",
                color=color,
                markersize=size,
                fillstyle="none" if variant == "enzyme" else "full",
                label="TapeFlow" if variant == "tapeflow" else "Enzyme",
            )
        claimed = _DRAM_PAPER.get(k)
        if claimed is not None:  # TapeFlow's traffic were it the paper's reduction
            cache_kb, reduction = claimed
            enzyme = next(
                (
                    r["enzyme_norm"]
                    for r in result.rows
                    if r["kernel"] == k and r["cache_kb"] == cache_kb
                ),
                None,
            )
            if enzyme:
                _paper_point(ax, cache_kb, enzyme / reduction, f"Enzyme's / {reduction:g}")
        ax.set_title(k)
        ax.set_xscale("log", base=2)
        _value_scale(ax, [y for line in ax.get_lines() for y in line.get_ydata()])
        ax.set_xticks(caches, [f"{c}k" for c in caches], fontsize="small")
        ax.set_xlabel("cache size")
        log = " (log scale)" if ax.get_yscale() == "log" else ""
        ax.set_ylabel(f"DRAM bytes / Enzyme32k's{log}")
        ax.grid(alpha=0.3)
        if ax is axes[0] or claimed is not None:
            ax.legend(fontsize="x-small")
        if k == "mttkrp":
            ax.set_title(f"mttkrp (paper: up to {paper.DRAM_MTTKRP:g}x less)")


_DRAM_PAPER = {
    "lenet": (1, paper.DRAM_1K),
    "pathfinder": (1, paper.DRAM_1K),
    "matdescent": (32, paper.DRAM_MATDESCENT),
}
"""The paper's DRAM reductions at a stated cache size (KB), by kernel."""


def plain_log_ticks(axis: Any) -> None:
    """1-2-5 ticks with plain labels on a log axis: readable within a decade, never
    crowded, never "3 x 10^0"."""
    ticker = _ticker()
    axis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0), numticks=8))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


WIDE_RANGE = 8.0
"""A value axis is logarithmic only when its values span this factor or more."""


def _value_scale(ax: Any, values: list[float]) -> None:
    """Logarithmic over a wide range, linear from zero (with plain tick labels)
    otherwise: a 4% difference never fills the axis."""
    known = [v for v in values if v == v and v > 0]
    if known and max(known) / min(known) >= WIDE_RANGE:
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
    else:
        ax.yaxis.set_major_formatter(_ticker().ScalarFormatter(useOffset=False))
        ax.set_ylim(0, max(known, default=1.0) * 1.15)


def _layout(result: Result, ax: Any) -> None:
    kernels = _kernels(result.rows)
    caches = sorted({r["cache_kb"] for r in result.rows})
    series = {
        f"cache {c}k": [
            next(
                (r["aos_norm"] for r in result.rows if r["kernel"] == k and r["cache_kb"] == c),
                None,
            )
            for k in kernels
        ]
        for c in caches
    }
    colours = {f"cache {c}k": cache_colour(c) for c in caches}
    _bars(ax, kernels, series, "DRAM bytes, AoS / Enzyme's SoA", colours)
    ax.axhline(1.0, color="black", linewidth=0.8)
    best = 1 - paper.LAYOUT_PERCENT / 100
    _paper_line(ax, best, f"up to {paper.LAYOUT_PERCENT:g}% less ({best:.2f})")
    _legend_above_bars(ax, len(series) + 1)


SRAM_SERIES = "ISO-perf cache + scratchpad"


def _energy(result: Result, axes: Any) -> None:
    """The energy reduction under each preset, with the paper's "up to"; then the
    SRAM reduction at ISO-performance, with the paper's range."""
    for ax, preset in zip(axes, ("paper", "cacti45"), strict=False):
        rows = [r for r in result.rows if r["energy_preset"] == preset]
        kernels = _kernels(rows)
        configs = by_size(list(dict.fromkeys(r["config"] for r in rows)))
        series = {
            c: [
                next(
                    (r["energy_reduction"] for r in rows if r["kernel"] == k and r["config"] == c),
                    None,
                )
                for k in kernels
            ]
            for c in configs
        }
        _bars(
            ax,
            kernels,
            series,
            "on-chip energy reduction over Enzyme32k (x)",
            {c: _colour(c) for c in configs},
            (paper.ENERGY,),
        )
        _paper_line(ax, paper.ENERGY, f"up to {paper.ENERGY:g}x")
        ax.set_title(f"energy, preset '{preset}'")
        _legend_above_bars(ax, len(series) + 1)
    rows = [r for r in result.rows if r["energy_preset"] == "paper"]
    kernels = _kernels(rows)
    iso = {r["kernel"]: r for r in rows if r["config"] == "ISO-perf"}
    low, high = paper.SRAM_RANGE
    ax = axes[2]
    ax.set_yscale("log")
    _bars(
        ax,
        kernels,
        {
            "ISO-perf cache + scratchpad": [
                iso[k]["sram_reduction"] if k in iso else None for k in kernels
            ]
        },
        "SRAM reduction over Enzyme32k (x, log scale)",
        {"ISO-perf cache + scratchpad": _colour("ISO-perf")},
    )
    _paper_band(ax, low, high, f"{low:g}-{high:g}x")
    ax.set_ylim(0.5, high * 4)
    ax.yaxis.set_major_formatter(_ticker().FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_title("SRAM at ISO-performance (n/a: no cache of 1-128 KB within 5%)")
    _legend_above_bars(ax, 2)


def _tradeoff(result: Result, axes: Any) -> None:
    """One panel per kernel: performance against on-chip energy over the cache
    sweep, both variants, normalised to that kernel's Enzyme1k."""
    for ax, k in zip(axes, _kernels(result.rows), strict=True):
        for variant, marker, color in (("enzyme", "o", "C0"), ("tapeflow", "^", "C1")):
            hollow = variant == "enzyme"  # Enzyme's larger hollow markers show under TapeFlow's
            rows = sorted(
                (r for r in result.rows if r["kernel"] == k and r["variant"] == variant),
                key=lambda r: r["cache_kb"],
            )
            xs = [r["energy_paper"] for r in rows]
            ys = [r["performance"] for r in rows]
            ax.plot(
                xs,
                ys,
                marker=marker,
                linestyle="-" if variant == "tapeflow" else ":",
                color=color,
                markersize=9 if hollow else 5,
                fillstyle="none" if hollow else "full",
                label="TapeFlow" if variant == "tapeflow" else "Enzyme",
            )
            for r, x, y in zip(rows, xs, ys, strict=True):
                if r["cache_kb"] in (rows[0]["cache_kb"], rows[-1]["cache_kb"]) and x and y:
                    ax.annotate(
                        f"{r['cache_kb']}k",
                        (x, y),
                        fontsize="x-small",
                        color=color,
                        textcoords="offset points",
                        xytext=(3, 3),
                    )
        ax.set_title(k)
        ax.set_xscale("log")
        ax.set_xlabel("on-chip energy / Enzyme1k's ('paper')")
        ax.set_ylabel("performance / Enzyme1k's (x)")
        ax.set_ylim(0, max([y for line in ax.get_lines() for y in line.get_ydata()]) * 1.15)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize="small", loc="lower right")


_MARKERS = "osD^vP*Xh<>p"
_LINESTYLES = ("-", "--", "-.", ":")


def _scratchpad(result: Result, ax: Any) -> None:
    """A line per kernel, each with its own marker and dash (lines that coincide
    stay told apart), from zero; the paper's NN at 64 B."""
    for i, k in enumerate(_kernels(result.rows)):
        rows = sorted((r for r in result.rows if r["kernel"] == k), key=lambda r: r["spad_bytes"])
        ax.plot(
            [r["spad_bytes"] for r in rows],
            [r["speedup"] for r in rows],
            marker=_MARKERS[i % len(_MARKERS)],
            linestyle=_LINESTYLES[i % len(_LINESTYLES)],
            fillstyle="none",
            markersize=8 - 0.4 * (i % 5),
            color=f"C{i % 10}",
            label=k,
        )
    sizes = sorted({r["spad_bytes"] for r in result.rows})
    if "nn" in _kernels(result.rows):
        _paper_point(ax, sizes[0], 1.0, "NN at 64 B = Enzyme (1.0x)")
    low, high = paper.SPAD_GAIN_PERCENT
    ax.text(
        0.01,
        0.02,
        f"paper: +{low:g}-{high:g}% from 64 B to 1 MB",
        transform=ax.transAxes,
        fontsize="small",
    )
    top = max((r["speedup"] or 0 for r in result.rows), default=1.0)
    ax.set_ylim(0, max(top, 1.0) * 1.15)
    ax.set_xscale("log", base=2)
    ax.set_xticks(
        sizes,
        [
            f"{s // 1024**2} MB" if s >= 1024**2 else f"{s // 1024} KB" if s >= 1024 else f"{s} B"
            for s in sizes
        ],
    )
    ax.set_xlabel("scratchpad size")
    ax.set_ylabel("speedup over Enzyme32k (x)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))


def _unroll_label(row: dict[str, Any]) -> str:
    """The factor that ran, and the one asked for where they differ."""
    ran = row.get("unroll_ran") or row["unroll"]
    return str(ran) if ran == row["unroll"] else f"{ran}\n(asked {row['unroll']})"


def _unroll(result: Result, axes: Any) -> None:
    sweep = [r for r in result.rows if r["study"] == "sweep"]
    ax = axes[0]
    if sweep:
        # Both series are ratios with 1.0 as no change: one axis, one 1.0 line.
        x = [_unroll_label(r) for r in sweep]
        series = {
            "speedup of Tflow32k over Enzyme32k": [r["speedup"] for r in sweep],
            "ops per cycle / unroll 1's": [r["parallelism_norm"] for r in sweep],
        }
        claimed = (sweep[0]["speedup"] or 0) * paper.UNROLL_GAIN
        _bars(ax, x, series, "ratio (x)", room_for=(claimed,))
        ax.set_xticks(range(len(x)), x, rotation=0, ha="center")
        ax.axhline(1.0, color="black", linewidth=0.8)
        if claimed:
            _paper_point(
                # over the widest unroll's speedup bar, the first of its two
                ax,
                len(x) - 1.2,
                claimed,
                f"about {paper.UNROLL_GAIN:g}x unroll 1's speedup",
            )
        ax.set_xlabel("unroll factor that ran (PathFinder)")
        _legend_above_bars(ax, 1)
    ax.set_title("Fig. 17: deep vs shallow layer graphs")
    wide = [r for r in result.rows if r["study"] != "sweep"]
    if wide:
        names = [r["kernel"] for r in wide]
        _bars(
            axes[1],
            names,
            {"TapeFlow over Enzyme": [r["speedup"] for r in wide]},
            "speedup, both unrolled (x)",
            room_for=(paper.UNROLLED_SPEEDUP,),
        )
        axes[1].axhline(1.0, color="black", linewidth=0.8)
        if "pathfinder" in names:
            _paper_point(
                axes[1],
                names.index("pathfinder"),
                paper.UNROLLED_SPEEDUP,
                f"up to {paper.UNROLLED_SPEEDUP:g}x (PathFinder)",
            )
        _legend_above_bars(axes[1], 2)
    axes[1].set_title("Fig. 18 analogue: every tape loop fully unrolled")


def _table2(result: Result, axes: Any) -> None:
    """Layer counts side by side (one unit: layers); working set and inputs as
    ours (KB, x axis) against the paper's (its "K", y axis): never two units on
    one axis."""
    kernels = _kernels(result.rows)
    _bars(
        axes[0],
        kernels,
        {
            "ours": [r["layers"] for r in result.rows],
            "paper": [r["layers_paper"] for r in result.rows],
        },
        "layer count (log scale)",
    )
    axes[0].set_yscale("log")
    layers = [v for r in result.rows for v in (r["layers"], r["layers_paper"]) if v]
    axes[0].set_ylim(min(layers, default=1) / 1.5, max(layers, default=10) * 8)
    _legend_above_bars(axes[0], 2)
    axes[0].set_title("layers")
    for ax, (ours, theirs, what) in zip(
        axes[1:],
        (  # noqa: B905 - two panels, two pairs
            ("working_set_kb", "working_set_k_paper", "working set"),
            ("inputs_kb", "inputs_k_paper", "inputs"),
        ),
        strict=False,
    ):
        for i, r in enumerate(result.rows):
            x, y = r[ours], r[theirs]
            if x and y:
                ax.plot([x], [y], "o", color=f"C{i % 10}")
                ax.annotate(
                    r["kernel"],
                    (x, y),
                    fontsize="x-small",
                    textcoords="offset points",
                    xytext=(3, 3),
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        for axis in (ax.xaxis, ax.yaxis):
            plain_log_ticks(axis)
        ax.set_xlabel(f"{what}, ours (KB, log scale)")
        ax.set_ylabel(f"{what}, paper (K, as Table II prints it; log scale)")
        ax.set_title(what)
        ax.grid(alpha=0.3)


def _ablation(result: Result, ax: Any) -> None:
    """Per kernel, the speedup with every step and with each step switched off."""
    kernels = _kernels(result.rows)
    steps = list(dict.fromkeys(r["without"] for r in result.rows))

    def value(k: str, step: str | None) -> float | None:
        row = next((r for r in result.rows if r["kernel"] == k), None)
        if step is None:
            return row["speedup"] if row else None
        return next(
            (
                r["speedup_without"]
                for r in result.rows
                if r["kernel"] == k and r["without"] == step
            ),
            None,
        )

    series = {"every step": [value(k, None) for k in kernels]}
    series.update({f"step off ({s})": [value(k, s) for k in kernels] for s in steps})
    _bars(ax, kernels, series, "speedup of Tflow32k over Enzyme32k (x)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.0, 1.0))


def _streaming(result: Result, ax: Any) -> None:
    kernels = _kernels(result.rows)
    configs = list(dict.fromkeys(r["config"] for r in result.rows))
    series = {
        c: [
            next((r["gain"] for r in result.rows if r["kernel"] == k and r["config"] == c), None)
            for k in kernels
        ]
        for c in configs
    }
    _bars(ax, kernels, series, "cycles with every nest streamed / chosen (x)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.legend(fontsize="x-small")


_LAYOUTS: dict[str, tuple[tuple[int, int], Callable[[Result, Any], None]]] = {
    "streaming": ((1, 1), _streaming),
    "ablation": ((1, 1), _ablation),
    "performance": ((1, 3), _performance),
    "layout": ((1, 1), _layout),
    "energy": ((1, 3), _energy),
    "scratchpad": ((1, 1), _scratchpad),
    "unroll": ((1, 2), _unroll),
    "table2": ((1, 3), _table2),
}
_PER_KERNEL: dict[str, Callable[[Result, Any], None]] = {"dram": _dram, "tradeoff": _tradeoff}
"""Experiments drawn as one panel per kernel."""

_LEGEND_OUTSIDE = {"scratchpad", "ablation"}


def figure(result: Result, title: str, size: str | None = None) -> Any:
    """The experiment's figure (a matplotlib Figure), or None if it has no rows;
    `size` (the kernels' size preset) is written in the title."""
    if not result.rows:
        return None
    if result.name in _PER_KERNEL:
        count = len(_kernels(result.rows))
        nrows, ncols = _panels(count)
        fig, grid = pyplot().subplots(
            nrows, ncols, figsize=(4.6 * ncols, 3.6 * nrows + 0.6), squeeze=False
        )
        axes = [ax for row in grid for ax in row]
        for ax in axes[count:]:
            ax.set_visible(False)
        _PER_KERNEL[result.name](result, axes[:count])
    else:
        (nrows, ncols), plot = _LAYOUTS[result.name]
        width = 6.5 * ncols + (2.5 if result.name in _LEGEND_OUTSIDE else 0)
        fig, grid = pyplot().subplots(nrows, ncols, figsize=(width, 4.8), squeeze=False)
        plot(result, grid[0] if ncols > 1 else grid[0][0])
    suptitle(fig, f"{title}; kernels at '{size}' size" if size else title)
    fig.tight_layout()
    return fig


def suptitle(fig: Any, text: str) -> None:
    """The figure's title, wrapped to the figure's width so that no end is cut."""
    chars = max(30, int(fig.get_figwidth() * 10))
    fig.suptitle("\n".join(textwrap.wrap(text, chars)))


def draw(
    result: Result,
    title: str,
    path: Path,
    formats: Sequence[str] = ("png",),
    size: str | None = None,
) -> list[str]:
    """Write the experiment's figure as `path` with each format's suffix; the
    names written (none if it has no rows to draw)."""
    fig = figure(result, title, size)
    if fig is None:
        return []
    return save(fig, path.with_suffix(""), formats)


__all__ = [
    "FORMATS",
    "MISSING",
    "by_size",
    "cache_colour",
    "draw",
    "figure",
    "integer_ticks",
    "parse_formats",
    "save",
    "suptitle",
]
