"""
One figure per experiment (matplotlib's Agg backend: no display needed), in each
of the formats asked for (`FORMATS`: png, svg, pdf; `--format png,svg`).

Every figure names the kernels' size preset in its title. Where one axis would
hold too many series (the DRAM sweep and the performance/energy trade-off: two
variants for each kernel), each kernel gets its own panel. No axis mixes units:
Table II's working set and inputs, ours in KB and the paper's as it prints them
("K"), are set against each other on two axes, one per source.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from tapeflow_benchmarks.harness.experiments import Result  # noqa: E402

Rows = list[dict[str, Any]]

FORMATS = ("png", "svg", "pdf")
"""The file formats a figure can be written in (matplotlib's own writers)."""


def parse_formats(text: str) -> list[str]:
    """`png,svg` as a list of formats, in order, once each; ValueError names
    an unknown one."""
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in FORMATS]
    if unknown or not names:
        raise ValueError(
            f"unknown figure format(s) {', '.join(unknown) or '(none given)'}; "
            f"give a comma-separated list of {', '.join(FORMATS)}"
        )
    return list(dict.fromkeys(names))


def save(fig: Any, stem: Path, formats: Sequence[str] = ("png",)) -> list[str]:
    """Write `fig` as `stem.<format>` for each format and close it; returns the
    file names, in the order of `formats`."""
    names = []
    for fmt in formats:
        path = stem.with_name(f"{stem.name}.{fmt}")
        # No creation date in SVG/PDF metadata: the same figure gives the same bytes.
        metadata = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}.get(fmt)
        fig.savefig(path, dpi=110, format=fmt, metadata=metadata)
        names.append(path.name)
    plt.close(fig)
    return names


def _panels(count: int, per_row: int = 3) -> tuple[int, int]:
    """Rows and columns of a grid of `count` panels."""
    cols = min(per_row, max(1, count))
    return math.ceil(max(1, count) / cols), cols


def _kernels(rows: Rows) -> list[str]:
    return list(dict.fromkeys(r["kernel"] for r in rows))


def _bars(ax: Any, kernels: list[str], series: dict[str, list[float | None]], ylabel: str) -> None:
    width = 0.8 / max(1, len(series))
    x = np.arange(len(kernels))
    for i, (name, values) in enumerate(series.items()):
        heights = [v if v is not None else 0.0 for v in values]
        ax.bar(x + (i - (len(series) - 1) / 2) * width, heights, width, label=name)
    ax.set_xticks(x, kernels, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)


def _performance(result: Result, ax_grid: Any) -> None:
    rows = [r for r in result.rows if r["baseline"] == "Enzyme32k"]
    kernels = _kernels(rows)
    configs = list(dict.fromkeys(r["config"] for r in rows))
    for ax, phase in zip(ax_grid, ("fwd", "rev", "total")):
        series = {
            c: [next((r[f"speedup_{phase}"] for r in rows if r["kernel"] == k and r["config"] == c), None) for k in kernels]
            for c in configs
        }
        _bars(ax, kernels, series, f"{phase.upper()} speedup over Enzyme32k (x)")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_title(f"{phase.upper()} cycles")
        if phase != "total":  # the paper's right axis: hit-rate change
            change = []
            for k in kernels:
                r = next((r for r in rows if r["kernel"] == k and r["config"] == "Tflow32k"), None)
                ours = r and r[f"hit_rate_{phase}"]
                base = r and r[f"hit_rate_{phase}_baseline"]
                change.append(100 * (ours - base) if ours is not None and base is not None else np.nan)
            twin = ax.twinx()
            twin.plot(np.arange(len(kernels)), change, "D", color="C3", markersize=5)
            twin.set_ylabel("cache hit rate, Tflow32k minus Enzyme32k (points)", color="C3")
    ax_grid[0].legend(fontsize="small")


def _dram(result: Result, axes: Any) -> None:
    """One panel per kernel: Enzyme's and TapeFlow's DRAM traffic over the cache
    sweep, normalised to that kernel's Enzyme32k."""
    caches = sorted({r["cache_kb"] for r in result.rows})
    for ax, k in zip(axes, _kernels(result.rows), strict=True):
        for variant, style, color in (("enzyme", "--", "C0"), ("tapeflow", "-", "C1")):
            ys = [next((r[f"{variant}_norm"] for r in result.rows if r["kernel"] == k and r["cache_kb"] == c), None) for c in caches]
            ax.plot(caches, [np.nan if y is None else y for y in ys], style, marker="o", color=color,
                    label="TapeFlow" if variant == "tapeflow" else "Enzyme")
        ax.set_title(k)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(caches, [f"{c}k" for c in caches], fontsize="small")
        ax.set_xlabel("cache size")
        ax.set_ylabel("DRAM bytes / Enzyme32k's")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize="small")


def _layout(result: Result, ax: Any) -> None:
    kernels = _kernels(result.rows)
    caches = sorted({r["cache_kb"] for r in result.rows})
    series = {
        f"cache {c}k": [next((r["aos_norm"] for r in result.rows if r["kernel"] == k and r["cache_kb"] == c), None) for k in kernels]
        for c in caches
    }
    _bars(ax, kernels, series, "DRAM bytes, AoS / Enzyme's SoA")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.legend(fontsize="small")


def _energy(result: Result, axes: Any) -> None:
    for ax, preset in zip(axes, ("paper", "cacti45")):
        rows = [r for r in result.rows if r["energy_preset"] == preset]
        kernels = _kernels(rows)
        configs = list(dict.fromkeys(r["config"] for r in rows))
        series = {
            c: [next((r["energy_reduction"] for r in rows if r["kernel"] == k and r["config"] == c), None) for k in kernels]
            for c in configs
        }
        _bars(ax, kernels, series, "on-chip energy reduction over Enzyme32k (x)")
        ax.set_title(f"energy preset '{preset}'")
        ax.legend(fontsize="small")


def _tradeoff(result: Result, axes: Any) -> None:
    """One panel per kernel: performance against on-chip energy over the cache
    sweep, both variants, normalised to that kernel's Enzyme1k."""
    for ax, k in zip(axes, _kernels(result.rows), strict=True):
        for variant, marker, color in (("enzyme", "o", "C0"), ("tapeflow", "^", "C1")):
            rows = sorted((r for r in result.rows if r["kernel"] == k and r["variant"] == variant),
                          key=lambda r: r["cache_kb"])
            xs = [r["energy_paper"] for r in rows]
            ys = [r["performance"] for r in rows]
            ax.plot(xs, ys, marker=marker, linestyle="-" if variant == "tapeflow" else ":", color=color,
                    label="TapeFlow" if variant == "tapeflow" else "Enzyme")
            for r, x, y in zip(rows, xs, ys, strict=True):
                if r["cache_kb"] in (rows[0]["cache_kb"], rows[-1]["cache_kb"]) and x and y:
                    ax.annotate(f"{r['cache_kb']}k", (x, y), fontsize="x-small", color=color,
                                textcoords="offset points", xytext=(3, 3))
        ax.set_title(k)
        ax.set_xscale("log")
        ax.set_xlabel("on-chip energy / Enzyme1k's ('paper')")
        ax.set_ylabel("performance / Enzyme1k's (x)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize="small")


def _scratchpad(result: Result, ax: Any) -> None:
    for i, k in enumerate(_kernels(result.rows)):
        rows = sorted((r for r in result.rows if r["kernel"] == k), key=lambda r: r["spad_bytes"])
        ax.plot([r["spad_bytes"] for r in rows], [r["speedup"] for r in rows], marker="o", color=f"C{i}", label=k)
    ax.set_xscale("log", base=2)
    sizes = sorted({r["spad_bytes"] for r in result.rows})
    ax.set_xticks(sizes, [f"{s // 1024**2} MB" if s >= 1024**2 else f"{s // 1024} KB" if s >= 1024 else f"{s} B" for s in sizes])
    ax.set_xlabel("scratchpad size")
    ax.set_ylabel("speedup over Enzyme32k (x)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))


def _unroll(result: Result, axes: Any) -> None:
    sweep = [r for r in result.rows if r["study"] == "sweep"]
    ax = axes[0]
    if sweep:
        x = [str(r["unroll"]) for r in sweep]
        ax.bar(x, [r["speedup"] for r in sweep], color="C0")
        ax.set_xlabel("unroll factor (PathFinder)")
        ax.set_ylabel("speedup of Tflow32k over Enzyme32k (x)")
        twin = ax.twinx()
        twin.plot(x, [r["parallelism_norm"] for r in sweep], "o", color="C3")
        twin.set_ylabel("ops per cycle (parallelism), normalised to unroll 1", color="C3")
    ax.set_title("Fig. 17: deep vs shallow layer graphs")
    wide = [r for r in result.rows if r["study"] != "sweep"]
    if wide:
        _bars(axes[1], [r["kernel"] for r in wide], {"TapeFlow over Enzyme": [r["speedup"] for r in wide]},
              "speedup, both unrolled (x)")
        axes[1].axhline(1.0, color="black", linewidth=0.8)
    axes[1].set_title(f"Fig. 18 analogue: loops unrolled by {wide[0]['unroll'] if wide else '-'}")


def _table2(result: Result, axes: Any) -> None:
    """Layer counts side by side (one unit: layers); working set and inputs as
    ours (KB, x axis) against the paper's (its "K", y axis): never two units on
    one axis."""
    kernels = _kernels(result.rows)
    _bars(axes[0], kernels, {
        "ours": [r["layers"] for r in result.rows], "paper": [r["layers_paper"] for r in result.rows],
    }, "layer count")
    axes[0].set_yscale("log")
    axes[0].legend(fontsize="small")
    axes[0].set_title("layers")
    for ax, (ours, paper, what) in zip(axes[1:], (  # noqa: B905 - two panels, two pairs
        ("working_set_kb", "working_set_k_paper", "working set"),
        ("inputs_kb", "inputs_k_paper", "inputs"),
    )):
        for i, r in enumerate(result.rows):
            x, y = r[ours], r[paper]
            if x and y:
                ax.plot([x], [y], "o", color=f"C{i % 10}")
                ax.annotate(r["kernel"], (x, y), fontsize="x-small", textcoords="offset points", xytext=(3, 3))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"{what}, ours (KB)")
        ax.set_ylabel(f"{what}, paper (K, as Table II prints it)")
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
            (r["speedup_without"] for r in result.rows if r["kernel"] == k and r["without"] == step),
            None,
        )

    series = {"every step": [value(k, None) for k in kernels]}
    series.update({f"without: {s}": [value(k, s) for k in kernels] for s in steps})
    _bars(ax, kernels, series, "speedup of Tflow32k over Enzyme32k (x)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.0, 1.0))


_LAYOUTS: dict[str, tuple[tuple[int, int], Callable[[Result, Any], None]]] = {
    "ablation": ((1, 1), _ablation),
    "performance": ((1, 3), _performance),
    "layout": ((1, 1), _layout),
    "energy": ((1, 2), _energy),
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
        fig, grid = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 3.6 * nrows + 0.6), squeeze=False)
        axes = [ax for row in grid for ax in row]
        for ax in axes[count:]:
            ax.set_visible(False)
        _PER_KERNEL[result.name](result, axes[:count])
    else:
        (nrows, ncols), plot = _LAYOUTS[result.name]
        width = 6.5 * ncols + (2.5 if result.name in _LEGEND_OUTSIDE else 0)
        fig, grid = plt.subplots(nrows, ncols, figsize=(width, 4.8), squeeze=False)
        plot(result, grid[0] if ncols > 1 else grid[0][0])
    fig.suptitle(f"{title}; kernels at '{size}' size" if size else title)
    fig.tight_layout()
    return fig


def draw(
    result: Result, title: str, path: Path, formats: Sequence[str] = ("png",), size: str | None = None
) -> list[str]:
    """Write the experiment's figure as `path` with each format's suffix; the
    names written (none if it has no rows to draw)."""
    fig = figure(result, title, size)
    if fig is None:
        return []
    return save(fig, path.with_suffix(""), formats)


__all__ = ["FORMATS", "draw", "figure", "parse_formats", "save"]
