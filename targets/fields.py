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


def _dotted(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            flat.update(_dotted(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def field_values(hardware: Hardware) -> dict[str, Any]:
    """Every field of `hardware` by dotted name (not its `name`)."""
    values = _dotted(describe(hardware))
    del values["name"]
    return values


HARDWARE_FIELDS: frozenset[str] = frozenset(field_values(Hardware(name="")))
"""Every hardware field by dotted name: what a model that reads them all simulates."""


def unsimulated(hardware: Hardware, reference: Hardware, simulated: frozenset[str]) -> list[str]:
    """The fields outside `simulated` whose value in `hardware` differs from
    `reference` (the machine before the user's changes), sorted."""
    ours, theirs = field_values(hardware), field_values(reference)
    return sorted(k for k in ours if k not in simulated and ours[k] != theirs.get(k))


__all__ = ["HARDWARE_FIELDS", "field_values", "unsimulated"]
