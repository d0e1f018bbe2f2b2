"""
`stream` ops: a `stream.alloc` tape is a stack of tiles in DRAM with a byte
budget (`bytes N`), or a slab tape (`slab S`) that grows by slabs as tiles are
pushed (`sim.storage.SlabTape`); `stream.fwd` spills the full entries of a tile and empties them,
`stream.rev` pops the tile of the FWD stream it names and fills its entries,
`stream.store/load` fill and read single scratchpad entries.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import fault
from sim.impls.registry import impl
from sim.storage import Scratchpad, SlabTape, StreamTape, Tile, python_scalar
from tapeflow_dialects import stream
from tapeflow_dialects.layer import ENTRY_BYTES


@impl(stream.AllocOp)
def build_alloc(ctx: CompileContext, op: stream.AllocOp, ins: list[int], outs: list[int]) -> Step:
    (o,) = outs
    slab = op.slab_bytes
    if slab is not None:
        return _build_slab_alloc(ctx, slab, o)
    assert op.bytes is not None
    budget = op.bytes.value.data

    def step(fr: Frame) -> None:
        fr[o] = StreamTape(budget)

    return step


def _build_slab_alloc(ctx: CompileContext, slab_bytes: int, o: int) -> Step:
    """A slab tape; each new slab is counted, placed in the simulated DRAM (the
    trace records its address range) and charged to the timing (a DRAM page
    opened), when the run is observed."""
    state, trace, timing = ctx.state, ctx.trace, ctx.timing

    def on_slab(index: int, slab: np.ndarray) -> None:
        state.stats["stream_slabs"] += 1
        base = trace.place_slab(slab, slab_bytes) if trace is not None else None
        if timing is not None:
            timing.slab(slab_bytes, base)

    def step(fr: Frame) -> None:
        fr[o] = SlabTape(slab_bytes, on_slab)

    return step


def _checked_rows(op: Operation, tile: Tile, rows: int) -> tuple[int, int]:
    """The scratchpad entries [start, end) of the first `rows` rows of `tile`."""
    if not 0 <= rows <= tile.rows:
        raise fault(op, f"'{op.name}' moves {rows} rows of a tile of {tile.rows} rows")
    return tile.base, tile.base + rows * tile.slots


@impl(stream.FwdOp)
def build_fwd(ctx: CompileContext, op: stream.FwdOp, ins: list[int], outs: list[int]) -> Step:
    """Push the first rows of a tile onto the tape and empty them."""
    t, n, tp = ins
    ident = op.id.value.data
    state = ctx.state

    def step(fr: Frame) -> None:
        tile: Tile = fr[t]
        tape_: StreamTape | SlabTape = fr[tp]
        start, end = _checked_rows(op, tile, fr[n])
        spad = tile.spad
        full = spad.full[start:end]
        nbytes = (end - start) * ENTRY_BYTES
        if isinstance(tape_, SlabTape):
            tape_.push(ident, fr[n], tile.slots, spad.data[start:end].copy(), full.copy())
            state.note_stream(nbytes)
            spad.entries_full -= int(np.count_nonzero(full))
            full[...] = False
            state.stats["stream_bytes_written"] += nbytes
            state.stats["stream_tiles_written"] += 1
            return
        if tape_.used + nbytes > tape_.budget:
            raise fault(
                op,
                f"'stream.fwd' (id {ident}) pushes {nbytes} bytes onto a tape of "
                f"{tape_.budget} bytes that already holds {tape_.used}",
            )
        # Entries travel with their full/empty bits: an entry no store wrote
        # comes back empty, and reading it in REV is an error there.
        tape_.tiles.append((ident, fr[n], tile.slots, spad.data[start:end].copy(), full.copy()))
        tape_.used += nbytes
        state.note_stream(nbytes)
        spad.entries_full -= int(np.count_nonzero(full))
        full[...] = False
        state.stats["stream_bytes_written"] += nbytes
        state.stats["stream_tiles_written"] += 1

    return step


@impl(stream.RevOp)
def build_rev(ctx: CompileContext, op: stream.RevOp, ins: list[int], outs: list[int]) -> Step:
    """Pop the top tile, which FWD-stream `of` must have pushed."""
    tp, n, t = ins
    of = op.of.value.data
    state = ctx.state

    def step(fr: Frame) -> None:
        tape_: StreamTape | SlabTape = fr[tp]
        tile: Tile = fr[t]
        rows = fr[n]
        start, end = _checked_rows(op, tile, rows)
        if not tape_.tiles:
            raise fault(op, f"'stream.rev' (of {of}) pops a tile from an empty tape")
        pushed_by, pushed_rows, pushed_slots = tape_.tiles[-1][:3]
        if (pushed_by, pushed_rows, pushed_slots) != (of, rows, tile.slots):
            raise fault(
                op,
                f"'stream.rev' expects the tile of FWD-stream {of} ({rows} rows x "
                f"{tile.slots} slots), but the top of the tape is the tile of FWD-stream "
                f"{pushed_by} ({pushed_rows} rows x {pushed_slots} slots)",
            )
        if isinstance(tape_, SlabTape):
            _, _, _, entries, written = tape_.pop()
        else:
            _, _, _, entries, written = tape_.tiles.pop()
            tape_.used -= entries.size * ENTRY_BYTES
        state.note_stream(-entries.size * ENTRY_BYTES)
        spad = tile.spad
        # The scratchpad's count of full entries, kept by every op that fills or
        # empties one, changes by the tile's entries alone (counting the whole
        # scratchpad was most of a REV stream's time on a large one).
        was_full = int(np.count_nonzero(spad.full[start:end]))
        spad.data[start:end] = entries
        spad.full[start:end] = written
        spad.entries_full += int(np.count_nonzero(written)) - was_full
        state.stats["stream_bytes_read"] += entries.size * ENTRY_BYTES
        state.stats["stream_tiles_read"] += 1
        state.note_occupancy(spad)

    return step


def _entry(op: stream.StoreOp | stream.LoadOp):  # type: ignore[no-untyped-def]
    name, slot = op.name, op.slot.value.data

    def entry(fr: Frame, t: int, r: int) -> tuple[Scratchpad, int]:
        tile: Tile = fr[t]
        row = fr[r]
        if not (0 <= row < tile.rows and 0 <= slot < tile.slots):
            raise fault(
                op,
                f"'{name}' entry (row {row}, slot {slot}) is outside its tile of "
                f"{tile.rows} rows x {tile.slots} slots",
            )
        return tile.spad, tile.base + row * tile.slots + slot

    return entry


@impl(stream.StoreOp)
def build_store(ctx: CompileContext, op: stream.StoreOp, ins: list[int], outs: list[int]) -> Step:
    """Fill one entry of a tile."""
    entry = _entry(op)
    state = ctx.state
    v, t, r = ins

    def store_step(fr: Frame) -> None:
        spad, where = entry(fr, t, r)
        spad.data[where] = fr[v]
        if not spad.full[where]:
            spad.full[where] = True
            spad.entries_full += 1
            state.note_occupancy(spad)

    return store_step


@impl(stream.LoadOp)
def build_load(ctx: CompileContext, op: stream.LoadOp, ins: list[int], outs: list[int]) -> Step:
    """Read a full entry of a tile."""
    entry = _entry(op)
    slot = op.slot.value.data
    t, r = ins
    (o,) = outs
    ident = op.store.value.data
    as_scalar = python_scalar(op.result.type)

    def load_step(fr: Frame) -> None:
        spad, where = entry(fr, t, r)
        if not spad.full[where]:
            raise fault(
                op,
                f"'stream.load' (slot {slot}, from store {ident}) reads scratchpad entry "
                f"{where} (row {fr[r]}) before a REV stream or store filled it",
            )
        fr[o] = as_scalar(spad.data[where])

    return load_step
