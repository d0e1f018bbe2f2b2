"""
The reasons for a verdict, each computed from the runs it explains: for every
kernel that breaks the claim's tolerance, the numbers of its runs that set its
value (where the time goes, the tape's share of the traffic, the layers, the
per-access energies of the preset). A reason the runs cannot give is left out.
"""

from __future__ import annotations

from typing import Any

from tapeflow_benchmarks.harness.claims.base import (
    Reason,
    Summaries,
    Verdict,
    fmt,
    percent,
    rows_of,
    size_text,
    spad_rows,
)
from tapeflow_benchmarks.harness.claims.measures import ran
from tapeflow_benchmarks.harness.points import KB
from targets.energy import ENERGY_PRESETS

Row = dict[str, Any]


def breaking(verdict: Verdict) -> list[str]:
    """The kernels that break the tolerance (or, for a judged largest or mean
    value, the kernel that sets it), each once, in the verdict's order."""
    kernels = [*verdict.below, *verdict.above, *verdict.worse]
    if not kernels and verdict.value_kernel:
        kernels = [verdict.value_kernel]
    if not kernels and verdict.claim.judged == "geomean":
        kernels = list(verdict.kernels)
    return list(dict.fromkeys(kernels))


def _join(parts: list[str], lead: str = "") -> str:
    parts = [p for p in parts if p]
    return (lead + "; ".join(parts) + ".") if parts else ""


def _share(value: float | None) -> str:
    return "-" if value is None else percent(value)


def _perf_row(results: Summaries, kernel: str, config: str = "Tflow32k") -> Row | None:
    return next(
        (
            r
            for r in rows_of(results, "performance")
            if r["kernel"] == kernel and r["config"] == config and r["baseline"] == "Enzyme32k"
        ),
        None,
    )


def _time(results: Summaries, kernels: list[str], config: str = "Tflow32k") -> str:
    """Where each kernel's time goes. If TapeFlow removed every memory wait of
    the baseline and added none, its speedup would be at most
    1 / (1 - the baseline's wait share)."""
    parts = []
    for k in kernels:
        r = _perf_row(results, k, config)
        if r is None or r.get("stall_share_baseline") is None:
            continue
        base = r["stall_share_baseline"]
        text = (
            f"{k} {percent(base)} (bound {fmt(1 / (1 - base)) if base < 1 else '-'}), "
            f"{config} {_share(r.get('stall_share'))}"
        )
        if r.get("stream_stall_share"):
            text += f" ({percent(r['stream_stall_share'])} on REV tiles)"
        if r.get("speedup_fwd") and r.get("speedup_rev"):
            text += f", FWD {fmt(r['speedup_fwd'])}, REV {fmt(r['speedup_rev'])}"
        if r.get("layers") is not None:
            text += f", {r['layers']} layers"
        parts.append(text)
    return _join(
        parts,
        f"Share of the cycles waiting for memory, Enzyme32k (and the speedup {config} "
        "would reach at most if it removed every such wait and added none) then "
        f"{config}, with the FWD and REV speedups: ",
    )


def why_time(results: Summaries, verdict: Verdict) -> str:
    return _time(results, breaking(verdict))


def why_time_2k(results: Summaries, verdict: Verdict) -> str:
    return _time(results, breaking(verdict), "Tflow2k")


def why_wide(results: Summaries, verdict: Verdict) -> str:
    """A speedup is the ratio of operation counts times the ratio of operations
    per cycle: which of the two sets it."""
    parts = []
    for k in breaking(verdict):
        r = next(
            (x for x in rows_of(results, "unroll") if x["kernel"] == k and x["study"] != "sweep"),
            None,
        )
        if not r or not r.get("ops_per_cycle") or not r.get("enzyme_ops_per_cycle"):
            continue
        rate = r["ops_per_cycle"] / r["enzyme_ops_per_cycle"]
        count = r["speedup"] / rate
        parts.append(
            f"{k}: TapeFlow runs {r['ops_per_cycle']:.2f} ops per cycle against Enzyme's "
            f"{r['enzyme_ops_per_cycle']:.2f} ({fmt(rate)}) and Enzyme executes {fmt(count)} "
            f"TapeFlow's operations, so the speedup is {fmt(r['speedup'])} "
            f"({r['layers']} layers)"
        )
    return _join(parts)


def _rows(verdict: Verdict) -> list[tuple[str, Row]]:
    """The experiment row behind each breaking kernel's value (its least
    favourable one where that is what breaks the claim)."""
    m = verdict.measured
    if m is None:
        return []
    rows = []
    for k in breaking(verdict):
        row = m.worst_source.get(k) if k in verdict.worse else m.source.get(k)
        if row is not None:
            rows.append((k, row))
    return rows


def why_dram(results: Summaries, verdict: Verdict) -> str:
    """The tape's share of Enzyme's traffic bounds the reduction: with no tape
    traffic at all it would be total / (total - tape)."""
    parts = []
    for k, r in _rows(verdict):
        total, tape = r["enzyme_bytes"], r["enzyme_tape_bytes"]
        if not total:
            continue
        bound = fmt(total / (total - tape)) if total > tape else "unbounded"
        parts.append(
            f"{k} at {r['cache_kb']} KB: Enzyme {total:,} B, {percent(tape / total)} tape "
            f"(bound {bound}); TapeFlow {r['tapeflow_bytes']:,} B, "
            f"{r['tapeflow_tape_bytes']:,} B tape"
        )
    return _join(
        parts,
        "DRAM bytes moved and the tape's share; with no tape traffic at all the reduction "
        "would reach at most the bound, total / (total - tape): ",
    )


def why_layout(results: Summaries, verdict: Verdict) -> str:
    parts = []
    for k, r in _rows(verdict):
        parts.append(
            f"{k} at {r['cache_kb']} KB: {r['enzyme_bytes']:,} B ({r['enzyme_tape_bytes']:,} B "
            f"tape) against {r['aos_bytes']:,} B ({r['aos_tape_bytes']:,} B tape), "
            f"{100 * (r['aos_norm'] - 1):+.0f}%"
        )
    return _join(
        parts,
        "DRAM bytes with Enzyme's separate tape buffers against one array of structs: ",
    )


def why_energy(preset_name: str) -> Reason:
    """The preset's per-access cache energies next to the reduction at the same
    cache size."""

    def why(results: Summaries, verdict: Verdict) -> str:
        rows = [r for r in rows_of(results, "energy") if r["energy_preset"] == preset_name]
        preset = ENERGY_PRESETS[preset_name]
        parts, caches = [], {}
        for k in breaking(verdict):
            mine = {r["config"]: r for r in rows if r["kernel"] == k}
            best = max(mine.values(), key=lambda r: r["energy_reduction"] or 0, default=None)
            if best is None:
                continue
            caches[best["config"]] = best["cache_kb"]
            same = mine.get("Tflow32k")
            text = f"{k} {fmt(best['energy_reduction'])} with {best['config']}"
            if same and same["energy_reduction"] and best["config"] != "Tflow32k":
                text += f", {fmt(same['energy_reduction'])} with Tflow32k"
            parts.append(text)
        costs = [
            f"{config}'s {kb:g} KB cache costs {preset.cache_pj(int(kb * KB)):g} pJ per access "
            f"against {preset.cache_pj(32 * KB):g} pJ for Enzyme32k's 32 KB"
            for config, kb in caches.items()
            if kb != 32
        ]
        lead = (f"In the '{preset_name}' preset " + "; ".join(costs) + ". ") if costs else ""
        return lead + _join(parts, "Reduction with the best configuration and at the same 32 KB: ")

    return why


def why_sram(results: Summaries, verdict: Verdict) -> str:
    rows = [r for r in rows_of(results, "energy") if r["energy_preset"] == "paper"]
    parts = []
    for k in [*breaking(verdict), *verdict.missing]:
        mine = {r["config"]: r for r in rows if r["kernel"] == k}
        iso, at32 = mine.get("ISO-perf"), mine.get("Tflow32k")
        if iso:
            parts.append(
                f"{k}: Enzyme32k has {iso['sram_bytes_baseline']:,} B of SRAM, TapeFlow "
                f"{iso['sram_bytes']:,} B at its smallest matching cache ({iso['cache_kb']:g} KB)"
            )
        elif at32 and at32.get("cycles_ratio"):
            parts.append(f"{k}: even Tflow32k takes {at32['cycles_ratio']:.2f}x Enzyme32k's cycles")
    return _join(parts)


def _spad(results: Summaries, kernel: str, large_bytes: int | None = None) -> str:
    rows = spad_rows(results).get(kernel)
    if not rows:
        return ""
    small_bytes = min(rows)
    large_bytes = max(rows) if large_bytes is None or large_bytes not in rows else large_bytes
    small, large = rows[small_bytes], rows[large_bytes]
    if small.get("speedup") is None or large.get("speedup") is None:
        return ""

    def layers(r: Row) -> str:
        return f" in {r['layers']} layers" if r.get("layers") is not None else ""

    text = (
        f"{kernel}: {fmt(small['speedup'])} over Enzyme32k{layers(small)} at "
        f"{size_text(small_bytes)}, {fmt(large['speedup'])}{layers(large)} at "
        f"{size_text(large_bytes)}"
    )
    if small.get("memory_stall_share") is not None and large.get("memory_stall_share") is not None:
        text += (
            f"; waiting for memory {percent(small['memory_stall_share'])} of the cycles at "
            f"{size_text(small_bytes)}, {percent(large['memory_stall_share'])} at "
            f"{size_text(large_bytes)}"
        )
    return text


def why_spad(results: Summaries, verdict: Verdict) -> str:
    return _join([_spad(results, k) for k in breaking(verdict)])


def why_spad_small(results: Summaries, verdict: Verdict) -> str:
    """Against the paper's 512 B scratchpad."""
    return _join([_spad(results, k, 512) for k in breaking(verdict)])


def why_unroll(results: Summaries, verdict: Verdict) -> str:
    parts = []
    for k in breaking(verdict):
        sweep = [
            r for r in rows_of(results, "unroll") if r["kernel"] == k and r["study"] == "sweep"
        ]
        if len(sweep) < 2:
            continue
        first, last = sweep[0], sweep[-1]
        text = (
            f"{k}: from unroll {ran(first)} to {ran(last)} the ops per cycle change by "
            f"{fmt(last['parallelism_norm'] or 0)}, the layers from {first['layers']} to "
            f"{last['layers']}"
        )
        asked = [r["unroll"] for r in sweep if ran(r) != r["unroll"]]
        if asked:
            text += (
                f"; unroll {', '.join(str(a) for a in asked)} ran as "
                f"{', '.join(str(ran(r)) for r in sweep if ran(r) != r['unroll'])} "
                "(the largest divisor of the loops' trip count)"
            )
        parts.append(text)
    return _join(parts)


__all__ = [
    "breaking",
    "why_dram",
    "why_energy",
    "why_layout",
    "why_spad",
    "why_spad_small",
    "why_sram",
    "why_time",
    "why_time_2k",
    "why_unroll",
    "why_wide",
]
