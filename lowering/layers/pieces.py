"""
Pieces of one iteration for `tapeflow-layers`: the straight-line stores of a loop
body (or of a branch) cut into consecutive pieces of one region that fit the
scratchpad, each a FWD layer of one row whose REV partner gathers the loads of
the same values (with their index arithmetic) at the head of the matching REV body.
A whole iteration of a loop whose body caches values beside inner loops is one
layer where it fits a tile but two do not (`layer_body`): its inner loops and the
per-iteration values together, the REV partner spanning the mirrored body.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.ir.index_eval import PURE_INDEX_OPS
from lowering.ir.walk import walk_ops
from lowering.layers.records import LayerRecord, region_name
from lowering.layers.state import (
    LayeringState,
    Unlayerable,
    check_mirrors,
    outer_instances,
    stores_in,
    under_branch,
)
from tapeflow_dialects import layer, region
from tapeflow_dialects.layer import Phase


def wrap(
    ops: Sequence[Operation],
    ident: int,
    phase: Phase,
    partner: int,
    tile: layer.SpadType,
    spad_bytes: int,
    at: InsertPoint,
) -> layer.LayerOp:
    """Move `ops` into a new layer inserted at `at`; their results used outside
    the layer become its results."""
    members = set(ops)

    def inside(user: Operation | None) -> bool:
        while user is not None:
            if user in members:
                return True
            user = user.parent_op()
        return False

    escaping = [
        result
        for op in ops
        for result in op.results
        if any(not inside(use.operation) for use in result.uses)
    ]
    block = Block()
    block.add_op(layer.SAllocOp(tile, 0, spad_bytes))
    layer_op = layer.LayerOp(ident, phase, partner, Region(block), [v.type for v in escaping])
    Rewriter.insert_op(layer_op, at)
    for op in ops:
        op.detach()
        block.add_op(op)
    block.add_op(layer.BarrierOp(escaping))
    for value, result in zip(escaping, layer_op.results, strict=True):
        value.replace_uses_with_if(result, lambda use: not layer_op.is_ancestor(use.operation))
    return layer_op


def make_pieces(state: LayeringState, pieces: list[tuple[SSAValue, list[Operation]]]) -> None:
    """FWD layers for `pieces` of one block; REV partners at the head of the mirror."""
    function = state.op
    by_region: dict[SSAValue, list[tuple[list[Operation], list[region.StoreOp]]]] = {}
    for target, ops in pieces:
        stores = [s for op in ops for s in stores_in(op) if s.region is target]
        by_region.setdefault(target, []).append((ops, stores))
    # The stores of each region in the function, counted once: making a region's
    # layers moves its stores and loads into them, adds or drops none.
    everywhere: dict[SSAValue, int] = {}
    if by_region:
        for s in stores_in(function):
            everywhere[s.region] = everywhere.get(s.region, 0) + 1
    for target, group in by_region.items():
        state.refresh_positions()
        group_stores = [s for _, stores in group for s in stores]
        if everywhere.get(target, 0) != len(group_stores):
            raise Unlayerable(
                target,
                "it is stored in several blocks (branches of one loop body), so its "
                "pieces could not be streamed back as one stack",
            )
        all_loads = state.loads_of(group_stores)
        if not all_loads:
            raise Unlayerable(target, "it is stored but never loaded")
        rev_block = all_loads[0].parent_block()
        assert rev_block is not None
        if any(each.parent_block() is not rev_block for each in all_loads):
            raise Unlayerable(
                target,
                "its REV loads are spread over several blocks, so they cannot form "
                "one REV layer per piece",
            )
        reason = check_mirrors(group_stores, all_loads, state)
        if reason is not None:
            raise Unlayerable(
                target,
                f"the REV loops do not mirror the FWD loops ({reason}), so its tiles "
                "could not be streamed back as a stack",
            )
        ids = [state.new_ids() for _ in group]
        for (ops, stores), (fwd_id, rev_id) in zip(group, ids, strict=True):
            tile = layer.SpadType(1, len(stores))
            wrap(ops, fwd_id, Phase.FWD, rev_id, tile, state.spad_bytes, InsertPoint.before(ops[0]))
            state.report.layers.append(
                LayerRecord(
                    fwd_id,
                    rev_id,
                    region_name(target),
                    1,
                    len(stores),
                    False,
                    outer_instances(stores[0], function),
                    under_branch(stores[0], function),
                    run_time=target in state.proven,
                )
            )
        # REV partners, in the inverse order, where REV first reads any of them.
        anchor = all_loads[0]
        positions = {op: i for i, op in enumerate(rev_block.ops)}
        for load in all_loads:
            _hoist_indices(load, anchor, rev_block, positions)
        cursor: Operation | None = None
        for (_ops, stores), (fwd_id, rev_id) in reversed(list(zip(group, ids, strict=True))):
            at = InsertPoint.before(anchor) if cursor is None else InsertPoint.after(cursor)
            tile = layer.SpadType(1, len(stores))
            cursor = wrap(
                state.loads_of(stores), rev_id, Phase.REV, fwd_id, tile, state.spad_bytes, at
            )


def layer_body(
    state: LayeringState, loop: scf.ForOp, rev_loop: scf.ForOp, tile: layer.SpadType
) -> tuple[int, int]:
    """
    One FWD layer per iteration of `loop`, holding its body (inner loops, the
    values cached beside them and the compute around them) as a strip-mined loop's
    tile of one iteration holds it, `tile` laid out as such
    (`lowering.layers.layout`), and its REV partner holding the body of `rev_loop`,
    which mirrors `loop` and accesses no other tape. REV visits the iterations in
    the inverse order, so the tiles form a stack. No tile loop or bounds: one
    layer where a tile of the inner loop and a piece of the per-iteration values
    made two.
    """
    ident = state.new_ids()
    for each, (mine, partner), phase in (
        (loop, ident, Phase.FWD),
        (rev_loop, ident[::-1], Phase.REV),
    ):
        body = list(each.body.block.ops)[:-1]  # not the yield
        wrap(body, mine, phase, partner, tile, state.spad_bytes, InsertPoint.before(body[0]))
    return ident


def sink_past(
    state: LayeringState, ops: list[Operation], target: SSAValue | None, loop: scf.ForOp
) -> list[Operation]:
    """
    The stores of region `target` in an open piece (`ops`, taken out of it) moved
    to just after `loop`, where they open the next piece, if `loop` touches nothing
    of that region and the next stores of the block after it are stores of that
    region; else none. A body's values stored before an inner loop (the bounds of
    a sparse row, an input's products) and after it (the activation's argument)
    then make one piece of the iteration, not two: one layer where there were two.
    Their values are defined before `loop`; nothing reads the tape before REV, so
    the elements hold the same values.
    """
    if target is None or any(
        isinstance(o, region.StoreOp | region.LoadOp) and o.region is target for o in walk_ops(loop)
    ):
        return []
    after = loop.next_op
    while after is not None and not [
        s for s in state.stores_in(after) if s.region not in state.unlayered
    ]:
        after = after.next_op
    if not isinstance(after, region.StoreOp) or after.region is not target:
        return []
    sunk = [o for o in ops if isinstance(o, region.StoreOp) and o.region is target]
    anchor: Operation = loop
    for store in sunk:
        ops.remove(store)
        store.detach()
        Rewriter.insert_op(store, InsertPoint.after(anchor))
        anchor = store
    return sunk


def _hoist_indices(
    load: region.LoadOp, before: Operation, block: Block, positions: dict[Operation, int]
) -> None:
    """Move the index arithmetic of `load` that sits after `before` to before it.
    `positions` numbers the ops of `block` in order (ops moved here are set to -1);
    one numbering serves every load of a layer, so that a fully unrolled body with
    thousands of loads is not renumbered per load."""
    limit = positions.get(before)

    def hoist(value: SSAValue) -> None:
        if not isinstance(value, OpResult):
            return
        op = value.op
        if op.parent_block() is not block or limit is None or positions.get(op, -1) < limit:
            return
        if not isinstance(op, PURE_INDEX_OPS):
            raise Unlayerable(
                load.region,
                f"a REV load's index is computed by '{op.name}', which cannot be "
                "moved to the head of its REV layer",
            )
        for operand in op.operands:
            hoist(operand)
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(before))
        positions[op] = -1

    for index in load.indices:
        hoist(index)
