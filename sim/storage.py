"""
The executor's storage: what memrefs, tapes, regions, the scratchpad, its
tiles and stream tapes are at run time, with the checks every access makes.

A memref is a numpy array (a `memref.subview` is a numpy view); integers and
index values are stored as int64, floats as float64 (an f32 or f16 value is a
double holding a value of that precision, see `tapeflow_dialects.semantics`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, IndexType, IntegerType
from xdsl.ir import Attribute

from tapeflow_dialects import region
from tapeflow_dialects.layer import ENTRY_BYTES

ALLOCATION_LIMIT_BYTES = 1 << 31
"""The largest buffer (memref, tape, region, scratchpad) the executor allocates,
2 GiB: a program asking for more is refused with an error at its allocation
rather than failing with MemoryError (or swapping) somewhere in numpy."""


def numpy_dtype(element_type: Attribute) -> Any:
    """How elements of `element_type` are stored: int64 for integers and index,
    float64 for floats, Python objects for anything else (a buffer of memref
    handles, `memref<10xmemref<10xf64>>`, which Enzyme writes to cache the
    buffer a loop iteration wrote through)."""
    if isinstance(element_type, IndexType | IntegerType):
        return np.int64
    if isinstance(element_type, AnyFloat):
        return np.float64
    return np.dtype(object)


def python_scalar(value_type: Attribute) -> Callable[[Any], Any]:
    """How a stored entry of `value_type` comes back: a Python bool, int or float."""
    if isinstance(value_type, IntegerType) and value_type.width.data == 1:
        return bool
    if isinstance(value_type, IndexType | IntegerType):
        return int
    return float


def python_scalar_name(value_type: Attribute) -> str:
    """`python_scalar(value_type)` by name, for generated code."""
    return python_scalar(value_type).__name__


def in_bounds(where: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """`where` is an index (one per dimension) inside `shape`."""
    if len(where) != len(shape):
        return False
    return all(0 <= i < d for i, d in zip(where, shape, strict=True))


def run_time_shape(static: tuple[int, ...], sizes: list[int]) -> tuple[int, ...] | str:
    """The extents of a container whose `?` extents are `sizes`, in order; or why
    they cannot be (a negative extent)."""
    given = iter(sizes)
    shape = tuple(next(given) if d == DYNAMIC_INDEX else d for d in static)
    if any(d < 0 for d in shape):
        return f"of negative extent: shape {list(shape)}"
    return shape


def allocation_bytes(shape: tuple[int, ...], entry_bytes: int = 8) -> int:
    size = entry_bytes
    for extent in shape:
        size *= max(extent, 0)
    return size


def too_large(nbytes: int) -> str | None:
    """Why an allocation of `nbytes` is refused, or None."""
    if nbytes > ALLOCATION_LIMIT_BYTES:
        return (
            f"allocates {nbytes} bytes, more than the executor's limit of "
            f"{ALLOCATION_LIMIT_BYTES} bytes"
        )
    return None


class Tape:
    """A tape's storage plus the set of entries FWD has written."""

    def __init__(self, shape: tuple[int, ...], dtype: Any):
        self.data = np.zeros(shape, dtype=dtype)
        self.written = np.zeros(shape, dtype=bool)


class Region:
    """An array-of-structs region: `(*shape, slots)` entries plus the written mask."""

    def __init__(self, region_type: region.RegionType, shape: tuple[int, ...] | None = None):
        self.type = region_type
        self.shape = region_type.get_shape() if shape is None else shape
        """The extents (a region with `?` extents gets them when allocated)."""
        dtypes = {numpy_dtype(t) for t in region_type.slot_types()}
        dtype = dtypes.pop() if len(dtypes) == 1 else object
        entries = (*self.shape, len(region_type.slot_types()))
        self.data = np.zeros(entries, dtype=dtype)
        self.written = np.zeros(entries, dtype=bool)
        self.freed = False

    @staticmethod
    def entries(
        region_type: region.RegionType, shape: tuple[int, ...] | None = None
    ) -> tuple[int, ...]:
        return (
            *(region_type.get_shape() if shape is None else shape),
            len(region_type.slot_types()),
        )


class Scratchpad:
    """The scratchpad of one `run`: 8-byte entries, each with a full/empty bit."""

    def __init__(self, capacity: int, configured_at: str):
        self.capacity = capacity
        self.configured_at = configured_at
        self.data = np.zeros(capacity // ENTRY_BYTES, dtype=object)
        self.full = np.zeros(capacity // ENTRY_BYTES, dtype=bool)
        self.entries_full = 0


class Tile:
    """What `layer.salloc` returns: `rows` x `slots` scratchpad entries from `base`."""

    __slots__ = ("spad", "base", "rows", "slots")

    def __init__(self, spad: Scratchpad, base: int, rows: int, slots: int):
        self.spad, self.base, self.rows, self.slots = spad, base, rows, slots


class StreamTape:
    """`!stream.tape`: a stack of tiles in DRAM within a byte budget."""

    def __init__(self, budget: int):
        self.budget = budget
        self.used = 0
        self.tiles: list[tuple[int, int, int, np.ndarray, np.ndarray]] = []
        """(FWD stream id, rows, slots, entries, their full bits), oldest first."""


class SlabTape:
    """
    `!stream.tape` allocated with `slab S`: a stack of tiles stored in DRAM slabs
    of S bytes, appended as the tape grows (never moved or copied) and kept until
    the run ends. Tiles are laid out back to back in the chain of slabs; a tile
    may straddle slabs. `on_slab(index, slab)` hears of each new slab.
    """

    def __init__(self, slab_bytes: int, on_slab: Callable[[int, np.ndarray], None] | None = None):
        self.slab_bytes = slab_bytes
        self.slab_entries = slab_bytes // ENTRY_BYTES
        self.slabs: list[tuple[np.ndarray, np.ndarray]] = []
        """Per slab: its entries and their full bits."""
        self.used = 0
        """Bytes held (the top of the stack)."""
        self.high_water = 0
        """The most bytes the tape ever held."""
        self.tiles: list[tuple[int, int, int, int, int]] = []
        """(FWD stream id, rows, slots, first entry, entries), oldest first."""
        self.on_slab = on_slab

    def _ensure(self, entries: int) -> None:
        while len(self.slabs) * self.slab_entries < entries:
            slab = (
                np.zeros(self.slab_entries, dtype=object),
                np.zeros(self.slab_entries, dtype=bool),
            )
            self.slabs.append(slab)
            if self.on_slab is not None:
                self.on_slab(len(self.slabs) - 1, slab[0])

    def _pieces(self, first: int, count: int) -> list[tuple[int, int, int, int]]:
        """(slab, start in slab, start in the tile, length) covering entries
        [first, first + count) of the chain."""
        pieces = []
        done = 0
        while done < count:
            slab, offset = divmod(first + done, self.slab_entries)
            length = min(self.slab_entries - offset, count - done)
            pieces.append((slab, offset, done, length))
            done += length
        return pieces

    def push(
        self, ident: int, rows: int, slots: int, entries: np.ndarray, full: np.ndarray
    ) -> None:
        first = self.used // ENTRY_BYTES
        self._ensure(first + entries.size)
        for slab, offset, at, length in self._pieces(first, entries.size):
            data, bits = self.slabs[slab]
            data[offset : offset + length] = entries[at : at + length]
            bits[offset : offset + length] = full[at : at + length]
        self.tiles.append((ident, rows, slots, first, entries.size))
        self.used += entries.size * ENTRY_BYTES
        self.high_water = max(self.high_water, self.used)

    def pop(self) -> tuple[int, int, int, np.ndarray, np.ndarray]:
        """The top tile: (FWD stream id, rows, slots, entries, full bits)."""
        ident, rows, slots, first, count = self.tiles.pop()
        entries = np.zeros(count, dtype=object)
        full = np.zeros(count, dtype=bool)
        for slab, offset, at, length in self._pieces(first, count):
            data, bits = self.slabs[slab]
            entries[at : at + length] = data[offset : offset + length]
            full[at : at + length] = bits[offset : offset + length]
            bits[offset : offset + length] = False
        self.used -= count * ENTRY_BYTES
        return ident, rows, slots, entries, full


def fresh_stats() -> dict[str, int]:
    """The stream traffic and scratchpad occupancy counters of a run, zeroed."""
    return {
        "stream_bytes_written": 0,
        "stream_bytes_read": 0,
        "stream_tiles_written": 0,
        "stream_tiles_read": 0,
        "spad_peak_entries_full": 0,
        "stream_slabs": 0,
        "tape_high_water_bytes": 0,
    }


class RunState:
    """What a run changes besides its buffers, shared by every step of it."""

    __slots__ = ("ops_executed", "stats", "scratchpad", "stream_bytes_held", "globals")

    def __init__(self) -> None:
        self.ops_executed = 0
        """Float ops executed (by all runs so far)."""
        self.stats = fresh_stats()
        """Stream traffic and peak scratchpad occupancy of the current (or last) run."""
        self.scratchpad: Scratchpad | None = None
        """The scratchpad of the current (or last) run, made by its first salloc."""
        self.stream_bytes_held = 0
        """Bytes all stream tapes hold now (their high-water mark is a stat)."""
        self.globals: dict[str, np.ndarray] = {}
        """The buffer of each `memref.global` the run reached, by name: made from
        its initial value the first time, shared by every `memref.get_global`."""

    def start_run(self) -> None:
        self.stats = fresh_stats()
        self.scratchpad = None
        self.stream_bytes_held = 0
        self.globals.clear()  # each run starts from the globals' initial values

    def note_stream(self, nbytes: int) -> None:
        """A stream tape grew (or, negative, shrank) by `nbytes`."""
        self.stream_bytes_held += nbytes
        if self.stream_bytes_held > self.stats["tape_high_water_bytes"]:
            self.stats["tape_high_water_bytes"] = self.stream_bytes_held

    def note_occupancy(self, spad: Scratchpad) -> None:
        if spad.entries_full > self.stats["spad_peak_entries_full"]:
            self.stats["spad_peak_entries_full"] = spad.entries_full


__all__ = [
    "ALLOCATION_LIMIT_BYTES",
    "Region",
    "RunState",
    "Scratchpad",
    "SlabTape",
    "StreamTape",
    "Tape",
    "Tile",
    "allocation_bytes",
    "fresh_stats",
    "in_bounds",
    "numpy_dtype",
    "python_scalar",
    "python_scalar_name",
    "run_time_shape",
    "too_large",
]
