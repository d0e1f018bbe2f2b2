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
scratchpad and, between layers, in the DRAM stream tape. A region `tapeflow-layers`
kept (`tapeflow.kept`) is left as it is: a region in DRAM read through the cache.

The offsets are a whole-function decision (the order of stores in each FWD layer),
made and checked first; then each region op is rewritten on its own by a rewrite
pattern. The pass takes a module at the stream stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.gradients import require_gradients
from lowering.ir.index_builder import Index, IndexBuilder
from lowering.ir.locations import located
from lowering.ir.loops import constant_value, enclosing_loops, loop_type, trip_count
from lowering.ir.stages import Stage, require_stages
from tapeflow_dialects import layer, region, stream
from tapeflow_dialects.layer import Phase

PASS = "tapeflow-spad-bind"


def _fail(message: str) -> PassFailedException:
    return PassFailedException(f"{PASS}: {message}")


def bind_module(module: builtin.ModuleOp) -> None:
    gradients = require_gradients(module, PASS)
    require_stages(gradients, PASS, {Stage.STREAMS})
    for function in gradients:
        _bind_function(function)


def _enclosing_layer(op: Operation) -> layer.LayerOp | None:
    current = op.parent_op()
    while current is not None and not isinstance(current, layer.LayerOp):
        current = current.parent_op()
    return current


@dataclass
class _Binding:
    """Where one region access goes: its layer's tile and the slot in a row."""

    owner: layer.LayerOp
    offset: int


@dataclass
class BindPlan:
    """The slots of a function's region accesses, for the patterns to apply."""

    bindings: dict[Operation, _Binding] = field(default_factory=dict)
    rows: dict[tuple[layer.LayerOp, Operation | None], SSAValue] = field(default_factory=dict)
    """The row value computed for each (layer, innermost loop), shared by accesses."""

    def row(self, access: Operation, owner: layer.LayerOp, reverse: bool) -> SSAValue:
        """
        The access's row in the tile: the row-major position of the current
        iteration of the loops between the layer and the access (mirrored for REV).
        Computed once per layer and innermost loop, at the head of that loop's body.
        """
        loops = enclosing_loops(access, owner)
        key = (owner, loops[-1] if loops else None)
        if key in self.rows:
            return self.rows[key]
        at = (
            InsertPoint.at_start(loops[-1].body.block) if loops else InsertPoint.after(owner.salloc)
        )
        index = IndexBuilder(at)
        row: Index = 0
        for depth, loop in enumerate(loops):
            step = constant_value(loop.step)
            inner = [trip_count(nested) for nested in loops[depth + 1 :]]
            assert step is not None and all(t is not None for t in inner), "checked by the plan"
            stride = prod(t for t in inner if t is not None)
            # The position counts in the loop's own type (`i32` for an `i32`
            # loop), the row in index.
            own = IndexBuilder(at, loop_type(loop))
            position = own.div(own.sub(loop.body.block.args[0], loop.lb), step)
            if reverse:
                count = own.ceildiv(own.sub(loop.ub, loop.lb), step)
                position = own.sub(own.sub(count, 1), position)
            position = index.cast(position, builtin.IndexType())
            row = index.add(row, index.mul(position, stride))
        self.rows[key] = index.value(row)
        return self.rows[key]


def _check_rows(access: Operation, owner: layer.LayerOp) -> None:
    """The loops between the layer and the access must have constant steps and
    trip counts, so that each iteration has a row."""
    loops = enclosing_loops(access, owner)
    for depth, loop in enumerate(loops):
        inner = [trip_count(nested) for nested in loops[depth + 1 :]]
        if constant_value(loop.step) is None or any(t is None for t in inner):
            raise _fail(
                f"a tape access sits in a loop with a variable step or trip count "
                f"inside layer {owner.id.value.data}"
            )


class RegionStoreToSpad(RewritePattern):
    """`region.store %v, %r[...] slot s id n` -> `stream.store %v, %tile[%row] slot o id n`."""

    def __init__(self, plan: BindPlan):
        self.plan = plan

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: region.StoreOp, rewriter: PatternRewriter) -> None:
        bound = self.plan.bindings.get(op)
        if bound is None:
            return  # a store of a region left in DRAM (kept by tapeflow-layers)
        row = self.plan.row(op, bound.owner, False)
        new = stream.StoreOp(op.value, bound.owner.salloc.tile, row, bound.offset, op.store_id)
        rewriter.replace(op, located(new, op))


class RegionLoadToSpad(RewritePattern):
    """`region.load %r[...] slot s from n` -> `stream.load %tile[%row] slot o from n`,
    in the REV partner of the layer that stored the value."""

    def __init__(self, plan: BindPlan):
        self.plan = plan

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: region.LoadOp, rewriter: PatternRewriter) -> None:
        bound = self.plan.bindings.get(op)
        if bound is None:
            return  # a load of a region left in DRAM (kept by tapeflow-layers)
        row = self.plan.row(op, bound.owner, True)
        new = stream.LoadOp(
            bound.owner.salloc.tile, row, bound.offset, op.loaded_id, op.result.type
        )
        rewriter.replace(op, located(new, op))


class EraseBoundRegion(RewritePattern):
    """A region's alloc and free, once its accesses went to the scratchpad (a
    region tapeflow-layers kept keeps them)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: region.AllocOp | region.FreeOp, rewriter: PatternRewriter
    ) -> None:
        handle = op.region if isinstance(op, region.AllocOp) else op.region
        if region.is_kept(handle):
            return
        rewriter.erase(op)


def _plan(function: func.FuncOp) -> BindPlan:
    """Give every region access its layer and slot, checking that each store sits
    in a FWD layer and each load in the REV partner of the store's layer."""
    name = function.sym_name.data
    plan = BindPlan()
    offsets: dict[tuple[SSAValue, int], tuple[int, int]] = {}
    """(region, store id) -> (FWD layer id, offset in the tile row)."""
    # Regions tapeflow-layers kept (unlayerable, or of run-time trip counts that
    # could not be strip-mined) stay in DRAM, read through the cache.

    def bound_here(handle: SSAValue) -> bool:
        return not region.is_kept(handle)

    stores = [
        op for op in function.walk() if isinstance(op, region.StoreOp) and bound_here(op.region)
    ]
    loads = [
        op for op in function.walk() if isinstance(op, region.LoadOp) and bound_here(op.region)
    ]
    next_offset: dict[layer.LayerOp, int] = {}
    for store in stores:
        owner = _enclosing_layer(store)
        if owner is None or owner.phase.data is not Phase.FWD:
            raise _fail(f"@{name}: a region.store outside a FWD layer")
        _check_rows(store, owner)
        offset = next_offset.get(owner, 0)
        next_offset[owner] = offset + 1
        offsets[(store.region, store.store_id)] = (owner.id.value.data, offset)
        plan.bindings[store] = _Binding(owner, offset)
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
        key = (load.region, load.loaded_id)
        if key not in offsets:
            raise _fail(f"@{name}: a region.load reads store {key[1]}, which no layer binds")
        fwd_layer, offset = offsets[key]
        if owner.partner.value.data != fwd_layer:
            raise _fail(
                f"REV layer {owner.id.value.data} reads a value stored by FWD layer "
                f"{fwd_layer}, which is not its partner"
            )
        _check_rows(load, owner)
        plan.bindings[load] = _Binding(owner, offset)
    return plan


def _bind_function(function: func.FuncOp) -> None:
    if not any(isinstance(op, stream.FwdOp) for op in function.walk()):
        return  # a gradient without a tape
    plan = _plan(function)
    patterns = [RegionStoreToSpad(plan), RegionLoadToSpad(plan), EraseBoundRegion()]
    # In reverse, so that a region's accesses and free go before its alloc.
    PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns, dce_enabled=False),
        apply_recursively=False,
        walk_reverse=True,
    ).rewrite_region(function.body)


@dataclass(frozen=True)
class TapeflowSpadBindPass(ModulePass):
    """Bind every tape access to a scratchpad slot (Pass 4)."""

    name = "tapeflow-spad-bind"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        bind_module(op)
