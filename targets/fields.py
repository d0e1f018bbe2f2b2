"""
The hardware fields by dotted name (`cache.ports`, `latencies.fadd`), and which of
them a machine description changes: what lets each timing model state the fields
it simulates (`sim.models`: `TimingModel.fields`) and the tools refuse a change to
any other (`unsimulated`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from targets.hardware import Hardware, describe


def dotted(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested data's leaves by dotted key path (`cache.size_bytes`)."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            flat.update(dotted(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def field_values(hardware: Hardware) -> dict[str, Any]:
    """Every field of `hardware` by dotted name (not its `name`)."""
    values = dotted(describe(hardware))
    del values["name"]
    return values


HARDWARE_FIELDS: frozenset[str] = frozenset(field_values(Hardware(name="")))
"""Every hardware field by dotted name: what a model that reads them all simulates."""

DATAPATH_FIELDS: frozenset[str] = frozenset(k for k in HARDWARE_FIELDS if k.startswith("datapath."))
"""The fields of a fixed (not reconfigurable) datapath (`targets.hardware.DatapathConfig`:
functional units per class and the scheduling threshold); the CGRA's grid is
`rows` x `cols` and its scheduler issues by its own table."""


def unsimulated(hardware: Hardware, reference: Hardware, simulated: frozenset[str]) -> list[str]:
    """The fields outside `simulated` whose value in `hardware` differs from
    `reference` (the machine before the user's changes), sorted."""
    ours, theirs = field_values(hardware), field_values(reference)
    return sorted(k for k in ours if k not in simulated and ours[k] != theirs.get(k))


RESOURCES: dict[str, int] = {
    "rows": 1,
    "cols": 1,
    "cache.ports": 1,
    "cache.mshrs": 1,
    "scratchpad.banks": 1,
    "dram.bandwidth_gbs": 1,
    "clock_ghz": -1,
    "dram.latency_cycles": -1,
    "cache.hit_latency": -1,
    "scratchpad.latency": -1,
    **{
        f"latencies.{name}": -1
        for name in ("fadd", "fmul", "fdiv", "sqrt", "transcendental", "integer", "hop")
    },
}
"""The fields a run should never get slower for making better: +1 where more is
better (PEs, ports, MSHRs, banks, bandwidth), -1 where less is (latencies, and
the clock, whose cycles grow only as DRAM's bytes per cycle shrink). The cache's
size and ways are not here: set-associative LRU caches of different shapes are
not ordered."""


__all__ = ["HARDWARE_FIELDS", "DATAPATH_FIELDS", "RESOURCES", "field_values", "unsimulated"]
