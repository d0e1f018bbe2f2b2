"""
What the evaluation simulates: a *point* is one kernel at one size, lowered for one
variant with one scratchpad size and unroll factor, timed by one model (`cgra` or
`salam`, `harness/models.py`), then reported on one cache size with one energy
preset.

Points that differ only in cache size and energy preset share a *group*: the
module is lowered and run once per group, and the recorded trace is replayed
through each cache (`sim.simulator.evaluate`), which is what makes sweeps cheap.

A point's cache key is a hash of everything its numbers depend on: the kernel and
size, the variant and pass options, the timing model, every hardware parameter (`targets.hardware`),
and a fingerprint of the code that computes them (the dialects, passes, simulator,
hardware model and kernels, plus the xDSL and Enzyme versions), so that a cached
result is never reused after any of those change.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from functools import cache
from importlib import metadata
from pathlib import Path

from tapeflow_benchmarks.harness.models import DEFAULT
from targets.hardware import Hardware, configure

KB = 1024

FULL_UNROLL = 1024
"""Fig. 18's full unrolling: `tapeflow-unroll` takes the largest divisor of a tape
loop's trip count up to the factor, so every tape loop of up to 1024 iterations is
unrolled completely. At paper size that is every innermost loop (PathFinder's 256
columns, NN's 784 pixels, Matdescent's 400 columns, Gravity's 255 pair slots) but
Logsum's, the kernel's only loop, whose 10,000 iterations are unrolled by 1000: a
10,000-copy body is too large an IR to lower in the evaluation's time budget.
1024 is also `tapeflow-sim`'s bound on `--unroll`."""


@dataclass(frozen=True, order=True)
class Group:
    """One lowering and run: everything but the cache and the energy preset."""

    kernel: str
    size: str
    variant: str
    """'enzyme', 'aos' or 'tapeflow' (see `sim.simulator.VARIANTS`)."""
    spad_bytes: int = 0
    unroll: int = 1
    """`tapeflow-unroll`'s factor (`FULL_UNROLL`: every tape loop completely)."""
    model: str = DEFAULT
    """The timing model (`harness/models.py`)."""

    def label(self) -> str:
        text = f"{self.kernel}/{self.size} {self.variant}"
        if self.variant == "tapeflow":
            text += f" spad {_bytes(self.spad_bytes)}"
        if self.unroll == FULL_UNROLL:
            text += " unroll full"
        elif self.unroll > 1:
            text += f" unroll {self.unroll}"
        return f"{text} [{self.model}]"


@dataclass(frozen=True, order=True)
class Point:
    group: Group
    cache_bytes: int
    energy: str = "paper"

    def hardware(self) -> Hardware:
        """The configuration: the paper's presets with this cache and scratchpad."""
        base = "Tflow32k" if self.group.variant == "tapeflow" else "Enzyme32k"
        spad = self.group.spad_bytes if self.group.variant == "tapeflow" else None
        return configure(base, cache_bytes=self.cache_bytes, spad_bytes=spad, energy=self.energy)

    def key(self) -> str:
        payload = {
            "group": asdict(self.group),
            "hardware": asdict(self.hardware()),
            "code": code_fingerprint(),
        }
        text = json.dumps(payload, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def label(self) -> str:
        return f"{self.group.label()} cache {_bytes(self.cache_bytes)} ({self.energy})"


def _bytes(n: int) -> str:
    if n >= KB * KB and n % (KB * KB) == 0:
        return f"{n // (KB * KB)}M"
    if n >= KB and n % KB == 0:
        return f"{n // KB}k"
    return f"{n}B"


_FINGERPRINTED = (
    "tapeflow_dialects", "lowering", "sim", "targets", "tapeflow_benchmarks/kernels",
    "tapeflow_benchmarks/harness/models.py",
)


@cache
def code_fingerprint() -> str:
    """A hash of the sources that compute a point's numbers, and of the versions
    of xDSL and Enzyme."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for package in _FINGERPRINTED:
        place = root / package
        for path in sorted(place.rglob("*.py")) if place.is_dir() else [place]:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    for dist in ("xdsl", "enzyme-ad", "numpy"):
        try:
            digest.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{dist}=?".encode())
    return digest.hexdigest()[:16]


def with_model(point: Point, model: str) -> Point:
    """`point` timed by `model` instead."""
    return replace(point, group=replace(point.group, model=model))


def grouped(points: list[Point]) -> dict[Group, list[Point]]:
    groups: dict[Group, list[Point]] = {}
    for point in sorted(set(points)):
        groups.setdefault(point.group, []).append(point)
    return groups


__all__ = ["FULL_UNROLL", "KB", "Group", "Point", "code_fingerprint", "grouped", "with_model"]
