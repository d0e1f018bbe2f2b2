"""
`tapeflow-spad-bind`: TapeFlow's Pass 4, scratchpad indexing (Section IV.D,
Algorithm 3 of Hakimi & Shriraman, CGO 2024).

Every region access inside a layer becomes an access of the layer's scratchpad
tile. Within a FWD layer, the tape stores get offsets (slots of a tile row) in the
order they appear, from 0 up; the REV load of a value uses the offset of the store
that wrote it (found through the FWD-to-REV link `from`), in the partner layer. The
row is the iteration's position in the tile: for a strip-mined layer, the
iteration count of the loops between the layer and the access, row-major; in REV,
whose loops run the FWD iterations backwards, the mirrored count. Together with the
tile's base entry (`layer.salloc`) this is Algorithm 3's `SAlloc + offset`.

After binding, the regions carry no accesses and are removed; the tape lives in the
scratchpad and, between layers, in the DRAM stream tape.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from lowering.gradient import (
    Index,
    IndexBuilder,
    constant_value,
    enclosing_loops,
    located,
    require_gradients,
    trip_count,
)
from tapeflow_dialects import layer, region, stream
from tapeflow_dialects.layer import Phase


def _fail(message: str) -> PassFailedException:
    return PassFailedException(f"tapeflow-spad-bind: {message}")


def bind_module(module: builtin.ModuleOp) -> None:
    for function in require_gradients(module, "tapeflow-spad-bind"):
        _bind_function(function)


def _enclosing_layer(op: Operation) -> layer.LayerOp | None:
    current = op.parent_op()
    while current is not None and not isinstance(current, layer.LayerOp):
        current = current.parent_op()
    return current


_Rows = dict[tuple[layer.LayerOp, Operation | None], SSAValue]


def _row(access: Operation, owner: layer.LayerOp, reverse: bool, rows: _Rows) -> SSAValue:
    """
    The access's row in the tile: the row-major position of the current iteration
    of the loops between the layer and the access (mirrored for REV). Computed
    once per layer and innermost loop, at the head of that loop's body.
    """
    loops = enclosing_loops(access, owner)
    key = (owner, loops[-1] if loops else None)
    if key in rows:
        return rows[key]
    at = (
        InsertPoint.at_start(loops[-1].body.block)
        if loops
        else InsertPoint.after(owner.salloc)
    )
    index = IndexBuilder(at)
    row: Index = 0
    for depth, loop in enumerate(loops):
        step = constant_value(loop.step)
        inner = [trip_count(l) for l in loops[depth + 1 :]]
        if step is None or any(t is None for t in inner):
            raise _fail(
                f"a tape access sits in a loop with a variable step or trip count "
                f"inside layer {owner.id.value.data}"
            )
        stride = prod(t for t in inner if t is not None)
        position = index.div(index.sub(loop.body.block.args[0], loop.lb), step)
        if reverse:
            count = index.ceildiv(index.sub(loop.ub, loop.lb), step)
            position = index.sub(index.sub(count, 1), position)
        row = index.add(row, index.mul(position, stride))
    rows[key] = index.value(row)
    return rows[key]


def _bind_function(function: func.FuncOp) -> None:
    name = function.sym_name.data
    if not any(isinstance(op, stream.FwdOp) for op in function.walk()):
        if any(isinstance(op, region.AllocOp) for op in function.walk()):
            raise _fail(f"@{name} has no streams; run tapeflow-streams first")
        return  # a gradient without a tape
    offsets: dict[tuple[SSAValue, int], tuple[int, int]] = {}
    """(region, store id) -> (FWD layer id, offset in the tile row)."""
    stores = [op for op in function.walk() if isinstance(op, region.StoreOp)]
    loads = [op for op in function.walk() if isinstance(op, region.LoadOp)]
    next_offset: dict[layer.LayerOp, int] = {}
    rows: _Rows = {}
    for store in stores:
        owner = _enclosing_layer(store)
        if owner is None or owner.phase.data is not Phase.FWD:
            raise _fail(f"@{name}: a region.store outside a FWD layer")
        offset = next_offset.get(owner, 0)
        next_offset[owner] = offset + 1
        offsets[(store.region, store.id.value.data)] = (owner.id.value.data, offset)
        row = _row(store, owner, False, rows)
        new = stream.StoreOp(store.value, owner.salloc.tile, row, offset, store.id.value.data)
        Rewriter.replace_op(store, located(new, store))
    for owner, used in next_offset.items():
        tile = owner.salloc.tile.type
        assert isinstance(tile, layer.SpadType)
        if used != tile.slots.data:
            raise _fail(
                f"FWD layer {owner.id.value.data} stores {used} values per row but its "
                f"tile has {tile.slots.data} slots"
            )
    for load in loads:
        owner = _enclosing_layer(load)
        if owner is None or owner.phase.data is not Phase.REV:
            raise _fail(f"@{name}: a region.load outside a REV layer")
        key = (load.region, load.store.value.data)
        if key not in offsets:
            raise _fail(f"@{name}: a region.load reads store {key[1]}, which no layer binds")
        fwd_layer, offset = offsets[key]
        if owner.partner.value.data != fwd_layer:
            raise _fail(
                f"REV layer {owner.id.value.data} reads a value stored by FWD layer "
                f"{fwd_layer}, which is not its partner"
            )
        row = _row(load, owner, True, rows)
        new = stream.LoadOp(owner.salloc.tile, row, offset, key[1], load.result.type)
        Rewriter.replace_op(load, located(new, load))
    for op in [o for o in function.walk() if isinstance(o, region.FreeOp)]:
        Rewriter.erase_op(op)
    for op in [o for o in function.walk() if isinstance(o, region.AllocOp)]:
        Rewriter.erase_op(op)


@dataclass(frozen=True)
class TapeflowSpadBindPass(ModulePass):
    """Bind every tape access to a scratchpad slot (Pass 4)."""

    name = "tapeflow-spad-bind"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        bind_module(op)
