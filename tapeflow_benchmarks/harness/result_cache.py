"""
The on-disk cache of simulated points: one JSON file per point, named by the
point's key (`Point.key`), that is trusted only after it is checked.

An entry is `{"format": 1, "key": ..., "sha256": ..., "report": {...}}`: the
report, the key it was computed for, and the SHA-256 of the report's canonical
JSON (sorted keys, no spaces, no NaN). Reading an entry checks all of it: valid
JSON with no NaN or infinity, the four fields and no others, the key of the point
asked for, the checksum of the report, the report's schema (`POINT_REPORT_SCHEMA`:
each key present with its type, every number finite and non-negative, and totals
that add up), and its `hardware` record, which must be the point's (`Point.record`:
every hardware parameter, model, variant, unroll, energy preset, versions). An
entry that fails any check is not used: the caller recomputes the point, and
`notify` is told, in one line naming the entry and the reason. A
failed run is never cached. Entries are written through a temporary file renamed
into place, so a reader never sees half an entry; the temporary files a killed run
left are deleted by the next run that finds no other run using the cache
(`atomic.claim_folder`).
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim.report_keys import BOOL, INT, NUM, REPORT_SCHEMA, STR, ModelOnly
from tapeflow_benchmarks.harness.points import Point
from tapeflow_tools.atomic import atomic_write_text, claim_folder

Report = dict[str, Any]

FORMAT = 1

POINT_REPORT_SCHEMA: dict[str, Any] = {
    **REPORT_SCHEMA,
    "kernel_stats": {str: NUM},
    "outputs_finite": BOOL,
    "group_seconds": NUM,
}
"""What a point's report holds: the simulator's (`sim.report_keys.REPORT_SCHEMA`)
plus what the runner adds. Keys beyond these are allowed (a newer simulator may
add some; the code fingerprint in the key keeps old entries from being mixed with
new code)."""


class SchemaError(ValueError):
    """A report that does not have the shape of `POINT_REPORT_SCHEMA`."""


def _check_value(value: Any, kind: Any, path: str) -> None:
    if isinstance(kind, dict):
        if not isinstance(value, dict):
            raise SchemaError(f"{path} is a {type(value).__name__}, not an object")
        if list(kind) == [str]:
            for key, item in value.items():
                _check_value(item, kind[str], f"{path}.{key}")
            return
        for key, sub in kind.items():
            if isinstance(sub, ModelOnly):
                if key not in value:
                    continue
                sub = sub.kind
            if key not in value:
                raise SchemaError(f"{path}.{key} is missing")
            _check_value(value[key], sub, f"{path}.{key}")
        return
    if kind == STR:
        ok = isinstance(value, str)
    elif kind == BOOL:
        ok = isinstance(value, bool)
    elif kind == INT:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok:
        raise SchemaError(f"{path} is {json.dumps(value)[:40]}, not a {kind}")
    if kind in (INT, NUM) and not (math.isfinite(value) and value >= 0):
        raise SchemaError(f"{path} is {value}, not a finite non-negative number")


def check_report(report: Any) -> None:
    """Raise `SchemaError` unless `report` has the shape of a point's report and
    its totals add up."""
    _check_value(report, POINT_REPORT_SCHEMA, "report")
    cycles, dram, energy = report["cycles"], report["dram_bytes"], report["energy_pj"]
    if cycles["total"] != cycles["fwd"] + cycles["rev"]:
        raise SchemaError("report.cycles.total is not fwd + rev")
    if dram["total"] != dram["read"] + dram["write"]:
        raise SchemaError("report.dram_bytes.total is not read + write")
    onchip = energy["cache"] + energy["spad"] + energy["fu"]
    if not math.isclose(energy["onchip"], onchip, rel_tol=1e-9, abs_tol=1e-9):
        raise SchemaError("report.energy_pj.onchip is not cache + spad + fu")
    if report["cache"]["hit_rate"] > 1:
        raise SchemaError("report.cache.hit_rate is above 1")


def canonical(report: Report) -> str:
    """The JSON text the checksum is taken over (raises ValueError on NaN)."""
    return json.dumps(report, sort_keys=True, separators=(",", ":"), allow_nan=False)


def checksum(report: Report) -> str:
    return hashlib.sha256(canonical(report).encode()).hexdigest()


def _as_json(value: Any) -> Any:
    """`value` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


def _no_constants(name: str) -> Any:
    raise ValueError(f"holds {name}, which is not a JSON number")


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


class ResultCache:
    """Reports on disk, one checked JSON file per point, named by the point's key;
    `root` None means no cache (everything is computed)."""

    def __init__(self, root: Path | None, notify: Callable[[str], None] = _stderr):
        self.root = root
        self.notify = notify
        self._live: int | None = None
        if root is not None and root.is_dir():
            self._claim(root)

    def _claim(self, root: Path) -> None:
        """Mark this process as using the cache (while it lives); delete the entries
        interrupted runs half-wrote if no other run uses it."""
        if self._live is None:
            self._live = claim_folder(root, "*/.*.json.*.tmp")

    def path(self, point: Point) -> Path:
        assert self.root is not None
        key = point.key()
        return self.root / key[:2] / f"{key}.json"

    def get(self, point: Point) -> Report | None:
        """The point's report if its entry is there and passes every check; None
        otherwise (with a notice if an entry was there but is not usable)."""
        if self.root is None:
            return None
        path = self.path(point)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as err:
            self._reject(path, point, f"cannot be read ({err})")
            return None
        try:
            report = self._checked(text, point)
        except SchemaError as err:
            self._reject(path, point, f"has a malformed report ({err})")
            return None
        except ValueError as err:
            self._reject(path, point, str(err))
            return None
        return report

    def _checked(self, text: str, point: Point) -> Report:
        try:
            entry = json.loads(text, parse_constant=_no_constants)
        except json.JSONDecodeError as err:
            raise ValueError(f"is not valid JSON ({err.msg} at line {err.lineno})") from None
        if not isinstance(entry, dict):
            raise ValueError(f"is a JSON {type(entry).__name__}, not a cache entry")
        if entry.get("format") != FORMAT or set(entry) != {"format", "key", "sha256", "report"}:
            raise ValueError(
                f"is not a format-{FORMAT} cache entry "
                f"(fields: {', '.join(sorted(entry)) or 'none'})"
            )
        if entry["key"] != point.key():
            raise ValueError("was computed for another point (its key differs)")
        report = entry["report"]
        if not isinstance(report, dict):
            raise ValueError("holds no report")
        if "error" in report:
            raise ValueError("holds a failed run, which is never cached")
        if entry["sha256"] != checksum(report):
            raise ValueError("does not match its checksum (it was changed after it was written)")
        check_report(report)
        expected = _as_json(point.record())
        ran = report["hardware"].get("unroll")
        if isinstance(ran, int) and 1 <= ran <= expected["unroll_requested"]:
            expected["unroll"] = ran  # what ran: at most the factor the point asks
        if report["hardware"] != expected:
            raise ValueError("records other hardware than the point's")
        return report

    def _reject(self, path: Path, point: Point, reason: str) -> None:
        self.notify(f"tapeflow-bench: cache entry {path} ({point.label()}) {reason}; recomputing")

    def put(self, point: Point, report: Report) -> None:
        """Store a finished point's report (never a failed run's)."""
        if self.root is None or "error" in report:
            return
        path = self.path(point)
        entry = {"format": FORMAT, "key": point.key(), "sha256": checksum(report), "report": report}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._claim(self.root)
            atomic_write_text(path, json.dumps(entry, sort_keys=True, allow_nan=False))
        except OSError as err:
            self.notify(
                f"tapeflow-bench: --cache-dir {self.root}: cannot write the cache entry "
                f"{path}: {err.strerror or err}; caching is off for the rest of this run"
            )
            self.root = None


__all__ = [
    "FORMAT",
    "POINT_REPORT_SCHEMA",
    "ResultCache",
    "SchemaError",
    "check_report",
    "checksum",
]
