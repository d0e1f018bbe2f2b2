"""
Judging the claims: each claim once per timing model (`judge`), and the models
side by side (`compare`).

The rule, per claim (`Claim.judged`), over every kernel the claim counts (the
kernels it names, or every kernel run):
- 'each': each kernel's value is placed within, below or above the tolerance. The
  claim agrees when every kernel is within it, differs (lower or higher) when none
  is and all that break it break it the same way, and agrees partly otherwise.
- 'max' ("up to"): the largest value decides: within the tolerance it agrees,
  below or above it differs. A kernel worse than no change somewhere (more
  traffic, a slowdown) is named beside the verdict and does not change it: an
  "up to" claim states the best case only.
- 'geomean': the geometric mean of the kernels' values decides; the kernels
  outside the tolerance are still named.
Under every rule a kernel without a value is named, never dropped, and makes an
agreeing verdict partial. A claim the model cannot test (`Claim.varies`) is 'not
testable', with the reason; one measured at a size outside `JUDGED_SIZES` is 'not
judged': its numbers are printed, never set against the paper's.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import exp, log

from sim.models import model_machine, set_aside
from tapeflow_benchmarks.harness.claims.base import (
    UNJUDGED,
    UNTESTABLE,
    Claim,
    Measured,
    Summaries,
    Verdict,
    fmt,
    neutral,
)
from tapeflow_benchmarks.harness.claims.catalogue import CLAIMS
from tapeflow_benchmarks.harness.claims.mechanisms import SET_ASIDE_WHY, machine_word
from targets.machine import nested_key

JUDGED_SIZES = ("paper", "artifact")
"""The kernel sizes the claims are judged at: the paper's, and those of the
authors' gem5-SALAM runs. The `small` kernels (`--quick`) are far smaller than
the paper's: there a claim is measured, not judged."""


def untestable(claim: Claim, model: str) -> str:
    """Why `model` cannot test `claim` ('' if it can): it runs alike at every
    value of the hardware field the claim varies (`sim.models.set_aside`)."""
    if claim.varies is None:
        return ""
    field, value = claim.varies
    reference = model_machine(model, "Tflow32k")
    changed = model_machine(model, "Tflow32k", [(nested_key(field, value), "the claim")])
    if field not in set_aside(model, changed, reference):
        return ""
    why = SET_ASIDE_WHY.get(model, "")
    return (
        f"{model} runs alike at every value of {field} (`sim.models.set_aside`)"
        + (f": {why}" if why else "")
        + "; no number of its runs can depend on it"
    )


def kernels_run(results: Summaries) -> list[str]:
    """Every kernel with a row in any experiment, in the order first seen."""
    return list(
        dict.fromkeys(r["kernel"] for res in results.values() for r in res.rows if "kernel" in r)
    )


def _place(claim: Claim, measured: Measured, kernels: list[str]) -> dict[str, list[str]]:
    places: dict[str, list[str]] = {"within": [], "below": [], "above": [], "missing": []}
    for k in kernels:
        v = measured.values.get(k)
        places["missing" if v is None else claim.tolerance.place(v)].append(k)
    return places


def _overall(places: dict[str, list[str]]) -> str:
    within, below, above = places["within"], places["below"], places["above"]
    if not (within or below or above):
        return "no value"
    if within and not (below or above or places["missing"]):
        return "agrees"
    if not within and below and not above:
        return "differs: lower"
    if not within and above and not below:
        return "differs: higher"
    return "partly"


def judge_claim(
    claim: Claim, results: Summaries, model: str = "cgra", size: str = "paper"
) -> Verdict:
    """One claim on the experiments of one timing model, its kernels at `size`."""
    run = kernels_run(results)
    kernels = list(claim.kernels) if claim.kernels else run
    not_run = [k for k in kernels if run and k not in run]
    measured = claim.measure(results) if len(not_run) < len(kernels) or not kernels else None
    why_not = untestable(claim, model)
    if measured is None:
        missing = tuple(not_run) if not_run else ()
        verdict = UNTESTABLE if why_not else "not measured"
        return Verdict(
            claim, model, verdict, tuple(kernels), missing=missing, size=size, why_not=why_not
        )
    for k in not_run:
        measured.missing.setdefault(k, "not run")
    places = _place(claim, measured, kernels)
    value, value_kernel, worse = None, "", []
    known = {k: measured.values[k] for k in kernels if measured.values.get(k) is not None}
    verdict = _overall(places)
    if known and claim.judged in ("max", "geomean"):
        if claim.judged == "max":
            value_kernel = max(known, key=lambda k: known[k])  # type: ignore[arg-type,return-value]
            value = known[value_kernel]
            worse = [
                k
                for k in kernels
                if k in measured.worst and measured.worst[k][0] < neutral(measured.unit)
            ]
        else:
            value = exp(sum(log(v) for v in known.values() if v and v > 0) / len(known))
        where = claim.tolerance.place(value)  # type: ignore[arg-type]
        if claim.judged == "max" and where != "below":
            # "Up to": with the largest value reaching the paper's, a kernel below
            # it does not break the claim.
            places["within"] += places["below"]
            places["below"] = []
        verdict = {"within": "agrees", "below": "differs: lower", "above": "differs: higher"}[where]
        if where == "within" and places["missing"]:
            verdict = "partly"
    if why_not:
        verdict = UNTESTABLE
    elif size not in JUDGED_SIZES:
        verdict = UNJUDGED
    result = Verdict(
        claim,
        model,
        verdict,
        tuple(kernels),
        tuple(places["within"]),
        tuple(places["below"]),
        tuple(places["above"]),
        tuple(places["missing"]),
        tuple(worse),
        value,
        value_kernel,
        measured,
        size=size,
        why_not=why_not,
    )
    return _with_reason(result, results) if result.judged else result


def _with_reason(verdict: Verdict, results: Summaries) -> Verdict:
    """The verdict with its reason: a model that stands for a machine says
    whether that machine supports the claim and which mechanism decides, both
    read from the runs (`mechanisms.py`, on every measured claim); then, for each way the kernels
    break the tolerance, the numbers the runs give (left out where they give none)."""
    claim = verdict.claim
    word = machine_word(verdict, results)
    if verdict.verdict == "agrees" and not verdict.worse:
        return Verdict(**{**verdict.__dict__, "reason": word})
    low = bool(verdict.below or verdict.missing) or verdict.verdict == "differs: lower"
    high = bool(verdict.above or verdict.worse) or verdict.verdict == "differs: higher"
    reasons = []
    for applies, why in ((low, claim.why_lower), (high, claim.why_higher)):
        if applies and why is not None and why not in reasons:
            reasons.append(why)
    parts = [word, *(why(results, verdict).strip() for why in reasons)]
    return Verdict(**{**verdict.__dict__, "reason": " ".join(p for p in parts if p)})


def judge(results: Summaries, model: str = "cgra", size: str = "paper") -> list[Verdict]:
    """Every claim judged on `results`, the experiments of one timing model."""
    return [judge_claim(claim, results, model, size) for claim in CLAIMS]


OUTCOMES = ("agree", "partly agree", "differ", "not testable", "not judged", "not measured")
"""The bottom line's kinds of verdict, in the order it counts them."""


def outcome(verdict: Verdict) -> str:
    """The kind of `verdict` the bottom line counts it as (`OUTCOMES`)."""
    if verdict.verdict == "agrees":
        return "agree"
    if verdict.verdict == "partly":
        return "partly agree"
    if verdict.verdict.startswith("differs"):
        return "differ"
    if verdict.verdict == UNTESTABLE:
        return "not testable"
    if verdict.verdict == UNJUDGED:
        return "not judged"
    return "not measured"


def tally(verdicts: list[Verdict]) -> dict[str, int]:
    """How many of `verdicts` are of each kind (`OUTCOMES`, every kind present)."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for v in verdicts:
        counts[outcome(v)] += 1
    return counts


@dataclass(frozen=True)
class Comparison:
    """One claim under every model: each model's verdict, and the models' values
    side by side."""

    claim: Claim
    verdicts: dict[str, Verdict]
    difference: str


def compare(results: dict[str, Summaries], size: str = "paper") -> list[Comparison]:
    """Every claim judged per model (`results`: model -> that model's experiments,
    its kernels at `size`), with the models' numbers side by side where two or
    more measured it."""
    judged = {model: judge(r, model, size) for model, r in results.items()}
    rows = []
    for i, claim in enumerate(CLAIMS):
        verdicts = {model: judged[model][i] for model in results}
        measured = {m: v for m, v in verdicts.items() if v.measured is not None}
        difference = ""
        if len(measured) >= 2:
            kernels = list(dict.fromkeys(k for v in measured.values() for k in v.kernels))
            per_kernel = []
            for k in kernels:
                values = [
                    f"{m} {fmt(x, v.unit)}"
                    for m, v in measured.items()
                    if v.measured and (x := v.measured.values.get(k)) is not None
                ]
                if values:
                    per_kernel.append(f"{k}: {', '.join(values)}")
            difference = "; ".join(per_kernel)
        rows.append(Comparison(claim, verdicts, difference))
    return rows


__all__ = [
    "JUDGED_SIZES",
    "OUTCOMES",
    "Comparison",
    "compare",
    "judge",
    "judge_claim",
    "kernels_run",
    "outcome",
    "tally",
    "untestable",
]
