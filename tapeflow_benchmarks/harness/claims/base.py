"""
What a claim is (`Claim`: the paper's statement, a measure computed from the runs
and a tolerance), what we measure for it (`Measured`: one value per kernel) and
what it is judged (`Verdict`: the kernels within the tolerance, those below or
above it, and those without a value), with the helpers every claim's measure and
reason read the experiments' results and print numbers with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tapeflow_benchmarks.harness.experiments import Result

TOLERANCE = 0.25
"""A point claim ("2.4x", "up to 14x") stands for the values whose effect (the
distance from no change: 1x, or 0%) is within 25% of the paper's."""

Summaries = dict[str, Result]

UNITS = ("x", "%", "+%")
"""How a value prints: 'x' (a ratio), '%' (a share) or '+%' (a gain)."""


def fmt(value: float, unit: str = "x") -> str:
    if unit == "%":
        return f"{value:.0f}%"
    if unit == "+%":
        return f"{value:+.0f}%"
    return f"{value:.2f}x"


def fmt_apart(value: float, edges: tuple[float, ...], unit: str = "x") -> str:
    """`value` printed with enough digits that it does not print as an edge it is
    not (+24.6% is below +25%: printed +24.6%, not +25%)."""
    for extra in range(4):
        text = _fmt_digits(value, unit, extra)
        if all(
            text != _fmt_digits(e, unit, extra) or e == value
            for e in edges
            if e not in (float("inf"), float("-inf"))
        ):
            return text
    return text


def _fmt_digits(value: float, unit: str, extra: int) -> str:
    if unit == "%":
        return f"{value:.{extra}f}%"
    if unit == "+%":
        return f"{value:+.{extra}f}%"
    return f"{value:.{2 + extra}f}x"


def neutral(unit: str) -> float:
    """The value that means no change: 1x for a ratio, 0% for a share or gain."""
    return 1.0 if unit == "x" else 0.0


@dataclass(frozen=True)
class Tolerance:
    """The values of ours that agree with the paper: [low, high]."""

    low: float
    high: float
    text: str
    unit: str = "x"

    def range_text(self) -> str:
        if self.low == float("-inf"):
            return f"<= {fmt(self.high, self.unit)}"
        return f"{fmt(self.low, self.unit)}-{fmt(self.high, self.unit)}"

    def place(self, value: float) -> str:
        """'within', 'below' or 'above'."""
        if value < self.low:
            return "below"
        if value > self.high:
            return "above"
        return "within"


def around(value: float, unit: str = "x") -> Tolerance:
    """The paper's point value, its effect (distance from no change) +-25%."""
    base = neutral(unit)
    ends = sorted(base + (value - base) * (1 + s * TOLERANCE) for s in (-1, 1))
    return Tolerance(
        ends[0],
        ends[1],
        f"{fmt(ends[0], unit)} to {fmt(ends[1], unit)}, the paper's {fmt(value, unit)} "
        f"with its effect +-{TOLERANCE:.0%}",
        unit,
    )


def between(low: float, high: float, unit: str = "x") -> Tolerance:
    """The paper's range itself."""
    return Tolerance(low, high, f"{fmt(low, unit)} to {fmt(high, unit)}, the paper's range", unit)


def same_as(slack: float) -> Tolerance:
    """'Performs the same': no change (1x), +-`slack`."""
    return Tolerance(
        1 - slack,
        1 + slack,
        f"{fmt(1 - slack)} to {fmt(1 + slack)}, the same as Enzyme's +-{slack:.0%}",
    )


def at_most(high: float, text: str, unit: str = "x") -> Tolerance:
    return Tolerance(float("-inf"), high, f"at most {fmt(high, unit)}, {text}", unit)


@dataclass(frozen=True)
class Measured:
    """Our numbers for a claim: one value per kernel (None: no value for that
    kernel, with the reason in `missing`)."""

    values: dict[str, float | None]
    what: str
    """What a value is, e.g. "speedup of Tflow32k over Enzyme32k"."""
    unit: str = "x"
    at: dict[str, str] = field(default_factory=dict)
    """Where a kernel's value was taken ("at 1 KB"), if it was picked from several."""
    missing: dict[str, str] = field(default_factory=dict)
    """Why a kernel has no value."""
    worst: dict[str, tuple[float, str]] = field(default_factory=dict)
    """For an "up to" claim: each kernel's least favourable value and where; one
    worse than no change breaks the claim."""
    source: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The experiment row each kernel's value was read from (for the reasons)."""
    worst_source: dict[str, dict[str, Any]] = field(default_factory=dict)


Reason = Callable[[Summaries, "Verdict"], str]
"""A reason from the runs: the numbers behind a verdict ('' if none apply)."""


@dataclass(frozen=True)
class Claim:
    key: str
    """A short name, the anchor of the claim's section in report.md."""
    topic: str
    paper: str
    measure: Callable[[Summaries], Measured | None]
    """Our numbers, per kernel; None if the experiment did not run."""
    tolerance: Tolerance
    judged: str = "each"
    """How the kernels' values are judged: 'each' (every kernel within the
    tolerance), 'max' ("up to": the largest within it, none worse than no change)
    or 'geomean' (the kernels' geometric mean within it)."""
    why_lower: Reason | None = None
    """The `cgra` model's reason when our number is below the tolerance."""
    why_higher: Reason | None = None
    kernels: tuple[str, ...] = ()
    """The kernels the claim names (judged on these only); empty: all kernels."""
    varies: tuple[str, Any] | None = None
    """A hardware field the claim varies and a value of it other than the
    preset's (`("scratchpad.size_bytes", 64)`): a timing model that runs alike at
    every value of the field (`sim.models.set_aside`) cannot test the claim."""
    trust: str = ""
    """The timing model a reader should read the claim on ('either' where both
    give the same numbers), and `trust_why` why."""
    trust_why: str = ""


JUDGED = ("each", "max", "geomean")

UNTESTABLE = "not testable"
"""The verdict of a claim its timing model cannot test (`Claim.varies`)."""
UNJUDGED = "not judged"
"""The verdict of a claim measured at a size that cannot test it (`--quick`)."""


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    model: str
    verdict: str
    """'agrees', 'partly', 'differs: lower', 'differs: higher', 'no value' (no
    kernel has one), 'not measured' (the experiment or the claim's kernels did
    not run), 'not testable' (the model runs alike at every value of what the
    claim varies: `why_not`) or 'not judged' (measured at a size that cannot test
    the claim: `size`)."""
    kernels: tuple[str, ...] = ()
    """Every kernel the verdict counts (the claim's, or all run)."""
    within: tuple[str, ...] = ()
    below: tuple[str, ...] = ()
    above: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    worse: tuple[str, ...] = ()
    """'max' claims: kernels where TapeFlow is worse than no change somewhere."""
    value: float | None = None
    """The judged number ('max': the largest value; 'geomean': the mean; 'each': None)."""
    value_kernel: str = ""
    measured: Measured | None = None
    reason: str = ""
    size: str = ""
    """The kernels' size preset the runs used."""
    why_not: str = ""
    """Why the model cannot test the claim ('not testable')."""

    def label(self) -> str:
        """The verdict as the report prints it."""
        if self.verdict == UNTESTABLE:
            return f"not testable under {self.model}"
        if self.verdict == UNJUDGED:
            return f"not judged at {self.size} size"
        return self.verdict

    @property
    def judged(self) -> bool:
        """Whether the verdict compares our numbers with the paper's."""
        return self.verdict not in (UNTESTABLE, UNJUDGED, "not measured", "no value")

    def value_text(self, kernel: str) -> str:
        """A kernel's value and where it was taken, printed apart from the
        tolerance's edges."""
        m = self.measured
        v = m.values.get(kernel) if m else None
        if m is None or v is None:
            return f"{kernel} -"
        t = self.claim.tolerance
        at = m.at.get(kernel)
        return f"{kernel} {fmt_apart(v, (t.low, t.high), m.unit)}" + (f" {at}" if at else "")

    @property
    def unit(self) -> str:
        return self.measured.unit if self.measured else self.claim.tolerance.unit

    def ours(self) -> str:
        """Our number in a few words."""
        m = self.measured
        if m is None:
            return "not measured" + (
                f" ({', '.join(self.missing)} not run)" if self.missing else ""
            )
        known = [v for k in self.kernels if (v := m.values.get(k)) is not None]
        if not known:
            return "no value"
        if self.claim.judged == "geomean" and self.value is not None:
            return f"geomean {fmt(self.value, m.unit)}"
        if self.claim.judged == "max" and self.value is not None:
            if len(self.kernels) == 1:
                return self.value_text(self.value_kernel)
            return f"up to {fmt(self.value, m.unit)} ({self.value_text(self.value_kernel)})"
        if len(known) == 1:
            return self.value_text(next(k for k in self.kernels if m.values.get(k) is not None))
        return f"{fmt(min(known), m.unit)} to {fmt(max(known), m.unit)}"

    def short(self) -> str:
        """The verdict in one line: how judged, against what, how many kernels,
        and the names of those that break it."""
        n = len(self.kernels)
        kernels = f"{n} kernel{'s' if n != 1 else ''}"
        tol = self.claim.tolerance.range_text()
        m = self.measured
        if self.verdict == UNTESTABLE:
            field = self.claim.varies[0] if self.claim.varies else "what the claim varies"
            return f"**{self.label()}**: it runs alike at every value of {field}"
        if self.verdict == UNJUDGED:
            return (
                f"**{self.label()}**: {kernels} measured; the paper's tolerance {tol} is "
                "for its own sizes"
            )
        if m is None:
            return f"**{self.verdict}** ({kernels}; tolerance {tol})"
        if self.claim.judged == "each" or self.value is None:
            text = f"{len(self.within)} of {kernels} within tolerance {tol}"
        else:
            how = "largest" if self.claim.judged == "max" else "geomean"
            value = fmt(self.value, m.unit)
            of = f" ({self.value_kernel})" if self.value_kernel and n > 1 else ""
            text = f"{how} of {kernels} {value}{of}, tolerance {tol}"
        not_run = tuple(k for k in self.missing if m.missing.get(k) == "not run")
        no_value = tuple(k for k in self.missing if k not in not_run)
        for label, which in (
            ("below", self.below),
            ("above", self.above),
            ("no value", no_value),
            ("not run", not_run),
            ("worse than no change", self.worse),
        ):
            if which:
                text += f"; {label}: {', '.join(which)}"
        return f"**{self.verdict}**: {text}"

    def counts(self) -> str:
        """The tolerance, every kernel counted, and the ones that break it."""
        m = self.measured
        n = len(self.kernels)
        if not self.judged:
            return f"{n} kernel{'s' if n != 1 else ''}, not compared with the paper's tolerance"
        text = f"tolerance {self.claim.tolerance.text}; {n} kernel{'s' if n != 1 else ''}: "
        parts = [f"{len(self.within)} within"] if self.claim.judged != "max" else []

        def named(which: tuple[str, ...], label: str) -> None:
            if which and m is not None:
                parts.append(
                    f"{len(which)} {label} ({', '.join(self.value_text(k) for k in which)})"
                )

        named(self.below, "below")
        named(self.above, "above")
        if self.missing:
            parts.append(f"{len(self.missing)} without a value ({', '.join(self.missing)})")
        if self.worse and m is not None:
            parts.append(
                f"{len(self.worse)} worse than no change somewhere ("
                + ", ".join(f"{k} {fmt(m.worst[k][0], m.unit)} {m.worst[k][1]}" for k in self.worse)
                + ")"
            )
        if not parts:
            parts.append("none breaks it")
        if self.claim.judged != "each" and self.value is not None:
            how = "the largest" if self.claim.judged == "max" else "the geomean"
            text = f"judged on {how}; " + text
        return text + ", ".join(parts)


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


def rows_of(results: Summaries, experiment: str) -> list[dict[str, Any]]:
    result = results.get(experiment)
    return list(result.rows) if result else []


def times(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def percent(value: float) -> str:
    return f"{100 * value:.0f}%"


def spad_rows(results: Summaries) -> dict[str, dict[int, dict]]:
    table: dict[str, dict[int, dict]] = {}
    for r in rows_of(results, "scratchpad"):
        table.setdefault(r["kernel"], {})[r["spad_bytes"]] = r
    return table


def size_text(n: int) -> str:
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


__all__ = [
    "JUDGED",
    "TOLERANCE",
    "UNITS",
    "UNJUDGED",
    "UNTESTABLE",
    "Claim",
    "Measured",
    "Reason",
    "Summaries",
    "Tolerance",
    "Verdict",
    "around",
    "at_most",
    "between",
    "fmt",
    "fmt_apart",
    "same_as",
    "neutral",
    "percent",
    "rows_of",
    "size_text",
    "spad_rows",
    "summary_at",
    "times",
]
