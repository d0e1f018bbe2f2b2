"""
What a timing model other than `cgra` does differently, stated next to its
verdicts (for `salam`, the mechanisms the authors' machine has:
docs/research/gem5-salam.md). The numbers behind a verdict are the claim's own
reasons (`reasons.py`), computed from that model's runs.
"""

from __future__ import annotations

from tapeflow_benchmarks.harness.claims.base import Claim

SALAM_MECHANISMS: dict[str, str] = {
    "performance": (
        "Under salam the datapath issues in lockstep, so every miss of the baseline's tape "
        "adds to its cycles, while TapeFlow's tape accesses go to tape bins that cost no "
        "datapath time."
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
"""The salam mechanisms, by claim topic."""

MODEL_MECHANISMS: dict[str, dict[str, str]] = {"salam": SALAM_MECHANISMS}


def mechanism(claim: Claim, model: str) -> str:
    """The mechanism of `model` behind the claim's topic ('' if none is stated)."""
    return MODEL_MECHANISMS.get(model, {}).get(claim.topic, "")


__all__ = ["MODEL_MECHANISMS", "SALAM_MECHANISMS", "mechanism"]
