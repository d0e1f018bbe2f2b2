"""
What a timing model is given and gives back (`TimingModel`): the run's windows as
columns (`WindowTable`) in, each window's cycles (`Cycles`) out. Its own module so
that every model and the registry (`sim/models/__init__.py`) import it, and not
each other; with `distinct`, the distinct values of a column.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from sim.models.streams import Transfer
from tapeflow_dialects import cgra
from targets.costs import KernelPlanner
from targets.hardware import Hardware


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of integer `values`, ascending: `np.unique(values)`
    without what numpy's plain `unique` costs on its first call in a process,
    importing `numpy.ma` (16 ms, as much as a small kernel's whole simulation:
    it asks `np.ma.is_masked`), and faster on the columns it is given: values
    from 0 up to about their count (codes, ids) counted, others sorted."""
    flat = values.ravel()
    if flat.size and np.issubdtype(flat.dtype, np.signedinteger):
        low, high = int(flat.min()), int(flat.max())
        if low >= 0 and high < 2 * flat.size + 1024:
            return np.flatnonzero(np.bincount(flat)).astype(flat.dtype)
    ordered = np.sort(flat)
    first = np.empty(ordered.size, dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


@dataclass(frozen=True)
class WindowTable:
    """The run's windows as columns (one entry per window, in program order), with
    what the cache replay found in each."""

    kernel: np.ndarray
    """True for a kernel loop, False for ops outside kernels."""
    compute: np.ndarray
    """`Window.compute`."""
    access_latency: np.ndarray
    """`Window.access_latency`."""
    hits: np.ndarray
    misses: np.ndarray
    writebacks: np.ndarray
    dram_bytes: np.ndarray
    """Missed and written-back lines, plus streamed bytes."""
    rev_stream_bytes: np.ndarray
    trips: np.ndarray
    ii: np.ndarray
    length: np.ndarray
    tiled: np.ndarray
    """Kernel loops that are the body of a layer."""
    kernel_id: np.ndarray
    """Kernel loops: one number (from 1) per kernel, the same for the same kernel;
    0 for ops windows."""
    layer: np.ndarray
    """Layers started before the window."""
    spad_accesses: np.ndarray
    memory_ops: np.ndarray
    stream_write_bytes: np.ndarray
    stream_read_bytes: np.ndarray
    rev: np.ndarray
    """True for a window of the REV sweep."""
    kernel_ops: np.ndarray
    """Kernel loops: the placed ops of their kernel (its configuration's size)."""
    looped: np.ndarray
    """Kernel windows of a loop that iterates the kernel (not straight-line
    kernels run once where they stand)."""
    tiles: np.ndarray
    """The layer runs, one row each (`TimingRecorder.tiles`): rev, tile entries,
    first window, first window after it, window ending with its stream (-1:
    none), bytes streamed, cycles of DRAM pages its FWD stream opens."""
    start: np.ndarray
    """First access of the trace made in the window."""
    end: np.ndarray
    """One past its last access."""
    access_hit: np.ndarray
    """Per access of the trace: did it hit in the cache."""
    plans: tuple[Any, ...]
    """By `kernel_id`: the model's plan of the kernel (`TimingModel.kernel_plan`;
    None at index 0, the ops windows)."""
    tile_rows: Callable[[np.ndarray], list[list[int]] | None] | None = None
    """`tiles` as Python rows (`tolist`) where the run keeps them: given the
    table's `tiles`, the rows made once for that very array, or None (a table
    made with other tiles, `dataclasses.replace`)."""

    def tile_list(self) -> list[list[int]]:
        """`tiles.tolist()`, made once per run where the run keeps it (every
        cache of a sweep times the same layer runs; on LeNet's TapeFlow variant,
        131 k rows, the conversion cost half of what placing their streams did)."""
        rows = None if self.tile_rows is None else self.tile_rows(self.tiles)
        return self.tiles.tolist() if rows is None else rows


@dataclass(frozen=True)
class PlainWindows:
    """A `WindowTable` of few windows as Python lists (`sim.timing.plain_windows`),
    for a model's `plain_cycles`: on a handful of windows numpy's calls cost more
    than their arithmetic. The columns a model reads, with `WindowTable`'s
    meanings (`kernel_id` both the kernel flag and the id)."""

    compute: list[int]
    access_latency: list[int]
    hits: list[int]
    misses: list[int]
    writebacks: list[int]
    dram_bytes: list[int]
    trips: list[int]
    ii: list[int]
    length: list[int]
    tiled: list[bool]
    kernel_id: list[int]
    layer: list[int]
    rev: list[bool]
    kernel_ops: list[int]
    looped: list[bool]
    tiles: list[list[int]]


@dataclass(frozen=True)
class PlainCycles:
    """What `report` reads of `Cycles`, from a model's `plain_cycles`."""

    spent: list[int]
    memory_stall: int
    stream_stall: int
    config: int = 0
    fill_drain: int = 0
    prefetch_distance: float = 0.0


@dataclass(frozen=True)
class Cycles:
    spent: np.ndarray
    """Cycles of each window (int64)."""
    memory_stall: int
    """Part of the total spent waiting for the cache and DRAM beyond compute."""
    stream_stall: int
    """Part of the total spent waiting for REV tiles."""
    busy: np.ndarray
    """Cycles of each window's issue and latencies alone: `spent` less the
    window's memory and stream stalls (for a timeline, `sim.timeline`)."""
    stream_stalled: np.ndarray
    """Cycles each window waited for its REV tile, at its start."""
    transfers: tuple[Transfer, ...] = ()
    """Each timed stream transfer (`sim.models.streams.Transfer`), in issue order."""
    config: int = 0
    """Part of the total spent loading the grid's configuration (in `busy`)."""
    fill_drain: int = 0
    """Part of the total kernel loops spent filling and draining their pipeline:
    their issue time beyond `trips * ii` (in `busy`)."""
    prefetch_distance: float = 0.0
    """REV streams: the mean number of REV tiles still resident when one was
    issued (`sim.models.streams`)."""


class TimingModel(Protocol):
    name: str
    summary: str
    fields: frozenset[str]
    """The hardware fields (dotted, `targets.fields.HARDWARE_FIELDS`) the model
    simulates: a change to any other changes none of its numbers, and is refused
    (`sim.models.check_simulated`)."""

    def ways(self, size_bytes: int) -> int:
        """The cache's ways at `size_bytes` on the machine the model simulates:
        what a changed cache size takes unless the ways are given too."""
        ...

    def hardware(self, hardware: Hardware) -> Hardware: ...

    def lowering_hardware(self, hardware: Hardware, tape_bytes: int) -> Hardware: ...

    def run_hardware(self, hardware: Hardware) -> Hardware:
        """`hardware` with what neither this model's lowering (`lowering_hardware`)
        nor its run reads set to one value: machines with equal run hardware are
        lowered and run alike, so one run serves them all, each evaluated on its
        own machine (`sim.simulator.evaluate`; the evaluation shares runs so)."""
        ...

    def kernel_plan(self, kernel: cgra.KernelOp, hardware: Hardware) -> Any:
        """What the model derives from a kernel's placed ops before the run (None
        if nothing): the run keeps it by kernel (`WindowTable.plans`)."""
        ...

    def planner(self) -> KernelPlanner:
        """`kernel_plan` for the kernels of one run, free to share what it finds
        between them (the run's module does not change while it runs)."""
        ...

    def cycles(self, windows: WindowTable, hardware: Hardware, transfers: bool = True) -> Cycles:
        """The windows' cycles on `hardware`; with `transfers`, each stream's
        transfer too (`Cycles.transfers`, what a timeline draws: the numbers are
        the same without)."""
        ...

    def add_counts(self, report: dict[str, Any], hardware: Hardware) -> None:
        """Add to `report` (the simulator's, before its energy) the numbers only
        this model has."""
        ...
