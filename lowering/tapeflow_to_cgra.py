"""
`tapeflow-to-cgra{preset=Enzyme32k rows=4 cols=4 fadd=5 ...}`: place and schedule
loop bodies on the PE grid of the given hardware.

Every innermost `scf.for` whose body is plain dataflow -- arithmetic, math, and
memory accesses through the cache (memrefs, array-of-structs regions) or the
scratchpad (tiles bound by `tapeflow-spad-bind`) -- becomes a `cgra.kernel` that
the loop iterates: each op is placed on a PE and given an issue cycle by modulo
list scheduling, at the smallest initiation interval `ii` that the PEs, the cache
ports, the scratchpad banks and the loop-carried values (an `iter_args`
recurrence, or a store to a buffer the body also loads, unless both use the same
iteration-dependent indices) allow. Every other run of placeable ops outside a
kernel is scheduled as straight-line code and moved into a `cgra.kernel` that runs
once where the run was (with `place-straight-line=false`, only loop-free layer
bodies); an integer op a loop's body repeats is computed once where its
schedule is no slower, index arithmetic after a stream op joins the run before it,
effect-free ops nothing uses outside innermost loops are erased (and loop nests
that write nothing and hold a loop), and a run of
integer ops only later kernels use moves into them where their schedules say
that costs no more (a tile iteration's first rows). With
`disambiguate` (on by default) two accesses of one buffer in an iteration are
ordered only when their indices may be equal (`lowering.ir.index_offsets`). Loads
and stores name their path: `cache`, or `spad` with the slot. Each op of a
scheduled body is made in its placed form (`cgra.op`, `cgra.load`, `cgra.store`)
in the kernel, and the original erased.

The hardware is the pass's options (`targets.scheduling.HARDWARE_OPTIONS`),
defaulting from the named `preset` (`targets.hardware.PRESETS`); the simulator
passes its hardware's values, so the schedule is for the hardware it simulates.
The scheduler itself is `lowering.scheduling`; this module turns its schedules into
`cgra.kernel` ops. The pass runs at any stage of the lowering, once. The rules:
docs/research/scheduling.md.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import cache

from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref, scf
from xdsl.dialects.builtin import DictionaryAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, Use
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.bulk import append_ops, erase_ops, new_op, release, valid_name
from lowering.ir.gradients import require_gradients
from lowering.ir.loops import trip_count
from lowering.ir.stages import is_placed
from lowering.ir.walk import walk_ops
from lowering.scheduling.body import memory_kind, placeable
from lowering.scheduling.scheduler import Schedule, Scheduler
from tapeflow_dialects import cgra, layer, region, stream
from tapeflow_dialects.cgra import MemPath, MemPathAttr, i64_attr, opcode_attr
from tapeflow_dialects.container_ops import SlotAccess
from tapeflow_dialects.enzyme import REV_START
from targets.hardware import Hardware
from targets.scheduling import HardwareOptions

PASS = "tapeflow-to-cgra"


@dataclass
class KernelRecord:
    ident: int
    ops: int
    ii: int
    length: int
    straight_line: bool = False
    """Straight-line ops run once where they stand (in a layer, between loops)."""


@dataclass
class CgraReport:
    function: str
    kernels: list[KernelRecord] = field(default_factory=list)
    unmapped_loops: int = 0

    def summary(self) -> str:
        loops = [k for k in self.kernels if not k.straight_line]
        iis = ", ".join(str(k.ii) for k in loops)
        text = f"@{self.function}: {len(loops)} kernels (ii {iis or '-'})"
        straight = len(self.kernels) - len(loops)
        if straight:
            text += f", {straight} straight-line kernels"
        return text + f", {self.unmapped_loops} loops left unmapped"


def _placed_access(op: Operation, schedule: Schedule, operands: list[SSAValue]) -> Operation:
    """A scheduled load -> `cgra.load` at its PE and cycle, through the cache
    (buffers, regions) or the scratchpad (tiles, with the slot); a store ->
    `cgra.store` (its operands: the value, the buffer, then its indices); at
    the op's source location."""
    return _Placer(schedule).access(op, operands)


def _placed_compute(op: Operation, schedule: Schedule, operands: list[SSAValue]) -> Operation:
    """A scheduled arith or math op -> `cgra.op "<name>"` at its PE and cycle, with
    the op's properties and attributes, at its source location."""
    return _Placer(schedule).compute(op, operands)


@cache
def _dictionary(items: tuple[tuple[str, Attribute], ...]) -> DictionaryAttr:
    return DictionaryAttr(dict(items))


_PATH_ATTRS = {path: MemPathAttr(path) for path in MemPath}


def _props(
    path: MemPath | None, pe: tuple[int, int], cycle: int, slot: int | None = None
) -> dict[str, Attribute]:
    """A placed op's properties (an access's with its `path`)."""
    props: dict[str, Attribute] = {
        "row": i64_attr(pe[0]),
        "col": i64_attr(pe[1]),
        "cycle": i64_attr(cycle),
    }
    if path is not None:
        props["path"] = _PATH_ATTRS[path]
    if slot is not None:
        props["slot"] = i64_attr(slot)
    return props


_LOAD_CLASSES = (memref.LoadOp, region.LoadOp, stream.LoadOp)


class _Placer:
    """Makes the placed form of a schedule's ops, each op's facts found once: its
    place by the op's id (an op's hash is a Python call of its own), what its
    class decides once per class, and the attributes a `cgra.op` carries once
    per set of attribute objects (each kept alive with its entry, so that an
    object's id stays its own). The ops made are those `_placed_access` and
    `_placed_compute` made one by one before, field for field."""

    _classes: dict[type[Operation], tuple[bool, MemPath | None, bool]] = {}
    """Per op class: (an access, its path, a load); its class decides each
    (`memory_kind`)."""

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule
        self.where = {id(op): place for op, place in schedule.placements()}
        self.attrs: dict[tuple[object, ...], tuple[DictionaryAttr, tuple[Attribute, ...]]] = {}
        """Per (class, each property's and attribute's name, each value's id): the
        `attrs` dictionary a `cgra.op` carries, and the values its key names."""

    def placed(self, op: Operation, operands: list[SSAValue]) -> Operation:
        """`_placed`: an access's placed form, or a compute op's."""
        cls = type(op)
        facts = self._classes.get(cls)
        if facts is None:
            kind = memory_kind(op)
            facts = self._classes[cls] = (
                kind is not None,
                None if kind is None else _path(op),
                isinstance(op, _LOAD_CLASSES),
            )
        if facts[0]:
            return self._access(op, operands, facts[1], facts[2])
        return self.compute(op, operands)

    def access(self, op: Operation, operands: list[SSAValue]) -> Operation:
        return self._access(op, operands, _path(op), isinstance(op, _LOAD_CLASSES))

    def _access(
        self, op: Operation, operands: list[SSAValue], path: MemPath | None, load: bool
    ) -> Operation:
        row, col, cycle = self.where[id(op)]
        properties = _props(path, (row, col), cycle, _slot(op))
        if load:
            # the buffer, then its indices
            return new_op(cgra.LoadOp, operands, [op.results[0].type], properties, op.location)
        return new_op(cgra.StoreOp, operands, (), properties, op.location)

    def compute(self, op: Operation, operands: list[SSAValue]) -> Operation:
        row, col, cycle = self.where[id(op)]
        properties: dict[str, Attribute] = {
            "row": i64_attr(row),
            "col": i64_attr(col),
            "cycle": i64_attr(cycle),
            "opcode": opcode_attr(op.name),
        }
        if op.properties or op.attributes:
            properties["attrs"] = self._attributes(op)
        # `new_op` (`create`): the properties are made here, with no per-op checks to
        # repeat on a fully unrolled body's tens of thousands of ops (the module is
        # verified after the pass).
        return new_op(
            cgra.ComputeOp, operands, [r.type for r in op.results], properties, op.location
        )

    def _attributes(self, op: Operation) -> DictionaryAttr:
        """`_dictionary` of the op's properties, then its attributes."""
        values = (*op.properties.values(), *op.attributes.values())
        key = (type(op), *op.properties, None, *op.attributes, *map(id, values))
        found = self.attrs.get(key)
        if found is None:
            attrs: dict[str, Attribute] = {**op.properties, **op.attributes}
            found = self.attrs[key] = (_dictionary(tuple(attrs.items())), values)
        return found[0]


def _path(op: Operation) -> MemPath:
    return MemPath.SPAD if memory_kind(op) == "spad" else MemPath.CACHE


def _slot(op: Operation) -> int | None:
    return op.slot_index if isinstance(op, SlotAccess) else None


def _hoist_constants(loop: scf.ForOp) -> None:
    for op in list(loop.body.block.ops):
        if isinstance(op, arith.ConstantOp):
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(loop))


def _kernelize(loop: scf.ForOp, ident: int, scheduler: Scheduler) -> KernelRecord:
    """Schedule the loop's body, move it into a `cgra.kernel` the loop iterates,
    and place each of its ops."""
    _hoist_constants(loop)
    kept = _merge_where_no_slower(loop, scheduler)
    block = loop.body.block
    body_ops = list(block.ops)
    terminator = body_ops[-1]
    assert isinstance(terminator, scf.YieldOp)
    ops = body_ops[:-1]
    carried = list(zip(block.args[1:], terminator.operands, strict=False))
    # The body as the merge trial left it: its schedule there, if it made one.
    schedule = kept or scheduler.schedule(ops, carried, trips=trip_count(loop))
    kernel = _make_kernel(
        ops, list(terminator.operands), ident, scheduler, schedule, InsertPoint.before(terminator)
    )
    terminator.operands = list(kernel.results)
    return KernelRecord(ident, len(ops), schedule.ii, schedule.length)


def _straight_runs(block: Block, everywhere: bool) -> list[list[Operation]]:
    """The maximal runs of placeable ops in `block` (constants aside: they are
    hoisted before the run that uses them). With `everywhere`, every run, however
    short; otherwise only in a layer's body that holds no loop, and runs of at
    least two ops (one op gains nothing from the grid)."""
    if not everywhere and any(isinstance(op, scf.ForOp) for op in walk_ops(block)):
        return []
    ops = list(block.ops)
    if ops and ops[-1].has_trait(IsTerminator):
        ops = ops[:-1]
    runs: list[list[Operation]] = [[]]
    crossed = False  # the run has continued past a stream op
    for op in ops:
        if isinstance(op, arith.ConstantOp):
            continue
        if isinstance(op, stream.FwdOp | stream.RevOp) and runs[-1]:
            # A stream op defines nothing and touches only its tile and tape: the
            # index arithmetic after it joins the run before it (a REV tile's
            # bounds and its rows' first rows, one kernel); accesses do not.
            crossed = True
            continue
        if placeable(op) and not (crossed and memory_kind(op) is not None):
            runs[-1].append(op)
            continue
        if runs[-1]:
            runs.append([])
        crossed = False
        if placeable(op):
            runs[-1].append(op)
    shortest = 1 if everywhere else 2
    return [run for run in runs if len(run) >= shortest]


def _blocks_outside_kernels(op: Operation) -> list[Block]:
    """Every block under `op` but those of `cgra.kernel`s."""
    blocks: list[Block] = []
    for body in op.regions:
        for block in body.blocks:
            blocks.append(block)
            for inner in block.ops:
                if not isinstance(inner, cgra.KernelOp):
                    blocks.extend(_blocks_outside_kernels(inner))
    return blocks


def _kernelize_run(run: list[Operation], ident: int, scheduler: Scheduler) -> KernelRecord:
    """Schedule a straight-line run of ops and move it into a `cgra.kernel` that
    runs once where the run was: a CGRA maps a dataflow graph onto the grid
    whether or not a loop iterates it (the paper's Section V; Algorithm 2 puts
    the REV computation in the REV layers). Values the run defines and later ops
    use become the kernel's results."""
    members = set(run)
    after = run[0].next_op
    while after is not None:  # constants below the run's first op move above it
        following = after.next_op
        if isinstance(after, arith.ConstantOp) and any(
            u.operation in members for r in after.results for u in r.uses
        ):
            after.detach()
            Rewriter.insert_op(after, InsertPoint.before(run[0]))
        after = following
    escaping = [
        r for op in run for r in op.results if any(u.operation not in members for u in r.uses)
    ]
    schedule = scheduler.schedule(run, [], iterated=False)
    _make_kernel(
        run,
        escaping,
        ident,
        scheduler,
        schedule,
        InsertPoint.before(run[0]),
        lambda use: use.operation not in members,
    )
    return KernelRecord(ident, len(run), schedule.ii, schedule.length, straight_line=True)


def _make_kernel(
    ops: list[Operation],
    results: list[SSAValue],
    ident: int,
    scheduler: Scheduler,
    schedule: Schedule,
    at: InsertPoint,
    rewired: Callable[[Use], bool] | None = None,
) -> cgra.KernelOp:
    """A new `cgra.kernel` inserted at `at` that holds the placed form of each of
    `ops` (which are erased) and yields `results`; the uses of `results` that
    `rewired` picks (if given) read the kernel's results instead (any other use
    outside `ops` is left to the caller to rewire: it reads an erased value)."""
    block = Block()
    kernel = cgra.KernelOp(
        ident,
        (scheduler.hw.rows, scheduler.hw.cols),
        schedule.ii,
        Region(block),
        [v.type for v in results],
    )
    Rewriter.insert_op(kernel, at)
    if rewired is not None:
        for value, result in zip(results, kernel.results, strict=True):
            value.replace_uses_with_if(result, rewired)
    placed: dict[int, SSAValue] = {}
    """Each value of `ops` (by id: a value's hash is a Python call of its own;
    each lives while `ops` do) -> its placed op's."""
    placer = _Placer(schedule)
    made: list[Operation] = []
    for op in ops:
        if REV_START in op.attributes:  # the kernel, run as a whole, starts REV
            kernel.attributes[REV_START] = op.attributes.pop(REV_START)
        new = placer.placed(
            op,
            [placed.get(id(v), v) for v in op._operands],  # pyright: ignore[reportPrivateUsage]
        )
        made.append(new)
        for old, value in zip(op.results, new.results, strict=True):
            placed[id(old)] = value
            if old._name is not None:  # pyright: ignore[reportPrivateUsage]
                value._name = valid_name(old._name)  # pyright: ignore[reportPrivateUsage]
    made.append(cgra.YieldOp([placed.get(id(v), v) for v in results]))
    # In bulk, as `block.add_op` and `Rewriter.erase_op(op, safe_erase=False)` one
    # by one would (`lowering.ir.bulk`).
    append_ops(block, made)
    erase_ops(ops[::-1])
    release(ops)  # freed as soon as the caller drops them, not by the cycle collector
    return kernel


def _placed(op: Operation, schedule: Schedule, operands: list[SSAValue]) -> Operation:
    """The placed form of a scheduled op, reading `operands`: an access's
    (`_placed_access`) or a compute op's (`_placed_compute`)."""
    return _Placer(schedule).placed(op, operands)


def lower_module(module: builtin.ModuleOp, hardware: Hardware) -> list[CgraReport]:
    """Place and schedule the plain innermost loops of every gradient function."""
    reports = []
    scheduler = Scheduler(hardware)
    gradients = require_gradients(module, PASS)
    for function in gradients:
        if is_placed(function):
            raise PassFailedException(
                f"{PASS}: @{function.sym_name.data} is already placed on the CGRA (it "
                "holds cgra.kernel ops); the pass runs once, after the lowering"
            )
    for function in gradients:
        _erase_dead(function)
        if hardware.mapping.place_straight_line:
            _sink_index_runs(function, scheduler)
        report = CgraReport(function.sym_name.data)
        loops = [
            op
            for op in walk_ops(function)
            if isinstance(op, scf.ForOp)
            and not any(isinstance(o, scf.ForOp) for o in walk_ops(op.body))
        ]
        for loop in loops:
            if all(placeable(o) for o in loop.body.block.ops):
                report.kernels.append(_kernelize(loop, len(report.kernels), scheduler))
            else:
                report.unmapped_loops += 1
        everywhere = hardware.mapping.place_straight_line
        if everywhere:
            blocks = _blocks_outside_kernels(function)
        else:
            blocks = [op.body.block for op in walk_ops(function) if isinstance(op, layer.LayerOp)]
        for block in blocks:
            for run in _straight_runs(block, everywhere):
                report.kernels.append(_kernelize_run(run, len(report.kernels), scheduler))
        reports.append(report)
    return reports


def _innermost(op: Operation) -> bool:
    """`op` is a loop with no loop inside it."""
    return isinstance(op, scf.ForOp) and not any(
        isinstance(o, scf.ForOp) for o in walk_ops(op.body)
    )


_ARITH: dict[type[Operation], bool] = {}
"""Per IRDL op class: an arith op other than a constant (its class decides it)."""


def _index_op(op: Operation) -> bool:
    """Integer arithmetic (a tile's rows, a loop's bounds)."""
    if op.regions:
        return False
    cls = type(op)
    arithmetic = _ARITH.get(cls)
    if arithmetic is None:
        arithmetic = op.dialect_name() == "arith" and not isinstance(op, arith.ConstantOp)
        if isinstance(op, IRDLOperation):
            _ARITH[cls] = arithmetic
    return (
        arithmetic
        and bool(op.results)
        and all(isinstance(r.type, builtin.IndexType | builtin.IntegerType) for r in op.results)
    )


Target = scf.ForOp | tuple[Operation, ...]
"""A kernel-to-be: an innermost loop, or a straight-line run of ops."""


def _sink_index_runs(function: Operation, scheduler: Scheduler) -> None:
    """Move each straight-line run of integer ops outside innermost loops whose
    results only later kernels use (a tile iteration's first rows, read by its
    inner loop and by the stores after it) into those kernels, where their
    schedules keep their `ii` and lengthen by no more than the run's own kernel
    takes: placed alone, the run is a kernel run once per iteration of the loops
    around it. A loop's kernel recomputes the ops each iteration, from values
    fixed while the loop runs."""
    blocks = [
        block
        for op in walk_ops(function)
        if not _innermost(op)
        for body in op.regions
        for block in body.blocks
    ]
    loop_kernels: dict[Operation, bool] = {}  # sinking adds index ops alone: it holds
    for block in blocks:
        runs = _runs_of(block)
        for first in [run[0] for run in _straight_runs(block, everywhere=True)]:
            run = list(runs[first])  # as it is now: it may have gained an earlier run's copies
            if all(_index_op(op) for op in run) and _sink_run(
                run, block, runs, loop_kernels, scheduler
            ):
                runs = _runs_of(block)  # the targets' runs gained the copies


def _runs_of(block: Block) -> dict[Operation, tuple[Operation, ...]]:
    """Each op of `block`'s straight runs, to its run."""
    return {op: tuple(each) for each in _straight_runs(block, everywhere=True) for op in each}


def _holder(op: Operation, block: Block) -> Operation:
    """The op of `block` that is or holds `op`."""
    while op.parent_block() is not block:
        parent = op.parent_op()
        assert parent is not None, "a value of `block` is used in it or under it"
        op = parent
    return op


def _targets(
    run: list[Operation],
    block: Block,
    runs: dict[Operation, tuple[Operation, ...]],
    loop_kernels: dict[Operation, bool],
) -> dict[Operation, set[Target]] | None:
    """For each op of `run`, the kernels-to-be that use it, directly or through
    the run's later ops; None if a use is elsewhere (a loop's bounds, a stream's
    row count, an op that is no kernel). `runs`: `_runs_of(block)`; `loop_kernels`:
    whether a loop is an innermost loop of placeable ops, as found so far."""
    members = set(run)
    targets: dict[Operation, set[Target]] = {}
    for op in reversed(run):
        wanted: set[Target] = set()
        for use in (use for result in op.results for use in result.uses):
            holder = _holder(use.operation, block)
            if holder in members:
                wanted |= targets[holder]
            elif holder is not use.operation and _loop_kernel(holder, loop_kernels):
                wanted.add(holder)
            elif holder in runs and holder is use.operation:
                wanted.add(runs[holder])
            else:
                return None
        targets[op] = wanted
    return targets


def _loop_kernel(op: Operation, known: dict[Operation, bool]) -> bool:
    """`op` is an innermost loop whose body's ops are all placeable."""
    if op not in known:
        known[op] = _innermost(op) and all(placeable(o) for o in op.body.block.ops)
    return known[op]


def _sink_run(
    run: list[Operation],
    block: Block,
    runs: dict[Operation, tuple[Operation, ...]],
    loop_kernels: dict[Operation, bool],
    scheduler: Scheduler,
) -> bool:
    """Clone `run`'s ops into the kernels-to-be that use them and erase the run,
    if their schedules grow by no more than the run's own (`_sink_index_runs`);
    whether it did."""
    targets = _targets(run, block, runs, loop_kernels)
    if targets is None:
        return False
    alone = scheduler.schedule(run, [], iterated=False).length
    grown = 0
    slower = False  # a loop kernel's `ii` grew
    copies: list[tuple[Operation, Operation]] = []
    for target in {t for wanted in targets.values() for t in wanted}:
        needed = [op for op in run if target in targets[op]]
        before, after, pairs = _sink_into(target, needed, scheduler)
        copies.extend(pairs)
        slower |= isinstance(target, scf.ForOp) and after.ii > before.ii
        grown += after.length - before.length
    if not slower and grown <= alone:
        for op in reversed(run):
            Rewriter.erase_op(op)
        return True
    for original, copy in reversed(copies):  # undo: the uses go back to the run
        for old, new in zip(original.results, copy.results, strict=True):
            new.replace_all_uses_with(old)
        Rewriter.erase_op(copy)
    return False


def _sink_into(
    target: Target, needed: list[Operation], scheduler: Scheduler
) -> tuple[Schedule, Schedule, list[tuple[Operation, Operation]]]:
    """Clone `needed` at the head of `target` and let its ops use the copies: its
    schedule before and after, and the (original, copy) pairs."""
    looped = isinstance(target, scf.ForOp)
    if looped:
        block = target.body.block
        ops = list(block.ops)[:-1]
        carried = list(zip(block.args[1:], block.ops.last.operands, strict=False))
        users = set(walk_ops(block))
        head = block.ops.first  # the yield, in a loop that only yields
    else:
        ops, carried = list(target), []
        users = set(ops)
        head = ops[0]
    assert head is not None, "a loop's body ends in its yield"
    trips = trip_count(target) if isinstance(target, scf.ForOp) else None
    before = scheduler.schedule(ops, carried, iterated=looped, trips=trips)
    mapping: dict[SSAValue, SSAValue] = {}
    pairs = []
    for op in needed:
        copy = op.clone(mapping)
        Rewriter.insert_op(copy, InsertPoint.before(head))
        pairs.append((op, copy))
        for old, new in zip(op.results, copy.results, strict=True):
            old.replace_uses_with_if(new, lambda use: use.operation in users)
    after = scheduler.schedule(
        [copy for _, copy in pairs] + ops, carried, iterated=looped, trips=trips
    )
    return before, after, pairs


def _pure(op: Operation) -> bool:
    """An op without effects: arithmetic or math, or a loop of such ops alone."""
    if isinstance(op, scf.ForOp):
        return all(_pure(o) for o in op.body.block.ops)
    return isinstance(op, scf.YieldOp) or (
        not op.regions and op.dialect_name() in ("arith", "math")
    )


def _reads_only(op: Operation) -> bool:
    """An op that writes nothing: as `_pure`, loads of buffers allowed, and loops
    of either kind (`scf.for`, `scf.while`) of such ops."""
    if isinstance(op, scf.ForOp | scf.WhileOp):
        return all(_reads_only(o) for region in op.regions for o in region.block.ops)
    return isinstance(op, scf.YieldOp | scf.ConditionOp | memref.LoadOp) or (
        not op.regions and op.dialect_name() in ("arith", "math")
    )


def _dead_nest(op: Operation) -> bool:
    """A loop nest that writes nothing and holds a loop: the replay of a loop
    around a run-time trip count (`tapeflow-raise-tape` counts the largest of a
    while loop's trip counts so, running the loop once more per iteration), whose
    compute outweighs the lines its loads bring into the cache. A flat loop of
    loads stays: its lines are those the nest after it reads (spmv's row
    pointers)."""
    return isinstance(op, scf.ForOp | scf.WhileOp) and (
        _reads_only(op)
        and any(isinstance(o, scf.ForOp | scf.WhileOp) for o in walk_ops(op) if o is not op)
    )


def _erase_dead(function: Operation) -> None:
    """Erase the effect-free ops outside innermost loops whose results nothing
    uses (an index the earlier passes computed for an access they since moved, a
    loop that counted a region's run-time extent): placed, each would cost a
    kernel run. A dead op of an innermost loop's body takes a PE slot of its
    kernel and nothing else: it stays, and the kernel's schedule with it (the list
    scheduler is greedy; dropping an op can lose a port-bound ii, as somier's FWD
    loop does, 15 to 16)."""
    erased = True
    while erased:
        erased = False
        for op in list(function.walk(reverse=True)):
            if (
                op.results
                and not isinstance(op, arith.ConstantOp)  # never placed: costs nothing
                and all(not r.uses for r in op.results)
                and (_pure(op) or _dead_nest(op))
                and not _in_innermost_loop(op)
                and _attached(op, function)
            ):
                Rewriter.erase_op(op)
                erased = True


def _operand_key(value: SSAValue) -> object:
    """An operand as index arithmetic sees it: an integer constant by its value
    and type (two `arith.constant 22 : index` are one value), anything else by
    identity."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, builtin.IntegerAttr):
        return ("constant", owner.value.value.data, value.type)
    return value


def _equal_index_ops(block: Block) -> dict[Operation, Operation]:
    """Each integer op of `block` that repeats an earlier op of the block (the
    same operation on the same operands, integer constants compared by value, with
    equal properties, attributes and result types, which xDSL compares and hashes
    by structure) -> that earlier op, which dominates it."""
    seen: dict[tuple[object, ...], Operation] = {}
    repeats: dict[Operation, Operation] = {}
    for op in block.ops:
        if not _index_op(op):
            continue
        key = (
            op.name,
            tuple([_operand_key(o) for o in op._operands]),  # pyright: ignore[reportPrivateUsage]
            tuple(sorted(op.properties.items())) if op.properties else (),
            tuple(sorted(op.attributes.items())) if op.attributes else (),
            tuple([r.type for r in op.results]),
        )
        if key in seen:
            repeats[op] = seen[key]
        else:
            seen[key] = op
    return repeats


def _merge(repeats: dict[Operation, Operation]) -> None:
    """Replace each repeat by the op it repeats, erasing it and any constant only
    it read."""
    for op, earlier in repeats.items():
        for new, old in zip(earlier.results, op.results, strict=True):
            old.replace_all_uses_with(new)
        operands = [o.owner for o in op.operands]
        Rewriter.erase_op(op)
        for owner in operands:
            if isinstance(owner, arith.ConstantOp) and not owner.result.uses:
                Rewriter.erase_op(owner)


def _loop_cost(
    loop: scf.ForOp, scheduler: Scheduler, without: Collection[Operation] = ()
) -> tuple[int, ...]:
    """What the loop's body costs as a kernel (`Schedule.cost`), its ops
    `without` aside."""
    return _loop_schedule(loop, scheduler, without).cost(trip_count(loop))


def _loop_schedule(
    loop: scf.ForOp, scheduler: Scheduler, without: Collection[Operation] = ()
) -> Schedule:
    """The schedule of the loop's body as a kernel, its ops `without` aside."""
    block = loop.body.block
    terminator = block.last_op
    assert terminator is not None
    ops = list(block.ops)[:-1]
    if without:
        aside = {id(op) for op in without}
        ops = [op for op in ops if id(op) not in aside]
    carried = list(zip(block.args[1:], terminator.operands, strict=False))
    return scheduler.schedule(ops, carried, trips=trip_count(loop))


def _merge_where_no_slower(loop: scf.ForOp, scheduler: Scheduler) -> Schedule | None:
    """
    Compute an integer op of the loop's body once where the body repeats it
    (`_equal_index_ops`: common subexpression elimination, Cocke, SIGPLAN
    Notices 5(7), 1970, within the block), if the kernel's schedule is then no
    slower. The passes before build their index arithmetic access by access, so
    some of it is computed twice: a REV tile's mirrored row `n - 1 - i` beside
    the same index of an adjoint array, each group of a tile of several its own
    `i * stride`. A copy takes a PE slot and may lengthen a recurrence through
    memory (fdtd-2d's REV update of `hz`: `ii` 9 with it, 8 without); a shared
    value, read by two ops, may cost a hop to the second one's PE and lengthen
    the schedule (conv2d's FWD loop, 13 -> 14 cycles). The body is scheduled
    both ways and merged where that costs no more: merged, its ops but the
    repeats, with their uses reading the ops they repeat for the trial and
    given back after it (a fully unrolled body is not copied to try). Returns
    the body's schedule where it stays as it was (the kernel's), else None.
    """
    repeats = _equal_index_ops(loop.body.block)
    if not repeats:
        return None
    trips = trip_count(loop)
    kept = _loop_schedule(loop, scheduler)
    moved = _rewire(repeats)
    try:
        merged = _loop_cost(loop, scheduler, without=repeats.keys())
    finally:  # the uses are given back whatever the trial raises
        _give_back(moved)
    if merged <= kept.cost(trips):
        _merge(repeats)
        return None
    return kept


Moved = list[tuple[SSAValue, list[tuple[Operation, int]]]]
"""Each value whose uses were rewired, with those uses (op, operand position) in
the order the value listed them."""


def _rewire(repeats: dict[Operation, Operation]) -> Moved:
    """Let the uses of each repeat's results read the results of the op it
    repeats (as `_merge`, but the repeats stay and no name moves)."""
    moved: Moved = []
    for op, earlier in repeats.items():
        for new, old in zip(earlier.results, op.results, strict=True):
            uses = [(use.operation, use.index) for use in old.uses]
            for user, position in uses:
                user.operands[position] = new
            moved.append((old, uses))
    return moved


def _give_back(moved: Moved) -> None:
    """Undo `_rewire`: each use reads its value again, and each value lists its
    uses in the order it did (a use is listed first when made, so they are made
    again last to first)."""
    for old, uses in reversed(moved):
        for user, position in reversed(uses):
            user.operands[position] = old


def _in_innermost_loop(op: Operation) -> bool:
    """`op` sits in the body of a loop with no loop inside it."""
    parent = op.parent_op()
    return isinstance(parent, scf.ForOp) and not any(
        isinstance(o, scf.ForOp) for o in walk_ops(parent.body)
    )


def _attached(op: Operation, function: Operation) -> bool:
    """`op` is still in `function` (not inside an op erased before it)."""
    parent = op.parent_op()
    while parent is not None and parent is not function:
        parent = parent.parent_op()
    return parent is function


@dataclass(frozen=True)
class TapeflowToCgraPass(HardwareOptions, ModulePass):
    """Place and schedule every plain innermost loop body on the PE grid."""

    name = "tapeflow-to-cgra"

    stats: bool = False
    """Print, per gradient function, the kernels made and their ii to stderr."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for report in lower_module(op, self.hardware()):
            if self.stats:
                print(f"{PASS}: {report.summary()}", file=sys.stderr)
