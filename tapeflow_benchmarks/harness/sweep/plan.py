"""
A sweep once read: its kernels, variants and grid (`Sweep`), and the dotted
hardware keys it is written in (`value_at`; `targets.machine` nests and merges
them, `targets.fields.dotted` flattens them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tapeflow_benchmarks.harness.points import KernelSource, Point
from targets.hardware import Hardware, describe


@dataclass(frozen=True)
class SweepKernel:
    name: str
    size: str
    """'' for a user's kernel."""
    source: KernelSource | None = None
    inputs_path: str | None = None

    def describe(self) -> dict[str, Any]:
        if self.source is None:
            return {"name": self.name, "size": self.size}
        return {
            "name": self.name,
            "file": self.source.file,
            "function": self.source.function,
            "inputs": self.inputs_path,
            "digest": self.source.digest,
        }


@dataclass(frozen=True)
class SweepVariant:
    variant: str
    unroll: int
    spad: int | None
    preset: str


@dataclass
class Sweep:
    path: Path
    name: str
    model: str
    kernels: list[SweepKernel]
    variants: list[SweepVariant]
    grid: dict[str, list[Any]]
    """Each swept key with its values, after validation (in the file's order)."""
    definition: dict[str, Any]
    """The sweep as read (for results.json)."""
    rows: list[tuple[Point, dict[str, Any]]] = field(default_factory=list)
    """Every row of the results (kernel, variant, grid combination): the point that
    runs it, with the swept keys' values. Rows of a variant that does not use a
    swept field share one point (the enzyme variant over scratchpad sizes)."""
    notes: list[str] = field(default_factory=list)
    """What the sweep runs otherwise than written (printed as warnings)."""

    @property
    def keys(self) -> list[str]:
        return list(self.grid)

    @property
    def points(self) -> list[Point]:
        """The points to run, each once, in the rows' order."""
        return list(dict.fromkeys(point for point, _ in self.rows))


def value_at(hardware: Hardware, key: str) -> Any:
    """The value of dotted `key` in `hardware` (a section's `name` for a section,
    as `energy` gives the energy preset's name)."""
    data: Any = describe(hardware)
    for part in key.split("."):
        data = data[part]
    if isinstance(data, Mapping):
        return data.get("name")
    return data


__all__ = [
    "Sweep",
    "SweepKernel",
    "SweepVariant",
    "value_at",
]
