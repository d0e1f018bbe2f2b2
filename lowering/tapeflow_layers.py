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

Tapes under branches. Stores may sit under `scf.if` in a tiled loop's innermost
body: a store whose branch does not run leaves its entry of the row empty, and REV
reads it under the same condition. Outside tiles, the stores of a branch are cut
into *conditional pieces* inside the branch (`_layer_branches`); Pass 1 gives each
branch's tapes regions of their own, so a FWD layer under a branch pushes its tile
exactly when the branch runs and its REV partner, placed where REV reads those
values under the condition Enzyme cached, pops it exactly then.

Nothing Enzyme produces is rejected. A region that cannot be layered (its REV loop
does not mirror its FWD loop, it is stored in several loop nests or blocks, inside
an op that is neither a loop nor a branch, ...) is *kept*: it stays a region in
DRAM, read through the cache, its `region.alloc` marked `tapeflow.kept` with the
reason; the other regions are layered. Layering rewrites as it goes, so each
attempt works on a copy of the function and one that meets an unlayerable region
is dropped and retried with that region kept (`_layer_function`).

Loops whose trip count is known only at run time (bounded by an argument, or by
an outer index in a triangular nest) are strip-mined the same way with a
run-time number of tiles, once `_prove_run_time_mirror` has proven symbolically
that REV mirrors FWD for every value of the bounds; a region it cannot prove
stays unlayered, a DRAM region read through the cache (`_run_time_regions`,
listed by `stats=true`).

The number of layers executed at run time, and the regions kept with their
reasons, are reported with `stats=true` (the layers are read off the IR at any
later stage by `layer_census`). The pass takes a module at the region stage.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import prod

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.gradients import require_gradients
from lowering.ir.index_builder import Index, IndexBuilder
from lowering.ir.index_eval import PURE_INDEX_OPS, CannotEvaluate, IndexEvaluator
from lowering.ir.loops import constant_value, enclosing_loops, trip_count
from lowering.ir.stages import Stage, require_stages
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
    """How many times the FWD layer (and so its REV partner) runs (0 if that is
    known only at run time; at most that many for a conditional layer, under a
    branch)."""
    conditional: bool = False
    """Under a branch (`scf.if`): runs when the branch does."""
    run_time: bool = False
    """Strip-mined with a run-time number of tiles (a loop bounded by `%n`)."""
    tile_iterations: int = 0
    """Iterations of the strip-mined loop per tile, when `run_time`."""


@dataclass(frozen=True)
class KeptRecord:
    """A region the pass leaves in DRAM, read through the cache as the aos variant
    reads it, and why it could not be layered."""

    region: str
    reason: str


@dataclass
class LayersReport:
    function: str
    spad_bytes: int
    layers: list[LayerRecord] = field(default_factory=list)
    kept: list[KeptRecord] = field(default_factory=list)
    """Regions kept in DRAM, read through the cache, with the reason."""

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
            runs = (
                f"runs ceil(trip count / {r.tile_iterations}) times per run of the loops "
                "around it (known at run time)"
                if r.run_time else f"runs {r.instances} times"
            )
            if r.conditional:
                kind, runs = f"conditional {kind}", f"runs at most {r.instances} times"
            lines.append(
                f"  layer {r.fwd_id}/{r.rev_id} {r.region}: {r.rows}x{r.slots} entries, "
                f"{kind}, {runs}"
            )
        for k in self.kept:
            lines.append(f"  region {k.region} kept in DRAM, read through the cache: {k.reason}")
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
    kept: set[SSAValue] = field(default_factory=set)
    """Regions left unlayered (in DRAM, read through the cache); to this pass their
    accesses are plain memory accesses, which a layer may hold like any compute."""
    next_id: int = 0
    unlayered: set[SSAValue] = field(default_factory=set)
    """Regions of run-time trip counts that cannot be strip-mined (see
    `_run_time_regions`): not layered, kept once the attempt succeeds."""
    plans: dict[scf.ForOp, _RunTimePlan] = field(default_factory=dict)
    """FWD loops of run-time trip count proven to be mirrored: strip-mined with a
    run-time number of tiles."""

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

    def stores_in(self, op: Operation) -> list[region.StoreOp]:
        """The stores inside `op` (or `op` itself) of the regions being layered."""
        return [s for s in _stores_in(op) if s.region not in self.kept]

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


class _Unlayerable(Exception):
    """A region this pass cannot cut into layers (raised before or while the
    function is rewritten; the attempt is dropped and the region kept)."""

    def __init__(self, target: SSAValue, reason: str):
        super().__init__(reason)
        self.target = target
        self.reason = reason


def _layer_function(function: func.FuncOp, spad_bytes: int) -> LayersReport:
    """
    Layer `function`. What cannot be layered never stops the pass: the region it
    belongs to is left as it is (a correct array-of-structs region in DRAM, read
    through the cache) and reported, and the rest is layered. Layering rewrites
    the function as it goes, so each attempt works on a copy; an attempt that finds
    an unlayerable region is dropped and the next one keeps that region too.
    """
    marked = [op for op in function.walk() if isinstance(op, region.AllocOp)]
    kept: dict[int, str] = {  # regions the input already keeps stay kept
        i: op.attributes[region.KEPT].data  # type: ignore[attr-defined]
        for i, op in enumerate(marked)
        if isinstance(op.attributes.get(region.KEPT), builtin.StringAttr)
    }
    while True:
        work = function.clone()
        allocs = [op.region for op in work.walk() if isinstance(op, region.AllocOp)]
        try:
            report = _attempt(work, spad_bytes, {allocs[i] for i in kept})
        except _Unlayerable as err:
            if err.target not in allocs:
                raise _fail(
                    f"@{function.sym_name.data}: a region not made by region.alloc cannot "
                    f"be layered ({err.reason}), nor kept"
                ) from None
            index = allocs.index(err.target)
            if index in kept:  # pragma: no cover - a kept region has no layers
                raise _fail(f"internal error: kept region {index} failed again ({err.reason})")
            kept[index] = err.reason
            continue
        break
    for index, reason in kept.items():
        alloc = allocs[index].owner
        assert isinstance(alloc, region.AllocOp)
        alloc.attributes[region.KEPT] = builtin.StringAttr(reason)
        report.kept.append(KeptRecord(f"#{index} {_region_name(allocs[index])}", reason))
    for block in list(function.body.blocks):  # the attempt that succeeded replaces the body
        function.body.detach_block(block).erase(safe_erase=False)
    work.body.move_blocks(function.body)
    report.function = function.sym_name.data
    return report


def _attempt(function: func.FuncOp, spad_bytes: int, kept: set[SSAValue]) -> LayersReport:
    report = LayersReport(function.sym_name.data, spad_bytes)
    loads: dict[tuple[SSAValue, int], list[region.LoadOp]] = {}
    for op in function.walk():
        if isinstance(op, region.LoadOp):
            loads.setdefault((op.region, op.store.value.data), []).append(op)
    plans = run_time_tiling_plans(function, spad_bytes // ENTRY_BYTES)
    unlayered = _run_time_regions(function, plans)
    nests: dict[SSAValue, set[tuple[int, ...]]] = {}
    for op in function.walk():
        if isinstance(op, region.StoreOp) and op.region not in unlayered and op.region not in kept:
            nests.setdefault(op.region, set()).add(
                tuple(id(l) for l in enclosing_loops(op, function))
            )
    for target, found in nests.items():
        if len(found) > 1:
            raise _Unlayerable(
                target,
                f"it is stored in {len(found)} loop nests, so its tiles could not be "
                "streamed back as one stack",
            )
    state = _Function(function, spad_bytes, report, loads, kept, unlayered=set(unlayered), plans=plans)
    state.refresh_positions()
    _layer_block(state, function.body.block)
    _check_one_region_per_layer(function, kept, set(unlayered))
    # Regions of run-time trip counts that could not be strip-mined are kept like
    # any region that cannot be layered: in DRAM, read through the cache.
    allocs = [op.region for op in function.walk() if isinstance(op, region.AllocOp)]
    for target, reason in unlayered.items():
        alloc = target.owner
        if not isinstance(alloc, region.AllocOp):
            raise _fail(
                f"@{function.sym_name.data}: a region not made by region.alloc cannot be "
                f"layered ({reason}), nor kept"
            )
        alloc.attributes[region.KEPT] = builtin.StringAttr(reason)
        report.kept.append(KeptRecord(f"#{allocs.index(target)} {_region_name(target)}", reason))
    return report


def _check_one_region_per_layer(
    function: func.FuncOp, kept: set[SSAValue], unlayered: set[SSAValue]
) -> None:
    """A layer streams one region's tile. If the accesses of a second region still
    being layered ended up inside one (found by the random-kernel campaigns, with
    values Enzyme caches inside branches), that region is kept instead: the attempt
    is dropped and retried with it read through the cache."""
    for op in function.walk():
        if not isinstance(op, layer.LayerOp):
            continue
        touched: list[SSAValue] = []
        for inner in op.walk():
            if isinstance(inner, region.StoreOp | region.LoadOp):
                handle = inner.region
                if handle not in kept and handle not in touched:
                    touched.append(handle)
        if len(touched) > 1:
            # Keep a region left on the cache path if one is there, else the last.
            victim = next((r for r in touched if r in unlayered), touched[-1])
            other = next(r for r in touched if r is not victim)
            raise _Unlayerable(
                victim,
                f"its accesses fall into layer {op.id.value.data} of region "
                f"{_region_name(other)}, and a layer streams one region",
            )


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
        while current and not state.stores_in(current[-1]):
            current.pop()  # trailing compute stays outside the layer
        if current:
            assert current_region is not None
            pieces.append((current_region, current))
        current, current_region, current_count = [], None, 0

    for unit in list(block.ops):
        stores = [s for s in state.stores_in(unit) if s.region not in state.unlayered]
        if not stores:
            if current:
                current.append(unit)  # compute, or an access of a kept region (DRAM)
            continue
        if isinstance(unit, scf.ForOp):
            close()
            if not _try_tile(state, unit, stores):
                _layer_block(state, unit.body.block)
            continue
        if isinstance(unit, scf.IfOp):
            close()
            _layer_branches(state, unit)
            continue
        if not isinstance(unit, region.StoreOp):
            raise _Unlayerable(
                stores[0].region,
                f"it is stored inside '{unit.name}'; only loops, branches (scf.if) and "
                "straight-line stores are layered",
            )
        (target,) = {s.region for s in stores}
        if current and (target is not current_region or current_count + len(stores) > state.entries):
            close()
        if not current:
            current_region = target
        current.append(unit)
        current_count += len(stores)
    close()
    _make_pieces(state, pieces)


def _layer_branches(state: _Function, branch: scf.IfOp) -> None:
    """
    Conditional pieces: the stores under an `scf.if` are layered inside each branch,
    as the straight-line stores of its block. A FWD layer in a branch runs (and
    spills its tile) only when the branch runs; its REV partner sits where REV reads
    those values, under the condition Enzyme cached for the branch, so it pops the
    tile exactly when FWD pushed one. Pass 1 gives the tapes of each branch regions
    of their own, so a region's tiles are pushed and popped under one condition.
    """
    for body in branch.regions:
        for block in body.blocks:
            _layer_block(state, block)


def _region_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else str(value.type)


# ------------------------------------------------- run-time trip counts (cache path)


def _run_time_regions(
    function: func.FuncOp, plans: dict[scf.ForOp, _RunTimePlan] | None = None
) -> dict[SSAValue, str]:
    """
    The regions this pass leaves unlayered because a trip count they depend on is
    known only at run time, with the reason: a region of `?` extents, or one
    accessed inside a loop whose bounds are not constants.

    The proof that REV mirrors FWD (`_mirror_error`) evaluates every index over
    the loops' iteration spaces, which needs their trip counts. Where they are
    run-time values the region stays a correct DRAM region, read through the
    cache (the pipeline never rejects a gradient Enzyme produced); the report
    (`stats=true`) says which and why.
    """
    found: dict[SSAValue, str] = {}
    planned = {plan.region for plan in (plans or {}).values()}
    for op in function.walk():
        if not isinstance(op, region.StoreOp | region.LoadOp) or op.region in found:
            continue
        if op.region in planned:
            continue  # strip-mined with a run-time number of tiles
        region_type = op.region.type
        assert isinstance(region_type, region.RegionType)
        if not region_type.is_static():
            found[op.region] = "its extents are known only at run time"
            continue
        for loop in enclosing_loops(op, function):
            if trip_count(loop) is None:
                found[op.region] = "a loop around its accesses has a trip count known only at run time"
                break
    return found


# ----------------------------------------- run-time trip counts (strip-mined)


class _NotAffine(Exception):
    pass


Form = dict[object, int]
"""An affine index expression: coefficient per atom (an induction variable, a
value defined outside the loops, or 1 for the constant term)."""


def affine_form(value: SSAValue, ivs: set[SSAValue], inside: Operation | None) -> Form:
    """`value` as an exact affine form over the induction variables `ivs` and the
    values defined outside `inside` (symbols: arguments such as the bound `%n`),
    through `arith.constant/addi/subi/muli` (by a constant); `_NotAffine` else."""
    if value in ivs:
        return {value: 1}
    constant = constant_value(value)
    if constant is not None:
        return {1: constant}
    if isinstance(value, OpResult):
        op = value.op
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            left = affine_form(op.lhs, ivs, inside)
            right = affine_form(op.rhs, ivs, inside)
            return _combine(left, right, 1 if isinstance(op, arith.AddiOp) else -1)
        if isinstance(op, arith.MuliOp):
            left = affine_form(op.lhs, ivs, inside)
            right = affine_form(op.rhs, ivs, inside)
            if set(left) <= {1}:
                return _scale(right, left.get(1, 0))
            if set(right) <= {1}:
                return _scale(left, right.get(1, 0))
            raise _NotAffine("a product of two variables")
    if inside is not None:
        owner = value.owner
        parent = owner if isinstance(owner, Operation) else owner.parent_op()
        if parent is not None and inside.is_ancestor(parent):
            raise _NotAffine("a value of the loop that is not an index expression")
    return {value: 1}  # a symbol: fixed while the loops run


def _combine(a: Form, b: Form, sign: int) -> Form:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    return {k: v for k, v in out.items() if v}


def _scale(a: Form, factor: int) -> Form:
    return {k: v * factor for k, v in a.items() if v * factor}


@dataclass(frozen=True)
class _RunTimePlan:
    """A FWD loop of run-time trip count, its REV mirror, and the region they
    carry, proven to mirror for every trip count (`_prove_run_time_mirror`)."""

    region: SSAValue
    fwd: scf.ForOp
    rev: scf.ForOp
    stores: tuple[region.StoreOp, ...]
    loads: tuple[region.LoadOp, ...]
    rows_per_iteration: int = 1
    """Iterations of the constant-trip loops inside the strip-mined one."""


def run_time_tiling_plans(function: func.FuncOp, entries: int) -> dict[scf.ForOp, _RunTimePlan]:
    """The FWD loops of run-time trip count whose region can be strip-mined with a
    run-time number of tiles, by FWD loop (see `_prove_run_time_mirror`)."""
    stores_of: dict[SSAValue, list[region.StoreOp]] = {}
    loads_of: dict[SSAValue, list[region.LoadOp]] = {}
    for op in function.walk():
        if isinstance(op, region.StoreOp):
            stores_of.setdefault(op.region, []).append(op)
        elif isinstance(op, region.LoadOp):
            loads_of.setdefault(op.region, []).append(op)
    plans: dict[scf.ForOp, _RunTimePlan] = {}
    for target, stores in stores_of.items():
        plan = _prove_run_time_mirror(function, target, stores, loads_of.get(target, []), entries)
        if plan is not None and plan.fwd not in plans:
            plans[plan.fwd] = plan
    return plans


def _prove_run_time_mirror(
    function: func.FuncOp,
    target: SSAValue,
    stores: list[region.StoreOp],
    loads: list[region.LoadOp],
    entries: int,
) -> _RunTimePlan | None:
    """
    A plan if the region's tape is written directly in the body of one FWD loop
    `F_d` of a nest `F_0 .. F_d` (each with a constant lower bound and step 1; the
    innermost's trip count known only at run time, the others' may be too) and
    read directly in the body of one REV loop `R_d` of a nest `R_0 .. R_d` of the
    same shape, and if REV reads, for all values of the bounds, exactly what the
    mirrored FWD iteration wrote.

    The proof is symbolic. Every index and bound is an exact affine form over the
    induction variables and the values fixed while the loops run (arguments such
    as `%n`). Mirroring means FWD iteration `F_k.iv = ub_k - 1 - (R_k.iv - lb_k)`
    at every level, `ub_k` being FWD's upper bound at that iteration: that is the
    substitution `sigma`, applied outermost first (a triangular nest's `ub_k`
    depends on the outer induction variables). Then, as identities of forms: each
    REV upper bound equals `sigma(ub_k)` (the same trip counts), and each REV
    index equals `sigma` of its store's index (the same element). FWD must write
    each element once: the indices, as a linear map of the induction variables,
    have full column rank. Anything else gets no plan: the region stays on the
    cache path.
    """
    if not stores or not loads:
        return None
    fwd_nest = enclosing_loops(stores[0], function)
    rev_nest = enclosing_loops(loads[0], function)
    if not fwd_nest or len(fwd_nest) != len(rev_nest):
        return None
    if any(r in fwd_nest for r in rev_nest):
        return None
    if any(enclosing_loops(st, function) != fwd_nest for st in stores):
        return None
    if any(enclosing_loops(l, function) != rev_nest for l in loads):
        return None
    inner = fwd_nest[-1]
    if any(st.parent_op() is not inner for st in stores) or any(l.parent_op() is not rev_nest[-1] for l in loads):
        return None
    # The strip-mined loop: the innermost of run-time trip count; the loops inside
    # it have constant trip counts (rows per iteration), mirrored in REV.
    depth = max((k for k, l in enumerate(fwd_nest) if trip_count(l) is None), default=None)
    if depth is None:
        return None
    inner_trips = [trip_count(l) for l in fwd_nest[depth + 1 :]]
    if [trip_count(l) for l in rev_nest[depth + 1 :]] != inner_trips:
        return None
    rows_per_iteration = prod(t for t in inner_trips if t is not None)
    if rows_per_iteration == 0 or len(stores) * rows_per_iteration > entries:
        return None
    fwd, rev = fwd_nest[depth], rev_nest[depth]
    if any(constant_value(l.step) != 1 for l in (*fwd_nest, *rev_nest)):
        return None
    try:
        # The loops touch this region's tape and nothing else of the tape.
        for loop, mine in ((fwd, stores), (rev, loads)):
            tape_ops = [o for o in loop.walk() if isinstance(o, region.StoreOp | region.LoadOp)]
            if set(tape_ops) != set(mine):
                return None
        by_id = {st.store_id: st for st in stores}
        if len(by_id) != len(stores) or {l.loaded_id for l in loads} - set(by_id):
            return None
        f_ivs = [l.body.block.args[0] for l in fwd_nest]
        r_ivs = [l.body.block.args[0] for l in rev_nest]
        sigma: dict[SSAValue, Form] = {}
        for k, (f_loop, r_loop) in enumerate(zip(fwd_nest, rev_nest, strict=True)):
            upper = _substitute(affine_form(f_loop.ub, set(f_ivs), fwd_nest[0]), sigma)
            lower = _substitute(affine_form(f_loop.lb, set(f_ivs), fwd_nest[0]), sigma)
            r_upper = affine_form(r_loop.ub, set(r_ivs), rev_nest[0])
            r_lower = affine_form(r_loop.lb, set(r_ivs), rev_nest[0])
            if _combine(r_upper, r_lower, -1) != _combine(upper, lower, -1):
                return None  # not the same trip count at mirrored iterations
            # FWD iteration T-1-u, u = R_k.iv - rlb_k: F_k.iv = ub_k - 1 - R_k.iv + rlb_k
            sigma[f_ivs[k]] = _combine(_combine(upper, {r_ivs[k]: 1, 1: 1}, -1), r_lower, 1)
        for load in loads:
            store = by_id[load.loaded_id]
            columns = []
            for f_index, g_index in zip(store.indices, load.indices, strict=True):
                f = affine_form(f_index, set(f_ivs), fwd_nest[0])
                g = affine_form(g_index, set(r_ivs), rev_nest[0])
                if _substitute(f, sigma) != g:
                    return None
                columns.append([f.get(iv, 0) for iv in f_ivs])
            if np.linalg.matrix_rank(np.array(columns, dtype=float).reshape(-1, len(f_ivs))) < len(f_ivs):
                return None  # some element could be written twice
    except _NotAffine:
        return None
    return _RunTimePlan(target, fwd, rev, tuple(stores), tuple(loads), rows_per_iteration)


def _substitute(form: Form, sigma: dict[SSAValue, Form]) -> Form:
    """`form` with each atom in `sigma` replaced by its form."""
    out: Form = {}
    for atom, coefficient in form.items():
        replacement = sigma.get(atom) if isinstance(atom, SSAValue) else None
        out = _combine(out, _scale(replacement, coefficient) if replacement is not None else {atom: coefficient}, 1)
    return out


def _tile_run_time(state: _Function, plan: _RunTimePlan) -> bool:
    """Strip-mine a planned FWD loop and its REV mirror into tiles of `T`
    iterations, `ceil(trip / T)` of them at run time, the last one partial; REV
    visits the same tiles in the inverse order. Each side computes its trip count
    from its own bounds (proven equal), where the loop runs."""
    slots = len(plan.stores)
    per = plan.rows_per_iteration
    tile = state.entries // (slots * per)
    spad = layer.SpadType(tile * per, slots)
    fwd_id, rev_id = state.new_ids()
    for loop, ident, partner, phase in ((plan.fwd, fwd_id, rev_id, Phase.FWD), (plan.rev, rev_id, fwd_id, Phase.REV)):
        at = IndexBuilder(InsertPoint.before(loop))
        trip = at.value(at.max(at.sub(loop.ub, loop.lb), 0))
        count = at.value(at.ceildiv(trip, tile))
        _strip_mine(loop, loop.lb, 1, trip, tile, count, ident, partner, phase, spad, state.spad_bytes, per)
    state.report.layers.append(
        LayerRecord(
            fwd_id, rev_id, _region_name(plan.region), tile * per, slots, True, 0,
            run_time=True, tile_iterations=tile,
        )
    )
    return True


# ---------------------------------------------------------------- tiles (mode B)


def _try_tile(state: _Function, loop: scf.ForOp, stores: list[region.StoreOp]) -> bool:
    """Strip-mine `loop` and its REV mirror into tiles of iterations, if they qualify."""
    if loop in state.plans:
        return _tile_run_time(state, state.plans[loop])
    function = state.op
    target = stores[0].region
    if any(s.region is not target for s in stores):
        return False
    fwd_chain = enclosing_loops(stores[0], function)
    if any(enclosing_loops(s, function) != fwd_chain for s in stores):
        return False
    if not all(_in_loop_body(s, fwd_chain[-1]) for s in stores):
        return False
    depth = fwd_chain.index(loop)
    inner = fwd_chain[depth + 1 :]
    trips = [trip_count(l) for l in (loop, *inner)]
    if any(t is None for t in trips):
        return False
    loads = state.loads_of(stores)
    if not loads:
        return False
    rev_chains = {enclosing_loops(l, function) for l in loads}
    if len(rev_chains) != 1:
        return False
    (rev_chain,) = rev_chains
    if not rev_chain or not all(_in_loop_body(l, rev_chain[-1]) for l in loads):
        return False
    if len(rev_chain) != len(fwd_chain):
        return False
    rev_loop = rev_chain[depth]
    rev_trips = [trip_count(l) for l in rev_chain[depth:]]
    if rev_trips != trips:
        return False
    # The REV loop must read this loop's values and nothing else of the tape.
    rev_tape = [
        o
        for o in rev_loop.walk()
        if isinstance(o, region.LoadOp | region.StoreOp)
        and o.region not in state.unlayered
        and o.region not in state.kept
    ]
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
    for each, ident, partner, phase in ((loop, fwd_id, rev_id, Phase.FWD), (rev_loop, rev_id, fwd_id, Phase.REV)):
        lb, step = constant_value(each.lb), constant_value(each.step)
        assert lb is not None and step is not None
        _strip_mine(
            each, lb, step, trip, tile, count, ident, partner, phase, spad, state.spad_bytes,
            rows_per_iteration,
        )
    state.report.layers.append(
        LayerRecord(
            fwd_id,
            rev_id,
            _region_name(target),
            spad.rows.data,
            spad.slots.data,
            True,
            count * _outer_instances(tile_loop_of(loop), function),
            _under_branch(tile_loop_of(loop), function),
        )
    )
    return True


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


def _under_branch(op: Operation, function: func.FuncOp) -> bool:
    """`op` runs under an `scf.if` (within `function`)."""
    parent = op.parent_op()
    while parent is not None and parent is not function:
        if isinstance(parent, scf.IfOp):
            return True
        parent = parent.parent_op()
    return False


def _outer_instances(op: Operation, function: func.FuncOp) -> int:
    return prod(trip_count(l) or 1 for l in enclosing_loops(op, function))


def _strip_mine(
    loop: scf.ForOp,
    lb: Index,
    step: Index,
    trip: Index,
    tile: int,
    count: Index,
    ident: int,
    partner: int,
    phase: Phase,
    spad: layer.SpadType,
    spad_bytes: int,
    rows_per_iteration: int = 1,
) -> None:
    """
    `for i in [lb, ub)` becomes `for t in [0, count) { layer { for i in tile t } }`.

    The trip count and the number of tiles are constants, or values computed just
    before the loop (a loop of run-time trip count, whose last tile may be partial).
    FWD tile `t` runs iterations [t*T, min((t+1)*T, trip)); REV visits the tiles
    in the inverse order. Enzyme's REV loop runs iteration j where FWD ran
    iteration trip-1-j, so REV tile `t` undoes FWD tile `count-1-t`: REV
    iterations [max(trip - (first+1)*T, 0), trip - first*T).
    """
    outside = IndexBuilder(InsertPoint.before(loop))
    zero, one, tiles = outside.const(0), outside.const(1), outside.value(count)
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
        first = index.sub(index.sub(count, 1), t)  # the FWD tile this REV layer undoes
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
        stores = [s for op in ops for s in _stores_in(op) if s.region is target]
        by_region.setdefault(target, []).append((ops, stores))
    for target, group in by_region.items():
        state.refresh_positions()
        group_stores = [s for _, stores in group for s in stores]
        everywhere = [s for s in _stores_in(function) if s.region is target]
        if len(everywhere) != len(group_stores):
            raise _Unlayerable(
                target,
                "it is stored in several blocks (branches of one loop body), so its "
                "pieces could not be streamed back as one stack",
            )
        all_loads = state.loads_of(group_stores)
        if not all_loads:
            raise _Unlayerable(target, "it is stored but never loaded")
        rev_block = all_loads[0].parent_block()
        assert rev_block is not None
        if any(l.parent_block() is not rev_block for l in all_loads):
            raise _Unlayerable(
                target,
                "its REV loads are spread over several blocks, so they cannot form "
                "one REV layer per piece",
            )
        reason = _check_mirrors(group_stores, all_loads, state)
        if reason is not None:
            raise _Unlayerable(
                target,
                f"the REV loops do not mirror the FWD loops ({reason}), so its tiles "
                "could not be streamed back as a stack",
            )
        ids = [state.new_ids() for _ in group]
        for (ops, stores), (fwd_id, rev_id) in zip(group, ids):
            tile = layer.SpadType(1, len(stores))
            _wrap(ops, fwd_id, Phase.FWD, rev_id, tile, state.spad_bytes, InsertPoint.before(ops[0]))
            state.report.layers.append(
                LayerRecord(
                    fwd_id, rev_id, _region_name(target), 1, len(stores), False,
                    _outer_instances(stores[0], function), _under_branch(stores[0], function),
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
            raise _Unlayerable(
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
