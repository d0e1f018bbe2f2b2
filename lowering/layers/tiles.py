"""
Tiles of iterations (strip-mining) for `tapeflow-layers`: a loop whose stores (of
one region or several, in loop bodies inside it) are read back by a REV loop that
mirrors it is strip-mined into tiles of as many iterations as the scratchpad
holds, laid out by `lowering.layers.layout`, with a constant or (once proven, see
`lowering.layers.run_time`) a run-time number of tiles; the REV loop visits the
same tiles in the inverse order.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.ir.index_builder import Index, IndexBuilder
from lowering.ir.loops import constant_value, enclosing_loops, loop_type, trip_count
from lowering.ir.walk import walk_ops
from lowering.layers.layout import tile_layout
from lowering.layers.pieces import layer_body
from lowering.layers.records import (
    CARRIED_BOUNDS,
    ROWS_PER_ITERATION,
    TRIP_BOUND,
    LayerRecord,
    region_name,
)
from lowering.layers.run_time import RunTimePlan
from lowering.layers.state import (
    LayeringState,
    check_mirrors,
    outer_instances,
    under_branch,
)
from lowering.scheduling.body import placeable
from tapeflow_dialects import layer, region
from tapeflow_dialects.layer import Phase


def _tile_run_time(state: LayeringState, plan: RunTimePlan) -> bool:
    """Strip-mine a planned FWD loop and its REV mirror into tiles of `T`
    iterations, `ceil(trip / T)` of them at run time, the last one partial; REV
    visits the same tiles in the inverse order. Each side computes its trip count
    from its own bounds (proven equal), where the loop runs."""
    per_iteration = plan.layout.entries_per_iteration
    tile = state.loop_entries(per_iteration) // per_iteration
    for inner, bound in plan.bounds:
        # Rows for `bound` iterations of an inner loop of run-time trip count in
        # each iteration of the tile (`lowering.layers.layout.tile_trips`).
        inner.attributes[TRIP_BOUND] = IntegerAttr(bound, 64)
    trip = trip_count(plan.fwd)
    if plan.bounds and trip is not None:
        tile = min(tile, trip)  # no rows for iterations the loop does not run
    rows = plan.layout.rows_per_iteration
    spad = layer.SpadType(tile * rows, plan.layout.slots)
    if tile == 1 and _holds_loops(plan.fwd):
        # One iteration a tile, of a loop around inner loops: the body is the
        # layer, as for a constant trip count (`try_tile`).
        ids = layer_body(state, plan.fwd, plan.rev, spad)
        _record(state, ids, list(plan.stores), spad, 0, run_time=True, body=True)
        return True
    fwd_id, rev_id = state.new_ids()
    for loop, ident, partner, phase in (
        (plan.fwd, fwd_id, rev_id, Phase.FWD),
        (plan.rev, rev_id, fwd_id, Phase.REV),
    ):
        # A constant where the bounds are (a loop of constant bounds inside a
        # triangular nest): its tiles then have constant bounds (`strip_mine`).
        # Else computed before the loop where its tiles need it. A trip count
        # below one runs no tile.
        lb, ub = constant_value(loop.lb), constant_value(loop.ub)
        trip = None
        if lb is not None and ub is not None:
            trip = IndexBuilder(InsertPoint.before(loop), loop_type(loop)).sub(ub, lb)
            assert isinstance(trip, int)  # folded: no op
        strip_mine(
            loop,
            loop.lb,
            loop.ub,
            1,
            trip,
            tile,
            ident,
            partner,
            phase,
            spad,
            state.spad_bytes,
            rows,
        )
    ids = (fwd_id, rev_id)
    _record(state, ids, list(plan.stores), spad, 0, run_time=True, tile_iterations=tile)
    return True


def _record(
    state: LayeringState,
    ids: tuple[int, int],
    stores: list[region.StoreOp],
    spad: layer.SpadType,
    runs: int,
    branched: bool = False,
    **kind: bool | int,
) -> None:
    """Report a layer pair of tiles of iterations (`LayerRecord`; `kind`: its
    `run_time`, `body` and `tile_iterations`)."""
    record = LayerRecord(
        *ids, regions_named(stores), spad.rows.data, spad.slots.data, True, runs, branched, **kind
    )
    state.report.layers.append(record)


def try_tile(state: LayeringState, loop: scf.ForOp, stores: list[region.StoreOp]) -> bool:
    """Strip-mine `loop` and its REV mirror into tiles of iterations, if they qualify:
    `stores` (of one region or several) sit in loop bodies inside `loop` of constant
    trip counts, their loads in one REV loop that mirrors `loop` and reads nothing
    else of the tape, and one iteration's values fit a tile."""
    if loop in state.plans:
        return _tile_run_time(state, state.plans[loop])
    function = state.op
    trip = trip_count(loop)
    if not trip:
        return False
    depth = len(enclosing_loops(loop, function))
    trips: dict[scf.ForOp, int | None] = {}  # each loop's, counted once

    def counted(each: scf.ForOp) -> int | None:
        if each not in trips:
            trips[each] = trip_count(each)
        return trips[each]

    fwd_chains = {store: enclosing_loops(store, function) for store in stores}
    for store, chain in fwd_chains.items():
        if not _in_loop_body(store, chain[-1]):
            return False
        if any(counted(each) is None for each in chain[depth:]):
            return False
    loads = state.loads_of(stores)
    if not loads:
        return False
    by_id = {(s.region, s.id.value.data): s for s in stores}
    rev_loops: set[scf.ForOp] = set()
    for load in loads:
        chain = enclosing_loops(load, function)
        mine = fwd_chains[by_id[(load.region, load.store.value.data)]]
        if len(chain) != len(mine) or not _in_loop_body(load, chain[-1]):
            return False
        if [counted(each) for each in chain[depth:]] != [counted(each) for each in mine[depth:]]:
            return False
        rev_loops.add(chain[depth])
    if len(rev_loops) != 1:
        return False
    (rev_loop,) = rev_loops
    # The REV loop must read this loop's values and nothing else of the tape.
    rev_tape = [
        o
        for o in walk_ops(rev_loop)
        if isinstance(o, region.LoadOp | region.StoreOp)
        and o.region not in state.unlayered
        and o.region not in state.kept
    ]
    if set(rev_tape) != set(loads):
        return False
    layout = tile_layout(sorted(stores, key=state.position), loop)
    per_iteration = layout.entries_per_iteration
    if per_iteration == 0 or per_iteration > state.loop_entries(per_iteration):
        return False
    if check_mirrors(stores, loads, state) is not None:
        return False
    tile = min(trip, state.loop_entries(per_iteration) // per_iteration)
    if layout.groups > 1 and tile == trip:
        # A tile of the whole loop (a scratchpad as large as the tape) cuts
        # nothing into fewer layers that matter (LeNet is 1.3% slower under salam).
        return False
    spad = layer.SpadType(tile * layout.rows_per_iteration, layout.slots)
    if tile == 1 < trip and _holds_loops(loop):
        # One iteration a tile, of a loop around inner loops: strip-mined, each
        # tile would compute its bounds and first rows for nothing; the
        # iteration's body is one layer instead (docs/research/layering.md). An
        # innermost loop is strip-mined: its pipeline continues across its tiles,
        # not across layers in its body (somier: 0.60x of Enzyme under cgra).
        ids = layer_body(state, loop, rev_loop, spad)
        runs = trip * outer_instances(loop, function)
        _record(state, ids, stores, spad, runs, under_branch(loop, function), body=True)
        return True
    count = -(-trip // tile)
    fwd_id, rev_id = state.new_ids()
    mined: list[scf.ForOp] = []
    for each, ident, partner, phase in (
        (loop, fwd_id, rev_id, Phase.FWD),
        (rev_loop, rev_id, fwd_id, Phase.REV),
    ):
        lb, ub, step = constant_value(each.lb), constant_value(each.ub), constant_value(each.step)
        assert lb is not None and ub is not None and step is not None
        made = strip_mine(
            each,
            lb,
            ub,
            step,
            trip,
            tile,
            ident,
            partner,
            phase,
            spad,
            state.spad_bytes,
            layout.rows_per_iteration,
        )
        mined.append(made)
    tiled = tile_loop_of(mined[0])
    runs = count * outer_instances(tiled, function)
    _record(state, (fwd_id, rev_id), stores, spad, runs, under_branch(tiled, function))
    return True


def _holds_loops(loop: scf.ForOp) -> bool:
    return any(isinstance(o, scf.ForOp) for o in walk_ops(loop.body))


def regions_named(stores: list[region.StoreOp]) -> str:
    """The regions of `stores`, named in the order they are first stored."""
    return ", ".join(region_name(r) for r in dict.fromkeys(s.region for s in stores))


def _in_loop_body(access: Operation, loop: scf.ForOp) -> bool:
    """`access` runs at most once per iteration of `loop`: it sits in the loop's
    body, directly or under branches (`scf.if`) only. A store under a branch fills
    its slot of the iteration's row when the branch runs and leaves it empty
    otherwise; REV reads it under the same condition."""
    parent = access.parent_op()
    while parent is not loop:
        if not isinstance(parent, scf.IfOp):
            return False
        parent = parent.parent_op()
    return True


def tile_loop_of(loop: scf.ForOp) -> Operation:
    """The tile loop around a strip-mined loop (loop -> layer -> tile loop)."""
    layer_op = loop.parent_op()
    assert isinstance(layer_op, layer.LayerOp)
    tile_loop = layer_op.parent_op()
    assert tile_loop is not None
    return tile_loop


def strip_mine(
    loop: scf.ForOp,
    lb: Index,
    ub: Index,
    step: int,
    trip: int | None,
    tile: int,
    ident: int,
    partner: int,
    phase: Phase,
    spad: layer.SpadType,
    spad_bytes: int,
    rows_per_iteration: int = 1,
) -> scf.ForOp:
    """
    `for i in [lb, ub) step d` becomes a tile loop of `layer { for i in the tile
    }`, `T` iterations a tile. The tile loop's index is one of the tile's bounds
    itself, so that a tile computes as few integer ops, in as short a chain, as
    its bounds need:

    - FWD, and REV where every tile is whole (a constant trip count that `T`
      divides): the tile loop runs over the loop's own positions, `for p in [lb,
      ub) step T*d`, and the tile at `p` runs `[p, p + n*d)`, `n = min(T,
      ceildiv(ub - p, d))` (`T` where every tile is whole: one op a tile);
    - REV otherwise: Enzyme's REV loop runs iteration j where FWD ran iteration
      trip-1-j, so REV's first tile is FWD's last, of `last = (trip - 1) rem T +
      1` iterations (a constant, or computed once before the tile loop), and the
      tile loop runs over the iteration that ends each tile, `for h in [last, last
      + trip) step T`: the tile at `h` runs `[hi - n*d, hi)`, `hi = lb + h*d`, `n =
      min(h, T)` (two ops in a chain). A trip count below one runs no tile.

    `trip` is the loop's trip count, a constant, or None for a unit-step loop of
    run-time trip count (`ub - lb`, computed before the loop where REV's partial
    tiles need it; its last tile may be partial). Each bound is the other plus or
    minus the tile's iterations times the step, so that the stream's row count
    (`tapeflow-streams`) needs no op of its own (`IndexBuilder.span`).

    Where the loop's body is one kernel and it has more than one tile
    (`_carries`), the tile loop carries the tile's bounds and row count instead,
    from the tile before, whose loop computes the next tile's beside its work
    (`_carry_bounds`): no op is left in a tile before its loop. Returns the
    strip-mined loop (rebuilt where it carries them).
    """
    # The tile loop and the tiles' bounds count in the loop's own type.
    int_type = loop_type(loop)
    outside = IndexBuilder(InsertPoint.before(loop), int_type)
    # A constant trip count that the tiles divide fills every tile: no clamp.
    whole = isinstance(trip, int) and trip % tile == 0
    if phase is Phase.FWD or whole:
        first, end, stride = lb, ub, tile * step
        last: Index = tile
    else:
        if trip is None:  # a run-time trip count (of a unit-step loop)
            trip = outside.sub(ub, lb)
        last = outside.add(outside.rem(outside.sub(trip, 1), tile), 1)
        first, end, stride = last, outside.add(last, trip), tile
    carried = _carries(loop, trip, tile)
    inits = list(loop.iter_args)
    if carried:
        inits += _first_tile(outside, phase, whole, lb, ub, step, tile, last, rows_per_iteration)
    body = Block(arg_types=[int_type, *(SSAValue.get(v).type for v in inits)])
    tile_loop = scf.ForOp(
        outside.value(first), outside.value(end), outside.const(stride), inits, body
    )
    Rewriter.insert_op(tile_loop, InsertPoint.before(loop))
    for old, new in zip(loop.results, tile_loop.results, strict=False):
        old.replace_all_uses_with(new)

    layer_block = Block()
    layer_block.add_op(layer.SAllocOp(spad, 0, spad_bytes))
    index = IndexBuilder(InsertPoint.at_end(layer_block), int_type)
    at = body.args[0]
    kept = list(body.args[1 : 1 + len(loop.iter_args)])
    if carried:
        loop = _carry_bounds(loop, body, phase, whole, ub, step, tile, rows_per_iteration)
    elif phase is Phase.FWD or whole:
        count = tile if whole else index.min(tile, index.ceildiv(index.sub(ub, at), step))
        lo = at
        hi = index.value(index.add(lo, index.mul(count, step)))
        loop.detach()
        loop.operands = [lo, hi, loop.step, *kept]
    else:
        hi = index.value(index.add(lb, index.mul(at, step)))
        lo = index.value(index.sub(hi, index.mul(index.min(at, tile), step)))
        loop.detach()
        loop.operands = [lo, hi, loop.step, *kept]
    loop.attributes[ROWS_PER_ITERATION] = IntegerAttr(rows_per_iteration, 64)
    layer_block.add_op(loop)
    layer_block.add_op(layer.BarrierOp(list(loop.results)))
    layer_op = layer.LayerOp(
        ident, phase, partner, Region(layer_block), [r.type for r in loop.results]
    )
    body.add_op(layer_op)
    body.add_op(scf.YieldOp(*layer_op.results))
    return loop


def _carries(loop: scf.ForOp, trip: Index | None, tile: int) -> bool:
    """A tile of `loop` takes its bounds from the tile before (`_carry_bounds`):
    its body is one kernel (innermost, every op one the scheduler places, as
    `tapeflow-to-cgra` maps it), which computes the next tile's bounds beside its
    own work, and it has more than one tile. (A body of branches runs its ops
    one after another, an iteration at a time: there they would cost each
    iteration what the tile's kernel of bounds costs once.)"""
    if not all(placeable(op) for op in loop.body.block.ops):
        return False
    return not (isinstance(trip, int) and trip <= tile)


def _first_tile(
    outside: IndexBuilder,
    phase: Phase,
    whole: bool,
    lb: Index,
    ub: Index,
    step: int,
    tile: int,
    last: Index,
    rows: int,
) -> list[SSAValue]:
    """The first tile's carried bounds, computed once before the tile loop: its
    end (and REV's start, where its first tile is partial) and its row count."""
    rows_of = IndexBuilder(outside.at)
    if phase is Phase.FWD or whole:
        count = tile if whole else outside.min(tile, outside.ceildiv(outside.sub(ub, lb), step))
        hi = outside.add(lb, outside.mul(count, step))
        row_count = rows_of.mul(rows_of.cast(count, IndexType()), rows)
        return [outside.value(hi), rows_of.value(row_count)]
    hi = outside.add(lb, outside.mul(last, step))
    row_count = rows_of.mul(rows_of.cast(last, IndexType()), rows)
    return [outside.value(lb), outside.value(hi), rows_of.value(row_count)]


def _carry_bounds(
    loop: scf.ForOp,
    tile_body: Block,
    phase: Phase,
    whole: bool,
    ub: Index,
    step: int,
    tile: int,
    rows: int,
) -> scf.ForOp:
    """`loop` rebuilt to run the tile whose bounds the tile loop carries
    (`tile_body`'s last arguments) and to compute the next tile's, as loop-
    invariant ops of its own body that its kernel issues beside its work
    (yielded through iteration arguments of its own: a tile runs at least one
    iteration). FWD, and REV of whole tiles, start a tile at the tile loop's
    index and carry its end, the next one `hi + min(T, ceildiv(ub - hi, d)) *
    d` (`hi + T*d` where every tile is whole); REV of a partial first tile
    carries both bounds, the next tile `[hi, hi + T*d)` (every tile after the
    first is whole). The row count is carried too (`T * rows` after REV's first
    tile). The bounds are those `strip_mine` computes in each tile otherwise."""
    original = len(loop.iter_args)
    carried = list(tile_body.args[1 + original :])
    if phase is Phase.FWD or whole:
        lo, hi = tile_body.args[0], carried[0]
    else:
        lo, hi = carried[0], carried[1]
    old_body = loop.body.block
    yielded = old_body.last_op
    assert isinstance(yielded, scf.YieldOp)
    for value in carried:
        old_body.insert_arg(value.type, len(old_body.args))
    index = IndexBuilder(InsertPoint.before(yielded), SSAValue.get(hi).type)
    rows_of = IndexBuilder(InsertPoint.before(yielded))
    if phase is Phase.FWD or whole:
        count = tile if whole else index.min(tile, index.ceildiv(index.sub(ub, hi), step))
        following = [index.add(hi, index.mul(count, step))]
        row_count = rows_of.mul(rows_of.cast(count, IndexType()), rows)
        following.append(rows_of.value(row_count))
        following[0] = index.value(following[0])
    else:
        following = [hi, index.value(index.add(hi, tile * step)), rows_of.value(tile * rows)]
    yielded.operands = [*yielded.operands, *following]
    new_loop = scf.ForOp(
        lo, hi, loop.step, [*tile_body.args[1 : 1 + original], *carried], loop.detach_region(0)
    )
    new_loop.attributes.update(loop.attributes)
    new_loop.attributes[CARRIED_BOUNDS] = IntegerAttr(len(carried), 64)
    loop.detach()
    loop.erase()
    return new_loop
