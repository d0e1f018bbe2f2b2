"""
What the authors' runs of a program did that the program's text does not say:
one record per program of the `artifact` size preset (the programs of
gem5-SALAM's `binned` branch, GitHub `sfu-arch/gem5-SALAM` commit `a5e40f4be`,
`benchmarks/AD/<kernel>/hw/`), each fact with the file it is read from. A fact
chosen to match one of their measurements, rather than read off their program,
is a calibration and is labelled as one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

ARTIFACT = "artifact"
"""The size preset of the authors' programs."""

AUTHORS = "sfu-arch/gem5-SALAM a5e40f4be"
"""Where their programs are: repository and commit."""


@dataclass(frozen=True)
class MemoryMap:
    """Where the program puts its arrays: caller argument (a parameter, or its
    shadow `d_<name>`) -> byte address. A machine with the program's memory map
    (`placement.heap`) keeps them and takes every other buffer from its heap."""

    addresses: Mapping[str, int]
    source: str
    """The file that hard-codes them (their `top()`) and what it says."""


@dataclass(frozen=True)
class Recompute:
    """Their Enzyme for LLVM re-loads or rebuilds, in the reverse sweep, cached
    values made of memory that no longer changes, where Enzyme-MLIR caches them
    (`tapeflow-recompute-loads` does as theirs did, for the Enzyme baseline)."""

    source: str
    """Where their run shows it (`live_vars.txt`: what their Enzyme cached)."""
    calibration: str = ""
    """Non-empty: TapeFlow runs recompute too, a choice made to match one of their
    measurements (the measurement, and the evidence against it)."""


@dataclass(frozen=True)
class ArtifactRun:
    memory_map: MemoryMap | None = None
    recompute: Recompute | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Where their run differs from ours and why (not modelled)."""


__all__ = ["ARTIFACT", "AUTHORS", "ArtifactRun", "MemoryMap", "Recompute"]
