"""
The paper's claims (from its evaluation, as summarised in the shared BENCHMARKS.md)
and how each is measured here. Each claim reads the experiments' summaries, gives
our number, a verdict (agrees / differs) by a stated rule, and, where we differ,
the modelling reason.

The rule: a range claim agrees when our number is inside the range; a point claim
("2.4x", "up to 14x") agrees within 25% of it; a threshold claim when it holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.harness.experiments import Result

TOLERANCE = 0.25

Summaries = dict[str, Result]


@dataclass(frozen=True)
class Claim:
    topic: str
    paper: str
    measure: Callable[[Summaries], tuple[float | None, str] | None]
    """Our number (for the verdict) and how to print it; None if not measured."""
    low: float
    high: float
    """The paper's value (low == high) or range."""
    why_lower: str
    """The modelling reason when our number is below the paper's."""
    why_higher: str = ""


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    ours: str
    verdict: str
    reason: str


def _get(results: Summaries, experiment: str, *path: str) -> Any:
    node: Any = results.get(experiment)
    if node is None:
        return None
    node = node.summary
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _speedup(results: Summaries) -> tuple[float | None, str] | None:
    s = _get(results, "performance", "Tflow32k/Enzyme32k")
    if not s:
        return None
    return s["geomean"], f"geomean {_x(s['geomean'])} (range {_x(s['min'])}-{_x(s['max'])}), Tflow32k over Enzyme32k"


def _wide(results: Summaries) -> tuple[float | None, str] | None:
    s = _get(results, "unroll", "wide_max_speedup")
    if not s:
        return None
    return s["value"], f"{_x(s['value'])} ({s['kernel']}), both unrolled by 16"


def _dram_max(results: Summaries) -> tuple[float | None, str] | None:
    s = _get(results, "dram", "max_reduction")
    if not s:
        return None
    return s["value"], f"up to {_x(s['value'])} ({s['kernel']}, {s['cache_kb']} KB cache)"


def _dram_at(kernels: tuple[str, ...], cache_kb: int) -> Callable[[Summaries], tuple[float | None, str] | None]:
    def measure(results: Summaries) -> tuple[float | None, str] | None:
        values = {k: _get(results, "dram", f"{k}@{cache_kb}k") for k in kernels}
        values = {k: v for k, v in values.items() if v is not None}
        if not values:
            return None
        text = ", ".join(f"{k} {_x(v)}" for k, v in values.items())
        return min(values.values()), f"{text} at {cache_kb} KB"

    return measure


def _layout(results: Summaries) -> tuple[float | None, str] | None:
    s = _get(results, "layout", "max_reduction_percent")
    if not s:
        return None
    return s["value"], f"up to {s['value']:.0f}% less ({s['kernel']}, {s['cache_kb']} KB)"


def _energy(results: Summaries) -> tuple[float | None, str] | None:
    s = _get(results, "energy", "paper", "max_energy_reduction")
    c = _get(results, "energy", "cacti45", "max_energy_reduction")
    if not s:
        return None
    text = f"up to {_x(s['value'])} ({s['kernel']}, {s['config']}; 'paper' preset)"
    if c:
        text += f"; {_x(c['value'])} with 'cacti45'"
    return s["value"], text


def _sram(results: Summaries) -> tuple[float | None, str] | None:
    s = _get(results, "energy", "paper", "sram_reduction_iso_perf")
    if not s or s["max"] is None:
        return None
    return s["max"], f"{_x(s['min'])}-{_x(s['max'])} over the {s['kernels']} kernels with an ISO-performance cache"


def _iso2k(results: Summaries) -> tuple[float | None, str] | None:
    matching = _get(results, "energy", "paper", "tflow2k_within_5_percent")
    rows = results.get("energy")
    if matching is None or rows is None:
        return None
    total = len({r["kernel"] for r in rows.rows if r["energy_preset"] == "paper"})
    share = len(matching) / total if total else 0.0
    return share, f"{len(matching)} of {total} kernels within 5% ({', '.join(matching) or 'none'})"


def _spad(results: Summaries) -> tuple[float | None, str] | None:
    s = _get(results, "scratchpad", "gain_64B_to_1MB_percent")
    if not s:
        return None
    return s["max"], f"{s['min']:+.0f}% to {s['max']:+.0f}% from 64 B to 1 MB"


def _nn64(results: Summaries) -> tuple[float | None, str] | None:
    s = _get(results, "scratchpad", "nn_speedup_at_64B")
    if s is None:
        return None
    return s, f"NN at 64 B: {_x(s)} over Enzyme32k"


def _unroll(results: Summaries) -> tuple[float | None, str] | None:
    s = _get(results, "unroll", "speedup_gain_widest_vs_1")
    if s is None:
        return None
    return s, f"{_x(s)} more speedup at unroll 16 than at 1 (PathFinder)"


_TIMING = (
    "our kernels issue a loop iteration every `ii` cycles and overlap up to 8 "
    "outstanding misses with compute, so the baseline's tape misses are mostly hidden "
    "behind the schedule; the paper's gem5 model stalls on them"
)

CLAIMS: tuple[Claim, ...] = (
    Claim("performance", "1.3-2.5x faster than Enzyme (2.4x headline)", _speedup, 1.3, 2.5,
          "most of our kernels are bound by their initiation interval (compute and cache "
          "ports), not by the tape: " + _TIMING + "."),
    Claim("performance", "up to 14x with fully unrolled loops (PathFinder)", _wide, 14, 14,
          "we unroll by 16, not fully (the IR would be too large, see DESIGN.md), and the 512 B "
          "scratchpad cuts wide iterations into pieces; " + _TIMING + "."),
    Claim("DRAM", "up to 14x less DRAM traffic (MTTKRP)", _dram_max, 14, 14,
          "our MTTKRP tape is small next to its inputs at 8x8x8, and the Enzyme baseline's "
          "tape buffers stream through the cache with little conflict at Table III's "
          "associativities.",
          "at small caches the Enzyme baseline's separate tape buffers thrash the cache in "
          "our model more than in the paper's."),
    Claim("DRAM", "2.3x less DRAM traffic at 1 KB for LeNet and PathFinder", _dram_at(("lenet", "pathfinder"), 1), 2.3, 2.3,
          "at 1 KB both variants miss on almost every non-tape access; the tape is a smaller "
          "share of the traffic in our kernels than in the paper's.",
          "at 1 KB the baseline's tape evicts the non-tape lines on every access in our "
          "model, and TapeFlow removes all of it."),
    Claim("DRAM", "1.3x less DRAM traffic for Matdescent", _dram_at(("matdescent",), 32), 1.3, 1.3,
          "our Matdescent tape streams through the cache without conflicts.",
          "the Enzyme baseline's tape for Matdescent is larger in our build (Enzyme caches "
          "more values than the artifact did), so removing it saves more."),
    Claim("DRAM", "array-of-structs layout alone: up to 30% less DRAM traffic", _layout, 0, 30,
          "Enzyme's tape buffers here are written and read in line order, so merging them "
          "into one array of structs saves little.",
          "the merged layout also removes conflict misses between the tape buffers at "
          "small caches."),
    Claim("energy", "up to 8.2x less on-chip energy", _energy, 8.2, 8.2,
          "with the 'paper' preset, energy follows the per-access cost of Table III, and the "
          "remaining non-tape cache accesses dominate.",
          "the 'paper' preset's 32 KB cache access (2990 pJ) is 25x the 1 KB one, so moving "
          "to a 1-2 KB cache dominates the reduction."),
    Claim("SRAM", "5-40x less on-chip SRAM at ISO-performance", _sram, 5, 40,
          "for some kernels only a large TapeFlow cache stays within 5% of Enzyme32k's cycles.",
          "the smallest cache in the sweep (1 KB) already matches Enzyme32k for kernels "
          "whose non-tape working set is tiny, giving 32x; with its 512 B scratchpad that is "
          "about 21x."),
    Claim("SRAM", "a 2 KB cache with TapeFlow matches a 32 KB cache with Enzyme", _iso2k, 1.0, 1.0,
          "kernels whose non-tape data does not fit 2 KB (e.g. large inputs re-read in REV) "
          "miss more with TapeFlow's 2 KB cache than Enzyme's 32 KB, and our timing charges "
          "those misses."),
    Claim("scratchpad", "64 B to 1 MB scratchpad: +25-50% performance", _spad, 25, 50,
          "our layers already fill the kernels' pipelines at small tiles, since a tile row "
          "is one loop iteration and the kernel loop is pipelined across rows.",
          "at 64 B our tiles hold one or two rows, and every layer pays its stream latency."),
    Claim("scratchpad", "at 64 B, NN is no faster than Enzyme", _nn64, 0, 1.05,
          "",
          "NN's layers at 64 B still pipeline their kernel loops in our model."),
    Claim("layers", "wider layers (higher unroll, PathFinder): about 2x more speedup", _unroll, 2, 2,
          "PathFinder's kernels are bound by cache ports and the min/select recurrence, "
          "which unrolling does not relieve in our schedule.",
          ""),
)


def judge(results: Summaries) -> list[Verdict]:
    verdicts = []
    for claim in CLAIMS:
        measured = claim.measure(results)
        if measured is None or measured[0] is None:
            verdicts.append(Verdict(claim, "not measured in this run", "not measured", ""))
            continue
        value, text = measured
        low, high = claim.low, claim.high
        if low == high:
            low, high = low * (1 - TOLERANCE), high * (1 + TOLERANCE)
        if low <= value <= high:
            verdicts.append(Verdict(claim, text, "agrees", ""))
        elif value < low:
            verdicts.append(Verdict(claim, text, "differs: lower", claim.why_lower))
        else:
            verdicts.append(Verdict(claim, text, "differs: higher", claim.why_higher))
    return verdicts


__all__ = ["CLAIMS", "Claim", "Verdict", "judge"]
