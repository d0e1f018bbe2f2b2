"""
`tapeflow-spad-bind`: TapeFlow's Pass 4, scratchpad indexing (Section IV.D,
Algorithm 3 of Hakimi & Shriraman, CGO 2024).

Every region access inside a layer becomes an access of the layer's scratchpad
tile. Within a FWD layer, the tape stores get their rows and slots by the layout
rule of `lowering.layers.layout` (one store per slot, in the order they appear,
when all sit in one loop body); the REV load of a value uses the place of the
store that wrote it (found through the FWD-to-REV link `from`), in the partner
layer. The row counts the iteration's position in the tile: for a strip-mined
layer, the iteration count of the loops between the layer and the access,
row-major; in REV, whose loops run the FWD iterations backwards, the mirrored
count. Together with the tile's base entry (`layer.salloc`) this is Algorithm 3's
`SAlloc + offset`. A layer may hold the values of several regions.

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
from xdsl.dialects import builtin, func, scf
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
from lowering.ir.loops import constant_value, enclosing_loops, loop_type
from lowering.ir.stages import Stage, require_stages
from lowering.ir.walk import walk_ops
from lowering.layers.layout import Placement, TileLayout, tile_layout, tile_trips
from lowering.layers.records import ROWS_PER_ITERATION
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
    """Where one region access goes: its layer's tile and its place in the rows."""

    owner: layer.LayerOp
    place: Placement
    grouped: bool
    """The layer's tile holds several groups of stores (`lowering.layers.layout`)."""


@dataclass
class BindPlan:
    """The slots of a function's region accesses, for the patterns to apply."""

    bindings: dict[Operation, _Binding] = field(default_factory=dict)
    rows: dict[tuple[object, ...], SSAValue] = field(default_factory=dict)
    """The row values computed, by layer, loop and strides, shared by accesses."""

    def row(self, access: Operation, bound: _Binding, reverse: bool) -> SSAValue:
        """
        The access's row in the tile: the row-major position of the current
        iteration of the loops between the layer and the access (mirrored for REV),
        each iteration of the strip-mined loop taking its rows per iteration and
        each inner one the place's stride, from the place's first row. In a tile of
        one group (all stores in one loop body, the paper's tiles) the row is
        computed at the head of the innermost body, once per layer and loop; in a
        tile of several, each loop's share in its own body (the outer ones stay out
        of the inner loops, `_add_share`).
        """
        owner, place = bound.owner, bound.place
        loops = enclosing_loops(access, owner)
        strides: list[int] = []
        for depth, loop in enumerate(loops):
            inner = [tile_trips(nested) for nested in loops[depth + 1 :]]
            assert all(t is not None for t in inner), "checked by the plan"
            per_iteration = loop.attributes.get(ROWS_PER_ITERATION)
            if isinstance(per_iteration, builtin.IntegerAttr):
                strides.append(per_iteration.value.data)
            else:
                strides.append(prod(t for t in inner if t is not None) * place.stride)
        if bound.grouped:
            return self._shares(owner, loops, strides, place.row, reverse)
        key = ("row", owner, loops[-1] if loops else None)
        if key not in self.rows:
            at = (
                InsertPoint.at_start(loops[-1].body.block)
                if loops
                else InsertPoint.after(owner.salloc)
            )
            index = IndexBuilder(at)
            row: Index = 0
            for loop, stride in zip(loops, strides, strict=True):
                row = index.add(row, index.mul(_position(loop, at, reverse), stride))
            self.rows[key] = index.value(row)
        return self.rows[key]

    def _shares(
        self,
        owner: layer.LayerOp,
        loops: tuple[scf.ForOp, ...],
        strides: list[int],
        offset: int,
        reverse: bool,
    ) -> SSAValue:
        if not loops:
            key: tuple[object, ...] = ("offset", owner, offset)
            if key not in self.rows:
                self.rows[key] = IndexBuilder(InsertPoint.after(owner.salloc)).value(offset)
            return self.rows[key]
        row: SSAValue | None = None
        for depth, loop in enumerate(loops):
            last = offset if depth == len(loops) - 1 else 0
            key = ("share", owner, loop, tuple(strides[: depth + 1]), last)
            if key not in self.rows:
                self.rows[key] = _add_share(loop, strides[depth], row, last, reverse)
            row = self.rows[key]
        assert row is not None
        return row


def _add_share(
    loop: scf.ForOp, stride: int, outer: SSAValue | None, offset: int, reverse: bool
) -> SSAValue:
    """`outer + offset + stride * (the position of the loop's iteration)`, mirrored
    for REV. With a unit step the position is affine in the induction variable,
    `iv - lb` (REV: `ub - 1 - iv`): the part fixed while the loop runs is added
    before it, and each iteration adds (REV: subtracts) `stride * iv` alone."""
    index = builtin.IndexType()
    if constant_value(loop.step) != 1:
        at = InsertPoint.at_start(loop.body.block)
        head = IndexBuilder(at)
        share = head.mul(_position(loop, at, reverse), stride)
        return head.value(head.add(head.add(outer if outer is not None else 0, offset), share))
    before = IndexBuilder(InsertPoint.before(loop))
    head = IndexBuilder(InsertPoint.at_start(loop.body.block))
    edge = before.sub(before.cast(loop.ub, index), 1) if reverse else loop.lb
    fixed = before.mul(before.cast(edge, index), stride)
    base = before.add(outer if outer is not None else 0, offset)
    base = before.value(before.add(base, fixed) if reverse else before.sub(base, fixed))
    term = head.mul(head.cast(loop.body.block.args[0], index), stride)
    return head.value(head.sub(base, term) if reverse else head.add(base, term))


def _position(loop: scf.ForOp, at: InsertPoint, reverse: bool) -> Index:
    """The position of the loop's current iteration (in REV, mirrored: its loops run
    the FWD iterations backwards), as an index computed at `at`."""
    step = constant_value(loop.step)
    assert step is not None, "checked by the plan"
    # The position counts in the loop's own type (`i32` for an `i32` loop).
    own = IndexBuilder(at, loop_type(loop))
    position = own.div(own.sub(loop.body.block.args[0], loop.lb), step)
    if reverse:
        count = own.ceildiv(own.sub(loop.ub, loop.lb), step)
        position = own.sub(own.sub(count, 1), position)
    return IndexBuilder(at).cast(position, builtin.IndexType())


def _check_rows(access: Operation, owner: layer.LayerOp) -> None:
    """The loops between the layer and the access must have constant steps and
    trip counts (or, inside the strip-mined loop, a proven bound on them,
    `tile_trips`), so that each iteration has a row."""
    loops = enclosing_loops(access, owner)
    for depth, loop in enumerate(loops):
        inner = [tile_trips(nested) for nested in loops[depth + 1 :]]
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
        row = self.plan.row(op, bound, False)
        new = stream.StoreOp(op.value, bound.owner.salloc.tile, row, bound.place.slot, op.store_id)
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
        row = self.plan.row(op, bound, True)
        new = stream.LoadOp(
            bound.owner.salloc.tile, row, bound.place.slot, op.loaded_id, op.result.type
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
    places: dict[tuple[SSAValue, int], tuple[int, Placement, bool]] = {}
    """(region, store id) -> (FWD layer id, place in the tile, of several groups)."""
    # Regions tapeflow-layers kept (unlayerable, or of run-time trip counts that
    # could not be strip-mined) stay in DRAM, read through the cache.

    def bound_here(handle: SSAValue) -> bool:
        return not region.is_kept(handle)

    stores = [
        op for op in walk_ops(function) if isinstance(op, region.StoreOp) and bound_here(op.region)
    ]
    loads = [
        op for op in walk_ops(function) if isinstance(op, region.LoadOp) and bound_here(op.region)
    ]
    held: dict[layer.LayerOp, list[region.StoreOp]] = {}
    for store in stores:
        owner = _enclosing_layer(store)
        if owner is None or owner.phase.data is not Phase.FWD:
            raise _fail(f"@{name}: a region.store outside a FWD layer")
        _check_rows(store, owner)
        held.setdefault(owner, []).append(store)
    for owner, mine in held.items():
        layout = _layout(owner, mine)
        for store in mine:
            place = layout.places[store]
            places[(store.region, store.store_id)] = (
                owner.id.value.data,
                place,
                layout.groups > 1,
            )
            plan.bindings[store] = _Binding(owner, place, layout.groups > 1)
    for load in loads:
        owner = _enclosing_layer(load)
        if owner is None or owner.phase.data is not Phase.REV:
            raise _fail(f"@{name}: a region.load outside a REV layer")
        key = (load.region, load.loaded_id)
        if key not in places:
            raise _fail(f"@{name}: a region.load reads store {key[1]}, which no layer binds")
        fwd_layer, place, grouped = places[key]
        if owner.partner.value.data != fwd_layer:
            raise _fail(
                f"REV layer {owner.id.value.data} reads a value stored by FWD layer "
                f"{fwd_layer}, which is not its partner"
            )
        _check_rows(load, owner)
        plan.bindings[load] = _Binding(owner, place, grouped)
    return plan


def _layout(owner: layer.LayerOp, stores: list[region.StoreOp]) -> TileLayout:
    """The layout of a FWD layer's stores in its tile, checked against the tile's
    slots and the strip-mined loop's rows per iteration."""
    ident = owner.id.value.data
    loop = next((o for o in owner.body.block.ops if ROWS_PER_ITERATION in o.attributes), None)
    layout = tile_layout(stores, loop if loop is not None else owner)
    tile = owner.salloc.tile.type
    assert isinstance(tile, layer.SpadType)
    if layout.slots != tile.slots.data:
        raise _fail(
            f"FWD layer {ident} stores {layout.slots} values per row but its "
            f"tile has {tile.slots.data} slots"
        )
    if loop is not None:
        per_iteration = loop.attributes[ROWS_PER_ITERATION]
        assert isinstance(per_iteration, builtin.IntegerAttr)
        if per_iteration.value.data != layout.rows_per_iteration:
            raise _fail(
                f"FWD layer {ident} stores {layout.rows_per_iteration} rows per "
                f"iteration but its loop is marked {per_iteration.value.data}"
            )
    return layout


def _bind_function(function: func.FuncOp) -> None:
    if not any(isinstance(op, stream.FwdOp) for op in walk_ops(function)):
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
