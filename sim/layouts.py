"""
Where the elements of the executor's numpy arrays are, for the fast path's
generated code (`sim/kernel_compiler.py`, `sim/function_compiler.py`).

Every array is a view of an *owner*, the array that owns the memory (the same
owner `MemoryTrace` gives a simulated base to). An element of a view is one
element of its owner's flat buffer, at `offset + i*s0 + j*s1 ...` with the view's
strides in elements: the generated code reads and writes it there through a
memoryview of the owner, and its simulated address is `base + 8 * that index`.

Layouts are plain tuples, because the generated code builds one per
`memref.subview` it runs:

    (array, owner, offset, strides, shape, writeable)

and `owner` is a shared list per owner array:

    [array, data pointer, flat elements, packed trace base or None]

(the flat elements: a memoryview for float64 and int64 owners, a 1-D numpy view
for object owners, None otherwise; the packed base is `MemoryTrace.packed_base`,
filled in the first time an access of the owner is recorded).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.storage import Region, Tile

ARRAY, OWNER, OFFSET, STRIDES, SHAPE, WRITEABLE = range(6)
"""Fields of a layout."""
OWNER_ARRAY, POINTER, FLAT, PACKED = range(4)
"""Fields of an owner."""

_FLAT_DTYPES = (np.dtype(np.float64), np.dtype(np.int64))


class Layouts:
    """Layouts by array identity (each entry keeps its array alive, so an id is
    never reused while it is cached). `memref.subview` steps of the fast path
    put their views in `views` (derived from the source's layout: asking numpy
    for data pointers is slow)."""

    LIMIT = 65536
    """Entries kept before the caches are emptied (views of finished loops)."""

    def __init__(self) -> None:
        self.views: dict[int, tuple[Any, ...]] = {}
        self._owners: dict[int, list[Any]] = {}

    def of(self, arr: Any) -> tuple[Any, ...] | None:
        """The layout of `arr`, or None if it is not an array the fast path takes
        (not a numpy array, an element size other than 8, an owner that is not
        C-contiguous...)."""
        lay = self.views.get(id(arr))
        if lay is not None and lay[ARRAY] is arr:
            return lay
        return self._describe(arr) if isinstance(arr, np.ndarray) else None

    def owner(self, arr: np.ndarray) -> list[Any]:
        """The shared record of the owner array `arr`."""
        known = self._owners.get(id(arr))
        if known is not None and known[OWNER_ARRAY] is arr:
            return known
        flat: Any = None
        if arr.flags.c_contiguous:
            if arr.dtype in _FLAT_DTYPES:
                flat = memoryview(arr.reshape(-1))
            elif arr.dtype == np.dtype(object):
                flat = arr.reshape(-1)
        record = [arr, arr.ctypes.data, flat, None]
        if len(self._owners) > self.LIMIT:
            self._owners.clear()
        self._owners[id(arr)] = record
        return record

    def remember(self, lay: tuple[Any, ...]) -> tuple[Any, ...]:
        views = self.views
        if len(views) > self.LIMIT:
            views.clear()
        views[id(lay[ARRAY])] = lay
        return lay

    def _describe(self, arr: np.ndarray) -> tuple[Any, ...] | None:
        owner = arr
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        if arr.dtype != owner.dtype or arr.dtype.itemsize != 8:
            return None
        record = self.owner(owner)
        flat = record[FLAT]
        if flat is None:
            return None
        delta = arr.ctypes.data - record[POINTER]
        if delta % 8 or any(s % 8 for s in arr.strides):
            return None
        readonly = isinstance(flat, memoryview) and flat.readonly
        writeable = bool(arr.flags.writeable) and not readonly
        return self.remember(
            (arr, record, delta // 8, tuple(s // 8 for s in arr.strides), arr.shape, writeable)
        )

    def register_subview(
        self,
        view: np.ndarray,
        source: np.ndarray,
        starts: list[int],
        sizes: tuple[int, ...],
        strides: tuple[int, ...],
        kept: tuple[int, ...],
    ) -> None:
        """`view` is `source[start:start+size*stride:stride, ...]` with the
        dimensions not in `kept` squeezed out: derive its layout from the
        source's (only when every slice is inside the source, where that is
        exactly what numpy does)."""
        src = self.of(source)
        if src is None or len(starts) != len(src[SHAPE]):
            return
        offset = src[OFFSET]
        dims = zip(starts, sizes, strides, src[SHAPE], src[STRIDES], strict=False)
        for start, size, stride, extent, step in dims:
            if not (size >= 1 and stride >= 1 and 0 <= start < extent - (size - 1) * stride):
                return
            offset += start * step
        self.remember(
            (
                view,
                src[OWNER],
                offset,
                tuple(src[STRIDES][d] * strides[d] for d in kept),
                tuple(sizes[d] for d in kept),
                src[WRITEABLE],
            )
        )


def prepare_memref(
    layouts: Layouts, trace: Any, arr: Any, rank: int, write: bool
) -> tuple[Any, ...] | None:
    """`(flat, offset, *strides, *shape, packed base)` of a memref the generated
    code accesses with `rank` indices (and writes, if `write`), recording the
    owner's simulated base if there is a trace and it has none yet; None if the
    closure step must do the access."""
    lay = layouts.of(arr)
    if lay is None or len(lay[SHAPE]) != rank or (write and not lay[WRITEABLE]):
        return None
    owner = lay[OWNER]
    flat = owner[FLAT]
    if type(flat) is not memoryview:
        return None
    return (flat, lay[OFFSET], *lay[STRIDES], *lay[SHAPE], packed_base(owner, trace))


def packed_base(owner: list[Any], trace: Any) -> int:
    """`MemoryTrace.packed_base` of an owner (0 without a trace), given to it
    now if it has none yet, and kept in the owner's record."""
    packed = owner[PACKED]
    if packed is None:
        packed = 0
        if trace is not None:
            packed = trace.packed_base(owner[OWNER_ARRAY], owner[POINTER])
        owner[PACKED] = packed
    return packed  # type: ignore[no-any-return]


__all__ = ["Layouts", "packed_base", "prepare_memref"]


# ------------------------------------------------------- run-time preparation
# Called when a compiled loop starts (and runs at least once), in the order the
# loop body first touches each buffer, so simulated bases are handed out in the
# same order as the closure executor's trace records them. None: use the
# closure step for this run of the loop. (Memrefs: `prepare_memref` above.)


def prepare_region(
    layouts: Layouts, trace: Any, store: Any, rank: int, top_slot: int
) -> tuple[Any, ...] | None:
    if not isinstance(store, Region) or store.freed:
        return None
    data, written = store.data, store.written
    if data.ndim != rank + 1 or not top_slot < data.shape[-1]:
        return None
    lay = layouts.of(data)
    if (
        lay is None
        or lay[OFFSET] != 0
        or data.shape != written.shape
        or not written.flags.c_contiguous
    ):
        return None
    # A region's data is C-contiguous and its own owner: its written mask has
    # the same flat indices. Region accesses are tape accesses (| 1).
    owner = lay[OWNER]
    written_flat = memoryview(written.reshape(-1))
    packed = packed_base(owner, trace) | 1
    return (owner[FLAT], written_flat, *lay[STRIDES], *data.shape[:-1], packed)


def prepare_tile(tile: Any, top_slot: int) -> tuple[Any, ...] | None:
    if not isinstance(tile, Tile) or not top_slot < tile.slots:
        return None
    spad = tile.spad
    return (tile.rows, tile.base, tile.slots, spad, spad.data, memoryview(spad.full))
