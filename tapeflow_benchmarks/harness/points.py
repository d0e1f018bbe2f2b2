"""
What the evaluation simulates: a *point* is one kernel at one size, lowered for one
variant with one scratchpad size and unroll factor, timed by one model (`cgra` or
`salam`, `sim.models`), then reported on one cache size with one energy
preset.

Points that differ only in cache size and energy preset share a *group*: the
module is lowered and run once per group, and the recorded trace is replayed
through each cache (`sim.simulator.evaluate`), which is what makes sweeps cheap.

A point's cache key is a hash of everything its numbers depend on: the kernel and
size (for a user's kernel, a digest of its file, inputs and function), the variant
and pass options, the point's full hardware record (`targets.provenance`: every
hardware parameter, the timing model, variant, unroll, energy preset and package
versions), and a fingerprint of the code that computes them (the dialects, passes,
simulator, hardware model and kernels, plus the xDSL and Enzyme versions), so that
a cached result is never reused after any of those change.

The evaluation's points take their hardware from the paper's presets (`Tflow32k`
for TapeFlow, `Enzyme32k` otherwise) with the point's cache, scratchpad and energy
preset. A sweep (`harness/sweep/`) may name another preset and change any other
parameter: the group's `settings`, dotted keys and values (`dram.latency_cycles`,
`rows`, ...), applied last.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields, replace
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from sim.models import DEFAULT_MODEL, model_machine
from sim.models import get_model as timing_model
from targets.hardware import Hardware
from targets.machine import merge_into, nested_key, options_layer
from targets.provenance import hardware_record

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
class KernelSource:
    """A user's kernel (a sweep's `file` entry): the module's text and the inputs
    archive's bytes travel with the point, so that a worker on another machine
    (`--dask`) needs no shared files. Only `digest` (of the text, the inputs and
    the function, and the memory map) and the names take part in comparisons and
    in the cache key."""

    file: str
    """The path the sweep named (for messages and locations)."""
    function: str
    """The gradient, or the caller of `enzyme.autodiff`, to run."""
    digest: str
    text: str = field(default="", compare=False, repr=False)
    inputs: bytes = field(default=b"", compare=False, repr=False)
    """The `.npz` archive's bytes (empty: no inputs; missing memrefs are zero)."""
    addresses: tuple[int | None, ...] = field(default=(), compare=False)
    """Per caller argument, its address in the kernel's memory map (a sweep's
    `addresses`; empty: none), covered by `digest`."""

    def key(self) -> dict[str, str]:
        return {"function": self.function, "digest": self.digest}


Setting = tuple[str, Any]
"""A dotted hardware key and its value: ('dram.latency_cycles', 321)."""


@dataclass(frozen=True, order=True)
class Group:
    """One lowering and run: everything but the cache size and ways and the
    energy preset."""

    kernel: str
    size: str
    """The kernel's size preset ('' for a user's kernel)."""
    variant: str
    """'enzyme', 'aos' or 'tapeflow' (see `sim.simulator.VARIANTS`)."""
    spad_bytes: int = 0
    unroll: int = 1
    """`tapeflow-unroll`'s factor (`FULL_UNROLL`: every tape loop completely)."""
    model: str = DEFAULT_MODEL
    """The timing model (`sim.models.MODELS`)."""
    preset: str = ""
    """The hardware preset the point starts from ('': Tflow32k for TapeFlow,
    Enzyme32k otherwise)."""
    settings: tuple[Setting, ...] = ()
    """Other hardware parameters, applied last, sorted by key (a sweep's)."""
    source: KernelSource | None = None
    """A user's kernel; None for one of the nine in `tapeflow_benchmarks`."""

    def label(self) -> str:
        text = (
            f"{self.kernel}/{self.size} {self.variant}"
            if self.size
            else f"{self.kernel} {self.variant}"
        )
        if self.variant == "tapeflow":
            text += f" spad {_bytes(self.spad_bytes)}"
        if self.unroll == FULL_UNROLL:
            text += " unroll full"
        elif self.unroll > 1:
            text += f" unroll {self.unroll}"
        if self.preset:
            text += f" on {self.preset}"
        text += "".join(f" {k}={v}" for k, v in self.settings if k != "scratchpad.size_bytes")
        return f"{text} [{self.model}]"

    def key(self) -> dict[str, Any]:
        """What the cache key takes from the group (a user kernel by digest, not
        by path or content)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "source"}
        data["settings"] = [list(s) for s in self.settings]
        if self.source is not None:
            data["source"] = self.source.key()
        return data


@dataclass(frozen=True, order=True)
class Point:
    group: Group
    cache_bytes: int
    energy: str = "paper"
    """An energy preset's name ('': the group's settings give the energy table)."""
    assoc: int = 0
    """Cache ways (0: Table III's for the size)."""

    def hardware(self) -> Hardware:
        """The configuration: the group's preset (by default the paper's for the
        variant) with this cache, scratchpad and energy preset, then the group's
        settings."""
        return _hardware(self)

    def record(self) -> dict[str, object]:
        """The point's `hardware` record (`targets.provenance.hardware_record`)."""
        g = self.group
        return hardware_record(
            self.hardware(),
            model=g.model,
            variant=g.variant,
            unroll=g.unroll,
            simulated=timing_model(g.model).fields,
        )

    def key(self) -> str:
        payload = {
            "group": self.group.key(),
            "point": {"cache_bytes": self.cache_bytes, "energy": self.energy, "assoc": self.assoc},
            "hardware": self.record(),
            "code": code_fingerprint(),
        }
        text = json.dumps(payload, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def label(self) -> str:
        ways = f" {self.assoc}-way" if self.assoc else ""
        energy = f" ({self.energy})" if self.energy else ""
        return f"{self.group.label()} cache {_bytes(self.cache_bytes)}{ways}{energy}"


@cache
def _hardware(point: Point) -> Hardware:
    g = point.group
    base = g.preset or ("Tflow32k" if g.variant == "tapeflow" else "Enzyme32k")
    settings: dict[str, Any] = {}
    for key, value in g.settings:
        merge_into(settings, nested_key(key, value))
    return model_machine(
        g.model,
        base,
        [
            options_layer(
                point.group.label(),
                cache_bytes=point.cache_bytes,
                assoc=point.assoc or None,
                spad_bytes=g.spad_bytes if g.variant == "tapeflow" else None,
                energy=point.energy or None,
            ),
            (settings, f"{point.group.label()}: settings"),
        ],
        checked=False,  # a sweep checks its settings as it reads them, naming the line
    )


def _bytes(n: int) -> str:
    if n >= KB * KB and n % (KB * KB) == 0:
        return f"{n // (KB * KB)}M"
    if n >= KB and n % KB == 0:
        return f"{n // KB}k"
    return f"{n}B"


_FINGERPRINTED = (
    "tapeflow_dialects",
    "lowering",
    "sim",
    "targets",
    "tapeflow_benchmarks/kernels",
    "tapeflow_benchmarks/harness/runner.py",
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


__all__ = [
    "FULL_UNROLL",
    "KB",
    "Group",
    "KernelSource",
    "Point",
    "Setting",
    "code_fingerprint",
    "grouped",
    "with_model",
]
