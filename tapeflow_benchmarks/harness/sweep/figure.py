"""
A sweep's figure: one column per kernel, the measures against the first swept
key, one line per variant and combination of the other keys.
"""

from __future__ import annotations

from typing import Any

from tapeflow_benchmarks.harness.figures import integer_ticks, pyplot, suptitle
from tapeflow_benchmarks.harness.sweep.plan import Sweep


def sizes_note(sweep: Sweep) -> str:
    """Which size each kernel runs at (for every figure and the report)."""
    parts = [
        f"{k.name} {k.size}" if k.size else f"{k.name} (its own inputs)" for k in sweep.kernels
    ]
    return "sizes: " + ", ".join(parts)


_STYLES = {"enzyme": "--", "aos": ":", "tapeflow": "-"}


def sweep_figure(sweep: Sweep, rows: list[dict[str, Any]]) -> Any:
    """One column per kernel; rows: total cycles, DRAM bytes, on-chip energy,
    against the first swept key; one line per variant and combination of the
    other keys (a first key that is not a number, such as `energy`, is drawn as
    categories in the grid's order). None without a grid or without a finished run."""
    keys = sweep.keys
    ok = [r for r in rows if "error" not in r]
    if not keys or not ok:
        return None
    x_key, others = keys[0], keys[1:]
    numeric = all(isinstance(r[x_key], int | float) and not isinstance(r[x_key], bool) for r in ok)
    order = {str(v): i for i, v in enumerate(sweep.grid[x_key])}

    def x_of(r: dict[str, Any]) -> Any:
        return r[x_key] if numeric else str(r[x_key])

    def x_rank(r: dict[str, Any]) -> Any:
        return r[x_key] if numeric else order.get(str(r[x_key]), len(order))

    kernels = list(dict.fromkeys(k.name for k in sweep.kernels))
    measures = (
        ("cycles_total", "total cycles"),
        ("dram_total", "DRAM bytes"),
        ("energy_onchip_pj", "on-chip energy (pJ)"),
    )
    fig, axes = pyplot().subplots(
        len(measures),
        len(kernels),
        figsize=(4.2 * len(kernels) + 2.5, 3.0 * len(measures)),
        squeeze=False,
    )
    series_keys = ["variant", "unroll", *others]
    for col, kernel in enumerate(kernels):
        mine = [r for r in ok if r["kernel"] == kernel]
        series: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for r in mine:
            series.setdefault(tuple(r[k] for k in series_keys), []).append(r)
        for row, (measure, label) in enumerate(measures):
            ax = axes[row][col]
            for i, (name, points) in enumerate(sorted(series.items(), key=lambda s: str(s[0]))):
                points = sorted(points, key=x_rank)
                text = (
                    f"{name[0]}"
                    + (f" x{name[1]}" if name[1] != 1 else "")
                    + "".join(f" {k}={v}" for k, v in zip(others, name[2:], strict=True))
                )
                ax.plot(
                    [x_of(r) for r in points],
                    [r[measure] for r in points],
                    marker="o",
                    linestyle=_STYLES.get(name[0], "-"),
                    color=f"C{i % 10}",
                    label=text,
                )
            if row == 0:
                ax.set_title(kernel)
            if row == len(measures) - 1:
                ax.set_xlabel(x_key)
            if col == 0:
                ax.set_ylabel(label)
            values = [r[x_key] for r in mine]
            if numeric and values and min(values) > 0 and max(values) / min(values) >= 16:
                ax.set_xscale("log", base=2)
                ax.set_xticks(sorted(set(values)), [f"{v:g}" for v in sorted(set(values))])
            elif numeric:
                integer_ticks(ax.xaxis, values)
            ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    suptitle(fig, f"Sweep {sweep.name} ({sizes_note(sweep)})")
    fig.tight_layout()
    return fig


__all__ = ["sizes_note", "sweep_figure"]
