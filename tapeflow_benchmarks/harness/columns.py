"""
The columns of `runs.csv` (the evaluation's and a sweep's), defined once and in
order: first the point's fields (`POINT_COLUMNS`), then the report's numbers
(`RUN_COLUMNS`, each a path into the simulator's report, `sim.report_keys`).
`results.json` names each run by the same point fields.

Adding a column to `runs.csv` is one line in `RUN_COLUMNS` (and, for a new number,
its key in `sim/report_keys.py` and `sim/timing.py`, which computes it). A path
that is not in the report's schema is refused when this module is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim.report_keys import REPORT_SCHEMA
from tapeflow_benchmarks.harness.points import Point

Report = dict[str, Any]

POINT_COLUMNS: tuple[tuple[str, Callable[[Point], Any]], ...] = (
    ("model", lambda p: p.group.model),
    ("kernel", lambda p: p.group.kernel),
    ("size", lambda p: p.group.size),
    ("variant", lambda p: p.group.variant),
    ("spad_bytes", lambda p: p.group.spad_bytes),
    ("unroll", lambda p: p.group.unroll),
    ("unroll_requested", lambda p: p.group.unroll),
    ("cache_bytes", lambda p: p.cache_bytes),
    ("energy_preset", lambda p: p.energy),
)
"""What names a point, column by column. `unroll` is the factor asked for until a
report says what ran (`point_fields`): each tape loop takes the largest divisor of
its trip count up to it; `unroll_requested` keeps the factor asked for."""

RUN_COLUMNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("cycles_fwd", ("cycles", "fwd")),
    ("cycles_rev", ("cycles", "rev")),
    ("cycles_total", ("cycles", "total")),
    ("cycles_memory_stall", ("cycles", "memory_stall")),
    ("cycles_stream_stall", ("cycles", "stream_stall")),
    ("cycles_config", ("cycles", "config")),
    ("cycles_fill_drain", ("cycles", "fill_drain")),
    ("ops_total", ("ops", "total")),
    ("ops_unplaced", ("ops", "unplaced")),
    ("prefetch_distance", ("streams", "prefetch_distance")),
    ("cache_hits", ("cache", "hits")),
    ("cache_misses", ("cache", "misses")),
    ("cache_hit_rate", ("cache", "hit_rate")),
    ("dram_read", ("dram_bytes", "read")),
    ("dram_write", ("dram_bytes", "write")),
    ("dram_primal", ("dram_bytes", "primal")),
    ("dram_shadow", ("dram_bytes", "shadow")),
    ("dram_tape", ("dram_bytes", "tape")),
    ("dram_total", ("dram_bytes", "total")),
    ("spad_accesses", ("spad", "accesses")),
    ("spad_peak_bytes", ("spad", "peak_bytes")),
    ("sram_bytes", ("sram_bytes",)),
    ("layers", ("layers",)),
    ("tape_bytes", ("tape_bytes",)),
    ("energy_cache_pj", ("energy_pj", "cache")),
    ("energy_spad_pj", ("energy_pj", "spad")),
    ("energy_fu_pj", ("energy_pj", "fu")),
    ("energy_dram_pj", ("energy_pj", "dram")),
    ("energy_onchip_pj", ("energy_pj", "onchip")),
    # DRAM as the authors' `cache_stat_extractor.py` counts it (64-B requests for the
    # misses and for the bin entries read back): the salam model's, empty under the
    # others; last, so that the columns before it keep their places.
    ("dram_authors_bytes", ("dram_bytes", "authors")),
    # Each sweep's cache misses, as the authors' runs report them (after
    # `dram_authors_bytes`, so that the columns before keep their places).
    ("cache_misses_fwd", ("cache", "fwd", "misses")),
    ("cache_misses_rev", ("cache", "rev", "misses")),
)
"""The report's numbers in `runs.csv`: column name, path into the report."""


def _in_schema(path: tuple[str, ...]) -> bool:
    kind: Any = REPORT_SCHEMA
    for key in path:
        if not isinstance(kind, dict) or key not in kind:
            return False
        kind = kind[key]
    return not isinstance(kind, dict)  # a number, or a `ModelOnly` one


_UNKNOWN = [name for name, path in RUN_COLUMNS if not _in_schema(path)]
if _UNKNOWN:
    raise ImportError(
        f"runs.csv column(s) {', '.join(_UNKNOWN)} name no number of the report "
        "(sim.report_keys.REPORT_SCHEMA)"
    )


def point_fields(point: Point, report: Report | None = None) -> dict[str, Any]:
    """The point's columns, in order; with its `report`, `unroll` is the factor
    that ran (the report's `hardware.unroll`)."""
    fields = {name: field(point) for name, field in POINT_COLUMNS}
    ran = (report or {}).get("hardware", {}).get("unroll")
    if isinstance(ran, int):
        fields["unroll"] = ran
    return fields


def _value(report: Report, path: tuple[str, ...]) -> Any:
    *outer, last = path
    for key in outer:
        report = report[key]
    return report.get(last)


def run_row(point: Point, report: Report) -> dict[str, Any]:
    """The point's row of `runs.csv`: its fields, then its numbers (or its
    `error`, for a failed run)."""
    row = point_fields(point, report)
    if "error" in report:
        row["error"] = report["error"]
        return row
    row.update({name: _value(report, path) for name, path in RUN_COLUMNS})
    return row


__all__ = ["POINT_COLUMNS", "RUN_COLUMNS", "point_fields", "run_row"]
