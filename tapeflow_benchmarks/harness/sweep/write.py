"""
A sweep's results folder: `csv/runs.csv` (the point's fields, one column per
swept key, then the numbers: `harness/columns.py`), `results.json`,
`figures/sweep.<format>` and `report.md`, written as a whole.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tapeflow_benchmarks.harness.columns import point_fields, run_row
from tapeflow_benchmarks.harness.figures import save
from tapeflow_benchmarks.harness.points import Point
from tapeflow_benchmarks.harness.report import markdown_table
from tapeflow_benchmarks.harness.sweep.figure import sizes_note, sweep_figure
from tapeflow_benchmarks.harness.sweep.kinks import kinks
from tapeflow_benchmarks.harness.sweep.plan import Sweep
from tapeflow_tools.atomic import atomic_directory

Report = dict[str, Any]


def ordered(sweep: Sweep, runs: dict[Point, Report]) -> list[tuple[Point, dict[str, Any], Report]]:
    """The rows in the sweep's order (kernel, variant, grid combination), each with
    its swept values and its point's run."""
    return [(p, swept, runs[p]) for p, swept in sweep.rows if p in runs]


def unroll_notes(sweep: Sweep, runs: dict[Point, Report]) -> list[str]:
    """One line per kernel and variant whose loops ran unrolled by another factor
    than the variant asks (each tape loop takes the largest divisor of its trip
    count up to it): what runs.csv and the hardware record then say."""
    notes: dict[str, None] = {}
    for point, _, report in ordered(sweep, runs):
        ran = report.get("hardware", {}).get("unroll")
        asked = point.group.unroll
        if isinstance(ran, int) and ran != asked:
            label = " ".join(
                x for x in (point.group.kernel, point.group.size, point.group.variant) if x
            )
            notes[
                f"{label}: unroll {asked} ran as unroll {ran} (each tape loop takes the largest "
                f"divisor of its trip count up to {asked}); "
                f"runs.csv and the hardware record say {ran}"
            ] = None
    return list(notes)


def run_rows(sweep: Sweep, runs: dict[Point, Report]) -> list[dict[str, Any]]:
    """`runs.csv`: the point's fields, one column per swept key, then the numbers."""
    rows = []
    for point, swept, report in ordered(sweep, runs):
        fields = point_fields(point, report)
        row = run_row(point, report)
        numbers = {k: v for k, v in row.items() if k not in fields}
        rows.append({**fields, **swept, **numbers})
    return rows


def _table(rows: list[dict[str, Any]], keys: list[str]) -> str:
    columns = [
        "kernel",
        "variant",
        "unroll",
        *keys,
        "cycles_total",
        "cycles_memory_stall",
        "cycles_stream_stall",
        "cache_hit_rate",
        "dram_total",
        "energy_onchip_pj",
        "layers",
    ]
    if any("error" in r for r in rows):
        columns.append("error")
    return markdown_table(rows, columns)


def write_sweep(
    out: Path, meta: dict[str, Any], sweep: Sweep, runs: dict[Point, Report], formats: Sequence[str]
) -> list[Path]:
    """The results folder, replacing `out` as a whole once complete; returns the
    figures written."""
    with atomic_directory(out) as temp:
        names = _write_into(temp, meta, sweep, runs, formats)
    return [out / "figures" / name for name in names]


def _write_into(
    out: Path, meta: dict[str, Any], sweep: Sweep, runs: dict[Point, Report], formats: Sequence[str]
) -> list[str]:
    (out / "csv").mkdir()
    (out / "figures").mkdir()
    rows = run_rows(sweep, runs)
    with (out / "csv" / "runs.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(dict.fromkeys(c for r in rows for c in r)))
        writer.writeheader()
        writer.writerows(rows)
    figures: list[str] = []
    figure = sweep_figure(sweep, rows)
    if figure is not None:
        figures = save(figure, out / "figures" / "sweep", formats)
    steps = kinks(rows, sweep.keys)
    data = {
        "meta": meta,
        "sweep": sweep.definition,
        "non_monotone": [k.describe() for k in steps],
        "runs": [
            {**point_fields(p, r), "swept": swept, "report": r}
            for p, swept, r in ordered(sweep, runs)
        ],
    }
    (out / "results.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    lines = [
        f"# Sweep: {sweep.name}",
        "",
        f"Command: `{meta['command']}`  ",
        f"Sweep file: `{sweep.path}`; {sizes_note(sweep)}; timing model `{sweep.model}`.  ",
        f"{meta['points']} simulated points ({meta['cached']} from the cache, "
        f"{meta['computed_groups']} runs computed) in {meta['seconds']:.0f} s on "
        f"{meta['engine']}; code fingerprint `{meta['code']}`.",
        "",
        "Each point's whole machine (every hardware parameter, the model, variant, unroll, "
        "energy preset and package versions) is its report's `hardware` in `results.json`.",
        "",
        "## Grid",
        "",
    ]
    lines += [
        f"- `{key}`: {', '.join(map(str, values))}" for key, values in sweep.grid.items()
    ] or ["- (no grid: one machine per variant)"]
    lines += [""]
    if meta.get("failed"):
        lines += ["## Failed runs", ""] + [f"- {f}" for f in meta["failed"]] + [""]
    if steps:
        lines += (
            [
                "## Non-monotone steps",
                "",
                "Runs where a better machine (more of a resource, or less latency, all else "
                "equal) took more cycles, each with the part of its cycles that grew:",
                "",
            ]
            + [f"- {k.describe()}" for k in steps]
            + [""]
        )
    lines += ["## Runs", ""]
    if figures:
        lines += [f"![sweep](figures/{figures[0]})", ""]
    lines += ["Data: `csv/runs.csv` (one column per swept key).", "", _table(rows, sweep.keys)]
    (out / "report.md").write_text("\n".join(lines), encoding="utf-8")
    return figures


__all__ = ["ordered", "run_rows", "unroll_notes", "write_sweep"]
