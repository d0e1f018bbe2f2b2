"""
The paper's claims (from its evaluation, as summarised in the shared BENCHMARKS.md)
and how each is measured here. Each claim reads the experiments' summaries, gives
our number, a verdict (agrees / differs) by a stated rule, and, where we differ,
the modelling reason.

The rule: the paper's value is a range ("1.3-2.5x") or a point ("2.4x", "up to
14x"), which stands for the range within 25% of it. Ours is a range too (over
kernels) or a single number. They agree when ours lies inside the paper's range,
agree partly when the two ranges overlap, and differ (lower or higher) otherwise.

A claim that names kernels ("up to 14x less DRAM traffic (MTTKRP)") is judged on
those kernels' numbers only (`Claim.kernels`); when they were not run it is "not
measured", never judged on another kernel.

Each claim is judged once per timing model (`judge`), and `compare` puts the models
side by side: each model's verdict with its reason, and the mechanism behind the
difference between the models, from both runs' own numbers. The reasons written
for a claim describe the `cgra` model's mechanisms; under another model the reason
is drawn from that model's numbers (`mechanisms.py`) plus, for `salam`, whether the
authors' own machine supports the claim and which of its mechanisms decides
(`SALAM_MECHANISMS`), for every measured claim, agreeing or not.

By job: `base.py` (what a claim, a measure and a verdict are), `measures.py` (our
numbers), `reasons.py` (the `cgra` model's reasons), `catalogue.py` (the claims
themselves), `mechanisms.py` (a model's mechanism from its numbers), `judge.py`
(the rule, per model and side by side).
"""

from __future__ import annotations

from tapeflow_benchmarks.harness.claims.base import Claim, Measured, Verdict
from tapeflow_benchmarks.harness.claims.catalogue import CLAIMS
from tapeflow_benchmarks.harness.claims.judge import Comparison, compare, judge
from tapeflow_benchmarks.harness.claims.mechanisms import SALAM_MECHANISMS

__all__ = [
    "CLAIMS",
    "SALAM_MECHANISMS",
    "Claim",
    "Comparison",
    "Measured",
    "Verdict",
    "compare",
    "judge",
]
