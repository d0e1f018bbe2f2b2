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
    points: dict[Point, dict[str, Any]] = field(default_factory=dict)
    """Every point, with its swept keys' effective values."""

    @property
    def keys(self) -> list[str]:
        return list(self.grid)


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
