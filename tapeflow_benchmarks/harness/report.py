"""
The results folder: `results.json` (every measured number: each experiment's rows
and summary, the claims, and every simulated point's full report, whose `hardware`
is the point's whole machine), one CSV per experiment plus `runs.csv`, one figure
per experiment and timing model in each format asked for (PNG by default:
`figures/<experiment>-<model>.<format>`), and `report.md`, which sets our numbers
beside the paper's claims.

Every row says which timing model produced it: a `model` column first in each CSV
(`runs.csv` included) and in each row of `results.json`, whose experiment
summaries and headline are keyed by model. The claims table puts the models side
by side (`claims.compare`).

The folder is written as a whole: into a temporary folder beside it, renamed into
place only when every file is complete (`tapeflow_tools.atomic.atomic_directory`),
with a marker (`.tapeflow-results.json`) listing the files written. An interrupted
or failed write leaves the previous folder as it was; a new one replaces the
files an earlier run wrote, so none of them survives beside the new report, and
keeps every other file (a user's notes) as it was.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from tapeflow_benchmarks.harness.authors import AUTHORS_COLUMNS, authors_rows
from tapeflow_benchmarks.harness.authors_sweep import (
    REPOSITORY,
    SWEEP_COLUMNS,
    side_by_side,
    sources,
)
from tapeflow_benchmarks.harness.claims import Comparison
from tapeflow_benchmarks.harness.claims.render import bottom_line, claim_record, claims_markdown
from tapeflow_benchmarks.harness.columns import point_fields, run_row
from tapeflow_benchmarks.harness.experiments import BREAKDOWN, EXPERIMENTS, Result
from tapeflow_benchmarks.harness.figures import draw
from tapeflow_benchmarks.harness.points import KB, Point
from tapeflow_benchmarks.harness.workers import local_pool, signals_held, stopped_on_interrupt
from tapeflow_tools.atomic import atomic_directory

Report = dict[str, Any]


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-2):
            return f"{value:.3g}"
        return f"{value:.2f}"
    return str(value)


def markdown_table(rows: list[dict[str, Any]], columns: list[str] | None = None) -> str:
    if not rows:
        return "(no rows)\n"
    columns = columns or list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    columns = list(dict.fromkeys(c for r in rows for c in r))
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def headline(results: dict[str, Result]) -> list[dict[str, Any]]:
    """Per kernel: the speedups, DRAM, energy (both presets) and SRAM reductions of
    TapeFlow over Enzyme32k (the report's headline table)."""
    perf = results.get("performance")
    dram = results.get("dram")
    energy = results.get("energy")
    kernels = list(dict.fromkeys(r["kernel"] for r in perf.rows)) if perf else []
    rows = []
    for k in kernels:
        row: dict[str, Any] = {"kernel": k}
        for r in perf.rows if perf else []:
            if r["kernel"] == k and r["baseline"] == "Enzyme32k":
                row[f"{r['config']} speedup"] = r["speedup_total"]
        for r in dram.rows if dram else []:
            if r["kernel"] == k and r["cache_kb"] == 32:
                row["DRAM reduction (32k)"] = r["reduction"]
        for r in energy.rows if energy else []:
            if r["kernel"] == k and r["config"] == "Tflow32k":
                row[f"energy reduction (Tflow32k, {r['energy_preset']})"] = r["energy_reduction"]
            if r["kernel"] == k and r["energy_preset"] == "paper":
                if r["config"] == "ISO-perf":
                    row["ISO-perf cache"] = f"{r['cache_kb']:g} KB"
                    row["SRAM reduction"] = r["sram_reduction"]
        rows.append(row)
    return rows


HEADLINE_COLUMNS = [
    "kernel",
    "Tflow32k speedup",
    "Tflow2k speedup",
    "Tflow1k speedup",
    "DRAM reduction (32k)",
    "energy reduction (Tflow32k, paper)",
    "energy reduction (Tflow32k, cacti45)",
    "ISO-perf cache",
    "SRAM reduction",
]


Models = dict[str, dict[str, Result]]
"""Timing model -> that model's experiments, by name."""


def write(
    out: Path,
    meta: dict[str, Any],
    results: Models,
    claims: list[Comparison],
    runs: dict[Point, Report],
    formats: Sequence[str] = ("png",),
) -> list[Path]:
    """Write the folder (replacing an earlier run's files in `out` once complete);
    returns the figures written, as paths under `out`."""
    with atomic_directory(out) as temp:
        names = _write_into(temp, meta, results, claims, runs, formats)
    return [out / "figures" / name for name in names]


def figure_name(name: str, model: str) -> str:
    """The figure of experiment `name` under `model`, without its format's suffix."""
    return f"{name}-{model}"


def _draw(job: tuple[Result, str, Path, Sequence[str], str | None]) -> list[str]:
    result, title, path, formats, size = job
    return draw(result, title, path, formats, size=size)


def _draw_all(
    jobs: list[tuple[Result, str, Path, Sequence[str], str | None]], processes: int
) -> list[list[str]]:
    """Each figure's file names, drawn in `processes` local processes (the
    evaluation's `--jobs`; a figure takes half a second of matplotlib); in this
    process if a worker is lost (killed, as the out-of-memory killer does)."""
    if processes > 1 and len(jobs) > 1:
        try:
            with stopped_on_interrupt(local_pool(min(processes, len(jobs)))) as pool:
                with signals_held():  # the workers start here
                    names = pool.map(_draw, jobs)
                return list(names)
        except BrokenProcessPool:
            pass
    return [_draw(job) for job in jobs]


def _names(results: Models) -> list[str]:
    return list(dict.fromkeys(name for by_name in results.values() for name in by_name))


def _write_into(
    out: Path,
    meta: dict[str, Any],
    results: Models,
    claims: list[Comparison],
    runs: dict[Point, Report],
    formats: Sequence[str] = ("png",),
) -> list[str]:
    (out / "csv").mkdir()
    (out / "figures").mkdir()
    figures: list[str] = []
    shown: dict[tuple[str, str], str] = {}
    jobs: list[tuple[Result, str, Path, Sequence[str], str | None]] = []
    keys: list[tuple[str, str]] = []
    for name in _names(results):
        experiment = EXPERIMENTS[name]
        rows = [{"model": m, **r} for m, by_name in results.items() for r in by_name[name].rows]
        if rows:
            _write_csv(out / "csv" / f"{name}.csv", rows)
        for model, by_name in results.items():
            path = out / "figures" / figure_name(name, model)
            title = f"{experiment.title} ({experiment.paper}), {model} model"
            jobs.append((by_name[name], title, path, formats, meta["size"]))
            keys.append((name, model))
    for key, drawn in zip(keys, _draw_all(jobs, meta.get("jobs", 1)), strict=True):
        if drawn:
            figures += drawn
            shown[key] = drawn[0]
    ordered = sorted(runs.items())
    _write_csv(out / "csv" / "runs.csv", [run_row(p, r) for p, r in ordered])
    programs = authors_rows(runs)
    if programs:
        _write_csv(out / "csv" / "authors_programs.csv", programs)
    data = {
        "meta": meta,
        "headline": {m: headline(by_name) for m, by_name in results.items()},
        "experiments": {
            name: {
                "title": EXPERIMENTS[name].title,
                "paper": EXPERIMENTS[name].paper,
                "summary": {m: by_name[name].summary for m, by_name in results.items()},
                "rows": [
                    {"model": m, **r} for m, by_name in results.items() for r in by_name[name].rows
                ],
                "notes": [
                    f"[{m}] {n}" for m, by_name in results.items() for n in by_name[name].notes
                ],
            }
            for name in _names(results)
        },
        "claims": [claim_record(c) for c in claims],
        "authors_sweep": side_by_side(results),
        "runs": [{**point_fields(p, r), "report": r} for p, r in ordered],
    }
    (out / "results.json").write_text(
        json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8"
    )
    (out / "report.md").write_text(
        _markdown(meta, results, claims, shown, programs), encoding="utf-8"
    )
    return figures


_MODEL_ONLY = {"authors_reduction"}
"""Columns of numbers only some timing models report (`TimingModel.add_counts`)."""

_ROW_COLUMNS = {
    "performance": [
        "kernel",
        "config",
        "baseline",
        "speedup_fwd",
        "speedup_rev",
        "speedup_total",
        "hit_rate_fwd_baseline",
        "hit_rate_fwd",
        "hit_rate_rev_baseline",
        "hit_rate_rev",
        "stall_share_baseline",
        "stall_share",
        "stream_stall_share",
        "prefetch_distance",
        "ops_unplaced",
        "ops_unplaced_baseline",
    ],
    "dram": [
        "kernel",
        "cache_kb",
        "enzyme_norm",
        "tapeflow_norm",
        "reduction",
        "enzyme_tape_bytes",
        "tapeflow_tape_bytes",
        "authors_reduction",
    ],
    "layout": ["kernel", "cache_kb", "aos_norm", "enzyme_tape_bytes", "aos_tape_bytes", "speedup"],
    "energy": [
        "energy_preset",
        "kernel",
        "config",
        "cache_kb",
        "energy_reduction",
        "sram_bytes",
        "sram_reduction",
        "cycles_ratio",
    ],
    "tradeoff": ["kernel", "variant", "cache_kb", "performance", "energy_paper", "energy_cacti45"],
    "scratchpad": [
        "kernel",
        "spad_bytes",
        "speedup",
        "layers",
        "ops_per_layer",
        "memory_stall_share",
        "stream_stall_share",
    ],
    "unroll": [
        "kernel",
        "study",
        "unroll",
        "unroll_ran",
        "speedup",
        "layers",
        "ops_per_layer",
        "ops_per_cycle",
        "parallelism_norm",
        "enzyme_ops_per_cycle",
        "ops_unplaced",
        "enzyme_ops_unplaced",
        *(f"{prefix}{part}" for prefix in ("", "enzyme_") for part in BREAKDOWN),
    ],
    "ablation": [
        "kernel",
        "without",
        "enzyme_cycles",
        "tapeflow_cycles",
        "enzyme_gain",
        "tapeflow_gain",
        "speedup_without",
        "speedup",
    ],
    "table2": [
        "kernel",
        "class",
        "tensors_per_loop",
        "tensors_per_loop_paper",
        "working_set_kb",
        "working_set_k_paper",
        "inputs_kb",
        "inputs_k_paper",
        "tape_kb",
        "layers",
        "layers_paper",
    ],
}


def _sweep_section(results: Models, size: str) -> list[str]:
    """The paper, the authors' raw sweep and ours, for the claims it covers."""
    lines = [
        "## The paper, the authors' own sweep and ours",
        "",
        "For the claims the authors' public raw sweep covers: the paper's number, the "
        "one their gem5-SALAM runs recorded (the sizes of `--size artifact`; files of "
        f"`{REPOSITORY}`: {sources()}; `ad` over `orig`), and ours under each model "
        f"(`{size}` size). DRAM is compared at 16 KB, the size whose totals "
        "docs/research/gem5-salam.md quotes; salam also counts it the authors' way.",
        "",
    ]
    if size != "artifact":
        lines += [
            f"Ours here are at `{size}` size, not the authors' programs: set them against "
            "their sweep from a run with `--size artifact`.",
            "",
        ]
    models = list(results)
    columns = SWEEP_COLUMNS + models
    rows = side_by_side(results)
    return [*lines, markdown_table(rows, columns)]


def _markdown(
    meta: dict[str, Any],
    results: Models,
    claims: list[Comparison],
    figures: dict[tuple[str, str], str] | None = None,
    programs: list[dict[str, Any]] | None = None,
) -> str:
    models = list(results)
    lines = [
        "# TapeFlow evaluation: our model next to the paper",
        "",
        f"Command: `{meta['command']}`  ",
        f"Kernels: {', '.join(meta['kernels'])} at `{meta['size']}` size; "
        f"experiments: {', '.join(meta['experiments'])}; timing models: {', '.join(models)}.  ",
        f"{meta['points']} simulated points ({meta['cached']} from the cache, "
        f"{meta['computed_groups']} runs computed) in {meta['seconds']:.0f} s with "
        f"{meta['jobs']} job(s); code fingerprint `{meta['code']}`.",
        "",
        "Hardware: the paper's Table III (4x4 FP64 grid, 512 B scratchpad in 8 banks, "
        "19.2 GB/s DDR4, caches 1-128 KB with Table III's associativities); the "
        "modelling choices and their sources are in `targets/hardware.py` and "
        "docs/DESIGN.md. Timing models: `cgra` is the pipelined CGRA of `sim/timing.py`; "
        "`salam` the authors' gem5-SALAM machine (docs/research/gem5-salam.md). "
        "Speedup is Enzyme's cycles over TapeFlow's; a reduction is Enzyme's quantity "
        "over TapeFlow's. In the figures the paper's values are drawn in black (dashed "
        "lines, stars; grey bands for its ranges), and a bar without a value says n/a.",
        "",
    ]
    if meta["size"] == "small":
        lines += [
            "**These are `small` sizes (`--size small`, `--quick`)**: the kernels are far "
            "smaller than the paper's, so the numbers check the pipeline, not the paper: "
            "every claim below is measured, not judged.",
            "",
        ]
    elif meta["size"] == "artifact":
        lines += [
            "**These are the `artifact` sizes** (`--size artifact`): the sizes and unroll "
            "factors of the authors' gem5-SALAM runs, not the paper's Table II "
            "(tapeflow_benchmarks/kernels/*.py say which, kernel by kernel).",
            "",
        ]
    if meta.get("failed"):
        lines += ["## Failed runs", ""] + [f"- {f}" for f in meta["failed"]] + [""]
    lines += bottom_line(claims, models, meta["size"])
    lines += _sweep_section(results, meta["size"])
    for model in models:
        title = "## Headline" + (f" ({model} model)" if len(models) > 1 else "")
        lines += [title, "", markdown_table(headline(results[model]), HEADLINE_COLUMNS)]
    lines += claims_markdown(claims, models)
    for name in _names(results):
        experiment = EXPERIMENTS[name]
        lines += [f"## {experiment.title} ({experiment.paper})", ""]
        for model in models:
            result = results[model][name]
            if len(models) > 1:
                lines += [f"### {model} model", ""]
            if result.rows:
                figure = (figures or {}).get((name, model), f"{figure_name(name, model)}.png")
                lines += [
                    f"![{name}, {model}](figures/{figure})",
                    "",
                    f"Data: `csv/{name}.csv` (rows with model `{model}`).",
                    "",
                ]
                columns = _ROW_COLUMNS.get(name)
                if columns is not None:  # not a number this model does not report
                    columns = [
                        c
                        for c in columns
                        if c not in _MODEL_ONLY or any(r.get(c) is not None for r in result.rows)
                    ]
                lines.append(markdown_table(result.rows, columns))
            for note in result.notes:
                lines.append(f"- {note}")
            lines.append("")
    if programs:
        lines += [
            "## The authors' programs next to ours (salam, artifact size)",
            "",
            "What the authors' gem5-SALAM runs executed (their C through clang and their "
            "Enzyme for LLVM) against this project's `artifact` programs, and what still "
            "differs (`tapeflow_benchmarks/harness/authors.py`; data: "
            "`csv/authors_programs.csv`). Ours: the tape values TapeFlow writes and reads "
            "back, and the Enzyme baseline's cache accesses per sweep, at 32 KB. DRAM "
            "counted the authors' way is the dram table's `authors_reduction` and runs.csv's "
            "`dram_authors_bytes`.",
            "",
            markdown_table(programs, AUTHORS_COLUMNS),
        ]
    lines += [
        "## Units",
        "",
        f"Cache sizes in KB (1 KB = {KB} B). Energies are on-chip (caches, scratchpad, "
        "FUs), in pJ, with the 'paper' preset unless the column says 'cacti45'. Table II's "
        "paper columns are in thousands as the paper prints them; ours in KB.",
        "",
    ]
    return "\n".join(lines)


__all__ = ["HEADLINE_COLUMNS", "Models", "figure_name", "headline", "markdown_table", "write"]
