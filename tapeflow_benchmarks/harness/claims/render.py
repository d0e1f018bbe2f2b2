"""
The claims in report.md and results.json: the bottom line (per timing model, how
many claims agree, partly agree, differ, cannot be tested or were not judged, and
which model to read each claim on), a table with one short line per claim and
model (the verdict, its tolerance, its count of kernels and the names of those
that break it), each linking to the claim's section below, which has the
measure, the kernels' values under every model, and the reasons. A sentence the
report already printed (the same numbers explaining two claims, a model's stated
mechanism) is printed once and referred to after.
"""

from __future__ import annotations

import re
from typing import Any

from tapeflow_benchmarks.harness.claims.base import Verdict
from tapeflow_benchmarks.harness.claims.judge import JUDGED_SIZES, Comparison, tally

MODELS_TEXT = {
    "cgra": (
        "the CGRA the paper describes: a pipelined 4x4 grid, a 512 B scratchpad whose "
        "capacity cuts the tape into layers, streams timed against DRAM, Table III's caches"
    ),
    "salam": (
        "the machine the paper's numbers were measured on, gem5-SALAM's `binned` branch: "
        "a lockstep datapath, tape bins that cost no time and hold the whole tape (the "
        "scratchpad's size is set aside), a 4-way cluster cache"
    ),
}
"""What each timing model stands for, in the bottom line."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def anchor(comparison: Comparison) -> str:
    return f"claim-{comparison.claim.key}"


class _Once:
    """Sentences printed so far, and where: a reason printed again is replaced by
    a link to where it was first printed."""

    LONG = 60

    def __init__(self) -> None:
        self.seen: dict[str, tuple[str, str]] = {}

    def text(self, text: str, where: str, label: str) -> str:
        kept, earlier = [], []
        for s in sentences(text):
            if len(s) >= self.LONG and s in self.seen:
                earlier.append(self.seen[s])
            else:
                kept.append(s)
                self.seen.setdefault(s, (where, label))
        refs = list(dict.fromkeys(earlier))
        if refs:
            kept.append(
                "As for " + ", ".join(f"[{label}](#{where})" for where, label in refs) + "."
            )
        return " ".join(kept)


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def _value(v: Verdict, kernel: str) -> str:
    m = v.measured
    if m is None:
        return "not run" if kernel in v.missing else "-"
    value = m.values.get(kernel)
    if value is None:
        return m.missing.get(kernel, "no value")
    mark = ""
    if v.judged:  # a verdict that sets the value against the paper's
        mark = " (below)" if kernel in v.below else " (above)" if kernel in v.above else ""
    return v.value_text(kernel).removeprefix(f"{kernel} ") + mark


def tally_text(verdicts: list[Verdict], model: str, size: str) -> str:
    """ "N of M claims agree, ..." for one model's verdicts."""
    n = tally(verdicts)
    text = (
        f"{n['agree']} of {len(verdicts)} claims agree, {n['partly agree']} partly agree, "
        f"{n['differ']} differ, {n['not testable']} are not testable under {model}"
    )
    if n["not judged"]:
        text += f", {n['not judged']} are not judged at {size} size"
    if n["not measured"]:
        text += f", {n['not measured']} were not measured"
    return text


def bottom_line(claims: list[Comparison], models: list[str], size: str) -> list[str]:
    """Per model, the claims' verdicts counted; the energy claim under both
    presets; and which model to read each claim on, and why."""
    lines = ["## Bottom line", ""]
    if size not in JUDGED_SIZES:
        lines += [
            f"At `{size}` size no claim is judged: the kernels are far smaller than the "
            "paper's, so their numbers check the pipeline, not the paper. Run "
            "`tapeflow-bench` (the paper's sizes) or `--size artifact` (the authors') "
            "for verdicts.",
            "",
        ]
    for model in models:
        verdicts = [c.verdicts[model] for c in claims]
        what = MODELS_TEXT.get(model)
        lines.append(
            f"- **{model}**" + (f" ({what})" if what else "") + ": "
            f"{tally_text(verdicts, model, size)}."
        )
    trusted = [
        c.verdicts[c.claim.trust if c.claim.trust in models else models[0]]
        for c in claims
        if c.claim.trust in models or (c.claim.trust == "either" and models)
    ]
    if len(models) > 1 and len(trusted) == len(claims):
        lines.append(
            "- **each claim on the model to read it on** (the table below): "
            f"{tally_text(trusted, 'the model it is read on', size)}."
        )
    energy = [(i, c) for i, c in enumerate(claims, 1) if c.claim.topic == "energy"]
    if len(energy) > 1:
        numbers = " and ".join(str(i) for i, _ in energy)
        per_model = "; ".join(
            f"{model}: " + " and ".join(c.verdicts[model].label() for _, c in energy)
            for model in models
        )
        if size not in JUDGED_SIZES:
            per_model = "not judged at this size"
        lines += [
            "",
            f"The energy claim is judged once per energy preset (claims {numbers}; "
            f"{per_model}): its verdict turns on the per-access energies, Table III's "
            "('paper') or CACTI's at 45 nm ('cacti45'), not on the timing model.",
        ]
    lines += [
        "",
        "Which model to read each claim on, and why:",
        "",
        "| claim | read it on | its verdict there | why |",
        "|---|---|---|---|",
    ]
    for i, c in enumerate(claims, 1):
        trusted = [m for m in models if c.claim.trust in (m, "either")]
        there = "; ".join(f"{m}: {c.verdicts[m].label()}" for m in trusted) or "not run"
        lines.append(
            f"| [{i}. {_cell(c.claim.paper)}](#{anchor(c)}) | {c.claim.trust} | {_cell(there)} "
            f"| {_cell(c.claim.trust_why)} |"
        )
    return lines + [""]


def claims_markdown(claims: list[Comparison], models: list[str]) -> list[str]:
    lines = [
        "## The paper's claims",
        "",
        "Each claim is measured per kernel and judged on each timing model's own runs "
        "against a stated tolerance: a range claim its range, a point claim the paper's "
        "value with its effect (the distance from no change) +-25%. A claim that names "
        "kernels counts those only; otherwise every kernel run counts, and a kernel "
        "without a value is named, never dropped, and makes an agreeing verdict partial. "
        'An "up to" claim is judged on its largest value alone: a kernel worse than no '
        'change is named beside the verdict, never counted against it, since "up to" '
        "states the best case only. A claim the model runs alike for at every value of "
        "what it varies is not testable under that model; at a size the claims are not "
        f"judged at (only {' and '.join(JUDGED_SIZES)} are) it is measured, not judged. "
        "Each line links to the claim's section below.",
        "",
        "| claim | model | ours | verdict |",
        "|---|---|---|---|",
    ]
    for i, c in enumerate(claims, 1):
        for model in models:
            v = c.verdicts[model]
            lines.append(
                f"| [{i}. {_cell(c.claim.paper)}](#{anchor(c)}) | {model} | {_cell(v.ours())} "
                f"| {_cell(v.short())} |"
            )
    lines += ["", "### The claims in detail", ""]
    once = _Once()
    for i, c in enumerate(claims, 1):
        lines += _detail(i, c, models, once)
    return lines


def _detail(i: int, c: Comparison, models: list[str], once: _Once) -> list[str]:
    claim = c.claim
    where, label = anchor(c), f"claim {i}"
    lines = [f'<a id="{where}"></a>', "", f"#### {i}. {claim.paper} ({claim.topic})", ""]
    measured = next((v.measured for v in c.verdicts.values() if v.measured), None)
    judged = {"each": "every kernel", "max": "the largest value", "geomean": "the geomean"}
    lines.append(
        f"Measured: {measured.what if measured else 'not measured'}, per kernel. "
        f"Tolerance: {claim.tolerance.text}. Judged on {judged[claim.judged]}"
        + (f", for {', '.join(claim.kernels)} only" if claim.kernels else "")
        + "."
    )
    lines.append("")
    kernels = list(dict.fromkeys(k for v in c.verdicts.values() for k in v.kernels))
    if kernels and any(v.measured for v in c.verdicts.values()):
        lines += ["| kernel | " + " | ".join(models) + " |", "|---|" + "---|" * len(models)]
        for k in kernels:
            lines.append(
                f"| {k} | " + " | ".join(_cell(_value(c.verdicts[m], k)) for m in models) + " |"
            )
        lines.append("")
    for model in models:
        v = c.verdicts[model]
        if v.why_not:
            text = f"- **{model}**: {v.label()}: {once.text(v.why_not + '.', where, label)}"
        elif v.measured and not v.judged:
            text = f"- **{model}**: {v.label()}."
        elif v.measured:
            text = f"- **{model}**: {v.label()}; {v.counts()}."
        else:
            text = f"- **{model}**: {v.ours()}."
        if v.reason:
            reason = once.text(v.reason, where, label)
            text += " " + reason[:1].upper() + reason[1:]
        lines.append(text)
    lines.append("")
    return lines


def claim_record(c: Comparison) -> dict[str, Any]:
    """A claim in results.json: its rule and, per model, the verdict and the
    numbers it was judged on."""

    def model_record(v: Verdict) -> dict[str, Any]:
        m = v.measured
        return {
            "ours": v.ours(),
            "verdict": v.label(),
            "summary": v.short().replace("**", ""),
            "kernels": list(v.kernels),
            "within": list(v.within),
            "below": list(v.below),
            "above": list(v.above),
            "missing": {k: (m.missing.get(k, "no value") if m else "not run") for k in v.missing},
            "worse": list(v.worse),
            "value": v.value,
            "values": dict(m.values) if m else {},
            "reason": v.reason,
        }

    t = c.claim.tolerance
    return {
        "key": c.claim.key,
        "topic": c.claim.topic,
        "paper": c.claim.paper,
        "kernels": list(c.claim.kernels),
        "judged": c.claim.judged,
        "trust": c.claim.trust,
        "trust_why": c.claim.trust_why,
        "tolerance": {
            "low": None if t.low == float("-inf") else t.low,
            "high": t.high,
            "text": t.text,
        },
        "models": {m: model_record(v) for m, v in c.verdicts.items()},
        "difference": c.difference,
    }


__all__ = [
    "MODELS_TEXT",
    "anchor",
    "bottom_line",
    "claim_record",
    "claims_markdown",
    "sentences",
    "tally_text",
]
