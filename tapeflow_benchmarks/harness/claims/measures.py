"""
How each claim is measured here: our number or range from the experiments'
summaries (None when the experiment did not run).
"""

from __future__ import annotations

from collections.abc import Callable

from tapeflow_benchmarks.harness.claims.base import Measured, Summaries, single, summary_at, times


def measure_speedup_range(results: Summaries) -> Measured | None:
    s = summary_at(results, "performance", "Tflow32k/Enzyme32k")
    if not s:
        return None
    return Measured(
        s["min"], s["max"], f"{times(s['min'])}-{times(s['max'])}, Tflow32k over Enzyme32k"
    )


def measure_speedup_mean(results: Summaries) -> Measured | None:
    s = summary_at(results, "performance", "Tflow32k/Enzyme32k")
    if not s:
        return None
    return single(s["geomean"], f"geomean {times(s['geomean'])}, Tflow32k over Enzyme32k")


def measure_wide(results: Summaries) -> Measured | None:
    s = summary_at(results, "unroll", "wide_speedup", "pathfinder")
    if s is None:
        return None
    text = f"PathFinder {times(s)}, both fully unrolled"
    best = summary_at(results, "unroll", "wide_max_speedup")
    if best and best["kernel"] != "pathfinder":
        text += f" (largest of all kernels: {best['kernel']} {times(best['value'])})"
    return single(s, text)


def measure_dram_max(results: Summaries) -> Measured | None:
    s = summary_at(results, "dram", "max_reduction_per_kernel", "mttkrp")
    if not s:
        return None
    text = f"MTTKRP up to {times(s['value'])} ({s['cache_kb']} KB cache)"
    rows = [
        r["reduction"] for r in results["dram"].rows if r["kernel"] == "mttkrp" and r["reduction"]
    ]
    if rows:
        text += f", {times(min(rows))}-{times(max(rows))} over 1-128 KB"
    best = summary_at(results, "dram", "max_reduction")
    if best and best["kernel"] != "mttkrp":
        text += (
            f" (largest of all kernels: {best['kernel']} {times(best['value'])}"
            f" at {best['cache_kb']} KB)"
        )
    return single(s["value"], text)


def measure_dram_at(
    kernels: tuple[str, ...], cache_kb: int
) -> Callable[[Summaries], Measured | None]:
    def measure(results: Summaries) -> Measured | None:
        values = {k: summary_at(results, "dram", f"{k}@{cache_kb}k") for k in kernels}
        values = {k: v for k, v in values.items() if v is not None}
        if not values:
            return None
        text = ", ".join(f"{k} {times(v)}" for k, v in values.items()) + f" at {cache_kb} KB"
        return Measured(min(values.values()), max(values.values()), text)

    return measure


def measure_layout(results: Summaries) -> Measured | None:
    s = summary_at(results, "layout", "max_reduction_percent")
    if not s:
        return None
    return single(
        s["value"], f"up to {s['value']:.0f}% less ({s['kernel']}, {s['cache_kb']} KB)", "%"
    )


def measure_energy(results: Summaries) -> Measured | None:
    s = summary_at(results, "energy", "paper", "max_energy_reduction")
    c = summary_at(results, "energy", "cacti45", "max_energy_reduction")
    if not s:
        return None
    text = f"up to {times(s['value'])} ({s['kernel']}, {s['config']}; 'paper' preset)"
    if c:
        text += f"; up to {times(c['value'])} with 'cacti45'"
    return single(s["value"], text)


def measure_sram(results: Summaries) -> Measured | None:
    s = summary_at(results, "energy", "paper", "sram_reduction_iso_perf")
    if not s or s["max"] is None:
        return None
    return Measured(
        s["min"],
        s["max"],
        f"{times(s['min'])}-{times(s['max'])} over the {s['kernels']} kernels"
        " with an ISO-performance cache",
    )


def measure_iso2k(results: Summaries) -> Measured | None:
    matching = summary_at(results, "energy", "paper", "tflow2k_within_5_percent")
    rows = results.get("energy")
    if matching is None or rows is None:
        return None
    total = len({r["kernel"] for r in rows.rows if r["energy_preset"] == "paper"})
    share = len(matching) / total if total else 0.0
    return single(
        share, f"{len(matching)} of {total} kernels within 5% ({', '.join(matching) or 'none'})"
    )


def measure_spad(results: Summaries) -> Measured | None:
    s = summary_at(results, "scratchpad", "gain_64B_to_1MB_percent")
    if not s:
        return None
    return Measured(
        s["min"], s["max"], f"{s['min']:+.0f}% to {s['max']:+.0f}% from 64 B to 1 MB", "+%"
    )


def measure_nn64(results: Summaries) -> Measured | None:
    s = summary_at(results, "scratchpad", "nn_speedup_at_64B")
    if s is None:
        return None
    return single(s, f"NN at 64 B: {times(s)} over Enzyme32k")


def measure_unroll(results: Summaries) -> Measured | None:
    s = summary_at(results, "unroll", "speedup_gain_widest_vs_1")
    if s is None:
        return None
    return single(s, f"the speedup at unroll 16 is {times(s)} that at unroll 1 (PathFinder)")


__all__ = [
    "measure_dram_at",
    "measure_dram_max",
    "measure_energy",
    "measure_iso2k",
    "measure_layout",
    "measure_nn64",
    "measure_spad",
    "measure_speedup_mean",
    "measure_speedup_range",
    "measure_sram",
    "measure_unroll",
    "measure_wide",
]
