"""
The paper's evaluation (Section VI-VII, Table II) as experiments over simulated
points. Each experiment says which points it needs and turns their reports into
rows (one CSV each) and a summary (the numbers the report compares with the
paper's claims).

The configurations are the paper's: the Enzyme baseline (tape through the cache)
at 32 KB and 1 KB, TapeFlow with a 512 B scratchpad at 32 KB, 2 KB and 1 KB
(`targets.hardware.PRESETS`), and sweeps of the cache (1-128 KB, Table III's
associativities), of the scratchpad (64 B-1 MB) and of the unroll factor.

Experiments do not know the timing model: their points are built for the default
one and the bench re-targets them to each model it runs (`points.with_model`),
analysing each model's points separately. A point's unroll factor defaults to 1
(the `artifact` preset's programs are written unrolled, as the authors' clang
pragmas unrolled them before their Enzyme).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from math import exp, log
from typing import Any

from sim.tape_warnings import COST_MODEL
from tapeflow_benchmarks.harness.points import FULL_UNROLL, KB, Group, Point
from tapeflow_benchmarks.paper import TABLE_II, TableII

Report = dict[str, Any]
Lookup = Callable[[Point], Report | None]

CACHE_SWEEP = tuple(k * KB for k in (1, 2, 4, 8, 16, 32, 64, 128))
SPAD_SWEEP = (64, 256, 1 * KB, 4 * KB, 16 * KB, 64 * KB, 256 * KB, 1024 * KB)
UNROLL_SWEEP = (1, 2, 4, 8, 16)
WIDE_UNROLL = FULL_UNROLL
"""Fig. 18 unrolls the benchmarks fully: every tape loop's whole trip count
(PathFinder's 256 columns at paper size), no cap."""
SPAD = 512
"""The paper's scratchpad: 64 entries, 8 banks."""
ISO_PERF_SLACK = 0.05
"""ISO-performance: within 5% of Enzyme32k's cycles."""
ENERGIES = ("paper", "cacti45")
UNROLL_KERNEL = "pathfinder"
"""Section VII.B varies the unroll factor on PathFinder."""

TFLOW = {"Tflow32k": 32 * KB, "Tflow2k": 2 * KB, "Tflow1k": 1 * KB}
ENZYME = {"Enzyme32k": 32 * KB, "Enzyme1k": 1 * KB}


def enzyme(
    kernel: str, size: str, cache: int, energy: str = "paper", unroll: int | None = None
) -> Point:
    return Point(Group(kernel, size, "enzyme", 0, unroll or 1), cache, energy)


def aos(kernel: str, size: str, cache: int, energy: str = "paper") -> Point:
    return Point(Group(kernel, size, "aos", 0, 1), cache, energy)


def tapeflow(
    kernel: str,
    size: str,
    cache: int,
    spad: int = SPAD,
    energy: str = "paper",
    unroll: int | None = None,
) -> Point:
    return Point(Group(kernel, size, "tapeflow", spad, unroll or 1), cache, energy)


@dataclass
class Result:
    name: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Experiment:
    name: str
    title: str
    paper: str
    """Where the paper shows it."""
    points: Callable[[list[str], str], list[Point]]
    analyse: Callable[[list[str], str, Lookup], Result]
    models: tuple[str, ...] = ()
    """The timing models whose mechanisms it varies (empty: every model)."""
    default: bool = True
    """Part of the evaluation when `--only` does not name the experiments."""

    def runs_under(self, model: str) -> bool:
        return not self.models or model in self.models


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v and v > 0]
    return exp(sum(log(v) for v in values) / len(values)) if values else None


def _ok(lookup: Lookup, result: Result, point: Point) -> Report | None:
    """The point's report, or None with a note if it failed or is missing."""
    report = lookup(point)
    if report is None:
        result.notes.append(f"{point.label()}: not run")
        return None
    if "error" in report:
        result.notes.append(f"{point.label()}: failed: {report['error']}")
        return None
    return report


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def _stall_share(report: Report) -> float | None:
    """The share of the cycles spent waiting for memory (misses, REV tiles)."""
    c = report["cycles"]
    return _ratio(c.get("memory_stall", 0) + c.get("stream_stall", 0), c["total"])


def _hit_rate(report: Report, phase: str) -> float | None:
    c = report["cache"][phase]
    total = c["hits"] + c["misses"]
    return c["hits"] / total if total else None


BREAKDOWN = ("compute", "fill_drain", "stream_stall", "memory_stall", "config")
"""Where a run's cycles go (`sim.models.Cycles`): issuing ops, filling and
draining kernel pipelines, waiting for REV tiles (or scratchpad space), waiting
for the cache and DRAM, and loading the grid's configurations."""


def breakdown(report: Report) -> dict[str, int]:
    """The run's cycles by `BREAKDOWN` category (they add up to the total)."""
    c = report["cycles"]
    parts = {name: int(c.get(name, 0)) for name in BREAKDOWN[1:]}
    parts["compute"] = int(c["total"]) - sum(parts.values())
    return {name: parts[name] for name in BREAKDOWN}


def _shares(report: Report, prefix: str) -> dict[str, float | None]:
    total = report["cycles"]["total"]
    return {f"{prefix}{name}": _ratio(v, total) for name, v in breakdown(report).items()}


def _loses(kernel: str, e: Report, t: Report, where: str) -> str | None:
    """Why TapeFlow is slower than Enzyme on `kernel`, if it is: the category in
    which it spends the most cycles beyond Enzyme's."""
    if t["cycles"]["total"] <= e["cycles"]["total"]:
        return None
    ours, theirs = breakdown(t), breakdown(e)
    worst = max(BREAKDOWN, key=lambda name: ours[name] - theirs[name])
    return (
        f"{kernel} ({where}): TapeFlow is slower ({t['cycles']['total']} cycles against "
        f"Enzyme's {e['cycles']['total']}), most of the difference in "
        f"{worst.replace('_', '/')} ({ours[worst]} cycles against Enzyme's {theirs[worst]})"
    )


# ------------------------------------------------------------------ performance
def _performance_points(kernels: list[str], size: str) -> list[Point]:
    return [enzyme(k, size, c) for k in kernels for c in ENZYME.values()] + [
        tapeflow(k, size, c) for k in kernels for c in TFLOW.values()
    ]


def _performance(kernels: list[str], size: str, lookup: Lookup) -> Result:
    result = Result("performance")
    for k in kernels:
        for base_name, base_cache in ENZYME.items():
            base = _ok(lookup, result, enzyme(k, size, base_cache))
            for name, cache in TFLOW.items():
                ours = _ok(lookup, result, tapeflow(k, size, cache))
                if base is None or ours is None:
                    continue
                row: dict[str, Any] = {"kernel": k, "config": name, "baseline": base_name}
                for phase in ("fwd", "rev", "total"):
                    row[f"speedup_{phase}"] = _ratio(base["cycles"][phase], ours["cycles"][phase])
                for phase in ("fwd", "rev"):
                    row[f"hit_rate_{phase}_baseline"] = _hit_rate(base, phase)
                    row[f"hit_rate_{phase}"] = _hit_rate(ours, phase)
                row["cycles_baseline"] = base["cycles"]["total"]
                row["cycles"] = ours["cycles"]["total"]
                row["stall_share_baseline"] = _stall_share(base)
                row["stall_share"] = _stall_share(ours)
                row["stream_stall_share"] = _ratio(
                    ours["cycles"].get("stream_stall", 0), ours["cycles"]["total"]
                )
                row["prefetch_distance"] = ours["streams"].get("prefetch_distance")
                row["ops_unplaced"] = ours["ops"].get("unplaced")
                row["ops_unplaced_baseline"] = base["ops"].get("unplaced")
                row["layers"] = ours["layers"]
                result.rows.append(row)
                if name == "Tflow32k" and base_name == "Enzyme32k":
                    note = _loses(k, base, ours, "Tflow32k")
                    if note:
                        result.notes.append(note)
    for base_name in ENZYME:
        for name in TFLOW:
            speedups = [
                r["speedup_total"]
                for r in result.rows
                if r["config"] == name and r["baseline"] == base_name
            ]
            if speedups:
                result.summary[f"{name}/{base_name}"] = {
                    "geomean": geomean(speedups),
                    "min": min(speedups),
                    "max": max(speedups),
                }
    stalls = {
        r["kernel"]: r["stall_share_baseline"] for r in result.rows if r["baseline"] == "Enzyme32k"
    }
    if stalls:
        result.summary["enzyme32k_stall_share"] = {
            "min": min(stalls.values()),
            "max": max(stalls.values()),
            "per_kernel": stalls,
        }
    return result


# --------------------------------------------------------------------- DRAM
def _sweep_points(kernels: list[str], size: str) -> list[Point]:
    return [
        p
        for k in kernels
        for c in CACHE_SWEEP
        for e in ENERGIES
        for p in (enzyme(k, size, c, e), tapeflow(k, size, c, energy=e))
    ]


def _dram(kernels: list[str], size: str, lookup: Lookup) -> Result:
    result = Result("dram")
    for k in kernels:
        reference = _ok(lookup, result, enzyme(k, size, 32 * KB))
        if reference is None:
            continue
        norm = reference["dram_bytes"]["total"]
        for c in CACHE_SWEEP:
            e = _ok(lookup, result, enzyme(k, size, c))
            t = _ok(lookup, result, tapeflow(k, size, c))
            if e is None or t is None:
                continue
            result.rows.append(
                {
                    "kernel": k,
                    "cache_kb": c // KB,
                    "enzyme_bytes": e["dram_bytes"]["total"],
                    "tapeflow_bytes": t["dram_bytes"]["total"],
                    "enzyme_tape_bytes": e["dram_bytes"]["tape"],
                    "tapeflow_tape_bytes": t["dram_bytes"]["tape"],
                    "enzyme_norm": _ratio(e["dram_bytes"]["total"], norm),
                    "tapeflow_norm": _ratio(t["dram_bytes"]["total"], norm),
                    "reduction": _ratio(e["dram_bytes"]["total"], t["dram_bytes"]["total"]),
                    # DRAM as the authors' `cache_stat_extractor.py` counts it
                    # (`sim.timing.authors_dram_bytes`), beside ours.
                    "enzyme_authors_bytes": e["dram_bytes"].get("authors"),
                    "tapeflow_authors_bytes": t["dram_bytes"].get("authors"),
                    "authors_reduction": _ratio(
                        e["dram_bytes"].get("authors") or 0, t["dram_bytes"].get("authors") or 0
                    ),
                }
            )
    by = {(r["kernel"], r["cache_kb"]): r for r in result.rows}
    reductions = [r["reduction"] for r in result.rows if r["reduction"]]
    if reductions:
        best = max(result.rows, key=lambda r: r["reduction"] or 0)
        result.summary["max_reduction"] = {
            "value": best["reduction"],
            "kernel": best["kernel"],
            "cache_kb": best["cache_kb"],
        }
    per_kernel: dict[str, dict[str, Any]] = {}
    for r in result.rows:
        if r["reduction"] and r["reduction"] > per_kernel.get(r["kernel"], {}).get("value", 0):
            per_kernel[r["kernel"]] = {"value": r["reduction"], "cache_kb": r["cache_kb"]}
    if per_kernel:
        result.summary["max_reduction_per_kernel"] = per_kernel
    for k in kernels:
        for c in (1, 32):
            if (k, c) in by:
                result.summary[f"{k}@{c}k"] = by[(k, c)]["reduction"]
    return result


# ------------------------------------------------------------------- layout
LAYOUT_CACHES = (1 * KB, 2 * KB, 32 * KB)


def _layout_points(kernels: list[str], size: str) -> list[Point]:
    return [
        p for k in kernels for c in LAYOUT_CACHES for p in (enzyme(k, size, c), aos(k, size, c))
    ]


def _layout(kernels: list[str], size: str, lookup: Lookup) -> Result:
    result = Result("layout")
    for k in kernels:
        for c in LAYOUT_CACHES:
            e = _ok(lookup, result, enzyme(k, size, c))
            a = _ok(lookup, result, aos(k, size, c))
            if e is None or a is None:
                continue
            result.rows.append(
                {
                    "kernel": k,
                    "cache_kb": c // KB,
                    "enzyme_bytes": e["dram_bytes"]["total"],
                    "aos_bytes": a["dram_bytes"]["total"],
                    "aos_norm": _ratio(a["dram_bytes"]["total"], e["dram_bytes"]["total"]),
                    "enzyme_tape_bytes": e["dram_bytes"]["tape"],
                    "aos_tape_bytes": a["dram_bytes"]["tape"],
                    "speedup": _ratio(e["cycles"]["total"], a["cycles"]["total"]),
                }
            )
    if result.rows:
        best = min(result.rows, key=lambda r: r["aos_norm"] if r["aos_norm"] is not None else 9)
        result.summary["max_reduction_percent"] = {
            "value": 100 * (1 - best["aos_norm"]),
            "kernel": best["kernel"],
            "cache_kb": best["cache_kb"],
        }
        worst = max(result.rows, key=lambda r: r["aos_norm"] or 0)
        result.summary["max_increase_percent"] = {
            "value": 100 * (worst["aos_norm"] - 1),
            "kernel": worst["kernel"],
            "cache_kb": worst["cache_kb"],
        }
    return result


# ------------------------------------------------------------ energy and SRAM
def _energy(kernels: list[str], size: str, lookup: Lookup) -> Result:
    result = Result("energy")
    for energy in ENERGIES:
        for k in kernels:
            base = _ok(lookup, result, enzyme(k, size, 32 * KB, energy))
            if base is None:
                continue
            sweep = {
                c: _ok(lookup, result, tapeflow(k, size, c, energy=energy)) for c in CACHE_SWEEP
            }
            bound = base["cycles"]["total"] * (1 + ISO_PERF_SLACK)
            iso = next(
                (
                    c
                    for c in CACHE_SWEEP
                    if sweep[c] is not None and sweep[c]["cycles"]["total"] <= bound
                ),  # type: ignore[index]
                None,
            )
            configs = dict(TFLOW)
            if iso is not None:
                configs["ISO-perf"] = iso
            for name, cache in configs.items():
                ours = sweep.get(cache)
                if ours is None:
                    continue
                result.rows.append(
                    {
                        "energy_preset": energy,
                        "kernel": k,
                        "config": name,
                        "cache_kb": cache / KB,
                        "onchip_pj": ours["energy_pj"]["onchip"],
                        "onchip_pj_baseline": base["energy_pj"]["onchip"],
                        "energy_reduction": _ratio(
                            base["energy_pj"]["onchip"], ours["energy_pj"]["onchip"]
                        ),
                        "sram_bytes": ours["sram_bytes"],
                        "sram_bytes_baseline": base["sram_bytes"],
                        "sram_reduction": _ratio(base["sram_bytes"], ours["sram_bytes"]),
                        "cycles_ratio": _ratio(ours["cycles"]["total"], base["cycles"]["total"]),
                    }
                )
            if iso is None:
                result.notes.append(
                    f"{k}: no TapeFlow cache from 1 to 128 KB comes within "
                    f"{ISO_PERF_SLACK:.0%} of Enzyme32k's cycles"
                )
    for energy in ENERGIES:
        rows = [r for r in result.rows if r["energy_preset"] == energy]
        if not rows:
            continue
        best = max(rows, key=lambda r: r["energy_reduction"] or 0)
        iso = [r for r in rows if r["config"] == "ISO-perf"]
        result.summary[energy] = {
            "max_energy_reduction": {
                "value": best["energy_reduction"],
                "kernel": best["kernel"],
                "config": best["config"],
            },
            "sram_reduction_iso_perf": {
                "min": min((r["sram_reduction"] for r in iso), default=None),
                "max": max((r["sram_reduction"] for r in iso), default=None),
                "kernels": len(iso),
            },
            "tflow2k_within_5_percent": sorted(
                r["kernel"]
                for r in rows
                if r["config"] == "Tflow2k" and r["cycles_ratio"] <= 1 + ISO_PERF_SLACK
            ),
        }
    return result


# ------------------------------------------------------ performance/energy sweep
def _tradeoff(kernels: list[str], size: str, lookup: Lookup) -> Result:
    result = Result("tradeoff")
    for k in kernels:
        base = _ok(lookup, result, enzyme(k, size, 1 * KB))
        if base is None:
            continue
        for variant, make in (("enzyme", enzyme), ("tapeflow", tapeflow)):
            for c in CACHE_SWEEP:
                r = _ok(lookup, result, make(k, size, c))
                cacti = _ok(lookup, result, make(k, size, c, energy="cacti45"))
                cacti_base = _ok(lookup, result, enzyme(k, size, 1 * KB, "cacti45"))
                if r is None or cacti is None or cacti_base is None:
                    continue
                result.rows.append(
                    {
                        "kernel": k,
                        "variant": variant,
                        "cache_kb": c // KB,
                        "performance": _ratio(base["cycles"]["total"], r["cycles"]["total"]),
                        "energy_paper": _ratio(
                            r["energy_pj"]["onchip"], base["energy_pj"]["onchip"]
                        ),
                        "energy_cacti45": _ratio(
                            cacti["energy_pj"]["onchip"], cacti_base["energy_pj"]["onchip"]
                        ),
                    }
                )
    for variant in ("enzyme", "tapeflow"):
        spread = []
        for k in kernels:
            perf = [
                r["performance"]
                for r in result.rows
                if r["kernel"] == k and r["variant"] == variant
            ]
            if perf:
                spread.append(max(perf) / min(perf))
        if spread:
            result.summary[f"{variant}_cache_sensitivity"] = geomean(spread)
    return result


# --------------------------------------------------------------- scratchpad
def _scratchpad_points(kernels: list[str], size: str) -> list[Point]:
    return [enzyme(k, size, 32 * KB) for k in kernels] + [
        tapeflow(k, size, 32 * KB, s) for k in kernels for s in SPAD_SWEEP
    ]


def _scratchpad(kernels: list[str], size: str, lookup: Lookup) -> Result:
    result = Result("scratchpad")
    for k in kernels:
        base = _ok(lookup, result, enzyme(k, size, 32 * KB))
        if base is None:
            continue
        for s in SPAD_SWEEP:
            r = _ok(lookup, result, tapeflow(k, size, 32 * KB, s))
            if r is None:
                continue
            result.rows.append(
                {
                    "kernel": k,
                    "spad_bytes": s,
                    "speedup": _ratio(base["cycles"]["total"], r["cycles"]["total"]),
                    "layers": r["layers"],
                    "ops_per_layer": _ratio(r["ops"]["total"], r["layers"]),
                    "memory_stall_share": _ratio(
                        r["cycles"].get("memory_stall", 0), r["cycles"]["total"]
                    ),
                    "stream_stall_share": _ratio(
                        r["cycles"].get("stream_stall", 0), r["cycles"]["total"]
                    ),
                }
            )
    gains = {}
    for k in kernels:
        rows = {r["spad_bytes"]: r for r in result.rows if r["kernel"] == k}
        if SPAD_SWEEP[0] in rows and SPAD_SWEEP[-1] in rows and rows[SPAD_SWEEP[0]]["speedup"]:
            gains[k] = rows[SPAD_SWEEP[-1]]["speedup"] / rows[SPAD_SWEEP[0]]["speedup"] - 1
    if gains:
        result.summary["gain_64B_to_1MB_percent"] = {
            "min": 100 * min(gains.values()),
            "max": 100 * max(gains.values()),
            "per_kernel": {k: 100 * g for k, g in gains.items()},
        }
    nn64 = [r for r in result.rows if r["kernel"] == "nn" and r["spad_bytes"] == SPAD_SWEEP[0]]
    if nn64:
        result.summary["nn_speedup_at_64B"] = nn64[0]["speedup"]
    return result


# ------------------------------------------------------------------- unroll
def _unroll_points(kernels: list[str], size: str) -> list[Point]:
    points = []
    if UNROLL_KERNEL in kernels:
        points += [enzyme(UNROLL_KERNEL, size, 32 * KB)]
        points += [tapeflow(UNROLL_KERNEL, size, 32 * KB, unroll=u) for u in UNROLL_SWEEP]
    for k in kernels:
        points += [
            enzyme(k, size, 32 * KB, unroll=WIDE_UNROLL),
            tapeflow(k, size, 32 * KB, unroll=WIDE_UNROLL),
        ]
    return points


def _unroll_study(kernels: list[str], size: str, lookup: Lookup) -> Result:
    result = Result("unroll")
    if UNROLL_KERNEL in kernels:
        base = _ok(lookup, result, enzyme(UNROLL_KERNEL, size, 32 * KB))
        first: Report | None = None
        for u in UNROLL_SWEEP:
            r = _ok(lookup, result, tapeflow(UNROLL_KERNEL, size, 32 * KB, unroll=u))
            if r is None or base is None:
                continue
            first = first or r
            per_cycle = _ratio(r["ops"]["total"], r["cycles"]["total"])
            first_per_cycle = _ratio(first["ops"]["total"], first["cycles"]["total"])
            result.rows.append(
                {
                    "kernel": UNROLL_KERNEL,
                    "study": "sweep",
                    "unroll": u,
                    # tapeflow-unroll takes the largest divisor of the trip count up to
                    # u: the run's record says which factor ran
                    "unroll_ran": r["hardware"].get("unroll", u),
                    "speedup": _ratio(base["cycles"]["total"], r["cycles"]["total"]),
                    "layers": r["layers"],
                    "ops_per_layer": _ratio(r["ops"]["total"], r["layers"]),
                    "ops_per_cycle": per_cycle,
                    "parallelism_norm": _ratio(per_cycle or 0, first_per_cycle or 0),
                }
            )
        sweep = [r for r in result.rows if r["study"] == "sweep"]
        if len(sweep) >= 2 and sweep[0]["speedup"]:
            result.summary["speedup_gain_widest_vs_1"] = sweep[-1]["speedup"] / sweep[0]["speedup"]
    else:
        result.notes.append(f"the unroll sweep runs on {UNROLL_KERNEL}, which was not selected")
    for k in kernels:
        e = _ok(lookup, result, enzyme(k, size, 32 * KB, unroll=WIDE_UNROLL))
        t = _ok(lookup, result, tapeflow(k, size, 32 * KB, unroll=WIDE_UNROLL))
        if e is None or t is None:
            continue
        result.rows.append(
            {
                "kernel": k,
                "study": "fully unrolled",
                "unroll": "full",
                "unroll_ran": t["hardware"].get("unroll"),
                "speedup": _ratio(e["cycles"]["total"], t["cycles"]["total"]),
                "layers": t["layers"],
                "ops_per_layer": _ratio(t["ops"]["total"], t["layers"]),
                "ops_per_cycle": _ratio(t["ops"]["total"], t["cycles"]["total"]),
                "parallelism_norm": None,
                "enzyme_ops_per_cycle": _ratio(e["ops"]["total"], e["cycles"]["total"]),
                "ops_unplaced": t["ops"].get("unplaced"),
                "enzyme_ops_unplaced": e["ops"].get("unplaced"),
                "prefetch_distance": t["streams"].get("prefetch_distance"),
                **_shares(t, ""),
                **_shares(e, "enzyme_"),
            }
        )
        note = _loses(k, e, t, "fully unrolled")
        if note:
            result.notes.append(note)
    wide = [r for r in result.rows if r["study"] != "sweep" and r["speedup"]]
    if wide:
        best = max(wide, key=lambda r: r["speedup"])
        result.summary["wide_max_speedup"] = {"value": best["speedup"], "kernel": best["kernel"]}
        result.summary["wide_speedup"] = {r["kernel"]: r["speedup"] for r in wide}
    return result


# ------------------------------------------------------------------ ablation
ABLATION: dict[str, tuple[tuple[str, object], tuple[str, ...]]] = {
    "straight-line runs not placed": (
        ("mapping.place_straight_line", False),
        ("enzyme", "tapeflow"),
    ),
    "dependences in program order": (("mapping.disambiguate", False), ("enzyme", "tapeflow")),
    "streams one layer ahead": (("mapping.runahead", False), ("tapeflow",)),
    "loop tiles double-buffered": (("mapping.loop_tiles_in_flight", 2), ("tapeflow",)),
    "configuration loads free": (("config_cycles_per_op", 0), ("enzyme", "tapeflow")),
}
"""Each step of the mapping beyond the paper switched off (and the configuration
loads' cost taken away), with the variants it can change: streams exist only in
TapeFlow, so Enzyme's run stands for itself there."""


def _ablated(point: Point, setting: tuple[str, object]) -> Point:
    group = replace(point.group, settings=(setting,))
    return replace(point, group=group)


def _ablation_points(kernels: list[str], size: str) -> list[Point]:
    points = []
    for k in kernels:
        points += [enzyme(k, size, 32 * KB), tapeflow(k, size, 32 * KB)]
        for setting, variants in ABLATION.values():
            if "enzyme" in variants:
                points.append(_ablated(enzyme(k, size, 32 * KB), setting))
            points.append(_ablated(tapeflow(k, size, 32 * KB), setting))
    return points


def _ablation(kernels: list[str], size: str, lookup: Lookup) -> Result:
    result = Result("ablation")
    for k in kernels:
        e = _ok(lookup, result, enzyme(k, size, 32 * KB))
        t = _ok(lookup, result, tapeflow(k, size, 32 * KB))
        if e is None or t is None:
            continue
        speedup = _ratio(e["cycles"]["total"], t["cycles"]["total"])
        for step, (setting, variants) in ABLATION.items():
            e_off = (
                _ok(lookup, result, _ablated(enzyme(k, size, 32 * KB), setting))
                if ("enzyme" in variants)
                else e
            )
            t_off = _ok(lookup, result, _ablated(tapeflow(k, size, 32 * KB), setting))
            if e_off is None or t_off is None:
                continue
            result.rows.append(
                {
                    "kernel": k,
                    "without": step,
                    "enzyme_cycles": e_off["cycles"]["total"],
                    "tapeflow_cycles": t_off["cycles"]["total"],
                    "enzyme_gain": _ratio(e_off["cycles"]["total"], e["cycles"]["total"]),
                    "tapeflow_gain": _ratio(t_off["cycles"]["total"], t["cycles"]["total"]),
                    "speedup_without": _ratio(e_off["cycles"]["total"], t_off["cycles"]["total"]),
                    "speedup": speedup,
                }
            )
    for step in ABLATION:
        rows = [r for r in result.rows if r["without"] == step]
        if rows:
            result.summary[step] = {
                "speedup_without": geomean([r["speedup_without"] for r in rows]),
                "speedup": geomean([r["speedup"] for r in rows]),
            }
    return result


# ------------------------------------------------------------------ streaming
STREAM_ALWAYS = ("mapping.stream_by_cost", False)
"""Every nest streamed: `tapeflow-layers{stream=always}`, the paper's Pass 2."""


def _streaming_points(kernels: list[str], size: str) -> list[Point]:
    points = []
    for k in kernels:
        for cache in TFLOW.values():
            points += [tapeflow(k, size, cache), _ablated(tapeflow(k, size, cache), STREAM_ALWAYS)]
    return points


def _streaming(kernels: list[str], size: str, lookup: Lookup) -> Result:
    """Per kernel and TapeFlow configuration: the nests the cost model kept in
    DRAM and why, and the cycles with every nest streamed beside the chosen ones."""
    result = Result("streaming")
    for k in kernels:
        for name, cache in TFLOW.items():
            chosen = _ok(lookup, result, tapeflow(k, size, cache))
            always = _ok(lookup, result, _ablated(tapeflow(k, size, cache), STREAM_ALWAYS))
            if chosen is None or always is None:
                continue
            kept = chosen.get("kept_regions", {})
            by_cost = {r: why for r, why in kept.items() if why.startswith(COST_MODEL)}
            result.rows.append(
                {
                    "kernel": k,
                    "config": name,
                    "kept_by_cost": len(by_cost),
                    "kept_otherwise": len(kept) - len(by_cost),
                    "cycles": chosen["cycles"]["total"],
                    "cycles_always": always["cycles"]["total"],
                    "gain": _ratio(always["cycles"]["total"], chosen["cycles"]["total"]),
                    "why": "; ".join(
                        f"{r}: {why.removeprefix(COST_MODEL).strip()}" for r, why in by_cost.items()
                    ),
                }
            )
    gains = [r["gain"] for r in result.rows if r["kept_by_cost"]]
    result.summary["kept_nests"] = sum(r["kept_by_cost"] for r in result.rows)
    result.summary["gain_where_kept"] = geomean(gains)
    return result


# ------------------------------------------------------------------ Table II
def _table2_points(kernels: list[str], size: str) -> list[Point]:
    return [p for k in kernels for p in (enzyme(k, size, 32 * KB), tapeflow(k, size, 32 * KB))]


def _table2(kernels: list[str], size: str, lookup: Lookup) -> Result:
    result = Result("table2")
    for k in kernels:
        e = _ok(lookup, result, enzyme(k, size, 32 * KB))
        t = _ok(lookup, result, tapeflow(k, size, 32 * KB))
        if e is None or t is None:
            continue
        stats = e.get("kernel_stats", {})
        paper = TABLE_II.get(k)  # None for a kernel beyond the paper's nine

        def reported(field: str, paper: TableII | None = paper) -> Any:
            return getattr(paper, field) if paper is not None else None

        result.rows.append(
            {
                "kernel": k,
                "class": reported("kernel_class"),
                "tensors_per_loop": stats.get("tensors_per_loop"),
                "tensors_per_loop_paper": reported("tensors_per_loop"),
                "working_set_kb": stats.get("working_set_bytes", 0) / KB,
                "working_set_k_paper": reported("working_set_k"),
                "inputs_kb": stats.get("inputs_bytes", 0) / KB,
                "inputs_k_paper": reported("inputs_k"),
                # A tape sized at run time has no static size: its measure is the
                # high-water mark of TapeFlow's slab tape in the run.
                "tape_kb": (e["tape_bytes"] or t.get("tape_high_water_bytes", 0)) / KB,
                "layers": t["layers"],
                "layers_paper": reported("layer_count"),
            }
        )
    return result


EXPERIMENTS: dict[str, Experiment] = {
    e.name: e
    for e in (
        Experiment(
            "performance",
            "FWD, REV and total speedup over Enzyme, with hit rates",
            "Fig. 10, 11",
            _performance_points,
            _performance,
        ),
        Experiment(
            "dram",
            "DRAM traffic for caches of 1-128 KB, normalised to Enzyme32k",
            "Fig. 12",
            _sweep_points,
            _dram,
        ),
        Experiment(
            "layout",
            "Array-of-structs layout alone (tape still through the cache)",
            "Fig. 13",
            _layout_points,
            _layout,
        ),
        Experiment(
            "energy",
            "On-chip energy and SRAM: reduction over Enzyme32k, ISO-performance cache",
            "Fig. 14",
            _sweep_points,
            _energy,
        ),
        Experiment(
            "tradeoff",
            "Performance against on-chip energy over cache sizes, normalised to Enzyme1k",
            "Fig. 15",
            _sweep_points,
            _tradeoff,
        ),
        Experiment(
            "scratchpad",
            "Scratchpad size from 64 B to 1 MB (Tflow32k)",
            "Fig. 16",
            _scratchpad_points,
            _scratchpad,
        ),
        Experiment(
            "unroll",
            "Unroll factor on PathFinder, and every kernel fully unrolled",
            "Fig. 17, 18",
            _unroll_points,
            _unroll_study,
        ),
        Experiment(
            "table2",
            "Kernel characteristics, ours and the paper's",
            "Table II",
            _table2_points,
            _table2,
        ),
        Experiment(
            "streaming",
            "The stream cost model: cycles with every nest streamed over those of its choice",
            "beyond the paper",
            _streaming_points,
            _streaming,
            models=("cgra",),
        ),
        Experiment(
            "ablation",
            "The mapping's steps beyond the paper, each switched off (Tflow32k against Enzyme32k)",
            "Sections V-VII",
            _ablation_points,
            _ablation,
            models=("cgra",),
            default=False,
        ),
    )
}

DEFAULT_EXPERIMENTS = tuple(name for name, e in EXPERIMENTS.items() if e.default)
"""What `tapeflow-bench` runs without `--only`: every experiment but the ablation
(63 more runs of the nine kernels; `--only ...,ablation` adds it)."""

__all__ = [
    "BREAKDOWN",
    "DEFAULT_EXPERIMENTS",
    "EXPERIMENTS",
    "Experiment",
    "Result",
    "breakdown",
    "geomean",
]
