"""
`tapeflow-to-cgra{preset=Enzyme32k rows=4 cols=4 fadd=5 ...}`: place and schedule
loop bodies on the PE grid of the given hardware.

Every innermost `scf.for` whose body is plain dataflow -- arithmetic, math, and
memory accesses through the cache (memrefs, array-of-structs regions) or the
scratchpad (tiles bound by `tapeflow-spad-bind`) -- becomes a `cgra.kernel` that
the loop iterates. Each op of the body is placed on a PE and given an issue cycle
by modulo list scheduling:

- an op is ready when its operands have been computed (the producer's latency,
  `targets.hardware.Latencies`) and routed over the mesh (one cycle per hop,
  Manhattan distance between the PEs);
- it takes the PE that can issue it earliest, with each PE issuing one op per
  cycle modulo the initiation interval `ii`; the cache accepts `ports` and the
  scratchpad `banks` accesses per cycle (modulo `ii`);
- `ii` starts at the resource bound (ops / PEs, cache accesses / ports,
  scratchpad accesses / banks) and grows until the schedule fits and every
  loop-carried value (an `iter_args` recurrence, or a store to a buffer the body
  also loads, unless both use the same iteration-dependent indices) reaches its
  next-iteration consumer in time.

Loop-invariant constants are hoisted out of the body first. Bodies with nested
regions (`scf.if`, inner loops, layers) or calls stay as they are; the simulator
charges them op by op. A layer whose body holds no loop (a piece of an iteration
that `tapeflow-layers` cut because the iteration's tape exceeds the scratchpad)
has its runs of placeable ops scheduled the same way, each moved into a
`cgra.kernel` that runs once where the run was, its results the values the rest
of the layer uses. Loads and stores name their path: `cache` for buffers and
regions, `spad` (with the slot) for scratchpad tiles. Scheduling is a whole-body
algorithm; once a body is scheduled, it moves into a `cgra.kernel` and each of its
ops becomes its placed form (`cgra.op`, `cgra.load`, `cgra.store`) by a rewrite
pattern.

The hardware is the pass's options: every number the scheduler and the cost model
(`targets.costs.op_latency`) read -- the grid, the FU latencies, the operand
network's hop, the cache's hit latency and ports, the scratchpad's latency and
banks -- defaults from the named `preset` (`targets.hardware.PRESETS`) and can be
set one by one. The simulator passes its hardware's values, so the schedule is
for the hardware it simulates. The pass runs at any stage of the lowering, once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref, scf
from xdsl.dialects.builtin import DictionaryAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, Use
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.gradients import require_gradients
from lowering.ir.locations import located
from lowering.ir.stages import is_placed
from tapeflow_dialects import cgra, layer, region, stream
from tapeflow_dialects.cgra import MemPath, MemPathAttr, i64_attr, opcode_attr
from tapeflow_dialects.container_ops import SlotAccess
from targets.costs import op_latency
from targets.hardware import PRESETS, Hardware

PASS = "tapeflow-to-cgra"

_UNREACHED = -(2**40)
"""A path length no path has: the table entry of an op a source does not reach
(latency sums stay far below 2**40, so it stays negative)."""

_TABLE_ENTRIES = 1 << 20
"""Entries of the recurrence bound's (op x source) table per batch of sources."""

def _placeable(op: Operation) -> bool:
    if op.regions:
        return False
    if isinstance(op, memref.LoadOp | memref.StoreOp | region.LoadOp | region.StoreOp):
        return True
    if isinstance(op, stream.LoadOp | stream.StoreOp | scf.YieldOp):
        return True
    return op.dialect_name() in ("arith", "math")


def _memory_kind(op: Operation) -> str | None:
    if isinstance(op, stream.LoadOp | stream.StoreOp):
        return "spad"
    if isinstance(op, memref.LoadOp | memref.StoreOp | region.LoadOp | region.StoreOp):
        return "cache"
    return None


def _buffer(op: Operation) -> SSAValue | None:
    """The buffer, region or tile a memory op accesses."""
    if isinstance(op, memref.LoadOp | region.LoadOp | stream.LoadOp):
        return op.operands[0]
    if isinstance(op, memref.StoreOp | region.StoreOp | stream.StoreOp):
        return op.operands[1]
    return None


def _is_store(op: Operation) -> bool:
    return isinstance(op, memref.StoreOp | region.StoreOp | stream.StoreOp)


@dataclass
class KernelRecord:
    ident: int
    ops: int
    ii: int
    length: int
    straight_line: bool = False
    """A layer's straight-line dataflow, run once each time the layer runs."""


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
            text += f", {straight} straight-line layer kernels"
        return text + f", {self.unmapped_loops} loops left unmapped"


@dataclass
class _Schedule:
    ii: int
    place: dict[Operation, tuple[int, int, int]]
    """op -> (row, col, cycle)."""
    length: int


class _Scheduler:
    def __init__(self, hardware: Hardware):
        self.hw = hardware
        self.pes = [(r, c) for r in range(hardware.rows) for c in range(hardware.cols)]
        hop = hardware.latencies.hop
        self.hops = [
            [hop * (abs(r - r2) + abs(c - c2)) for r2, c2 in self.pes] for r, c in self.pes
        ]
        """Routing cycles from each PE to each other (Manhattan distance times the hop)."""

    def schedule(self, ops: list[Operation], carried: list[tuple[SSAValue, SSAValue]]) -> _Schedule:
        pes = len(self.pes)
        cache_ops = sum(1 for o in ops if _memory_kind(o) == "cache")
        spad_ops = sum(1 for o in ops if _memory_kind(o) == "spad")
        ii = max(
            1,
            -(-len(ops) // pes),
            -(-cache_ops // self.hw.cache.ports),
            -(-spad_ops // max(self.hw.scratchpad.banks, 1)),
            self._recurrence_mii(ops, carried),
        )
        body = _Body.of(ops, self.hw)
        while True:
            result = self._fixed_point(body, ii, carried)
            if result is not None:
                return result
            ii += max(1, ii // 8)

    def _recurrence_mii(self, ops: list[Operation], carried: list[tuple[SSAValue, SSAValue]]) -> int:
        """
        The recurrence bound on ii: for every loop-carried edge from `p` (this
        iteration) to `c` (the next), the longest latency path from `c` to `p`
        within an iteration plus `p`'s latency. Routing is not counted here; the
        scheduler adds it.

        Edges run forward in program order, so the longest paths from every source
        `c` are one pass over the body; the sources go through it together, a batch
        at a time, as the columns of a (op x source) table.
        """
        index = {op: n for n, op in enumerate(ops)}
        preds: list[list[tuple[int, int]]] = [[] for _ in ops]
        last_store: dict[SSAValue, int] = {}
        last_load: dict[SSAValue, int] = {}
        for n, op in enumerate(ops):
            for v in op.operands:
                producer = v.owner
                if isinstance(producer, Operation) and producer in index:
                    preds[n].append((index[producer], op_latency(producer, self.hw)))
            buffer = _buffer(op)
            if buffer is not None:
                if buffer in last_store:
                    preds[n].append((last_store[buffer], 1))
                if _is_store(op) and buffer in last_load:
                    preds[n].append((last_load[buffer], 0))
                (last_store if _is_store(op) else last_load)[buffer] = n
        # Per source `c`: the producers `p` its back edges come from, and the
        # extras. A producer before its consumer is not reached from it within an
        # iteration, so only those at or after it count.
        back: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}

        def edges_to(c: int, ps: np.ndarray, extras: np.ndarray) -> None:
            after = ps >= c
            if after.any():
                back.setdefault(c, []).append((ps[after], extras[after]))

        for block_arg, yielded in carried:
            producer = yielded.owner
            if isinstance(producer, Operation) and producer in index:
                p = np.array([index[producer]])
                extra = np.array([op_latency(producer, self.hw)])
                for use in block_arg.uses:
                    if use.operation in index:
                        edges_to(index[use.operation], p, extra)
        memory = _carried_memory(ops)
        positions = {
            buffer: np.array([index[s] for s in stores]) for buffer, stores in memory.stores.items()
        }
        for load, (buffer, excluded) in memory.loads.items():
            ps = positions[buffer]
            if excluded:
                ps = ps[~np.isin(ps, [index[s] for s in excluded])]
            edges_to(index[load], ps, np.ones_like(ps))
        if not back:
            return 1
        targets = {
            c: (np.concatenate([p for p, _ in edges]), np.concatenate([e for _, e in edges]))
            for c, edges in back.items()
        }
        pulls = [
            (np.array([m for m, _ in edges]), np.array([w for _, w in edges])[:, None])
            if edges else None
            for edges in preds
        ]
        sources = sorted(targets)
        bound = 1
        start = 0
        while start < len(sources):
            lo = sources[start]
            # As many sources as keep the table near a million entries.
            hi = max(int(targets[sources[start]][0].max()), lo)
            stop = start + 1
            while stop < len(sources):
                reach = max(hi, int(targets[sources[stop]][0].max()))
                if (reach - lo + 1) * (stop - start + 1) > _TABLE_ENTRIES:
                    break
                hi, stop = reach, stop + 1
            batch = sources[start:stop]
            table = np.full((hi - lo + 1, len(batch)), _UNREACHED, dtype=np.int64)
            column = {c: k for k, c in enumerate(batch)}
            for n in range(lo, hi + 1):
                pull = pulls[n]
                if pull is not None:
                    m, w = pull
                    inside = m >= lo
                    if inside.all():
                        table[n - lo] = (table[m - lo] + w).max(axis=0)
                    elif inside.any():
                        table[n - lo] = (table[m[inside] - lo] + w[inside]).max(axis=0)
                if n in column:
                    table[n - lo, column[n]] = 0
            for c in batch:
                p, extra = targets[c]
                lengths = table[p - lo, column[c]]
                reached = lengths >= 0
                if reached.any():
                    bound = max(bound, int((lengths[reached] + extra[reached]).max()))
            start = stop
        return bound

    def _fixed_point(
        self, body: _Body, ii: int, carried: list[tuple[SSAValue, SSAValue]]
    ) -> _Schedule | None:
        """
        A schedule at `ii` that respects the loop-carried dependences, or None.

        A consumer of a carried value in iteration i+1 issues `ii` cycles after the
        same consumer in iteration i, so it must not issue before the value's
        producer (in iteration i) finishes, minus `ii`. Those lower bounds depend
        on the schedule itself: schedule, raise the bounds, and repeat until
        nothing moves. If a bound keeps growing, a recurrence is longer than `ii`.
        """
        earliest: dict[Operation, int] = {}
        for _ in range(8):
            result = self._try(body, ii, earliest)
            if result is None:
                return None
            moved = False
            for op, bound in self._carried_bounds(body.ops, result, carried).items():
                if bound > earliest.get(op, 0):
                    earliest[op] = bound
                    moved = True
            if not moved:
                return result
        return None

    def _carried_bounds(
        self, ops: list[Operation], s: _Schedule, carried: list[tuple[SSAValue, SSAValue]]
    ) -> dict[Operation, int]:
        bounds: dict[Operation, int] = {}

        def need(op: Operation, cycle: int) -> None:
            bounds[op] = max(bounds.get(op, 0), cycle)

        for block_arg, yielded in carried:
            producer = yielded.owner
            if not (isinstance(producer, Operation) and producer in s.place):
                continue
            done = s.place[producer][2] + op_latency(producer, self.hw)
            for use in block_arg.uses:
                if use.operation in s.place:
                    need(use.operation, done - s.ii)
        # A store to a buffer the body also loads may feed the next iteration's load.
        memory = _carried_memory(ops)
        latest = {
            buffer: sorted(stores, key=lambda store: -s.place[store][2])
            for buffer, stores in memory.stores.items()
        }
        for load, (buffer, excluded) in memory.loads.items():
            store = next((st for st in latest[buffer] if st not in excluded), None)
            if store is not None:
                need(load, s.place[store][2] + 1 - s.ii)
        return bounds

    def _try(self, body: _Body, ii: int, earliest: dict[Operation, int]) -> _Schedule | None:
        pes = self.pes
        hops = self.hops
        free = [_FreeSlots(ii) for _ in pes]
        """Per PE, the modulo slots not yet taken."""
        port_free = {"cache": _FreeSlots(ii), "spad": _FreeSlots(ii)}
        """Per memory kind, the modulo slots whose ports are not all taken."""
        ports: dict[tuple[str, int], int] = {}
        limits = {"cache": self.hw.cache.ports, "spad": max(self.hw.scratchpad.banks, 1)}
        where = [0] * len(body.ops)
        """Per op (by position), its PE's index in `pes`."""
        finish = [0] * len(body.ops)
        """Per op, the cycle its result is computed."""
        place: dict[Operation, tuple[int, int, int]] = {}
        length = 0
        # Program order between accesses of one buffer within an iteration.
        last_store: dict[SSAValue, int] = {}
        last_load: dict[SSAValue, int] = {}
        for n, op in enumerate(body.ops):
            kind = body.kinds[n]
            buffer = body.buffers[n]
            floor = earliest.get(op, 0)
            if buffer is not None:
                if body.stores[n]:
                    floor = max(floor, last_store.get(buffer, -1) + 1, last_load.get(buffer, -1))
                else:
                    floor = max(floor, last_store.get(buffer, -1) + 1)
            inputs = [(finish[m], hops[where[m]]) for m in body.inputs[n]]
            # No PE issues before its operands are computed: at that cycle the
            # search can stop (a later PE could only tie, and ties keep the first).
            soonest = max([floor, *(done for done, _ in inputs)])
            access = port_free[kind] if kind is not None else None
            best_pe = -1
            best = 0
            for pe, slots in enumerate(free):
                ready = floor
                for done, distance in inputs:
                    if done + distance[pe] > ready:
                        ready = done + distance[pe]
                if best_pe >= 0 and ready >= best:
                    continue  # it could issue no earlier than the best so far
                # The first cycle from `ready` whose slot is free on this PE and
                # (for an access) has a port left, found by skipping taken slots;
                # only an earlier cycle than the best so far wins (ties keep the
                # first PE). The same schedule as scanning cycle by cycle, in
                # nearly linear time on a wide body's long ii.
                start = ready % ii
                slot = slots.find(start)
                if access is not None:
                    while True:
                        with_port = access.find(slot)
                        if with_port == slot:
                            break
                        slot = slots.find(with_port)
                if slot >= start + ii:
                    continue
                t = ready + slot - start
                if best_pe < 0 or t < best:
                    best_pe, best = pe, t
                    if t == soonest:
                        break
            if best_pe < 0:
                return None
            t = best
            free[best_pe].take(t % ii)
            if kind is not None:
                ports[(kind, t % ii)] = ports.get((kind, t % ii), 0) + 1
                if ports[(kind, t % ii)] >= limits[kind]:
                    port_free[kind].take(t % ii)
            place[op] = (*pes[best_pe], t)
            if buffer is not None:
                table = last_store if body.stores[n] else last_load
                table[buffer] = max(table.get(buffer, -1), t)
            where[n] = best_pe
            finish[n] = t + body.latencies[n]
            length = max(length, finish[n])
        return _Schedule(ii, place, length)


@dataclass
class _Body:
    """A loop body as the scheduler reads it, op by op (by position in `ops`)."""

    ops: list[Operation]
    kinds: list[str | None]
    """The memory an access goes through ('cache', 'spad'), None for compute."""
    buffers: list[SSAValue | None]
    stores: list[bool]
    latencies: list[int]
    inputs: list[list[int]]
    """The positions of the ops in the body whose results the op reads."""

    @staticmethod
    def of(ops: list[Operation], hardware: Hardware) -> _Body:
        index = {op: n for n, op in enumerate(ops)}
        return _Body(
            ops,
            [_memory_kind(op) for op in ops],
            [_buffer(op) for op in ops],
            [_is_store(op) for op in ops],
            [op_latency(op, hardware) for op in ops],
            [
                [index[v.owner] for v in op.operands if v.owner in index]  # type: ignore[index]
                for op in ops
            ],
        )


class _FreeSlots:
    """The free slots of a modulo reservation table of `ii` slots. Positions run
    over two turns (position p is slot p mod ii) so that a search from any slot
    wraps around once; `find(p)` is the first free position at or after p (2*ii
    when none), by path-compressed skipping of taken ones."""

    def __init__(self, ii: int):
        self.ii = ii
        self.next = list(range(2 * ii + 1))

    def find(self, position: int) -> int:
        nxt = self.next
        root = position
        while nxt[root] != root:
            root = nxt[root]
        while nxt[position] != root:
            nxt[position], position = root, nxt[position]
        return root

    def take(self, slot: int) -> None:
        self.next[slot] = slot + 1
        self.next[slot + self.ii] = slot + self.ii + 1


@dataclass
class _CarriedMemory:
    """The stores through which one iteration may feed the next's loads: for each
    load of a buffer the body also stores to, that buffer's stores (in body order)
    but those at the load's own element (`excluded`)."""

    stores: dict[SSAValue, list[Operation]]
    """Buffer -> the stores to it, in body order."""
    loads: dict[Operation, tuple[SSAValue, frozenset[Operation]]]
    """Load -> (its buffer, the buffer's stores it does not depend on across iterations)."""


_CARRIED_MEMORY: dict[int, tuple[list[Operation], _CarriedMemory]] = {}


def _carried_memory(ops: list[Operation]) -> _CarriedMemory:
    """The loads of `ops` that a store of an earlier iteration may feed: a store
    to the buffer a load reads, not at the load's own element. Computed once per
    body (the scheduler asks at every ii and fixed-point step)."""
    cached = _CARRIED_MEMORY.get(id(ops))
    if cached is not None and cached[0] is ops:
        return cached[1]
    stores: dict[SSAValue, list[Operation]] = {}
    at: dict[tuple[SSAValue, tuple[SSAValue, ...]], list[Operation]] = {}
    for op in ops:
        if isinstance(op, memref.StoreOp | region.StoreOp):
            stores.setdefault(op.operands[1], []).append(op)
            at.setdefault((op.operands[1], tuple(op.operands[2:])), []).append(op)
    loads: dict[Operation, tuple[SSAValue, frozenset[Operation]]] = {}
    for op in ops:
        if isinstance(op, memref.LoadOp | region.LoadOp) and op.operands[0] in stores:
            buffer = op.operands[0]
            same = at.get((buffer, tuple(op.operands[1:])), ())
            loads[op] = (buffer, frozenset(s for s in same if _same_iteration_element(op, s)))
    found = _CarriedMemory(stores, loads)
    _CARRIED_MEMORY.clear()
    _CARRIED_MEMORY[id(ops)] = (ops, found)
    return found


def _same_iteration_element(load: Operation, store: Operation) -> bool:
    """Both touch the same element, chosen by the iteration: no carried dependence."""
    load_idx = list(load.operands[1:])
    store_idx = list(store.operands[2:])
    if load_idx != store_idx:
        return False
    if isinstance(load, region.LoadOp) and isinstance(store, region.StoreOp):
        if load.slot != store.slot:
            return True
    return bool(load_idx)


class PlaceLoad(RewritePattern):
    """A scheduled load -> `cgra.load` at its PE and cycle, through the cache
    (buffers, regions) or the scratchpad (tiles, with the slot)."""

    def __init__(self, schedule: _Schedule):
        self.schedule = schedule

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: memref.LoadOp | region.LoadOp | stream.LoadOp, rewriter: PatternRewriter
    ) -> None:
        new = cgra.LoadOp.create(
            operands=list(op.operands),  # the buffer, then its indices
            result_types=[op.results[0].type],
            properties=_props(_path(op), *_where(self.schedule, op), _slot(op)),
        )
        rewriter.replace(op, located(new, op))


class PlaceStore(RewritePattern):
    """A scheduled store -> `cgra.store` at its PE and cycle."""

    def __init__(self, schedule: _Schedule):
        self.schedule = schedule

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: memref.StoreOp | region.StoreOp | stream.StoreOp, rewriter: PatternRewriter
    ) -> None:
        new = cgra.StoreOp.create(
            operands=list(op.operands),  # the value, the buffer, then its indices
            properties=_props(_path(op), *_where(self.schedule, op), _slot(op)),
        )
        rewriter.replace(op, located(new, op))


class PlaceCompute(RewritePattern):
    """A scheduled arith or math op -> `cgra.op "<name>"` at its PE and cycle, with
    the op's properties and attributes."""

    def __init__(self, schedule: _Schedule):
        self.schedule = schedule

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op not in self.schedule.place or _memory_kind(op) is not None:
            return
        properties = _props(None, *_where(self.schedule, op))
        properties["opcode"] = opcode_attr(op.name)
        attrs: dict[str, Attribute] = {**op.properties, **op.attributes}
        if attrs:
            properties["attrs"] = _dictionary(tuple(attrs.items()))
        # `create`: the properties are made here, with no per-op checks to repeat
        # on a fully unrolled body's tens of thousands of ops (the module is
        # verified after the pass).
        new = cgra.ComputeOp.create(
            operands=list(op.operands),
            result_types=[r.type for r in op.results],
            properties=properties,
        )
        rewriter.replace(op, located(new, op))


@cache
def _dictionary(items: tuple[tuple[str, Attribute], ...]) -> DictionaryAttr:
    return DictionaryAttr(dict(items))


def _where(schedule: _Schedule, op: Operation) -> tuple[tuple[int, int], int]:
    row, col, cycle = schedule.place[op]
    return (row, col), cycle


def _path(op: Operation) -> MemPath:
    return MemPath.SPAD if _memory_kind(op) == "spad" else MemPath.CACHE


def _slot(op: Operation) -> int | None:
    return op.slot_index if isinstance(op, SlotAccess) else None


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


def _hoist_constants(loop: scf.ForOp) -> None:
    for op in list(loop.body.block.ops):
        if isinstance(op, arith.ConstantOp):
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(loop))


def _kernelize(loop: scf.ForOp, ident: int, scheduler: _Scheduler) -> KernelRecord:
    """Schedule the loop's body, move it into a `cgra.kernel` the loop iterates,
    and place each of its ops."""
    _hoist_constants(loop)
    block = loop.body.block
    body_ops = list(block.ops)
    terminator = body_ops[-1]
    assert isinstance(terminator, scf.YieldOp)
    ops = body_ops[:-1]
    carried = list(zip(block.args[1:], terminator.operands))
    schedule = scheduler.schedule(ops, carried)
    kernel = _make_kernel(
        ops, list(terminator.operands), ident, scheduler, schedule, InsertPoint.before(terminator)
    )
    terminator.operands = list(kernel.results)
    return KernelRecord(ident, len(ops), schedule.ii, schedule.length)


def _straight_runs(block: Block) -> list[list[Operation]]:
    """The maximal runs of placeable ops in a layer's body that hold no loop:
    each holds at least two ops other than constants (one op gains nothing from
    the grid). A layer whose body holds a loop (a strip-mined tile loop) keeps
    the loop as its kernel."""
    if any(isinstance(op, scf.ForOp) for op in block.walk()):
        return []
    runs: list[list[Operation]] = [[]]
    for op in list(block.ops)[:-1]:
        if isinstance(op, arith.ConstantOp):
            continue  # hoisted before the run that uses it
        if _placeable(op):
            runs[-1].append(op)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if len(run) >= 2]


def _kernelize_run(run: list[Operation], ident: int, scheduler: _Scheduler) -> KernelRecord:
    """Schedule a straight-line run of a layer's body and move it into a
    `cgra.kernel` that runs once where the run was: a CGRA maps a layer's
    dataflow graph onto the grid whether or not a loop iterates it (the paper's
    Section V). Values the run defines and later ops use become the kernel's
    results."""
    block = run[0].parent_block()
    assert block is not None
    members = set(run)
    for op in list(block.ops):
        if isinstance(op, arith.ConstantOp) and any(u.operation in members for r in op.results for u in r.uses):
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(run[0]))
    escaping = [
        r for op in run for r in op.results if any(u.operation not in members for u in r.uses)
    ]
    schedule = scheduler.schedule(run, [])
    _make_kernel(
        run, escaping, ident, scheduler, schedule, InsertPoint.before(run[0]),
        lambda use: use.operation not in members,
    )
    return KernelRecord(ident, len(run), schedule.ii, schedule.length, straight_line=True)


def _make_kernel(
    ops: list[Operation],
    results: list[SSAValue],
    ident: int,
    scheduler: _Scheduler,
    schedule: _Schedule,
    at: InsertPoint,
    rewired: Callable[[Use], bool] | None = None,
) -> cgra.KernelOp:
    """Move `ops` into a new `cgra.kernel` inserted at `at` that yields `results`;
    the uses of `results` that `rewired` picks (if given) read the kernel's
    results instead. Then each op becomes its placed form."""
    block = Block()
    kernel = cgra.KernelOp(
        ident, (scheduler.hw.rows, scheduler.hw.cols), schedule.ii, Region(block),
        [v.type for v in results],
    )
    Rewriter.insert_op(kernel, at)
    for op in ops:
        op.detach()
        block.add_op(op)
    if rewired is not None:  # before the yield exists, which keeps reading `results`
        for value, result in zip(results, kernel.results, strict=True):
            value.replace_uses_with_if(result, rewired)
    block.add_op(cgra.YieldOp(results))
    _place(kernel, schedule)
    return kernel


def _place(kernel: cgra.KernelOp, schedule: _Schedule) -> None:
    """Each scheduled op of `kernel` becomes its placed form."""
    patterns = [PlaceLoad(schedule), PlaceStore(schedule), PlaceCompute(schedule)]
    PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns, dce_enabled=False), apply_recursively=False
    ).rewrite_region(kernel.body)


def lower_module(module: builtin.ModuleOp, hardware: Hardware) -> list[CgraReport]:
    """Place and schedule the plain innermost loops of every gradient function."""
    reports = []
    scheduler = _Scheduler(hardware)
    gradients = require_gradients(module, PASS)
    for function in gradients:
        if is_placed(function):
            raise PassFailedException(
                f"{PASS}: @{function.sym_name.data} is already placed on the CGRA (it "
                "holds cgra.kernel ops); the pass runs once, after the lowering"
            )
    for function in gradients:
        report = CgraReport(function.sym_name.data)
        loops = [
            op
            for op in function.walk()
            if isinstance(op, scf.ForOp)
            and not any(isinstance(o, scf.ForOp) for o in op.body.walk())
        ]
        for loop in loops:
            if all(_placeable(o) for o in loop.body.block.ops):
                report.kernels.append(_kernelize(loop, len(report.kernels), scheduler))
            else:
                report.unmapped_loops += 1
        layers = [op for op in function.walk() if isinstance(op, layer.LayerOp)]
        for each in layers:
            for run in _straight_runs(each.body.block):
                report.kernels.append(_kernelize_run(run, len(report.kernels), scheduler))
        reports.append(report)
    return reports


HARDWARE_OPTIONS: dict[str, tuple[str, ...]] = {
    "rows": ("rows",),
    "cols": ("cols",),
    "fadd": ("latencies", "fadd"),
    "fmul": ("latencies", "fmul"),
    "fdiv": ("latencies", "fdiv"),
    "sqrt": ("latencies", "sqrt"),
    "transcendental": ("latencies", "transcendental"),
    "integer": ("latencies", "integer"),
    "hop": ("latencies", "hop"),
    "cache_hit_latency": ("cache", "hit_latency"),
    "cache_ports": ("cache", "ports"),
    "spad_latency": ("scratchpad", "latency"),
    "spad_banks": ("scratchpad", "banks"),
}
"""Each hardware option of `tapeflow-to-cgra` -> the `Hardware` field it sets: every
number the scheduler and `targets.costs.op_latency` read."""

MAX_GRID_SIDE = 64
"""The largest grid side scheduled: 64x64 = 4096 PEs, far beyond any CGRA studied,
and still a schedule of seconds. Larger grids are refused, not attempted (the
scheduler tries every PE for every op)."""

MAX_OPTION_VALUE = 1_000_000
"""The largest latency, port or bank count accepted (a million cycles is a typo)."""


def hardware_options(hardware: Hardware) -> dict[str, int]:
    """The values of `hardware` for every hardware option, by option name."""
    values = {}
    for option, path in HARDWARE_OPTIONS.items():
        value: object = hardware
        for name in path:
            value = getattr(value, name)
        assert isinstance(value, int)
        values[option] = value
    return values


def _with(base: object, path: tuple[str, ...], value: int) -> object:
    if len(path) == 1:
        return replace(base, **{path[0]: value})  # type: ignore[type-var]
    inner = _with(getattr(base, path[0]), path[1:], value)
    return replace(base, **{path[0]: inner})  # type: ignore[type-var]


def scheduling_hardware(
    preset: str, overrides: dict[str, int | None], pass_name: str = PASS
) -> Hardware:
    """The preset's hardware with the given options changed, each checked: at least
    1, and the grid no larger than `MAX_GRID_SIDE` a side. Errors name `pass_name`
    and the option."""
    if preset not in PRESETS:
        raise PassFailedException(
            f"{pass_name}: unknown hardware preset '{preset}' (option preset); choose from "
            f"{', '.join(PRESETS)}"
        )
    hardware = PRESETS[preset]
    for option, value in overrides.items():
        if value is None:
            continue
        spelled = option.replace("_", "-")
        if value < 1:
            raise PassFailedException(
                f"{pass_name}: option {spelled} must be at least 1, got {value}"
            )
        limit = MAX_GRID_SIDE if option in ("rows", "cols") else MAX_OPTION_VALUE
        if value > limit:
            raise PassFailedException(
                f"{pass_name}: option {spelled}={value} is over the limit of {limit}"
                + (
                    f" PEs a side (a {MAX_GRID_SIDE}x{MAX_GRID_SIDE} grid at most)"
                    if option in ("rows", "cols")
                    else ""
                )
            )
        hardware = _with(hardware, HARDWARE_OPTIONS[option], value)  # type: ignore[assignment]
    return hardware


DEFAULT_PRESET = "Enzyme32k"


@dataclass(frozen=True)
class HardwareOptions:
    """The hardware options of `tapeflow-to-cgra` (and of `tapeflow-variant`, which
    hands them on): a preset, and any value of it to change."""

    preset: str = DEFAULT_PRESET
    """The hardware preset the options below default from (`targets.hardware.PRESETS`)."""
    rows: int | None = None
    """PE grid rows (at most 64)."""
    cols: int | None = None
    """PE grid columns (at most 64)."""
    fadd: int | None = None
    """Cycles of fadd/fsub, float compares and min/max."""
    fmul: int | None = None
    fdiv: int | None = None
    sqrt: int | None = None
    transcendental: int | None = None
    """Cycles of exp, log, sin, cos, tanh, pow."""
    integer: int | None = None
    """Cycles of index and integer arithmetic, selects, casts."""
    hop: int | None = None
    """Cycles per hop of the operand network."""
    cache_hit_latency: int | None = None
    cache_ports: int | None = None
    """Cache accesses per cycle."""
    spad_latency: int | None = None
    spad_banks: int | None = None
    """Scratchpad accesses per cycle."""

    def hardware(self) -> Hardware:
        """The hardware the options describe (checked)."""
        return scheduling_hardware(
            self.preset,
            {option: getattr(self, option) for option in HARDWARE_OPTIONS},
            getattr(self, "name", PASS),
        )

    def hardware_spec(self) -> dict[str, object]:
        """The options given (the preset unless it is the default), by name."""
        given: dict[str, object] = {}
        if self.preset != DEFAULT_PRESET:
            given["preset"] = self.preset
        given.update(
            (option, getattr(self, option))
            for option in HARDWARE_OPTIONS
            if getattr(self, option) is not None
        )
        return given


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
