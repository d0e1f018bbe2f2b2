"""
The mechanism behind a model's number, from that run's own numbers (and, for
`salam`, the mechanisms the issue fixes for it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tapeflow_benchmarks.harness.claims.base import (
    Claim,
    Summaries,
    percent,
    size_text,
    spad_rows,
    times,
)


def _share_range(values: dict[str, float | None]) -> str:
    known = {k: v for k, v in values.items() if v is not None}
    if not known:
        return "-"
    low, high = min(known, key=known.get), max(known, key=known.get)  # type: ignore[arg-type]
    if low == high:
        return f"{percent(known[low])} ({low})"
    return f"{percent(known[low])} ({low}) to {percent(known[high])} ({high})"


def _perf_rows(results: Summaries, kernels: tuple[str, ...]) -> list[dict[str, Any]]:
    perf = results.get("performance")
    return [
        r
        for r in (perf.rows if perf else [])
        if r["config"] == "Tflow32k"
        and r["baseline"] == "Enzyme32k"
        and (not kernels or r["kernel"] in kernels)
    ]


def _time_mechanism(results: Summaries, kernels: tuple[str, ...]) -> str:
    rows = _perf_rows(results, kernels)
    if not rows:
        return ""
    base = _share_range({r["kernel"]: r["stall_share_baseline"] for r in rows})
    ours = _share_range({r["kernel"]: r["stall_share"] for r in rows})
    fwd = [r["speedup_fwd"] for r in rows if r["speedup_fwd"]]
    rev = [r["speedup_rev"] for r in rows if r["speedup_rev"]]
    text = (
        f"Enzyme32k waits for memory during {base} of its cycles, Tflow32k during {ours} "
        "(taking the tape out of the cache can save at most the baseline's share)"
    )
    if fwd and rev:
        text += (
            f"; FWD speedup {times(min(fwd))}-{times(max(fwd))},"
            f" REV {times(min(rev))}-{times(max(rev))}"
        )
    return text


def _dram_mechanism(results: Summaries, kernels: tuple[str, ...]) -> str:
    dram = results.get("dram")
    rows = [r for r in (dram.rows if dram else []) if not kernels or r["kernel"] in kernels]
    if not rows:
        return ""
    parts = []
    for k in dict.fromkeys(r["kernel"] for r in rows):
        at = {r["cache_kb"]: r for r in rows if r["kernel"] == k}
        for kb in (1, 32):
            r = at.get(kb)
            if r and r["enzyme_bytes"]:
                parts.append(
                    f"{k} at {kb} KB: tape "
                    f"{percent(r['enzyme_tape_bytes'] / r['enzyme_bytes'])} of "
                    f"Enzyme's {r['enzyme_bytes']:,} B, TapeFlow moves {r['tapeflow_bytes']:,} B"
                )
    return "the reduction is bounded by the tape's share of the baseline's traffic: " + "; ".join(
        parts[:6]
    )


def _spad_mechanism(results: Summaries, kernels: tuple[str, ...]) -> str:
    table = spad_rows(results)
    parts = []
    for k, rows in table.items():
        if kernels and k not in kernels:
            continue
        small, large = rows[min(rows)], rows[max(rows)]
        parts.append(
            f"{k} {times(small['speedup'])} at {size_text(min(rows))} ({small['layers']} layers), "
            f"{times(large['speedup'])} at {size_text(max(rows))} ({large['layers']} layers)"
        )
    return "speedup over Enzyme32k and layers executed: " + "; ".join(parts[:6]) if parts else ""


def _energy_mechanism(results: Summaries, kernels: tuple[str, ...]) -> str:
    rows = results.get("energy")
    same = [
        r
        for r in (rows.rows if rows else [])
        if r["energy_preset"] == "paper"
        and r["config"] in ("Tflow32k", "Tflow2k")
        and (not kernels or r["kernel"] in kernels)
    ]
    if not same:
        return ""
    ratios = {
        f"{r['kernel']} {r['config']}": r["cycles_ratio"] for r in same if r["config"] == "Tflow2k"
    }
    return (
        "energy follows the accesses, and the ISO-performance cache follows the time: "
        "Tflow2k's cycles relative to Enzyme32k: "
        + ", ".join(f"{k} {v:.2f}" for k, v in ratios.items() if v is not None)
    )


_MECHANISMS: dict[str, Callable[[Summaries, tuple[str, ...]], str]] = {
    "performance": _time_mechanism,
    "layers": _time_mechanism,
    "DRAM": _dram_mechanism,
    "energy": _energy_mechanism,
    "SRAM": _energy_mechanism,
    "scratchpad": _spad_mechanism,
}

SALAM_MECHANISMS: dict[str, str] = {
    "performance": (
        "Under salam (the authors' machine, docs/research/gem5-salam.md) the datapath issues "
        "in lockstep, so every miss of the baseline's tape adds to its cycles, while "
        "TapeFlow's tape accesses go to tape bins that cost no datapath time."
    ),
    "layers": (
        "Under salam loop iterations do not overlap and layer barriers are free, so wider "
        "layers change the time only through the accesses they remove."
    ),
    "DRAM": (
        "Under salam the spilled and fetched tape bytes are counted as DRAM traffic, with no "
        "stream timing; the baseline's tape goes through the 4-way cluster cache."
    ),
    "scratchpad": (
        "Under salam the tape bins ignore their capacity, so the scratchpad size changes "
        "nothing but the layer boundaries, which are free."
    ),
}
"""The salam mechanisms the issue fixes, stated next to salam's verdicts."""


def mechanism(claim: Claim, results: Summaries, model: str) -> str:
    """Why `model`'s number is what it is, from the run's own numbers."""
    measure = _MECHANISMS.get(claim.topic)
    text = measure(results, claim.kernels) if measure else ""
    if model == "salam" and claim.topic in SALAM_MECHANISMS:
        text = f"{SALAM_MECHANISMS[claim.topic]} {text}"
    return text.strip()


__all__ = ["SALAM_MECHANISMS", "mechanism"]
