"""One PNG figure per experiment (matplotlib, no display needed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from tapeflow_benchmarks.harness.experiments import Result  # noqa: E402

Rows = list[dict[str, Any]]


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


def _dram(result: Result, ax: Any) -> None:
    kernels = _kernels(result.rows)
    caches = sorted({r["cache_kb"] for r in result.rows})
    for variant, style in (("enzyme", "--"), ("tapeflow", "-")):
        for i, k in enumerate(kernels):
            ys = [next((r[f"{variant}_norm"] for r in result.rows if r["kernel"] == k and r["cache_kb"] == c), None) for c in caches]
            ax.plot(caches, ys, style, marker="o", color=f"C{i}", label=f"{k} ({variant})" if variant == "tapeflow" else None)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(caches, [f"{c}k" for c in caches])
    ax.set_xlabel("cache size (solid: TapeFlow, dashed: Enzyme)")
    ax.set_ylabel("DRAM bytes / Enzyme32k's")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))


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


def _tradeoff(result: Result, ax: Any) -> None:
    kernels = _kernels(result.rows)
    for i, k in enumerate(kernels):
        for variant, marker in (("enzyme", "o"), ("tapeflow", "^")):
            rows = [r for r in result.rows if r["kernel"] == k and r["variant"] == variant]
            ax.plot([r["energy_paper"] for r in rows], [r["performance"] for r in rows], marker=marker,
                    linestyle="-" if variant == "tapeflow" else ":", color=f"C{i}",
                    label=k if variant == "tapeflow" else None)
    ax.set_xscale("log")
    ax.set_xlabel("on-chip energy / Enzyme1k's ('paper' preset; o Enzyme, ^ TapeFlow, 1-128 KB)")
    ax.set_ylabel("performance / Enzyme1k's (x)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))


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
    kernels = _kernels(result.rows)
    for ax, (ours, paper, label) in zip(axes, (
        ("layers", "layers_paper", "layer count"),
        ("working_set_kb", "working_set_k_paper", "working set (K)"),
    )):
        _bars(ax, kernels, {
            "ours": [r[ours] for r in result.rows], "paper": [r[paper] for r in result.rows],
        }, label)
        ax.set_yscale("log")
        ax.legend(fontsize="small")


_LAYOUTS: dict[str, tuple[tuple[int, int], Callable[[Result, Any], None]]] = {
    "performance": ((1, 3), _performance),
    "dram": ((1, 1), _dram),
    "layout": ((1, 1), _layout),
    "energy": ((1, 2), _energy),
    "tradeoff": ((1, 1), _tradeoff),
    "scratchpad": ((1, 1), _scratchpad),
    "unroll": ((1, 2), _unroll),
    "table2": ((1, 2), _table2),
}


_LEGEND_OUTSIDE = {"dram", "tradeoff", "scratchpad"}


def draw(result: Result, title: str, path: Path) -> bool:
    """Write the experiment's figure; False if it has no rows to draw."""
    if not result.rows:
        return False
    (nrows, ncols), plot = _LAYOUTS[result.name]
    width = 6.5 * ncols + (2.5 if result.name in _LEGEND_OUTSIDE else 0)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, 4.8), squeeze=False)
    plot(result, axes[0] if ncols > 1 else axes[0][0])
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


__all__ = ["draw"]
