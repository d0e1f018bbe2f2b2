"""
What a claim is (`Claim`), what we measure for it (`Measured`) and what it is
judged (`Verdict`), with the helpers every claim's measure and reason read the
experiments' summaries and print numbers with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tapeflow_benchmarks.harness.experiments import Result

TOLERANCE = 0.25

Summaries = dict[str, Result]


@dataclass(frozen=True)
class Measured:
    low: float
    high: float
    text: str
    unit: str = "x"
    """How a value prints: 'x' (a ratio), '%' (a share) or '+%' (a gain)."""

    def value_text(self) -> str:
        def one(v: float) -> str:
            if self.unit == "%":
                return f"{v:.0f}%"
            if self.unit == "+%":
                return f"{v:+.0f}%"
            return times(v)

        return one(self.high) if self.low == self.high else f"{one(self.low)} to {one(self.high)}"


def single(value: float, text: str, unit: str = "x") -> Measured:
    return Measured(value, value, text, unit)


Why = Callable[[Summaries], str] | str


@dataclass(frozen=True)
class Claim:
    topic: str
    paper: str
    measure: Callable[[Summaries], Measured | None]
    """Our number or range, and how to print it; None if not measured."""
    low: float
    high: float
    """The paper's value (low == high) or range."""
    why_lower: Why = ""
    """The `cgra` model's reason when our number is below the paper's (a text, or
    a function of the results that puts our own evidence in it)."""
    why_higher: Why = ""
    kernels: tuple[str, ...] = ()
    """The kernels the claim names (judged on these only); empty: all kernels."""


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    ours: str
    verdict: str
    reason: str
    model: str = "cgra"
    value: Measured | None = None


def summary_at(results: Summaries, experiment: str, *path: str) -> Any:
    node: Any = results.get(experiment)
    if node is None:
        return None
    node = node.summary
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def times(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def percent(value: float) -> str:
    return f"{100 * value:.0f}%"


def spad_rows(results: Summaries) -> dict[str, dict[int, dict]]:
    rows = results.get("scratchpad")
    table: dict[str, dict[int, dict]] = {}
    for r in rows.rows if rows else []:
        table.setdefault(r["kernel"], {})[r["spad_bytes"]] = r
    return table


def size_text(n: int) -> str:
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


__all__ = [
    "TOLERANCE",
    "Claim",
    "Measured",
    "Summaries",
    "Verdict",
    "Why",
    "percent",
    "single",
    "size_text",
    "spad_rows",
    "summary_at",
    "times",
]
