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
        "Decided by lockstep issue on the authors' datapath (sim/models/salam.py): "
        "TapeFlow's tape bins commit at once, with no memory request, and hold no load "
        "back, while the baseline's tape stores wait for their values and every store "
        "still pending when the next inner-loop iteration is scheduled holds its loads "
        "(`findDynamicDeps`); otherwise inner-loop iterations overlap, limited by "
        "dependences and by 2 ports with a read and a write slot each."
    ),
    "layers": (
        "Decided by lockstep issue: layer barriers and the bins' capacity cost nothing "
        "on the authors' machine, so a wider layer changes the time only through the "
        "lockstep groups of its body."
    ),
    "DRAM": (
        "Decided by the tape bins: TapeFlow's tape is spilled and fetched by the bins, "
        "the baseline's goes through the 4-way cluster cache (the authors count misses "
        "plus fetched bin bytes / 8: runs.csv `dram_authors_bytes`)."
    ),
    "scratchpad": (
        "Decided by the tape bins: their capacity is not enforced on the authors' "
        "machine, so the scratchpad size changes nothing."
    ),
}
"""The mechanism of the authors' machine that decides each claim under salam,
stated with salam's verdict: whether their machine supports the claim, and why."""

SUPPORT = {"agrees": "supported by the authors' machine", "not measured": ""}
"""What a salam verdict says about the authors' machine (anything else: not, or
only partly, supported)."""


def salam_reason(claim: Claim, results: Summaries, verdict: str) -> str:
    """Salam's word on a measured claim: whether the authors' machine supports
    it, and the mechanism that decides (with the run's own numbers)."""
    support = SUPPORT.get(verdict) or (
        "partly supported by the authors' machine" if verdict.startswith("partly")
        else "not supported by the authors' machine"
    )
    return f"{support}. {mechanism(claim, results, 'salam')}".strip()


def mechanism(claim: Claim, results: Summaries, model: str) -> str:
    """Why `model`'s number is what it is, from the run's own numbers."""
    measure = _MECHANISMS.get(claim.topic)
    text = measure(results, claim.kernels) if measure else ""
    if model == "salam" and claim.topic in SALAM_MECHANISMS:
        text = f"{SALAM_MECHANISMS[claim.topic]} {text}"
    return text.strip()


__all__ = ["SALAM_MECHANISMS", "SUPPORT", "mechanism", "salam_reason"]
