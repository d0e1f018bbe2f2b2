"""
`tapeflow-streams`: TapeFlow's Pass 3, explicit streaming (Section IV.C of Hakimi &
Shriraman, CGO 2024).

Each region gets a tape in DRAM (`stream.alloc`), used as a stack of scratchpad tiles
(regions whose values share a layer share a tape): of the regions' size (a triangle's
entries where its extents are functions of its outer indices alone), or a slab tape
that grows by slabs as it runs (a region whose size is known only at run time, or
`slab-bytes=N`). At the end of every FWD layer a FWD-stream (`stream.fwd`) appends the layer's
tile -- the rows it filled, fewer for the last tile of a strip-mined loop -- to the tail
of the tape; at the head of every REV layer a REV-stream (`stream.rev`) preloads the
tile of its FWD partner, naming that FWD-stream (`of`) and moving the same number of
rows, so REV reads back exactly what FWD wrote. REV layers run in the inverse order of
their partners, so each REV-stream takes the top tile of the stack. The stream engine
may issue a REV-stream as soon as the previous layer's tile has been consumed,
overlapping the previous layer (timing is the simulator's business; the IR fixes what
moves and in which order).

The tape accesses still go to the region; `tapeflow-spad-bind` (Pass 4) moves them
to the scratchpad tile. A region `tapeflow-layers` kept (`tapeflow.kept`) gets no
stream tape: it stays in DRAM, read through the cache.

The DRAM tape holds the region's entries at one 8-byte word per slot (the layout
rule of `tapeflow_dialects.layout`), the same words the scratchpad tiles hold and
the streams move. The pass takes a module at the layer stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, scf
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.gradients import require_gradients
from lowering.ir.index_builder import Index, IndexBuilder
from lowering.ir.locations import located
from lowering.ir.loops import constant_value, loop_type
from lowering.ir.ragged import known_entries
from lowering.ir.stages import Stage, require_stages
from lowering.ir.walk import walk_ops
from lowering.layers.records import CARRIED_BOUNDS, ROWS_PER_ITERATION
from tapeflow_dialects import layer, region, stream
from tapeflow_dialects.layer import Phase


def _fail(message: str) -> PassFailedException:
    return PassFailedException(f"tapeflow-streams: {message}")


DEFAULT_SLAB_BYTES = 4096
"""A slab tape's slab when none is asked for: one DRAM page (`sim.trace.PAGE`), so
that each slab allocation opens exactly one more page."""


def stream_module(module: builtin.ModuleOp, slab_bytes: int = 0) -> None:
    if slab_bytes < 0 or slab_bytes % 8:
        raise _fail(f"slab-bytes must be 0 or a positive multiple of 8, got {slab_bytes}")
    gradients = require_gradients(module, "tapeflow-streams")
    require_stages(gradients, "tapeflow-streams", {Stage.LAYERS})
    for function in gradients:
        _stream_function(function, slab_bytes)


def _layer_regions(op: layer.LayerOp) -> list[SSAValue]:
    """The regions a layer holds values of, in the order it first accesses them."""
    found: list[SSAValue] = []
    for o in walk_ops(op):
        if isinstance(o, region.StoreOp | region.LoadOp) and not region.is_kept(o.region):
            if o.region not in found:
                found.append(o.region)
    return found


def _tile_loop(op: layer.LayerOp) -> scf.ForOp | None:
    for o in op.body.block.ops:
        if isinstance(o, scf.ForOp) and ROWS_PER_ITERATION in o.attributes:
            return o
    return None


def _rows(op: layer.LayerOp, at: InsertPoint) -> SSAValue:
    """The rows of the tile the layer fills (FWD) or consumes (REV)."""
    index = IndexBuilder(at)
    loop = _tile_loop(op)
    if loop is None:  # a piece, or a loop body's iteration: the whole tile
        tile = op.salloc.tile.type
        assert isinstance(tile, layer.SpadType)
        return index.value(tile.rows.data)
    if CARRIED_BOUNDS in loop.attributes:
        # The tile's row count is carried from the tile before, as its bounds are
        # (`lowering.layers.tiles.strip_mine`): the tile loop's last argument.
        tile_loop = op.parent_op()
        assert isinstance(tile_loop, scf.ForOp)
        return tile_loop.body.block.args[-1]
    per_iteration = loop.attributes[ROWS_PER_ITERATION]
    assert isinstance(per_iteration, builtin.IntegerAttr)
    step = constant_value(loop.step)
    if step is None:
        raise _fail(f"the strip-mined loop of layer {op.id.value.data} has a variable step")
    # The bounds are in the loop's own type (`i32` for an `i32` loop), the rows
    # an index.
    bounds = IndexBuilder(at, loop_type(loop))
    trips = bounds.ceildiv(bounds.span(loop.lb, loop.ub), step)
    rows = per_iteration.value.data
    clamp = trips.op if isinstance(trips, OpResult) else None
    if rows > 1 and isinstance(clamp, arith.MinSIOp):
        # A tile clamped to `min(T, n)` iterations: `min(T * rows, n * rows)`, so
        # that the row count does not wait for the clamp the tile's other bound
        # reads (a second reader of one value costs a hop in a kernel).
        tile, other = (clamp.lhs, clamp.rhs)
        if constant_value(tile) is None:
            tile, other = other, tile
        known = constant_value(tile)
        if known is not None:
            return index.value(index.min(known * rows, _scaled(index, other, rows)))
    return index.value(index.mul(index.cast(trips, builtin.IndexType()), rows))


def _scaled(index: IndexBuilder, value: SSAValue, factor: int) -> Index:
    """`value * factor` as an index; `c * factor - v * factor` for `value = c - v`
    of a constant `c` (FWD's iterations left, `ub - p`), so that the product does
    not wait for the subtraction the tile's clamp reads too."""
    op = value.op if isinstance(value, OpResult) else None
    if isinstance(op, arith.SubiOp) and constant_value(op.lhs) is not None:
        known = constant_value(op.lhs)
        assert known is not None
        moved = index.mul(index.cast(op.rhs, builtin.IndexType()), factor)
        return index.sub(known * factor, moved)
    return index.mul(index.cast(value, builtin.IndexType()), factor)


def layered_regions(function: func.FuncOp) -> set[SSAValue]:
    """The regions some layer accesses; `tapeflow-layers` leaves the others (loops
    with run-time trip counts) in DRAM, read through the cache."""
    return {
        o.region
        for o in walk_ops(function)
        if isinstance(o, region.StoreOp | region.LoadOp) and _in_layer(o)
    }


def _in_layer(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, layer.LayerOp):
            return True
        parent = parent.parent_op()
    return False


def _tape_alloc(allocs: list[region.AllocOp], slab_bytes: int) -> stream.AllocOp:
    """A tape of the regions' size if it is known and no slabs are asked for,
    else a slab tape (a region of run-time extent has no size to reserve)."""
    sizes = [size for size in map(_region_bytes, allocs) if size is not None]
    if slab_bytes == 0 and len(sizes) == len(allocs):
        return stream.AllocOp(sum(sizes))
    return stream.AllocOp(slab_bytes=slab_bytes or DEFAULT_SLAB_BYTES)


def _region_bytes(alloc: region.AllocOp) -> int | None:
    """The bytes of the region's entries, if known before it runs: its shape's,
    or a triangle's entries (`lowering.ir.ragged.known_entries`)."""
    kind = alloc.region.type
    assert isinstance(kind, region.RegionType)
    if kind.is_static():
        return kind.size_bytes()
    entries = known_entries(alloc)
    return None if entries is None else entries * kind.struct_bytes()


def _shared_tapes(held: list[list[SSAValue]]) -> dict[SSAValue, SSAValue]:
    """Regions whose values share a layer share its tape: each region of a layer
    holding several, mapped to the first region of its group (the groups are
    the connected components of "held by one layer"). `tapeflow-layers` puts all
    of a region's stores in one loop nest, so a group's layers are one stack."""
    leader: dict[SSAValue, SSAValue] = {}

    def find(r: SSAValue) -> SSAValue:
        while leader.get(r, r) is not r:
            r = leader[r]
        return r

    for regions in held:
        for other in regions[1:]:
            a, b = find(regions[0]), find(other)
            if a is not b:
                leader[b] = a
    return {r: find(r) for r in leader}


def _stream_function(function: func.FuncOp, slab_bytes: int = 0) -> None:
    layers = [op for op in walk_ops(function) if isinstance(op, layer.LayerOp)]
    if not layers:
        return  # a gradient without a tape: nothing to stream
    held = {op: _layer_regions(op) for op in layers}
    fwd_held = {op.id.value.data: held[op] for op in layers if op.phase.data is Phase.FWD}
    shared = _shared_tapes(list(held.values()))
    layered = layered_regions(function)
    allocs = {
        op.region: op
        for op in walk_ops(function)
        if isinstance(op, region.AllocOp)
        and region.KEPT not in op.attributes  # kept in DRAM: no stream
        and op.region in layered
    }
    tapes: dict[SSAValue, SSAValue] = {}
    for handle, alloc in allocs.items():
        leader = shared.get(handle, handle)
        if leader in tapes:
            tapes[handle] = tapes[leader]
            continue
        members = [r for r in allocs if shared.get(r, r) is leader]
        tape = located(_tape_alloc([allocs[r] for r in members], slab_bytes), alloc)
        Rewriter.insert_op(tape, InsertPoint.after(alloc))
        tapes[handle] = tapes[leader] = tape.tape
    for op in layers:
        mine = held[op]
        if not mine and op.phase.data is Phase.REV:
            # A REV partner that reads none of its tile still pops it.
            mine = fwd_held.get(op.partner.value.data, [])
        if not mine:
            continue
        target = mine[0]
        tile = op.salloc.tile
        block = op.body.block
        if op.phase.data is Phase.FWD:
            barrier = block.last_op
            assert barrier is not None
            # The rows are counted beside the tile's bounds, before its loop: one
            # kernel run once with them rather than another after the loop.
            loop = _tile_loop(op)
            rows = _rows(op, InsertPoint.before(loop if loop is not None else barrier))
            at = InsertPoint.before(barrier)
            Rewriter.insert_op(
                located(stream.FwdOp(tile, rows, tapes[target], op.id.value.data), op), at
            )
        else:
            loop = _tile_loop(op)
            anchor: Operation = loop if loop is not None else op.salloc.next_op  # type: ignore[assignment]
            at = InsertPoint.before(anchor)
            rows = _rows(op, at)
            Rewriter.insert_op(
                located(stream.RevOp(tapes[target], rows, tile, op.partner.value.data), op),
                at,
            )


@dataclass(frozen=True)
class TapeflowStreamsPass(ModulePass):
    """Spill each FWD layer's tile to DRAM and preload it for its REV partner (Pass 3)."""

    name = "tapeflow-streams"

    slab_bytes: int = 0
    """0: each region's tape reserves the region's size (`stream.alloc bytes N`),
    and a region of run-time extent gets a slab tape of 4096-byte slabs; N > 0:
    every tape is a slab tape growing by N-byte slabs (`stream.alloc slab N`)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        stream_module(op, self.slab_bytes)
