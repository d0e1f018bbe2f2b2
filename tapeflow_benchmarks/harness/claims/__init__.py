"""
The paper's claims (from its evaluation, Sections VI-VII and Figs. 10-18)
and how each is measured here. A claim is the paper's statement, a measure
computed from the runs (one value per kernel), a tolerance, and how the kernels'
values are judged; its verdict and its reasons are printed from the numbers.

The tolerance: a range claim ("1.3-2.5x") is its range; a point claim ("2.4x",
"up to 14x") the values whose effect (distance from no change: 1x or 0%) is
within 25% of the paper's (1.3x: 1.23x-1.38x); a "matches" claim Enzyme32k's
cycles +5% (the ISO-performance slack). Every verdict states its tolerance,
counts every kernel the claim covers (the kernels it names, or every kernel
run), and names those below or above it and those without a value
(`judge.py` has the rule).

A claim that names kernels ("up to 14x less DRAM traffic (MTTKRP)") is judged on
those kernels only; when they were not run it is "not measured".

Each claim is judged once per timing model on that model's runs (`judge`), and
`compare` puts the models side by side. The reasons (`reasons.py`) are the same
functions for every model: the numbers of the runs of the kernels that break the
tolerance. A model that stands for a machine (`salam`: the authors' gem5-SALAM
machine) also says, for every measured claim, agreeing or not, whether that
machine supports it and which of its mechanisms decides (`mechanisms.py`).

By job: `base.py` (claim, tolerance, measure, verdict), `measures.py` (our
numbers), `reasons.py` (the numbers behind a difference), `catalogue.py` (the
claims themselves), `mechanisms.py` (a model's stated mechanisms), `judge.py`
(the rule, per model and side by side).
"""

from __future__ import annotations

from tapeflow_benchmarks.harness.claims.base import Claim, Measured, Verdict
from tapeflow_benchmarks.harness.claims.catalogue import CLAIMS
from tapeflow_benchmarks.harness.claims.judge import Comparison, compare, judge, judge_claim
from tapeflow_benchmarks.harness.claims.mechanisms import SALAM_PARTS

__all__ = [
    "CLAIMS",
    "SALAM_PARTS",
    "Claim",
    "Comparison",
    "Measured",
    "Verdict",
    "compare",
    "judge",
    "judge_claim",
]
