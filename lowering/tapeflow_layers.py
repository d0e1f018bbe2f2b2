"""
`tapeflow-layers{spad-bytes=512}`: TapeFlow's Pass 2, layering (Section IV.B,
Algorithm 2 of Hakimi & Shriraman, CGO 2024).

The forward (FWD) dataflow is cut into layers whose tape stores fit one scratchpad
of `spad-bytes` bytes, each with a reverse (REV) partner holding the loads of the
same values; a layer starts with `layer.salloc` and ends with `layer.barrier`, FWD
layers run in program order and their partners in the inverse order, so one
region's tiles form a stack. Shapes of layer: *tiles of iterations* (a loop
whose REV loop mirrors it is strip-mined, a tile carrying every region its
iterations write, `lowering.layers.tiles` and `layout`; loops of run-time trip
count once `lowering.layers.run_time` proves the mirror symbolically; where one
iteration around inner loops fits a tile but two do not, the iteration's body)
and *pieces of one iteration* (a body's straight-line stores cut into pieces that
fit, `lowering.layers.pieces`), conditional pieces under branches.

Nothing Enzyme produces is rejected: a region that cannot be layered is *kept* in
DRAM, read through the cache, its `region.alloc` marked `tapeflow.kept` with the
reason. With `stream=auto` (the default) a nest is also kept where the cost model
finds that streaming it cannot pay (`lowering.layers.cost`). `stats=true` reports
the layers executed, each nest's choice and the regions kept. The rules in full:
docs/research/layering.md. The pass takes a module at the region stage.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, fields

from xdsl.context import Context
from xdsl.dialects import builtin, func, scf
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from lowering.ir.bulk import clone_op, release_blocks, release_tree
from lowering.ir.gradients import require_gradients
from lowering.ir.loops import enclosing_loops
from lowering.ir.stages import Stage, require_stages
from lowering.ir.walk import frozen_walks, walk_ops
from lowering.layers.cost import (
    STREAM_CHOICES,
    AccessReuse,
    CutLoops,
    RevTimeline,
    StreamMachine,
    added_cycles,
    continued_fills,
    saved_cycles,
)
from lowering.layers.pieces import make_pieces, sink_past
from lowering.layers.records import KeptRecord, LayersReport, NestChoice, region_name
from lowering.layers.run_time import RunTimePlan, run_time_regions, run_time_tiling_plans
from lowering.layers.state import (
    LayeringState,
    Unlayerable,
    fail,
    loop_tile_entries,
    tile_entries,
)
from lowering.layers.tiles import try_tile
from tapeflow_dialects import layer, region
from tapeflow_dialects.layer import ENTRY_BYTES, Phase


def layer_module(
    module: builtin.ModuleOp,
    spad_bytes: int,
    tiles_in_flight: int = 1,
    loop_tiles_in_flight: int = 0,
    machine: StreamMachine | None = None,
) -> list[LayersReport]:
    """Layer every gradient function of `module`. A layer of straight-line stores
    takes at most `1/tiles_in_flight` of the scratchpad, a tile of a strip-mined
    loop at most `1/loop_tiles_in_flight` (0: as straight-line layers), or a DRAM
    burst if that is more and a straight-line layer's share holds one
    (`loop_tile_entries`). With a `machine`, the cost model keeps the nests
    streaming does not pay for (`stream=auto`)."""
    entries, straight = _tile_sizes(spad_bytes, tiles_in_flight, loop_tiles_in_flight)
    return [
        _layer_function(f, spad_bytes, entries, straight, machine)
        for f in _region_gradients(module)
    ]


def nest_choices(
    module: builtin.ModuleOp,
    spad_bytes: int,
    machines: Sequence[StreamMachine],
    tiles_in_flight: int = 1,
    loop_tiles_in_flight: int = 0,
) -> list[tuple[tuple[NestChoice, ...], ...]]:
    """Per machine of `machines`, the choices `layer_module` with it makes: per
    gradient function, per nest, in the pass's order (a kept nest's regions carry
    its `NestChoice.reason`). One layering of `module`, left as it is, serves every
    machine; machines whose choices agree in `stream` layer `module` alike. Machines
    equal in what the REV timeline reads (`RevTimeline.reads`: a cache sweep's)
    share one."""
    entries, straight = _tile_sizes(spad_bytes, tiles_in_flight, loop_tiles_in_flight)
    found: list[list[tuple[NestChoice, ...]]] = [[] for _ in machines]
    for function in _region_gradients(module):
        kept = _kept_marks(function)
        work, _, allocs = _attempts(function, spad_bytes, kept, entries, straight)
        with frozen_walks(function, work):  # the cost model changes neither
            accesses = AccessReuse(function)
            work_accesses = AccessReuse(work, accesses)
            timelines: dict[tuple[int, int], RevTimeline] = {}
            for choices, machine in zip(found, machines, strict=True):
                timeline = timelines.get(RevTimeline.reads(machine))
                if timeline is None:
                    timeline = timelines[RevTimeline.reads(machine)] = RevTimeline(work, machine)
                nests = _choose(
                    function,
                    work,
                    allocs,
                    set(kept),
                    machine,
                    spad_bytes,
                    accesses,
                    timeline,
                    straight,
                    work_accesses,
                )
                choices.append(tuple(choice for _, choice in nests))
    return [tuple(choices) for choices in found]


def _tile_sizes(
    spad_bytes: int, tiles_in_flight: int, loop_tiles_in_flight: int
) -> tuple[int, int]:
    """Entries of a loop's tile and of a straight-line layer, the options checked."""
    if spad_bytes < ENTRY_BYTES or spad_bytes % ENTRY_BYTES:
        raise fail(f"spad-bytes must be a positive multiple of {ENTRY_BYTES}, got {spad_bytes}")
    if tiles_in_flight < 1:
        raise fail(f"tiles-in-flight must be at least 1, got {tiles_in_flight}")
    if loop_tiles_in_flight < 0:
        raise fail(
            f"loop-tiles-in-flight must be at least 1 (or 0: as tiles-in-flight), "
            f"got {loop_tiles_in_flight}"
        )
    straight = tile_entries(spad_bytes, tiles_in_flight)
    return loop_tile_entries(spad_bytes, tiles_in_flight, loop_tiles_in_flight), straight


def _region_gradients(module: builtin.ModuleOp) -> list[func.FuncOp]:
    gradients = require_gradients(module, "tapeflow-layers")
    require_stages(gradients, "tapeflow-layers", {Stage.REGIONS})
    return gradients


def _kept_marks(function: func.FuncOp) -> dict[int, str]:
    """The regions the input already keeps (by position), with their reasons."""
    marked = [op for op in walk_ops(function) if isinstance(op, region.AllocOp)]
    return {
        i: op.attributes[region.KEPT].data  # type: ignore[attr-defined]
        for i, op in enumerate(marked)
        if isinstance(op.attributes.get(region.KEPT), builtin.StringAttr)
    }


def _layer_function(
    function: func.FuncOp,
    spad_bytes: int,
    entries: int,
    straight: int,
    machine: StreamMachine | None = None,
) -> LayersReport:
    """
    Layer `function`. What cannot be layered never stops the pass: the region it
    belongs to is left as it is (a correct array-of-structs region in DRAM, read
    through the cache) and reported, and the rest is layered. Layering rewrites
    the function as it goes, so each attempt works on a copy; an attempt that finds
    an unlayerable region is dropped and the next one keeps that region too. With
    a `machine` (`stream=auto`), the nests the cost model finds streaming does not
    pay for (`lowering.layers.cost`) are kept too, and the layering is redone.
    """
    kept = _kept_marks(function)  # regions the input already keeps stay kept
    work, report, allocs = _attempts(function, spad_bytes, kept, entries, straight)
    if machine is not None:
        choices = _choose(function, work, allocs, set(kept), machine, spad_bytes, straight=straight)
        declined = {
            index: choice.reason
            for indices, choice in choices
            if not choice.stream
            for index in indices
        }
        if declined:
            kept.update(declined)
            release_tree(work)  # dropped: freed by reference counting (`release_tree`)
            work, report, allocs = _attempts(function, spad_bytes, kept, entries, straight)
        report.nests = [choice for _, choice in choices]
    for index, reason in kept.items():
        alloc = allocs[index].owner
        assert isinstance(alloc, region.AllocOp)
        alloc.attributes[region.KEPT] = builtin.StringAttr(reason)
        report.kept.append(KeptRecord(f"#{index} {region_name(allocs[index])}", reason))
    # The attempt that succeeded replaces the body; the body it replaces is
    # released, its cycles cut, where the cycle collector would walk it to free
    # it (`lowering.ir.bulk.release_blocks`).
    replaced = [function.body.detach_block(block) for block in list(function.body.blocks)]
    work.body.move_blocks(function.body)
    release_blocks(replaced)
    report.function = function.sym_name.data
    return report


def _attempts(
    function: func.FuncOp, spad_bytes: int, kept: dict[int, str], entries: int, straight: int
) -> tuple[func.FuncOp, LayersReport, list[SSAValue]]:
    """Layer a copy of `function`, keeping the regions `kept` (by position) and
    each found unlayerable (added to `kept` with the reason)."""
    while True:
        work = clone_op(function)  # `function.clone()`, in bulk
        allocs = [op.region for op in walk_ops(work) if isinstance(op, region.AllocOp)]
        try:
            report = _attempt(work, spad_bytes, {allocs[i] for i in kept}, entries, straight)
        except Unlayerable as err:
            if err.target not in allocs:
                raise fail(
                    f"@{function.sym_name.data}: a region not made by region.alloc cannot "
                    f"be layered ({err.reason}), nor kept"
                ) from None
            index = allocs.index(err.target)
            if index in kept:  # pragma: no cover - a kept region has no layers
                raise fail(
                    f"internal error: kept region {index} failed again ({err.reason})"
                ) from err
            kept[index] = err.reason
            release_tree(work)  # dropped, as the copy the next attempt makes will be
            continue
        return work, report, allocs


def _choose(
    function: func.FuncOp,
    work: func.FuncOp,
    allocs: list[SSAValue],
    kept: set[int],
    machine: StreamMachine,
    spad_bytes: int,
    accesses: AccessReuse | None = None,
    timeline: RevTimeline | None = None,
    straight: int | None = None,
    work_accesses: AccessReuse | None = None,
) -> list[tuple[list[int], NestChoice]]:
    """The cost model's choice for each nest of the layered copy `work`: the
    regions its FWD layers share (by position; not the `kept` ones, whose
    accesses a layer may hold), streamed or kept (`accesses`: what is known of
    `function`'s accesses, `lowering.layers.cost.AccessReuse`; `timeline`: `work`'s
    REV timeline on a machine equal to `machine` in what it reads; `work_accesses`:
    what is known of `work`'s). The cost model changes neither function: their
    walks are read from lists made once (`frozen_walks`)."""
    with frozen_walks(function, work):
        return _choose_frozen(
            function,
            work,
            allocs,
            kept,
            machine,
            spad_bytes,
            accesses,
            timeline,
            straight,
            work_accesses,
        )


def _choose_frozen(
    function: func.FuncOp,
    work: func.FuncOp,
    allocs: list[SSAValue],
    kept: set[int],
    machine: StreamMachine,
    spad_bytes: int,
    accesses: AccessReuse | None,
    timeline: RevTimeline | None,
    straight: int | None,
    work_accesses: AccessReuse | None,
) -> list[tuple[list[int], NestChoice]]:
    originals = [op.region for op in walk_ops(function) if isinstance(op, region.AllocOp)]
    groups: list[set[int]] = []
    for op in walk_ops(work):
        if isinstance(op, layer.LayerOp) and op.phase.data is Phase.FWD:
            mine = {
                allocs.index(o.region)
                for o in walk_ops(op)
                if isinstance(o, region.StoreOp)
                and o.region in allocs
                and allocs.index(o.region) not in kept
            }
            touching = [g for g in groups if g & mine]
            for g in touching:
                groups.remove(g)
                mine |= g
            if mine:
                groups.append(mine)
    choices = []
    accesses = accesses or AccessReuse(function)
    fits = accesses.footprint() <= machine.cache_bytes
    timeline = timeline or RevTimeline(work, machine)  # the nests' REV layers, worked out once
    assert RevTimeline.reads(timeline.machine) == RevTimeline.reads(machine)
    cut = CutLoops(function, machine, straight, accesses)

    # What a nest's price reads apart from `tiles_kept` (none of it changes
    # `function` or `work`), worked out at its first pricing: the second pricing
    # (`decide` below) schedules no body again.
    unbroken: dict[tuple[int, ...], tuple[float | None, float]] = {}
    work_accesses = work_accesses or AccessReuse(work, accesses)  # shared by the nests' prices
    iterations: dict[tuple[int, ...], tuple[float, set[scf.ForOp]] | None] = {}

    def price(indices: list[int], tiles_kept: set[SSAValue]) -> NestChoice | None:
        """The choice for the nest of regions `indices`; the tile loops of the
        regions in `tiles_kept` run as cache accesses, no chains to break."""
        names = ", ".join(f"#{i} {region_name(allocs[i])}" for i in indices)
        mapping = {allocs[i]: originals[i] for i in indices}
        nest = tuple(indices)
        if nest not in unbroken:
            saved = saved_cycles(function, {originals[i] for i in indices}, machine, accesses)
            added = 0.0
            if saved is not None:
                layered = {allocs[i] for i in indices}
                saved += continued_fills(work, layered, machine, timeline)
                added = added_cycles(work, layered, machine, spad_bytes, timeline, work_accesses)
                added += cut.lost(work, mapping)
            unbroken[nest] = saved, added
        saved, added = unbroken[nest]
        if saved is None:  # run-time trip counts: no estimate of the runs
            # unless the nest is one loop cut into pieces, priced an iteration
            # by the same rule (its misses grouped as a run's)
            if nest not in iterations:
                iterations[nest] = cut.iteration(work, mapping)
            iteration = iterations[nest]
            breaks = iteration is None
            if breaks:  # or pieces between the runs of another nest's tiles
                iteration = cut.breaks(work, mapping, timeline, tiles_kept)
            if iteration is not None:
                lost, loops = iteration
                regions = {originals[i] for i in indices}
                bound = saved_cycles(function, regions, machine, accesses, per_iteration=loops)
                if bound is not None and lost > bound:
                    return NestChoice(names, False, bound, lost, fits, True, breaks)
            return None
        layered = {allocs[i] for i in indices}
        added += cut.broken(work, layered, timeline, tiles_kept)
        return NestChoice(names, saved >= added, saved, added, fits)

    def decide(tiles_kept: set[SSAValue]) -> list[tuple[list[int], NestChoice]]:
        choices = []
        for group in groups:
            indices = sorted(group)
            choice = price(indices, tiles_kept)
            if choice is not None:
                choices.append((indices, choice))
        return choices

    choices = decide(set())
    # A nest kept has no tiles whose chains another nest's layers could break:
    # priced again with those tiles read through the cache (once: a nest that
    # the second pricing streams is not priced a third time).
    kept_now = {allocs[i] for indices, c in choices if not c.stream for i in indices}
    return decide(kept_now) if kept_now else choices


def _attempt(
    function: func.FuncOp, spad_bytes: int, kept: set[SSAValue], entries: int, straight: int
) -> LayersReport:
    report = LayersReport(function.sym_name.data, spad_bytes)
    with frozen_walks(function):  # read, not changed, up to the layering itself
        loads, plans, reasons, proven, unlayered, nests = _survey(function, kept, entries, straight)
    for target, found in nests.items():
        if len(found) > 1:
            raise Unlayerable(
                target,
                f"it is stored in {len(found)} loop nests, so its tiles could not be "
                "streamed back as one stack",
            )
    state = LayeringState(
        function,
        spad_bytes,
        report,
        loads,
        kept,
        unlayered=set(unlayered),
        plans=plans,
        proven=proven,
        tile_entries=entries,
        layer_entries=straight,
    )
    state.refresh_positions()
    _layer_block(state, function.body.block)
    with frozen_walks(function):
        _check_layer_contents(function, kept, set(unlayered))
        allocs = [op.region for op in walk_ops(function) if isinstance(op, region.AllocOp)]
    # Regions of run-time trip counts that could not be strip-mined are kept like
    # any region that cannot be layered: in DRAM, read through the cache.
    for target, reason in unlayered.items():
        alloc = target.owner
        if not isinstance(alloc, region.AllocOp):
            raise fail(
                f"@{function.sym_name.data}: a region not made by region.alloc cannot be "
                f"layered ({reason}), nor kept"
            )
        alloc.attributes[region.KEPT] = builtin.StringAttr(reason)
        report.kept.append(KeptRecord(f"#{allocs.index(target)} {region_name(target)}", reason))
    return report


def _survey(
    function: func.FuncOp, kept: set[SSAValue], entries: int, straight: int
) -> tuple[
    dict[tuple[SSAValue, int], list[region.LoadOp]],
    dict[scf.ForOp, RunTimePlan],
    dict[SSAValue, str],
    set[SSAValue],
    dict[SSAValue, str],
    dict[SSAValue, set[tuple[int, ...]]],
]:
    """What an attempt reads of `function` before it layers: the tape loads by the
    store they read, the run-time tiling plans (with the reasons and the regions
    proven), the regions left unlayered with their reasons, and each region's
    loop nests (by the loops' ids)."""
    loads: dict[tuple[SSAValue, int], list[region.LoadOp]] = {}
    for op in walk_ops(function):
        if isinstance(op, region.LoadOp):
            loads.setdefault((op.region, op.store.value.data), []).append(op)
    plans, reasons, proven = run_time_tiling_plans(function, max(entries, straight), kept, entries)
    unlayered = {  # a region kept already is reported once, with its own reason
        target: why
        for target, why in run_time_regions(function, plans, reasons, proven).items()
        if target not in kept
    }
    nests: dict[SSAValue, set[tuple[int, ...]]] = {}
    loops_of: dict[Block | None, tuple[int, ...]] = {}  # by block: the loops around it
    for op in walk_ops(function):
        if isinstance(op, region.StoreOp) and op.region not in unlayered and op.region not in kept:
            block = op.parent_block()
            if block not in loops_of:
                loops_of[block] = tuple(id(loop) for loop in enclosing_loops(op, function))
            nests.setdefault(op.region, set()).add(loops_of[block])
    return loads, plans, reasons, proven, unlayered, nests


def _check_layer_contents(
    function: func.FuncOp, kept: set[SSAValue], unlayered: set[SSAValue]
) -> None:
    """A REV layer reads the values its FWD partner's tile holds. If the accesses of
    another region still being layered ended up inside a layer (found by the
    random-kernel campaigns, with values Enzyme caches inside branches), that region
    is kept instead: the attempt is dropped and retried with it read through the
    cache."""
    layers = [op for op in walk_ops(function) if isinstance(op, layer.LayerOp)]
    held: dict[int, set[tuple[SSAValue, int]]] = {}
    for op in layers:
        if op.phase.data is Phase.FWD:
            held[op.id.value.data] = {
                (s.region, s.store_id)
                for s in walk_ops(op)
                if isinstance(s, region.StoreOp) and s.region not in kept
            }
    for op in layers:
        owner = op.id.value.data if op.phase.data is Phase.FWD else op.partner.value.data
        strays = [
            access
            for access in walk_ops(op)
            if isinstance(access, region.StoreOp | region.LoadOp)
            and access.region not in kept
            and (
                isinstance(access, region.LoadOp) is (op.phase.data is Phase.FWD)
                or (access.region, _value_id(access)) not in held.get(owner, set())
            )
        ]
        if strays:
            # Keep a region left on the cache path if one is there, else the first.
            victim = next((a.region for a in strays if a.region in unlayered), strays[0].region)
            raise Unlayerable(
                victim,
                f"its accesses fall into layer {op.id.value.data}, whose tile does not "
                "hold its values",
            )


def _value_id(access: region.StoreOp | region.LoadOp) -> int:
    return access.store_id if isinstance(access, region.StoreOp) else access.loaded_id


def _layer_block(state: LayeringState, block: Block) -> None:
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
            held = current_region
            sunk = sink_past(state, current, held, unit)
            close()
            if not try_tile(state, unit, stores):
                _layer_block(state, unit.body.block)
            if sunk:
                current, current_region, current_count = sunk, held, len(sunk)
            continue
        if isinstance(unit, scf.IfOp):
            close()
            _layer_branches(state, unit)
            continue
        if not isinstance(unit, region.StoreOp):
            raise Unlayerable(
                stores[0].region,
                f"it is stored inside '{unit.name}'; only loops, branches (scf.if) and "
                "straight-line stores are layered",
            )
        (target,) = {s.region for s in stores}
        if current and (
            target is not current_region or current_count + len(stores) > state.straight_entries
        ):
            close()
        if not current:
            current_region = target
        current.append(unit)
        current_count += len(stores)
    close()
    make_pieces(state, pieces)


def _layer_branches(state: LayeringState, branch: scf.IfOp) -> None:
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


@dataclass(frozen=True)
class TapeflowLayersPass(ModulePass):
    """Cut FWD and REV into layers whose tape fits the scratchpad (Pass 2)."""

    name = "tapeflow-layers"

    spad_bytes: int = 512
    """Scratchpad capacity in bytes (the paper's default: 512 B, 64 entries)."""

    tiles_in_flight: int = 1
    """Tiles the scratchpad holds at once: each layer's tile takes at most this
    share of it (1: the whole scratchpad, the paper's cut), so that while one
    tile is in use the streams of the next can fill the rest."""

    loop_tiles_in_flight: int = 0
    """The same for the tiles of a strip-mined loop (0: `tiles_in_flight`). A
    loop's pipeline continues across its tiles' barriers, so smaller tiles cost
    it little, while a layer of straight-line dataflow pays its whole schedule
    each time it runs."""

    stream: str = "auto"
    """`auto`: stream a nest's tape only where the cost model
    (`lowering.layers.cost`) finds it saves more cycles than its tiles add, else
    keep the nest's regions in DRAM, read through the cache; `always`: stream
    every nest that can be layered (the paper's Pass 2)."""

    cache_bytes: int = StreamMachine.cache_bytes
    """The cost model's machine (defaults: `targets.hardware`'s): cache capacity."""
    cache_line_bytes: int = StreamMachine.cache_line_bytes
    cache_ways: int = StreamMachine.cache_ways
    """Lines a cache set holds (its associativity)."""
    cache_mshrs: int = StreamMachine.cache_mshrs
    """Outstanding misses the cache overlaps."""
    cache_ports: int = StreamMachine.cache_ports
    """Cache accesses per cycle."""
    dram_latency: int = StreamMachine.dram_latency
    """Cycles of a miss beyond a hit."""
    integer: int = StreamMachine.integer
    """Cycles of an integer op (the tiles' bookkeeping)."""
    dram_bytes_per_cycle: float = StreamMachine.dram_bytes_per_cycle
    """Bytes a stream moves per cycle (a REV tile's transfer after the latency)."""
    runahead: bool = StreamMachine.runahead
    """A REV stream is issued as soon as its tile's entries are free (false: no
    earlier than the previous REV layer's start), as the timing model runs them."""
    buffer_base: int = StreamMachine.buffer_base
    """Where the machine places the first buffer."""
    buffer_alignment: int = StreamMachine.buffer_alignment
    """Each buffer starts at a multiple of this many bytes."""
    buffers_packed: bool = StreamMachine.buffers_packed
    """Buffers are packed one after another in the order they are first touched
    (false: at a program's own addresses)."""

    stats: bool = False
    """Print, per gradient function, the layers made and how often they run, and
    the cost model's choice per nest."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.stream not in STREAM_CHOICES:
            raise fail(
                f"option stream must be one of {', '.join(STREAM_CHOICES)}, got '{self.stream}'"
            )
        for option in (
            "cache_bytes",
            "cache_line_bytes",
            "cache_ways",
            "cache_mshrs",
            "cache_ports",
            "buffer_alignment",
        ):
            if getattr(self, option) < 1:
                raise fail(
                    f"option {option.replace('_', '-')} must be at least 1, "
                    f"got {getattr(self, option)}"
                )
        if self.buffer_base < 0:
            raise fail(f"option buffer-base must be at least 0, got {self.buffer_base}")
        if self.dram_latency < 0 or self.integer < 1:
            raise fail(
                "options dram-latency and integer must be at least 0 and 1, got "
                f"{self.dram_latency} and {self.integer}"
            )
        if not self.dram_bytes_per_cycle > 0 or self.dram_bytes_per_cycle == float("inf"):
            raise fail(
                "option dram-bytes-per-cycle must be a positive number, got "
                f"{self.dram_bytes_per_cycle}"
            )
        machine = (
            StreamMachine(**{f.name: getattr(self, f.name) for f in fields(StreamMachine)})
            if self.stream == "auto"
            else None
        )
        reports = layer_module(
            op, self.spad_bytes, self.tiles_in_flight, self.loop_tiles_in_flight, machine
        )
        if self.stats:
            for report in reports:
                print(f"tapeflow-layers: {report.table()}", file=sys.stderr)
