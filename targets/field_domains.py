"""
The values each hardware field may take: one table, checked on every machine
(`Hardware.validate`, so presets, files, `--set` and the options alike).

A field's domain is a closed range, plus "a power of two" where the hardware
indexes by address bits (the cache line; the placement alignment). Every number
must be finite: a NaN bandwidth or clock turns cycle counts into garbage (a NaN
cast to an integer), so it is refused with the key path rather than simulated.
The bounds are the widest values the models are meant for, not the paper's:
caches and scratchpads up to 1 GiB, a clock up to 100 GHz, latencies up to 10^6
cycles, DRAM up to 10^5 GB/s, a grid up to 64x64. The tools' options
(`tapeflow-sim --cache-bytes`, the scheduling pass's `rows`, ...) read their
ranges here too. The relations
between fields (ways times lines dividing the cache, banks dividing the
scratchpad) stay in `targets.hardware`, which checks them after these.

This module works on the plain data `targets.hardware.describe` gives, and names
fields by their dotted key path.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from targets.energy import FU_CLASSES

GiB = 1024**3


@dataclass(frozen=True)
class Domain:
    low: float
    high: float
    unit: str = ""
    low_open: bool = False
    """The low bound itself is excluded (a clock of 0 GHz)."""
    power_of_two: bool = False

    def problem(self, value: float) -> str | None:
        unit = f" {self.unit}" if self.unit else ""
        if (value <= self.low) if self.low_open else (value < self.low):
            bound = "greater than" if self.low_open else "at least"
            return f"must be {bound} {_number(self.low)}{unit}"
        if value > self.high:
            return f"must be at most {_number(self.high)}{unit}"
        if self.power_of_two and (int(value) & (int(value) - 1)):
            return "must be a power of two"
        return None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


_LATENCY = Domain(1, 10**6, "cycles")
DOMAINS: dict[str, Domain] = {
    "clock_ghz": Domain(0, 100, "GHz", low_open=True),
    # The scheduler tries every PE for every op: a 64x64 grid (4096 PEs, far
    # beyond any CGRA studied) is still a schedule of seconds; larger is refused.
    "rows": Domain(1, 64, "PEs"),
    "cols": Domain(1, 64, "PEs"),
    **{
        f"latencies.{name}": _LATENCY
        for name in ("fadd", "fmul", "fdiv", "sqrt", "transcendental", "integer", "hop")
    },
    "cache.size_bytes": Domain(64, GiB, "bytes"),
    "cache.assoc": Domain(1, GiB // 64),
    "cache.line_bytes": Domain(8, 4096, "bytes", power_of_two=True),
    "cache.hit_latency": _LATENCY,
    "cache.ports": Domain(1, 1024),
    "cache.mshrs": Domain(1, 1 << 20),
    "scratchpad.size_bytes": Domain(0, GiB, "bytes"),
    "scratchpad.banks": Domain(1, 1 << 20),
    "scratchpad.latency": _LATENCY,
    "dram.bandwidth_gbs": Domain(0, 10**5, "GB/s", low_open=True),
    "dram.latency_cycles": Domain(0, 10**6, "cycles"),
    "placement.base": Domain(0, 1 << 48, "bytes"),
    "placement.alignment": Domain(8, 1 << 30, "bytes", power_of_two=True),
    "placement.heap": Domain(0, 1 << 48, "bytes"),
    "config_cycles_per_op": Domain(0, 10**6, "cycles"),
    "config_contexts": Domain(0, 1 << 20),
    "mapping.tiles_in_flight": Domain(1, 1 << 20),
    "mapping.loop_tiles_in_flight": Domain(0, 1 << 20),
    **{f"datapath.units.{name}": Domain(0, 1 << 20, "units") for name in FU_CLASSES},
    # The terminator counts itself: at 1 no branch would ever launch.
    "datapath.sched_threshold": Domain(2, 1 << 31, "entries"),
    "datapath.ports": Domain(1, 1024, "ports"),
    "energy.spad_pj": Domain(0, 10**9, "pJ"),
    "energy.dram_read_pj_per_bit": Domain(0, 10**9, "pJ"),
    "energy.dram_write_pj_per_bit": Domain(0, 10**9, "pJ"),
}
"""Dotted key path -> domain, for every numeric field of a hardware description
(the energy table's lists are checked by `_energy_problem`)."""

ENERGY_PJ = Domain(0, 10**9, "pJ")


def _at(data: Any, path: str) -> Any:
    for part in path.split("."):
        data = data[part]
    return data


def non_finite(data: Any, path: str = "") -> str | None:
    """The first NaN or infinite number in nested data, named by its key path
    (`dram.bandwidth_gbs is nan, not a finite number`), or None."""
    if isinstance(data, float) and not math.isfinite(data):
        return f"{path or 'the value'} is {data}, not a finite number"
    if isinstance(data, Mapping):
        for key, value in data.items():
            found = non_finite(value, f"{path}.{key}" if path else str(key))
            if found:
                return found
    if isinstance(data, list | tuple):
        for index, value in enumerate(data):
            found = non_finite(value, f"{path}[{index}]")
            if found:
                return found
    return None


def _energy_problem(energy: Mapping[str, Any]) -> str | None:
    points = energy["cache_points"]
    if len(points) < 2:
        return "energy.cache_points needs at least two [size_bytes, pJ] points to interpolate"
    sizes = [size for size, _ in points]
    for index, (size, pj) in enumerate(points):
        if size < 1:
            return f"energy.cache_points[{index}]: a cache size must be positive, got {size}"
        problem = ENERGY_PJ.problem(pj)
        if problem:
            return f"energy.cache_points[{index}]: the energy {problem}, got {pj}"
    if any(a >= b for a, b in zip(sizes, sizes[1:], strict=False)):
        return f"energy.cache_points: sizes must increase, got {sizes}"
    given = [name for name, _ in energy["fu_pj"]]
    if sorted(given) != sorted(FU_CLASSES):
        return (
            f"energy.fu_pj: needs one energy for each FU class ({', '.join(FU_CLASSES)}), "
            f"got {', '.join(given) or 'none'}"
        )
    for name, pj in energy["fu_pj"]:
        problem = ENERGY_PJ.problem(pj)
        if problem:
            return f"energy.fu_pj {name}: {problem}, got {pj}"
    return None


def domain_problem(described: Mapping[str, Any]) -> str | None:
    """What is out of its domain in a described machine (the first problem, with
    its key path), or None."""
    found = non_finite(described)
    if found:
        return found
    for path, domain in DOMAINS.items():
        value = _at(described, path)
        problem = domain.problem(value)
        if problem:
            return f"{path} {problem}, got {value}"
    return _energy_problem(described["energy"])


__all__ = ["DOMAINS", "Domain", "domain_problem", "non_finite"]
