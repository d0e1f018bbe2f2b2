"""
The keys of the simulator's report, defined once: `REPORT_SCHEMA` names every key
`sim.simulator.evaluate` returns (`sim.timing.report`'s numbers, the `hardware`
record of `targets.provenance.hardware_record` and the `simulator` entry) with
its type. The harness checks every report against it (`result_cache`) and takes
its `runs.csv` columns from paths into it (`harness/columns.py`).

A type is one of `INT`, `NUM`, `STR`, `BOOL`, a nested mapping of keys, or
`{str: T}`: a mapping of any keys to values of type T; `ModelOnly(T)` is a key of
type T that only some timing models report (`TimingModel.add_counts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

INT = "int"
NUM = "number"
STR = "str"
BOOL = "bool"


@dataclass(frozen=True)
class ModelOnly:
    """A key only some timing models report (absent under the others)."""

    kind: Any


HARDWARE_SCHEMA: dict[str, Any] = {
    "name": STR,
    "clock_ghz": NUM,
    "rows": INT,
    "cols": INT,
    "latencies": {str: INT},
    "cache": {"size_bytes": INT, "assoc": INT, "line_bytes": INT},
    "scratchpad": {"size_bytes": INT, "banks": INT},
    "dram": {"bandwidth_gbs": NUM, "latency_cycles": INT},
    "energy": {"name": STR},
    "model": STR,
    "variant": STR,
    "unroll": INT,
    "unroll_requested": INT,
    "energy_preset": STR,
    "versions": {},
}
"""The point's hardware record (`targets.provenance.hardware_record`); the rest of
its fields are checked by comparing the whole record with the point's."""

REPORT_SCHEMA: dict[str, Any] = {
    "hardware": HARDWARE_SCHEMA,
    "cycles": {
        "fwd": INT,
        "rev": INT,
        "total": INT,
        "memory_stall": INT,
        "stream_stall": INT,
        "config": INT,
        "fill_drain": INT,
    },
    "ops": {"total": INT, "fu": {str: INT}, "memory": INT, "unplaced": INT},
    "cache": {
        "hits": INT,
        "misses": INT,
        "hit_rate": NUM,
        "fwd": {"hits": INT, "misses": INT},
        "rev": {"hits": INT, "misses": INT},
    },
    "dram_bytes": {
        "read": INT,
        "write": INT,
        "primal": INT,
        "shadow": INT,
        "tape": INT,
        "total": INT,
        "authors": ModelOnly(INT),  # the salam model's: the authors' own count
    },
    "spad": {"accesses": INT, "peak_bytes": INT},
    "streams": {"write_bytes": INT, "read_bytes": INT, "prefetch_distance": NUM},
    "sram_bytes": INT,
    "layers": INT,
    "tape_bytes": INT,
    "energy_pj": {"cache": NUM, "spad": NUM, "fu": NUM, "dram": NUM, "onchip": NUM},
    "simulator": {"seconds": NUM, "ops_per_second": NUM, "accesses": INT},
}
"""What `sim.simulator.evaluate` returns (keys beyond these are allowed: a newer
simulator may add some)."""

__all__ = ["BOOL", "HARDWARE_SCHEMA", "INT", "NUM", "REPORT_SCHEMA", "STR", "ModelOnly"]
