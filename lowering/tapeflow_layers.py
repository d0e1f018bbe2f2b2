"""
`tapeflow-layers{spad-bytes=512}`: TapeFlow's Pass 2, layering (Section IV.B,
Algorithm 2 of Hakimi & Shriraman, CGO 2024).

The forward (FWD) dataflow is cut into layers whose tape stores fit one scratchpad
of `spad-bytes` bytes, and each FWD layer gets a reverse (REV) partner holding the
loads of the same tape values. A layer starts with `layer.salloc` (its scratchpad
tile) and ends with `layer.barrier`. FWD layers run in program order and their
partners in the inverse order, so that one region's tiles form a stack (Pass 3
spills and reloads them as such). Two shapes of layer are made:

* **Tiles of iterations** (strip-mining). A loop whose stores all go to one region,
  in one loop body, and whose REV loop mirrors it (same depth and trip counts,
  touching only those values) is strip-mined: each layer runs `T` consecutive
  iterations, with `T` as large as the scratchpad allows. The REV loop is
  strip-mined into the same tiles, visited in the inverse order. The tile is
  `!layer.spad<rows x slots>` with one row per innermost iteration and one slot per
  store of the loop body.
* **Pieces of one iteration.** When a loop does not qualify (its iteration stores
  more values than fit, or it writes several regions), the pass descends into its
  body and cuts the body's straight-line stores into consecutive pieces of one region
  that fit (Algorithm 2's "terminate the layer when the count exceeds the
  scratchpad"). The REV partner gathers the loads of those values at the head of the
  matching REV loop body (tape loads have no side effects; their index arithmetic
  moves with them). Each piece is a tile of one row.

The number of layers executed at run time is reported with `stats=true` (and read
off the IR at any later stage by `layer_census`). The pass takes a module at the
region stage.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import prod

import numpy as np

from xdsl.context import Context
from xdsl.dialects import builtin, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from lowering.gradients import require_gradients
from lowering.index_builder import IndexBuilder
from lowering.index_eval import PURE_INDEX_OPS, CannotEvaluate, IndexEvaluator
from lowering.loops import constant_value, enclosing_loops, trip_count
from lowering.stages import Stage, require_stages
from tapeflow_dialects import layer, region
from tapeflow_dialects.layer import ENTRY_BYTES, Phase

ROWS_PER_ITERATION = "tapeflow.rows_per_iteration"
"""Marks the strip-mined loop of a tiled layer: scratchpad rows per iteration."""


@dataclass(frozen=True)
class LayerRecord:
    fwd_id: int
    rev_id: int
    region: str
    rows: int
    slots: int
    tiled: bool
    instances: int
    """How many times the FWD layer (and so its REV partner) runs."""


@dataclass
class LayersReport:
    function: str
    spad_bytes: int
    layers: list[LayerRecord] = field(default_factory=list)

    @property
    def dynamic_layers(self) -> int:
        """Layers executed at run time, FWD and REV."""
        return 2 * sum(r.instances for r in self.layers)

    def table(self) -> str:
        lines = [
            f"@{self.function}: {len(self.layers)} FWD/REV layer pairs, "
            f"{self.dynamic_layers} layers executed (scratchpad {self.spad_bytes} B)"
        ]
        for r in self.layers:
            kind = "tile of iterations" if r.tiled else "piece of an iteration"
            lines.append(
                f"  layer {r.fwd_id}/{r.rev_id} {r.region}: {r.rows}x{r.slots} entries, "
                f"{kind}, runs {r.instances} times"
            )
        return "\n".join(lines)


@dataclass(frozen=True)
class LayerCensus:
    """The layers of a layered function, read off its IR (at any later stage)."""

    pairs: int
    """FWD/REV layer pairs in the code."""
    executed: int
    """Layers executed at run time, FWD and REV (the paper's Table II count)."""


def layer_census(function: func.FuncOp) -> LayerCensus:
    """Count the layers of `function` as `LayersReport` does when it makes them:
    each FWD layer runs once per iteration of the loops around it, and so does its
    REV partner."""
    fwd = [
        op
        for op in function.walk()
        if isinstance(op, layer.LayerOp) and op.phase.data is Phase.FWD
    ]
    runs = sum(prod(trip_count(l) or 1 for l in enclosing_loops(op, function)) for op in fwd)
    return LayerCensus(len(fwd), 2 * runs)


def _fail(message: str) -> PassFailedException:
    return PassFailedException(f"tapeflow-layers: {message}")


@dataclass
class _Function:
    op: func.FuncOp
    spad_bytes: int
    report: LayersReport
    loads: dict[tuple[SSAValue, int], list[region.LoadOp]]
    next_id: int = 0

    @property
    def entries(self) -> int:
        return self.spad_bytes // ENTRY_BYTES

    def new_ids(self) -> tuple[int, int]:
        ident = self.next_id
        self.next_id += 2
        return ident, ident + 1

    def loads_of(self, stores: Sequence[region.StoreOp]) -> list[region.LoadOp]:
        found = [
            load
            for store in stores
            for load in self.loads.get((store.region, store.id.value.data), [])
        ]
        return sorted(found, key=self.position)

    def position(self, op: Operation) -> int:
        return self._positions[op]

    def refresh_positions(self) -> None:
        self._positions = {op: i for i, op in enumerate(self.op.walk())}


def layer_module(module: builtin.ModuleOp, spad_bytes: int) -> list[LayersReport]:
    if spad_bytes < ENTRY_BYTES or spad_bytes % ENTRY_BYTES:
        raise _fail(
            f"spad-bytes must be a positive multiple of {ENTRY_BYTES}, got {spad_bytes}"
        )
    gradients = require_gradients(module, "tapeflow-layers")
    require_stages(gradients, "tapeflow-layers", {Stage.REGIONS})
    return [_layer_function(f, spad_bytes) for f in gradients]


def _layer_function(function: func.FuncOp, spad_bytes: int) -> LayersReport:
    report = LayersReport(function.sym_name.data, spad_bytes)
    loads: dict[tuple[SSAValue, int], list[region.LoadOp]] = {}
    for op in function.walk():
        if isinstance(op, region.LoadOp):
            loads.setdefault((op.region, op.store.value.data), []).append(op)
    nests: dict[SSAValue, set[tuple[int, ...]]] = {}
    for op in function.walk():
        if isinstance(op, region.StoreOp):
            nests.setdefault(op.region, set()).add(
                tuple(id(l) for l in enclosing_loops(op, function))
            )
    for target, found in nests.items():
        if len(found) > 1:
            raise _fail(
                f"region {_region_name(target)} is stored in {len(found)} loop nests; "
                "its tiles could not be streamed back as one stack"
            )
    state = _Function(function, spad_bytes, report, loads)
    state.refresh_positions()
    _layer_block(state, function.body.block)
    return report


def _mirror_error(
    store: region.StoreOp, load: region.LoadOp, function: func.FuncOp
) -> str | None:
    """
    Why the REV loop nest of `load` does not run the FWD iterations of `store`
    backwards, or None if it does: REV iteration (j0, j1, ...) must read the element
    FWD iteration (N0-1-j0, N1-1-j1, ...) wrote. Only the outermost REV loop may run
    fewer iterations (the last FWD iterations, backwards), which leaves the tiles
    it does not need at the bottom of the region's stack. This is what makes the
    tiles of a region a stack, and rows mirror (Pass 4).
    """
    region_type = store.region.type
    assert isinstance(region_type, region.RegionType)
    shape = region_type.get_shape()
    fwd_loops = enclosing_loops(store, function)
    rev_loops = enclosing_loops(load, function)
    try:
        written = IndexEvaluator(fwd_loops).flat_elements(store.indices, shape)
        read = IndexEvaluator(rev_loops).flat_elements(load.indices, shape)
    except CannotEvaluate as err:
        return f"cannot evaluate its indices: {err}"
    stored = written[written >= 0]
    if np.unique(stored).size != stored.size:
        return "FWD writes some tape element more than once (the last write would win)"
    if written.ndim != read.ndim:
        return (
            f"the store sits in {written.ndim} loops and the load in {read.ndim}"
        )
    if written.ndim and (
        read.shape[1:] != written.shape[1:] or read.shape[0] > written.shape[0]
    ):
        return f"FWD runs {written.shape} iterations and REV {read.shape}"
    backwards = written[(slice(None, None, -1),) * written.ndim]
    if written.ndim:
        backwards = backwards[: read.shape[0]]
    if not np.array_equal(backwards, read):
        return "REV does not read the elements in the inverse order FWD wrote them"
    return None


def _check_mirrors(
    stores: Sequence[region.StoreOp], loads: Sequence[region.LoadOp], state: _Function
) -> str | None:
    by_id = {(s.region, s.id.value.data): s for s in stores}
    for load in loads:
        store = by_id.get((load.region, load.store.value.data))
        if store is None:
            continue
        reason = _mirror_error(store, load, state.op)
        if reason is not None:
            return reason
    return None


def _stores_in(op: Operation) -> list[region.StoreOp]:
    return [o for o in op.walk() if isinstance(o, region.StoreOp)]


def _instances(op: Operation, function: func.FuncOp) -> int:
    """How many times `op` runs: the product of its enclosing loops' trip counts."""
    return prod(trip_count(loop) or 1 for loop in enclosing_loops(op, function))


def _layer_block(state: _Function, block: Block) -> None:
    """Cut the stores of `block` (recursively) into FWD layers with REV partners."""
    pieces: list[tuple[SSAValue, list[Operation]]] = []
    current: list[Operation] = []
    current_region: SSAValue | None = None
    current_count = 0

    def close() -> None:
        nonlocal current, current_region, current_count
        while current and not _stores_in(current[-1]):
            current.pop()  # trailing compute stays outside the layer
        if current:
            assert current_region is not None
            pieces.append((current_region, current))
        current, current_region, current_count = [], None, 0

    for unit in list(block.ops):
        stores = _stores_in(unit)
        if not stores:
            if current:
                current.append(unit)
            continue
        regions = {s.region for s in stores}
        if isinstance(unit, scf.ForOp):
            close()
            if not _try_tile(state, unit, stores):
                _layer_block(state, unit.body.block)
            continue
        if not isinstance(unit, region.StoreOp):
            raise _fail(
                f"a tape store inside '{unit.name}' in @{state.report.function}: stores "
                "under control flow would spill tiles REV cannot match; only loops and "
                "straight-line stores are layered"
            )
        if len(regions) > 1:
            raise _fail(
                f"'{unit.name}' in @{state.report.function} stores into several regions "
                "or loops inside a non-loop op; it cannot be cut into layers"
            )
        (target,) = regions
        if len(stores) > state.entries:
            raise _fail(
                f"'{unit.name}' stores {len(stores)} values at once, more than the "
                f"{state.entries} entries of a {state.spad_bytes}-byte scratchpad"
            )
        if current and (target is not current_region or current_count + len(stores) > state.entries):
            close()
        if not current:
            current_region = target
        current.append(unit)
        current_count += len(stores)
    close()
    _make_pieces(state, pieces)


def _region_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else str(value.type)


# ---------------------------------------------------------------- tiles (mode B)


def _try_tile(state: _Function, loop: scf.ForOp, stores: list[region.StoreOp]) -> bool:
    """Strip-mine `loop` and its REV mirror into tiles of iterations, if they qualify."""
    function = state.op
    target = stores[0].region
    if any(s.region is not target for s in stores):
        return False
    inner_block = stores[0].parent_block()
    if any(s.parent_block() is not inner_block for s in stores):
        return False
    fwd_chain = enclosing_loops(stores[0], function)
    depth = fwd_chain.index(loop)
    inner = fwd_chain[depth + 1 :]
    trips = [trip_count(l) for l in (loop, *inner)]
    if any(t is None for t in trips) or not isinstance(inner_block.parent_op(), scf.ForOp | type(None)):
        return False
    if fwd_chain[-1] is not inner_block.parent_op():
        return False
    loads = state.loads_of(stores)
    if not loads:
        return False
    rev_chains = {enclosing_loops(l, function) for l in loads}
    if len(rev_chains) != 1:
        return False
    (rev_chain,) = rev_chains
    if len(rev_chain) != len(fwd_chain):
        return False
    rev_loop = rev_chain[depth]
    rev_trips = [trip_count(l) for l in rev_chain[depth:]]
    if rev_trips != trips:
        return False
    # The REV loop must read this loop's values and nothing else of the tape.
    rev_tape = [o for o in rev_loop.walk() if isinstance(o, region.LoadOp | region.StoreOp)]
    if set(rev_tape) != set(loads):
        return False
    per_iteration = len(stores) * prod(t for t in trips[1:] if t is not None)
    if per_iteration == 0 or per_iteration > state.entries:
        return False
    if _check_mirrors(stores, loads, state) is not None:
        return False
    trip = trips[0]
    assert trip is not None
    if trip == 0:
        return False
    tile = min(trip, state.entries // per_iteration)
    count = -(-trip // tile)
    rows_per_iteration = per_iteration // len(stores)
    spad = layer.SpadType(tile * rows_per_iteration, len(stores))
    fwd_id, rev_id = state.new_ids()
    _strip_mine(loop, trip, tile, count, fwd_id, rev_id, Phase.FWD, spad, state.spad_bytes, rows_per_iteration)
    _strip_mine(rev_loop, trip, tile, count, rev_id, fwd_id, Phase.REV, spad, state.spad_bytes, rows_per_iteration)
    state.report.layers.append(
        LayerRecord(
            fwd_id,
            rev_id,
            _region_name(target),
            spad.rows.data,
            spad.slots.data,
            True,
            count * _outer_instances(tile_loop_of(loop), function),
        )
    )
    return True


def tile_loop_of(loop: scf.ForOp) -> Operation:
    """The tile loop around a strip-mined loop (loop -> layer -> tile loop)."""
    layer_op = loop.parent_op()
    assert isinstance(layer_op, layer.LayerOp)
    tile_loop = layer_op.parent_op()
    assert tile_loop is not None
    return tile_loop


def _outer_instances(op: Operation, function: func.FuncOp) -> int:
    return prod(trip_count(l) or 1 for l in enclosing_loops(op, function))


def _strip_mine(
    loop: scf.ForOp,
    trip: int,
    tile: int,
    count: int,
    ident: int,
    partner: int,
    phase: Phase,
    spad: layer.SpadType,
    spad_bytes: int,
    rows_per_iteration: int,
) -> None:
    """
    `for i in [lb, ub)` becomes `for t in [0, count) { layer { for i in tile t } }`.

    FWD visits tiles 0, 1, ...; REV visits them in the inverse order. Enzyme's REV
    loop runs iteration j where FWD ran iteration trip-1-j, so FWD tile t is REV
    iterations [max(trip - (t+1)*tile, 0), trip - t*tile).
    """
    lb, step = constant_value(loop.lb), constant_value(loop.step)
    assert lb is not None and step is not None
    outside = IndexBuilder(InsertPoint.before(loop))
    zero, one, tiles = outside.const(0), outside.const(1), outside.const(count)
    inits = list(loop.iter_args)
    body = Block(arg_types=[IndexType(), *(v.type for v in inits)])
    tile_loop = scf.ForOp(zero, tiles, one, inits, body)
    Rewriter.insert_op(tile_loop, InsertPoint.before(loop))
    for old, new in zip(loop.results, tile_loop.results):
        old.replace_all_uses_with(new)

    layer_block = Block()
    layer_op = layer.LayerOp(ident, phase, partner, Region(layer_block), [r.type for r in loop.results])
    layer_block.add_op(layer.SAllocOp(spad, 0, spad_bytes))
    index = IndexBuilder(InsertPoint.at_end(layer_block))
    t = body.args[0]
    if phase is Phase.FWD:
        lo_iter = index.mul(t, tile)
        hi_iter = index.min(index.add(lo_iter, tile), trip)
    else:
        first = index.sub(count - 1, t)  # the FWD tile this REV layer undoes
        lo_iter = index.max(index.sub(trip, index.mul(index.add(first, 1), tile)), 0)
        hi_iter = index.sub(trip, index.mul(first, tile))
    lo = index.value(index.add(lb, index.mul(lo_iter, step)))
    hi = index.value(index.add(lb, index.mul(hi_iter, step)))
    loop.detach()
    loop.operands = [lo, hi, loop.step, *body.args[1:]]
    loop.attributes[ROWS_PER_ITERATION] = IntegerAttr(rows_per_iteration, 64)
    layer_block.add_op(loop)
    layer_block.add_op(layer.BarrierOp(list(loop.results)))
    body.add_op(layer_op)
    body.add_op(scf.YieldOp(*layer_op.results))


# --------------------------------------------------------------- pieces (mode C)


def _wrap(
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
    for value, result in zip(escaping, layer_op.results):
        value.replace_uses_with_if(result, lambda use: not layer_op.is_ancestor(use.operation))
    return layer_op


def _make_pieces(state: _Function, pieces: list[tuple[SSAValue, list[Operation]]]) -> None:
    """FWD layers for `pieces` of one block; REV partners at the head of the mirror."""
    function = state.op
    by_region: dict[SSAValue, list[tuple[list[Operation], list[region.StoreOp]]]] = {}
    for target, ops in pieces:
        stores = [s for op in ops for s in _stores_in(op)]
        by_region.setdefault(target, []).append((ops, stores))
    for target, group in by_region.items():
        state.refresh_positions()
        all_loads = state.loads_of([s for _, stores in group for s in stores])
        if not all_loads:
            raise _fail(f"region {_region_name(target)} is stored but never loaded")
        rev_block = all_loads[0].parent_block()
        assert rev_block is not None
        if any(l.parent_block() is not rev_block for l in all_loads):
            raise _fail(
                f"the REV loads of region {_region_name(target)} stored in one loop body "
                "are spread over several blocks; they cannot form one layer"
            )
        reason = _check_mirrors(
            [s for _, stores in group for s in stores], all_loads, state
        )
        if reason is not None:
            raise _fail(
                f"region {_region_name(target)}: the REV loops do not mirror the FWD "
                f"loops ({reason}), so its tiles cannot be streamed back as a stack"
            )
        ids = [state.new_ids() for _ in group]
        for (ops, stores), (fwd_id, rev_id) in zip(group, ids):
            tile = layer.SpadType(1, len(stores))
            _wrap(ops, fwd_id, Phase.FWD, rev_id, tile, state.spad_bytes, InsertPoint.before(ops[0]))
            state.report.layers.append(
                LayerRecord(
                    fwd_id, rev_id, _region_name(target), 1, len(stores), False,
                    _outer_instances(stores[0], function),
                )
            )
        # REV partners, in the inverse order, where REV first reads any of them.
        anchor = all_loads[0]
        positions = {op: i for i, op in enumerate(rev_block.ops)}
        for load in all_loads:
            _hoist_indices(load, anchor, rev_block, positions)
        cursor: Operation | None = None
        for (ops, stores), (fwd_id, rev_id) in reversed(list(zip(group, ids))):
            at = InsertPoint.before(anchor) if cursor is None else InsertPoint.after(cursor)
            tile = layer.SpadType(1, len(stores))
            cursor = _wrap(state.loads_of(stores), rev_id, Phase.REV, fwd_id, tile, state.spad_bytes, at)


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
            raise _fail(
                f"a REV tape load's index is computed by '{op.name}', which cannot be "
                "moved to the head of its layer"
            )
        for operand in op.operands:
            hoist(operand)
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(before))
        positions[op] = -1

    for index in load.indices:
        hoist(index)


@dataclass(frozen=True)
class TapeflowLayersPass(ModulePass):
    """Cut FWD and REV into layers whose tape fits the scratchpad (Pass 2)."""

    name = "tapeflow-layers"

    spad_bytes: int = 512
    """Scratchpad capacity in bytes (the paper's default: 512 B, 64 entries)."""

    stats: bool = False
    """Print, per gradient function, the layers made and how often they run."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        reports = layer_module(op, self.spad_bytes)
        if self.stats:
            for report in reports:
                print(f"tapeflow-layers: {report.table()}", file=sys.stderr)
