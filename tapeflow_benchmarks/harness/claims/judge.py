"""
Judging the claims: each claim once per timing model (`judge`), by the rule in
`claims/__init__.py`, and the models side by side (`compare`).
"""

from __future__ import annotations

from dataclasses import dataclass

from tapeflow_benchmarks.harness.claims.base import TOLERANCE, Claim, Summaries, Verdict, Why
from tapeflow_benchmarks.harness.claims.catalogue import CLAIMS
from tapeflow_benchmarks.harness.claims.mechanisms import mechanism, salam_reason


def _reason(why: Why, results: Summaries) -> str:
    return why(results).strip() if callable(why) else why


def _missing(claim: Claim, kernels_run: set[str] | None) -> list[str]:
    if kernels_run is None:
        return []
    return [k for k in claim.kernels if k not in kernels_run]


def _kernels_run(results: Summaries) -> set[str] | None:
    found = {r["kernel"] for res in results.values() for r in res.rows if "kernel" in r}
    return found or None


def judge(results: Summaries, model: str = "cgra") -> list[Verdict]:
    """Every claim judged on `results`, the experiments of one timing model.
    The written reasons describe `cgra`'s mechanisms; under another model the
    reason is that model's mechanism and numbers."""
    verdicts = []
    kernels_run = _kernels_run(results)
    for claim in CLAIMS:
        missing = _missing(claim, kernels_run)
        measured = (
            None if missing and len(missing) == len(claim.kernels) else claim.measure(results)
        )
        if measured is None:
            named = f" ({', '.join(claim.kernels)} not run)" if missing else ""
            verdicts.append(
                Verdict(claim, "not measured in this run" + named, "not measured", "", model)
            )
            continue
        low, high = claim.low, claim.high
        if low == high:
            low, high = low * (1 - TOLERANCE), high * (1 + TOLERANCE)
        ours_low, ours_high = measured.low, measured.high

        def why(which: Why, claim: Claim = claim) -> str:
            if model == "cgra":
                return _reason(which, results)
            return mechanism(claim, results, model)

        if low <= ours_low and ours_high <= high:
            verdict, reason = "agrees", ""
        elif ours_high < low:
            verdict, reason = "differs: lower", why(claim.why_lower)
        elif ours_low > high:
            verdict, reason = "differs: higher", why(claim.why_higher)
        else:
            below, above = ours_low < low, ours_high > high
            verdict = "partly: " + " and ".join(
                (["some lower"] if below else []) + (["some higher"] if above else [])
            )
            if model != "cgra":
                reason = why("")
            else:
                reason = " ".join(
                    ([_reason(claim.why_lower, results)] if below else [])
                    + ([_reason(claim.why_higher, results)] if above else [])
                )
        if model == "salam":
            reason = salam_reason(claim, results, verdict)
        verdicts.append(Verdict(claim, measured.text, verdict, reason, model, measured))
    return verdicts


@dataclass(frozen=True)
class Comparison:
    """One claim under every model: each model's verdict, and what makes the
    models' numbers differ."""

    claim: Claim
    verdicts: dict[str, Verdict]
    difference: str


def compare(results: dict[str, Summaries]) -> list[Comparison]:
    """Every claim judged per model (`results`: model -> that model's experiments),
    with the mechanism behind the difference between the models: for each model,
    the numbers that set its value (`mechanism`)."""
    judged = {model: judge(r, model) for model, r in results.items()}
    rows = []
    for i, claim in enumerate(CLAIMS):
        verdicts = {model: judged[model][i] for model in results}
        measured = {m: v.value for m, v in verdicts.items() if v.value is not None}
        difference = ""
        if len(measured) >= 2:
            values = ", ".join(f"{m} {v.value_text()}" for m, v in measured.items())
            mechanisms = [
                f"{m}: {mechanism(claim, results[m], 'cgra')}"
                for m in measured
                if mechanism(claim, results[m], "cgra")
            ]
            # The salam mechanism itself is stated in salam's own column.
            difference = f"{values}. " + " ".join(f"{t}." for t in mechanisms)
        rows.append(Comparison(claim, verdicts, difference.strip()))
    return rows


__all__ = ["Comparison", "compare", "judge"]
