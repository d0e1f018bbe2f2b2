"""
What a timing model other than `cgra` says about a claim, stated next to its
verdicts: for `salam`, the authors' machine (docs/research/gem5-salam.md), whether
that machine supports the claim and which of its mechanisms decides, for every
measured claim, agreeing or not. The numbers behind a verdict are the claim's own
reasons (`reasons.py`), computed from that model's runs.
"""

from __future__ import annotations

from tapeflow_benchmarks.harness.claims.base import Claim

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
"""The mechanism of the authors' machine that decides each claim under salam."""

MACHINES: dict[str, tuple[str, dict[str, str]]] = {
    "salam": ("the authors' machine", SALAM_MECHANISMS),
}
"""Per model that stands for a machine: its name and its mechanisms by claim
topic. A model here has its word on every measured claim."""

SUPPORT = {"agrees": "supported", "not measured": "", "no value": ""}
"""What a verdict says about the machine (anything else: not, or only partly,
supported)."""


def mechanism(claim: Claim, model: str) -> str:
    """The mechanism of `model` behind the claim's topic ('' if none is stated)."""
    return MACHINES.get(model, ("", {}))[1].get(claim.topic, "")


def machine_word(claim: Claim, model: str, verdict: str) -> str:
    """The machine's word on a measured claim: whether it supports the claim, and
    the mechanism that decides ('' for a model that is no machine)."""
    if model not in MACHINES:
        return ""
    support = SUPPORT.get(verdict)
    if support is None:
        support = "partly supported" if verdict.startswith("partly") else "not supported"
    if not support:
        return ""
    return f"{support} by {MACHINES[model][0]}. {mechanism(claim, model)}".strip()


__all__ = ["MACHINES", "SALAM_MECHANISMS", "SUPPORT", "machine_word", "mechanism"]
