"""
How each claim is measured here: one value per kernel from the experiments' rows
(None when the experiment did not run). A value picked from several (the best
cache size, the best configuration) says where it was taken.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tapeflow_benchmarks.harness.claims.base import Measured, Summaries, rows_of, size_text
from tapeflow_benchmarks.harness.experiments import ISO_PERF_SLACK

Measure = Callable[[Summaries], Measured | None]


def _per_kernel(rows: list[dict[str, Any]], key: str) -> dict[str, float | None]:
    return {r["kernel"]: r.get(key) for r in rows}


def speedup(config: str = "Tflow32k", baseline: str = "Enzyme32k") -> Measure:
    def measure(results: Summaries) -> Measured | None:
        rows = [
            r
            for r in rows_of(results, "performance")
            if r["config"] == config and r["baseline"] == baseline
        ]
        if not rows:
            return None
        return Measured(
            _per_kernel(rows, "speedup_total"),
            f"speedup of {config} over {baseline}",
            source={r["kernel"]: r for r in rows},
        )

    return measure


def cycles_ratio(config: str, baseline: str = "Enzyme32k") -> Measure:
    """`config`'s cycles relative to `baseline`'s (the inverse of the speedup)."""

    def measure(results: Summaries) -> Measured | None:
        rows = [
            r
            for r in rows_of(results, "performance")
            if r["config"] == config and r["baseline"] == baseline
        ]
        if not rows:
            return None
        values = {
            r["kernel"]: (1 / r["speedup_total"] if r["speedup_total"] else None) for r in rows
        }
        return Measured(
            values,
            f"{config}'s cycles relative to {baseline}'s",
            source={r["kernel"]: r for r in rows},
        )

    return measure


def wide_speedup(results: Summaries) -> Measured | None:
    rows = [r for r in rows_of(results, "unroll") if r["study"] != "sweep"]
    if not rows:
        return None
    return Measured(
        _per_kernel(rows, "speedup"), "speedup of Tflow32k over Enzyme32k, both fully unrolled"
    )


def _best_and_worst(
    rows: list[dict[str, Any]],
    key: str,
    what: str,
    unit: str = "x",
    scale: Callable[[float], float] = lambda v: v,
) -> Measured | None:
    """Per kernel: the largest value of `key` over the cache sweep (where), and
    the least favourable one (where)."""
    if not rows:
        return None
    values: dict[str, float | None] = {}
    at: dict[str, str] = {}
    worst: dict[str, tuple[float, str]] = {}
    source, worst_source = {}, {}
    for k in dict.fromkeys(r["kernel"] for r in rows):
        mine = [r for r in rows if r["kernel"] == k and r.get(key) is not None]
        if not mine:
            values[k] = None
            continue
        best = max(mine, key=lambda r: scale(r[key]))
        low = min(mine, key=lambda r: scale(r[key]))
        values[k], at[k], source[k] = scale(best[key]), f"at {best['cache_kb']} KB", best
        worst[k], worst_source[k] = (scale(low[key]), f"at {low['cache_kb']} KB"), low
    missing = {k: f"no {key}" for k, v in values.items() if v is None}
    return Measured(values, what, unit, at, missing, worst, source, worst_source)


def dram_max(results: Summaries) -> Measured | None:
    return _best_and_worst(
        rows_of(results, "dram"),
        "reduction",
        "DRAM reduction of TapeFlow over Enzyme, the best cache of 1-128 KB",
    )


def dram_at(cache_kb: int) -> Measure:
    def measure(results: Summaries) -> Measured | None:
        rows = [r for r in rows_of(results, "dram") if r["cache_kb"] == cache_kb]
        if not rows:
            return None
        return Measured(
            _per_kernel(rows, "reduction"),
            f"DRAM reduction of TapeFlow over Enzyme at a {cache_kb} KB cache",
            source={r["kernel"]: r for r in rows},
        )

    return measure


def layout_reduction(results: Summaries) -> Measured | None:
    return _best_and_worst(
        rows_of(results, "layout"),
        "aos_norm",
        "less DRAM traffic with Enzyme's tape as an array of structs, the best cache",
        "%",
        lambda norm: 100 * (1 - norm),
    )


def energy_max(preset: str) -> Measure:
    """The largest on-chip energy reduction per kernel with energy preset `preset`."""

    def measure(results: Summaries) -> Measured | None:
        rows = [
            r
            for r in rows_of(results, "energy")
            if r["energy_preset"] == preset and r.get("energy_reduction") is not None
        ]
        if not rows:
            return None
        values: dict[str, float | None] = {}
        at: dict[str, str] = {}
        worst: dict[str, tuple[float, str]] = {}
        for k in dict.fromkeys(r["kernel"] for r in rows):
            mine = [r for r in rows if r["kernel"] == k]
            best = max(mine, key=lambda r: r["energy_reduction"])
            low = min(mine, key=lambda r: r["energy_reduction"])
            values[k], at[k] = best["energy_reduction"], f"({best['config']})"
            worst[k] = (low["energy_reduction"], f"({low['config']})")
        return Measured(
            values,
            "on-chip energy reduction over Enzyme32k, the best TapeFlow configuration "
            f"('{preset}' preset)",
            "x",
            at,
            {},
            worst,
        )

    return measure


def sram_iso(results: Summaries) -> Measured | None:
    rows = [r for r in rows_of(results, "energy") if r["energy_preset"] == "paper"]
    if not rows:
        return None
    values: dict[str, float | None] = {}
    at: dict[str, str] = {}
    missing: dict[str, str] = {}
    for k in dict.fromkeys(r["kernel"] for r in rows):
        iso = next((r for r in rows if r["kernel"] == k and r["config"] == "ISO-perf"), None)
        values[k] = iso["sram_reduction"] if iso else None
        if iso:
            at[k] = f"({iso['cache_kb']:g} KB)"
        else:
            missing[k] = f"no TapeFlow cache of 1-128 KB within {ISO_PERF_SLACK:.0%} of Enzyme32k"
    return Measured(
        values,
        "SRAM reduction at the smallest TapeFlow cache within "
        f"{ISO_PERF_SLACK:.0%} of Enzyme32k's cycles",
        "x",
        at,
        missing,
    )


def spad_gain(results: Summaries) -> Measured | None:
    rows = rows_of(results, "scratchpad")
    if not rows:
        return None
    small, large = min(r["spad_bytes"] for r in rows), max(r["spad_bytes"] for r in rows)
    values: dict[str, float | None] = {}
    for k in dict.fromkeys(r["kernel"] for r in rows):
        mine = {r["spad_bytes"]: r for r in rows if r["kernel"] == k}
        first, last = mine.get(small), mine.get(large)
        values[k] = (
            100 * (last["speedup"] / first["speedup"] - 1)
            if first and last and first["speedup"] and last["speedup"]
            else None
        )
    missing = {
        k: f"not run at {size_text(small)} and {size_text(large)}"
        for k, v in values.items()
        if v is None
    }
    return Measured(
        values,
        f"performance gain from a {size_text(small)} to a {size_text(large)} scratchpad",
        "+%",
        missing=missing,
    )


def spad_speedup_at(spad_bytes: int) -> Measure:
    def measure(results: Summaries) -> Measured | None:
        rows = [r for r in rows_of(results, "scratchpad") if r["spad_bytes"] == spad_bytes]
        if not rows:
            return None
        return Measured(
            _per_kernel(rows, "speedup"),
            f"speedup over Enzyme32k with a {size_text(spad_bytes)} scratchpad",
        )

    return measure


def ran(row: dict[str, Any]) -> Any:
    """The unroll factor that ran (`unroll_ran`; the one asked for where the run
    does not say)."""
    return row.get("unroll_ran") or row["unroll"]


def unroll_gain(results: Summaries) -> Measured | None:
    sweep = [r for r in rows_of(results, "unroll") if r["study"] == "sweep"]
    values: dict[str, float | None] = {}
    at = {}
    for k in dict.fromkeys(r["kernel"] for r in sweep):
        mine = [r for r in sweep if r["kernel"] == k]
        if len(mine) < 2 or not mine[0]["speedup"]:
            values[k] = None
            continue
        values[k] = mine[-1]["speedup"] / mine[0]["speedup"]
        at[k] = f"(unroll {ran(mine[-1])} over unroll {ran(mine[0])})"
    if not values:
        return None
    return Measured(values, "speedup at the widest unroll that ran over that at unroll 1", "x", at)


__all__ = [
    "Measure",
    "cycles_ratio",
    "dram_at",
    "dram_max",
    "energy_max",
    "layout_reduction",
    "ran",
    "spad_gain",
    "spad_speedup_at",
    "speedup",
    "sram_iso",
    "unroll_gain",
    "wide_speedup",
]
