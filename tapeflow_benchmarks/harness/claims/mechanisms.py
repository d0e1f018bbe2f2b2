"""
What a timing model other than `cgra` says about a claim, stated next to its
verdicts: for `salam`, the authors' machine (docs/research/gem5-salam.md), whether
that machine supports the claim and which of its mechanisms decides, for every
measured claim, agreeing or not. Both are read from the runs the claim was judged
on: the support from the verdict, the deciding mechanism from where each kernel's
difference between Enzyme and TapeFlow comes from in those runs:

- a time (the performance rows, `speedup_*`, `cycles_*`, `stall_share*`): the
  cycles TapeFlow saves on the memory side (the misses' stall) against those it
  saves on the datapath (its busy cycles: the issue of the tape accesses and the
  loads they hold back);
- traffic (the DRAM and layout rows, `*_bytes`, `*_tape_bytes`): the bytes saved
  on the tape's own traffic against those saved on the rest (primal and shadow
  lines);
- the scratchpad sweep: whether TapeFlow's cycles change with the scratchpad's
  size at all;
- the unroll sweep: how TapeFlow's ops per cycle change with the layers' width.

A kernel's mechanism is the larger part in the direction of its total change.
A claim whose rows give no such split (energy) gets the support alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tapeflow_benchmarks.harness.claims.base import Summaries, Verdict, fmt, percent, rows_of

Row = dict[str, Any]

SALAM_PARTS: dict[str, str] = {
    "misses": "misses (the memory stall of the 4-way cluster cache)",
    "issue": (
        "issue on the lockstep datapath (its busy cycles: TapeFlow's tape bins commit at "
        "once and hold no load back, the baseline's tape stores wait for their values and "
        "hold the loads after them)"
    ),
    "tape": (
        "the tape bins (the tape's own traffic: the baseline's goes through the cluster "
        "cache, TapeFlow's only when the bins spill and fetch)"
    ),
    "rest": "the rest of the traffic (primal and shadow lines the tape no longer evicts)",
}
"""The mechanisms of the authors' machine a claim's runs can single out."""

MACHINES: dict[str, tuple[str, dict[str, str]]] = {
    "salam": ("the authors' machine", SALAM_PARTS),
}
"""Per model that stands for a machine: its name and the mechanisms a run's
numbers can single out. A model here has its word on every measured claim."""

SET_ASIDE_WHY: dict[str, str] = {
    "salam": (
        "the authors' tape bins hold the whole tape whatever the scratchpad's size, so "
        "its lowering reads only whether there is a scratchpad and its run nothing of it "
        "(`SalamModel.run_hardware`)"
    ),
}
"""Per model, why it runs alike at every value of a field it sets aside."""

SUPPORT = {"agrees": "supported", "not measured": "", "no value": ""}
"""What a verdict says about the machine (anything else: not, or only partly,
supported)."""


def _time_split(row: Row) -> dict[str, float] | None:
    """The cycles TapeFlow saves, as shares of the baseline's: on the memory
    side (stall) and on the datapath (busy)."""
    keys = ("cycles", "cycles_baseline", "stall_share", "stall_share_baseline")
    if any(row.get(k) is None for k in keys) or not row["cycles_baseline"]:
        return None
    base, ours = row["cycles_baseline"], row["cycles"]
    stall = row["stall_share_baseline"] * base - row["stall_share"] * ours
    busy = (1 - row["stall_share_baseline"]) * base - (1 - row["stall_share"]) * ours
    return {"misses": stall / base, "issue": busy / base}


def _traffic_split(row: Row) -> dict[str, float] | None:
    """The bytes TapeFlow (or the layout alone) saves, as shares of the
    baseline's: of the tape's own traffic, and of the rest."""
    for ours in ("tapeflow", "aos"):
        keys = ("enzyme_bytes", "enzyme_tape_bytes", f"{ours}_bytes", f"{ours}_tape_bytes")
        if all(row.get(k) is not None for k in keys) and row["enzyme_bytes"]:
            base = row["enzyme_bytes"]
            tape = row["enzyme_tape_bytes"] - row[f"{ours}_tape_bytes"]
            rest = (
                base - row["enzyme_tape_bytes"] - (row[f"{ours}_bytes"] - row[f"{ours}_tape_bytes"])
            )
            return {"tape": tape / base, "rest": rest / base}
    return None


def _deciding(parts: dict[str, float]) -> str:
    """The part that decides: the largest in the direction of the total."""
    total = sum(parts.values())
    sign = 1 if total >= 0 else -1
    return max(parts, key=lambda name: sign * parts[name])


def _by_split(
    verdict: Verdict, split: Callable[[Row], dict[str, float] | None], unit: str
) -> dict[str, list[str]]:
    """Each mechanism's kernels, with the share it accounts for of the total."""
    found: dict[str, list[str]] = {}
    measured = verdict.measured
    for kernel in verdict.kernels:
        row = measured.source.get(kernel) if measured else None
        parts = split(row) if row else None
        if not parts:
            continue
        name = _deciding(parts)
        found.setdefault(name, []).append(
            f"{kernel} ({percent(parts[name])} of the baseline's {unit}, "
            f"of {percent(sum(parts.values()))} in all)"
        )
    return found


def _scratchpad(results: Summaries, verdict: Verdict) -> str:
    """Whether TapeFlow's speedup changes with the scratchpad's size, per kernel."""
    same, changed = [], []
    for kernel in verdict.kernels:
        rows = sorted(
            (r for r in rows_of(results, "scratchpad") if r["kernel"] == kernel and r["speedup"]),
            key=lambda r: r["spad_bytes"],
        )
        if len(rows) < 2:
            continue
        low, high = min(r["speedup"] for r in rows), max(r["speedup"] for r in rows)
        if high <= low * 1.005:
            same.append(kernel)
        else:
            changed.append(f"{kernel} ({fmt(rows[0]['speedup'])} to {fmt(rows[-1]['speedup'])})")
    parts = []
    if same:
        parts.append(
            "the tape bins' capacity, which is not enforced: TapeFlow's speedup is the same "
            f"at every scratchpad size for {', '.join(same)}"
        )
    if changed:
        parts.append(
            f"the scratchpad's size, which changes TapeFlow's speedup for {'; '.join(changed)}"
        )
    return f"Decided by {'; and by '.join(parts)}." if parts else ""


def _unroll(results: Summaries, verdict: Verdict) -> str:
    """How TapeFlow's ops per cycle change with the unroll factor, per kernel."""
    parts = []
    for kernel in verdict.kernels:
        rows = [
            r
            for r in rows_of(results, "unroll")
            if r["kernel"] == kernel and r.get("study") == "sweep" and r.get("ops_per_cycle")
        ]
        if len(rows) < 2:
            continue
        rows.sort(key=lambda r: r.get("unroll_ran") or r["unroll"])
        first, last = rows[0], rows[-1]
        parts.append(
            f"{kernel} {first['ops_per_cycle']:.2f} ops a cycle at unroll "
            f"{first.get('unroll_ran') or first['unroll']}, {last['ops_per_cycle']:.2f} "
            f"at {last.get('unroll_ran') or last['unroll']}"
        )
    if not parts:
        return ""
    return (
        "Decided by the lockstep groups of the wider body (layer barriers and the bins "
        f"cost nothing): {'; '.join(parts)}."
    )


def deciding(verdict: Verdict, results: Summaries) -> str:
    """The mechanism of the verdict's model that decides its claim, per kernel,
    from the runs it was judged on ('' if they give no split)."""
    if verdict.model not in MACHINES:
        return ""
    names = MACHINES[verdict.model][1]
    topic = verdict.claim.topic
    if topic == "scratchpad":
        return _scratchpad(results, verdict)
    if topic == "layers":
        return _unroll(results, verdict)
    found = _by_split(verdict, _time_split, "cycles") or _by_split(verdict, _traffic_split, "bytes")
    if not found:
        return ""
    parts = [f"{names[name]} for {', '.join(kernels)}" for name, kernels in found.items()]
    return f"Decided by {'; by '.join(parts)}."


def machine_word(verdict: Verdict, results: Summaries) -> str:
    """The machine's word on a measured claim: whether it supports the claim, and
    the mechanism that decides ('' for a model that is no machine)."""
    if verdict.model not in MACHINES:
        return ""
    support = SUPPORT.get(verdict.verdict)
    if support is None:
        support = "partly supported" if verdict.verdict.startswith("partly") else "not supported"
    if not support:
        return ""
    return f"{support} by {MACHINES[verdict.model][0]}. {deciding(verdict, results)}".strip()


__all__ = ["MACHINES", "SALAM_PARTS", "SET_ASIDE_WHY", "SUPPORT", "deciding", "machine_word"]
