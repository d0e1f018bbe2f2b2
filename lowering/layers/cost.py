"""
The cost model of `tapeflow-layers{stream=auto}`: per loop nest (the regions that
share its layers), whether streaming its tape through the scratchpad saves at
least the cycles it adds; if not, the nest's regions are kept in DRAM, read through
the cache as the aos variant reads them. Estimates in cycles, from the machine's own
numbers (`StreamMachine`, the fields of `targets.hardware.Hardware` the timing
models charge; each mechanism and its source: docs/research/stream-cost.md).

* Saved (`saved_cycles`), an upper bound: each window (a run of an innermost
  loop, or of a run of straight-line ops of a loop body, between its inner
  loops: each such run is a kernel of its own, `_segments`) is charged as the
  `cgra` model charges a kernel loop, max(compute, memory), with and without the
  tape, per trip count of its runs (`trip_runs`). Compute is bounded below by the
  loop's recurrences; memory is the misses in groups of `mshrs`, `dram_latency`
  a group, plus the hits over the `ports`. The primal misses a line per line of
  elements an access touches once or reuses past the cache (its reuse distance),
  and a line an iteration where the line the next iteration reads again is
  evicted from its set by the lines the rest of the iteration maps there
  (conflict misses, `AccessReuse.conflicts`: the cache's sets and ways, and
  where the buffers sit, `buffer_base`, `buffer_alignment`); a tape line
  misses in FWD and in REV unless the tape (a triangle's by its entries) and
  arrays fit the cache; where those of static size do not, each cache's worth
  of tape lines may evict every reused line once more (LRU). And
  the pipeline fills of runs chained as tiles of one loop (`continued_fills`).
* Added (`added_cycles`), from the layered IR: kernels run once, each its longest
  chain of integer ops at `integer` each: a layer's tile bounds, row count and
  groups' first rows (`_tile_chain`), a run-time tile loop's trip count and
  REV's first tile end (its own ops, once per run, not the loop's own bounds);
  a piece of straight-line stores (its cut kernel, its stream op), `integer` + 1
  a kernel, and the misses of the parts it cuts, its own loads one of them
  (`_cut_misses`, conflicts counted); the REV layers' waits
  for their preloads (`preload_waits`); where a loop's iteration stores more
  than a layer holds, cut into pieces, the overlap of its iterations (`CutLoops`);
  and where the nest's layers stand between the runs of another nest's tile loop,
  the chains of tiles they break, each run restarting its pipeline and waiting
  for its cold lines (`CutLoops.broken`, `restart_cycles`).

Trip counts: the loops' constants, or counted over the outer iterations of a
triangular nest (`nest_runs`, `trip_runs`); a nest of run-time ones is streamed,
unless it is one loop cut into pieces, priced an iteration (`CutLoops.iteration`:
its fills against the windows' rule for an iteration, `saved_cycles`'s
`per_iteration`), or pieces between another nest's tiles, priced an iteration
of their loops the same way (`CutLoops.breaks`: its restarts)."""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum, auto
from math import ceil, gcd, prod

import numpy as np
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue

from lowering.enzyme.caches import reverse_sweep_start
from lowering.ir.index_eval import CannotEvaluate, IndexEvaluator
from lowering.ir.index_offsets import LinearForms
from lowering.ir.loops import constant_value, enclosing_loops, trip_count
from lowering.ir.ragged import known_entries
from lowering.ir.walk import walk_ops
from lowering.layers.layout import tile_layout
from lowering.layers.records import CARRIED_BOUNDS, ROWS_PER_ITERATION
from lowering.scheduling.body import LoopBody, placeable
from lowering.scheduling.recurrence import iteration_edges, recurrence_mii
from lowering.scheduling.scheduler import Scheduler
from tapeflow_dialects import layer, region
from tapeflow_dialects.layer import ENTRY_BYTES, Phase
from targets.hardware import CacheConfig, DramConfig, Hardware, Latencies

STREAM_CHOICES = ("auto", "always")
"""`tapeflow-layers`'s `stream` option: decide per nest by the cost model, or
stream every nest that can be layered (the paper's Pass 2)."""


_CACHE, _DRAM, _LATENCIES = CacheConfig(), DramConfig(), Latencies()
_HARDWARE = Hardware("default")
_PLACEMENT = _HARDWARE.placement

STREAM_SLAB_ALIGNMENT = 4096
"""A streamed tape's slab starts a page of the simulated DRAM (`sim.trace.PAGE`),
and the buffers placed after it at the next page."""


@dataclass(frozen=True)
class StreamMachine:
    """The machine numbers the cost model reads; defaults: `targets.hardware`'s
    (the cache's `CacheConfig`, the DRAM's `DramConfig`, the buffers' placement
    `PlacementConfig`, the mapping's `MappingConfig`)."""

    cache_bytes: int = _CACHE.size_bytes
    cache_line_bytes: int = _CACHE.line_bytes
    cache_ways: int = _CACHE.assoc
    """Lines a set holds (`CacheConfig.assoc`): the cache's sets are its lines
    over its ways (`CacheConfig.sets`)."""
    cache_mshrs: int = _CACHE.mshrs
    cache_ports: int = _CACHE.ports
    dram_latency: int = _DRAM.latency_cycles
    integer: int = _LATENCIES.integer
    dram_bytes_per_cycle: float = _HARDWARE.dram_bytes_per_cycle
    """The stream's transfer rate (`Hardware.dram_bytes_per_cycle`)."""
    runahead: bool = _HARDWARE.mapping.runahead
    """A REV stream is issued as soon as its tile's entries are free (`mapping.runahead`)."""
    buffer_base: int = _PLACEMENT.base
    """Where the first buffer sits (`PlacementConfig.base`)."""
    buffer_alignment: int = _PLACEMENT.alignment
    """Each buffer starts at a multiple of this (`PlacementConfig.alignment`)."""
    buffers_packed: bool = not _PLACEMENT.heap
    """Buffers are packed one after another from `buffer_base` in the order they
    are first touched (`PlacementConfig.heap` 0), not at a program's own
    addresses."""

    @property
    def cache_sets(self) -> int:
        return max(1, self.cache_bytes // (self.cache_line_bytes * max(1, self.cache_ways)))


def static_bytes(value: SSAValue) -> int:
    typ = value.type
    if isinstance(typ, region.RegionType) and typ.is_static():
        return typ.size_bytes()
    if isinstance(typ, builtin.MemRefType) and all(d >= 0 for d in typ.get_shape()):
        return prod(typ.get_shape()) * ENTRY_BYTES
    return 0


def footprint(
    function: func.FuncOp, arrays: bool = True, regions: bool = True, triangles: bool = False
) -> int:
    """Bytes of the function's arrays (arguments and allocations) and regions of
    static shape, and with `triangles` those whose ragged extents are functions of
    their outer indices alone, by their entries (`lowering.ir.ragged.known_entries`)."""
    kinds = (memref.AllocOp,) * arrays + (region.AllocOp,) * regions
    values = [*function.body.block.args] if arrays else []
    values += [r for op in walk_ops(function) if isinstance(op, kinds) for r in op.results]
    return sum(static_bytes(v) or triangles * _triangle_bytes(v) for v in values)


def _triangle_bytes(value: SSAValue) -> int:
    """Bytes of a region whose ragged extents are functions of its outer indices
    alone: its entries' structs (0 for any other value)."""
    typ = value.type
    if not isinstance(typ, region.RegionType) or not isinstance(value, OpResult):
        return 0
    entries = known_entries(value.op)
    return 0 if entries is None else entries * typ.struct_bytes()


ENUMERATED_POINTS = 1 << 16
"""The most outer iterations `nest_runs` visits to count a triangular nest's."""


class _RunTime(Exception):
    """A trip count depends on what only the run knows."""


def nest_runs(loops: Sequence[scf.ForOp]) -> int | None:
    """The times the body of the innermost of `loops` (outermost first) runs: the
    product of constant trip counts, or, where a bound is computed from outer
    loops' indices (a triangular nest), the sum over those outer iterations;
    None if a bound depends on anything else, or the outer iterations to visit
    are too many (`ENUMERATED_POINTS`)."""
    counted = _count(loops)
    return None if counted is None else counted.total


def loop_extents(loops: Sequence[scf.ForOp]) -> list[int] | None:
    """Each of `loops`' largest trip count over the iterations of the loops around
    it (its constant trip count where it has one); None as for `nest_runs`."""
    counted = _count(loops)
    return None if counted is None else counted.extents


def trip_runs(loops: Sequence[scf.ForOp]) -> dict[int, int] | None:
    """The runs of the innermost of `loops` (outermost first) per trip count: one
    trip count for a nest of constant trip counts, each one the outer iterations
    give it in a triangular nest (lu's `k < j` loop runs 0, 1, ..., 31 trips);
    None as for `nest_runs`."""
    counted = _count(loops)
    return None if counted is None else counted.runs


@dataclass
class _Counted:
    total: int
    extents: list[int]
    runs: dict[int, int]
    """Runs of the innermost loop per trip count."""


def _count(loops: Sequence[scf.ForOp]) -> _Counted | None:
    """`nest_runs`, `loop_extents` and `trip_runs` of `loops`, by one visit of the
    outer iterations whose inner bounds depend on them."""
    budget = [ENUMERATED_POINTS]
    counted = _Counted(0, [0] * len(loops), {})

    def tally(trips: int, runs: int) -> None:
        if runs:
            counted.runs[trips] = counted.runs.get(trips, 0) + runs

    def count(depth: int, given: dict[SSAValue, int]) -> int:
        if depth == len(loops):
            return 1
        loop = loops[depth]
        try:
            lb, ub, step = (
                int(IndexEvaluator((), given).value(v)) for v in (loop.lb, loop.ub, loop.step)
            )
        except CannotEvaluate:
            raise _RunTime from None
        if step <= 0:
            raise _RunTime
        trips = max(0, -(-(ub - lb) // step))
        extents = counted.extents
        extents[depth] = max(extents[depth], trips)
        inner = [trip_count(each) for each in loops[depth + 1 :]]
        if all(t is not None for t in inner):
            constant = [t or 0 for t in inner]
            for k, t in enumerate(constant, depth + 1):
                extents[k] = max(extents[k], t)
            if constant:
                tally(constant[-1], trips * prod(constant[:-1]))
            else:
                tally(trips, 1)
            return trips * prod(constant)
        budget[0] -= trips
        if budget[0] < 0:
            raise _RunTime
        iv = loop.body.block.args[0]
        return sum(count(depth + 1, {**given, iv: lb + k * step}) for k in range(trips))

    try:
        counted.total = count(0, {})
    except _RunTime:
        return None
    return counted


def _window(access: Operation, function: func.FuncOp) -> tuple[Block, dict[int, int]] | None:
    """The window `access` runs in: its block and its runs per iterations of a run
    (the trip counts of an innermost loop, each as often as the loops around it
    give it, `trip_runs`; else one iteration a run, `nest_runs` of the loops
    around it); None if a trip count is known only at run time."""
    block = access.parent_block()
    owner = block.parent_op() if block is not None else None
    while isinstance(owner, scf.IfOp):
        block = owner.parent_block()
        owner = block.parent_op() if block is not None else None
    assert block is not None
    counted = _count(enclosing_loops(access, function))
    if counted is None:
        return None
    innermost = isinstance(owner, scf.ForOp) and not any(
        isinstance(o, scf.ForOp) for o in walk_ops(owner.body)
    )
    return block, counted.runs if innermost else {1: counted.total}


def _in_window(block: Block | Sequence[Operation]) -> list[Operation]:
    """The ops of a window's block (or of a run of its ops), looking through
    branches, not loops."""
    found: list[Operation] = []
    for op in block.ops if isinstance(block, Block) else block:
        found.append(op)
        if isinstance(op, scf.IfOp):
            for body in op.regions:
                for inner in body.blocks:
                    found += _in_window(inner)
    return found


def _holds_loop(op: Operation) -> bool:
    """`op` is a loop or holds one (a branch around a loop)."""
    return isinstance(op, scf.ForOp) or (
        bool(op.regions) and any(isinstance(o, scf.ForOp) for o in walk_ops(op))
    )


def _segments(block: Block) -> dict[Operation, tuple[Operation, ...]]:
    """The straight-line runs of `block`'s ops between the ops that hold loops,
    by each op of a run: `tapeflow-to-cgra` places each run as a kernel of its
    own (the ops before an inner loop, those between two, those after the last),
    so the misses of one run share no group with another's."""
    found: dict[Operation, tuple[Operation, ...]] = {}
    run: list[Operation] = []
    for op in [*block.ops, None]:
        if op is None or _holds_loop(op):
            segment = tuple(run)
            for o in run:
                found[o] = segment
            run = []
        else:
            run.append(op)
    return found


def saved_cycles(
    function: func.FuncOp,
    regions: set[SSAValue],
    machine: StreamMachine,
    accesses: AccessReuse | None = None,
    per_iteration: Collection[scf.ForOp] | None = None,
) -> float | None:
    """At most the cycles streaming `regions` saves (None: run-time trip counts).
    `accesses`: what is known of `function`'s accesses from an earlier call
    (`AccessReuse`; the cost model asks per nest and per machine).

    With `per_iteration` (loops of `function` whose bodies hold every tape access
    of `regions`, as in a nest of run-time trip counts cut into pieces,
    `CutLoops.iteration`): at most what streaming saves per iteration of those
    loops (one FWD and one REV iteration), by the same rule: a loop of constant
    trip count its run's saving over its iterations, one of run-time trip count
    an iteration of a long run (`_Window.saved`); a region of run-time size taken
    not to fit the cache (REV reads its lines again after the whole FWD tape);
    its eviction term an iteration's share (the iteration's tape bytes over the
    cache's). None if a tape access sits in no such loop's body."""
    accesses = accesses or AccessReuse(function)
    assert accesses.function is function
    arrays = accesses.footprint(regions=False)
    arrays_fit = arrays <= machine.cache_bytes
    fits = arrays + accesses.footprint(arrays=False) <= machine.cache_bytes
    # REV reads a tape line again after the whole FWD tape has passed through the
    # cache: they miss where arrays and tape, triangles included, exceed it.
    rev_hits = arrays + accesses.footprint(arrays=False, triangles=True) <= machine.cache_bytes
    if per_iteration is not None and any(
        not static_bytes(r) and not _triangle_bytes(r) for r in regions
    ):
        fits = rev_hits = False  # a tape that grows with the run
    windows: dict[Block | tuple[Operation, ...], dict[int | None, float]] = {}
    # An access's window depends only on the block it sits in: one per block (a
    # fully unrolled body holds thousands of accesses in one block). Beside inner
    # loops, the window is the straight-line run of the block's ops the access
    # sits in (`_segments`): each run is a kernel of its own.
    seen: dict[Block | None, tuple[Block, dict[int | None, float]] | None] = {}
    runs_of: dict[Block, dict[Operation, tuple[Operation, ...]] | None] = {}
    for op in walk_ops(function):
        if isinstance(op, region.StoreOp | region.LoadOp) and op.region in regions:
            block = op.parent_block()
            if block not in seen:
                seen[block] = (
                    _window(op, function)
                    if per_iteration is None
                    else _iteration_window(op, per_iteration)
                )
            window = seen[block]
            if window is None:
                return None
            within = window[0]
            if within not in runs_of:
                runs_of[within] = (
                    _segments(within) if any(_holds_loop(o) for o in within.ops) else None
                )
            segments = runs_of[within]
            if segments is None:
                windows[within] = window[1]
            else:
                top = op
                while top.parent_block() is not within:
                    top = top.parent_op()  # type: ignore[assignment]
                # (a branch that holds a loop: its own straight-line ops)
                windows[segments.get(top, (top,))] = window[1]
    # Where the tape does not fit beside the arrays, it pushes reused lines out of
    # the (LRU) cache: a reused line is evicted at most once more per cache's worth
    # of tape lines passing, and missed again in a group of its own; in FWD and REV.
    reused_arrays: set[SSAValue] = set()
    for o in walk_ops(function):
        if (
            isinstance(o, memref.LoadOp | memref.StoreOp)
            and o.memref not in reused_arrays
            and accesses.reused(o)
        ):
            reused_arrays.add(o.memref)
    line = machine.cache_line_bytes
    cache_lines = machine.cache_bytes // line
    reused_lines = min(cache_lines, -(-sum(static_bytes(a) for a in reused_arrays) // line))
    if per_iteration is None:
        passes: float = -(-sum(static_bytes(r) for r in regions) // (cache_lines * line))
    else:  # an iteration's tape bytes, a share of a cache's worth
        entries = sum(
            isinstance(o, region.StoreOp) and o.region in regions
            for block in windows
            for o in _in_window(block)
        )
        passes = entries * ENTRY_BYTES / machine.cache_bytes
    saved = 0.0 if fits else 2.0 * passes * reused_lines * machine.dram_latency
    for block, runs in windows.items():
        ops = _in_window(block)
        tape = [
            o for o in ops if isinstance(o, region.StoreOp | region.LoadOp) and o.region in regions
        ]
        primal = [o for o in ops if isinstance(o, memref.LoadOp | memref.StoreOp)]
        # Primal misses per iteration: none if the arrays stay in the cache, else
        # the lines an access touches once or reuses past the cache (its reuse
        # distance), one per iteration where its stride spans a line.
        primal_lines = (
            0.0
            if arrays_fit
            else sum(accesses.lines(o, line, machine.cache_bytes, machine) for o in primal)
        )
        stored = sum(isinstance(o, region.StoreOp) or not rev_hits for o in tape)
        looped = any(n is None or n > 1 for n in runs)
        # (a run of ops beside inner loops runs once: never looped)
        intervals = (
            _intervals(block, tape, machine) if isinstance(block, Block) and looped else (0, 0)
        )
        window = _Window(len(primal), len(tape), primal_lines, stored, *intervals)
        # Each trip count apart (a triangular nest's runs, `trip_runs`): max(compute,
        # memory) is convex in the iterations, so at the mean trip count the short
        # runs' misses would hide under the long runs' compute.
        for iterations, count in runs.items():
            saved += count * window.saved(iterations, machine)
    return saved


@dataclass(frozen=True)
class _Window:
    """What `saved_cycles` reads of a window: an iteration's primal accesses, tape
    accesses, primal lines missed, tape accesses that miss (stores, and loads
    where REV's reads miss), and its initiation intervals kept and streamed
    (`_intervals`)."""

    primal: int
    tape: int
    primal_lines: float
    stored: int
    kept_ii: int
    streamed_ii: int

    def saved(self, iterations: int | None, machine: StreamMachine) -> float:
        """What streaming saves in a run of `iterations`; None: per iteration of
        a run whose length is known only at run time, as a long run gives it
        (its misses fill their groups of `mshrs`: no rounding)."""
        line, mshrs, ports = machine.cache_line_bytes, machine.cache_mshrs, machine.cache_ports
        # The `cgra` model's rule for a kernel loop: max(compute, memory), memory
        # the misses in groups of `mshrs`, each the DRAM latency, plus the hits
        # over the ports. Compute is an iteration's initiation interval as the
        # scheduler places the body with the tape in the cache and in the
        # scratchpad (`_intervals`); memory time under it is hidden with the tape
        # or without.
        n = 1 if iterations is None else iterations
        missing = self.stored * n * ENTRY_BYTES / line
        primal_misses = n * self.primal_lines
        if iterations is None:
            after = primal_misses / mshrs * machine.dram_latency
            before = (primal_misses + missing) / mshrs * machine.dram_latency
        else:
            after = _groups(primal_misses, 0.0, mshrs) * machine.dram_latency
            before = _groups(primal_misses, missing, mshrs) * machine.dram_latency
        after += (self.primal * n - primal_misses) / ports
        before += ((self.primal + self.tape) * n - primal_misses - missing) / ports
        kept = n * self.kept_ii if iterations is None or n > 1 else 0.0
        streamed = n * self.streamed_ii if iterations is None or n > 1 else 0.0
        return max(before, kept) - max(after, streamed)


def _iteration_window(
    access: Operation, loops: Collection[scf.ForOp]
) -> tuple[Block, dict[int | None, float]] | None:
    """The window `access` runs in, per iteration of the loop of `loops` whose
    body it sits in (looking through branches): that body, and its run's share
    of an iteration (one run of the loop's constant trip count, over it; or an
    iteration of a run of run-time length, None); None if it is in no such body."""
    block = access.parent_block()
    owner = block.parent_op() if block is not None else None
    while isinstance(owner, scf.IfOp):
        block = owner.parent_block()
        owner = block.parent_op() if block is not None else None
    if block is None or not isinstance(owner, scf.ForOp) or owner not in loops:
        return None
    if any(isinstance(o, scf.ForOp) for o in walk_ops(owner.body)):
        # Straight-line ops beside inner loops: no kernel loop runs the body, its
        # misses wait one iteration at a time (`_window`: a run of one iteration).
        return block, {1: 1.0}
    trips = trip_count(owner)
    if trips is None:
        return block, {None: 1.0}
    return block, {trips: 1.0 / trips} if trips else {}


def _intervals(block: Block, tape: Sequence[Operation], machine: StreamMachine) -> tuple[int, int]:
    """The initiation intervals of the innermost loop whose body is `block`, with
    the `tape` accesses through the cache (kept) and through the scratchpad
    (streamed), as the `cgra` scheduler places them
    (`lowering.scheduling.scheduler`: a FWD tile's scratchpad stores may go
    last, where they take the slots the recurrences leave; kept, they take cache
    ports in program order); 0 for both if the body holds ops the scheduler does
    not place (branches). The machine's integer latency and cache ports, the
    other numbers `targets.hardware`'s (its PE grid among them)."""
    ops = list(block.ops)[:-1]
    terminator = block.last_op
    if not isinstance(terminator, scf.YieldOp) or not all(placeable(op) for op in ops):
        return 0, 0
    hardware = _latencies_of(machine)
    hardware = replace(hardware, cache=replace(hardware.cache, ports=machine.cache_ports))
    scheduler = Scheduler(hardware)
    carried = list(zip(block.args[1:], terminator.operands, strict=False))
    kept = scheduler.schedule(ops, carried).ii
    streamed = scheduler.schedule(ops, carried, spad=frozenset(tape)).ii
    return kept, streamed


def _recurrence(block: Block, machine: StreamMachine, body: LoopBody | None = None) -> int:
    """The recurrence bound on the initiation interval of the innermost loop whose
    body is `block` (`lowering.scheduling.recurrence`, the scheduler's own, with the
    machine's integer latency and the other latencies `targets.hardware`'s); 0 if
    the body holds ops the scheduler does not place (branches). `body`: the
    block's ops as `LoopBody.of` reads them on that machine, if read already."""
    ops = list(block.ops)[:-1]
    terminator = block.last_op
    if not isinstance(terminator, scf.YieldOp) or not all(placeable(op) for op in ops):
        return 0
    hardware = _latencies_of(machine)
    carried = list(zip(block.args[1:], terminator.operands, strict=False))
    return recurrence_mii(body or LoopBody.of(ops, hardware), carried, hardware)


class AccessReuse:
    """Per memref access of one function, whether it may touch an element again
    (`reused`) and the cache lines it misses per iteration (`lines`), each worked
    out once, with the extents of each loop nest: a fully unrolled body holds
    thousands of accesses under one nest, and the cost model asks of each per
    nest and per machine. So are the function's footprints (`footprint`)."""

    def __init__(self, function: func.FuncOp, source: AccessReuse | None = None) -> None:
        self.function = function
        self.source = source
        """Where `function` is a layered copy: what is known of the function it
        was layered from, whose loops' iterations `conflicts` enumerates (a tile
        loop's bounds are carried from tile to tile, not evaluated)."""
        self._originals: dict[Operation, Operation] | None = None
        self._extents: dict[tuple[scf.ForOp, ...], list[int] | None] = {}
        self._nests: dict[Operation, tuple[tuple[scf.ForOp, ...], dict[SSAValue, int] | None]] = {}
        self._affine_memos: dict[tuple[scf.ForOp, ...], _AffineMemo] = {}
        """Per nest, `_affine`'s and `_loop_indices`' answers for its loops' indices."""
        self._reused: dict[Operation, bool] = {}
        self._footprints: dict[tuple[bool, bool, bool], int] = {}
        self._distances: dict[tuple[scf.ForOp, int], float] = {}
        self._by_form: (
            dict[tuple[SSAValue, tuple[object, ...]], list[memref.LoadOp | memref.StoreOp]] | None
        ) = None
        self._forms: dict[Operation, tuple[object, ...]] = {}
        self._linear = LinearForms()
        self._touched: dict[tuple[Operation, int, int], bool] = {}
        self._places: dict[Block, dict[Operation, int]] = {}
        self._runs: dict[tuple[scf.ForOp, ...], int | None] = {}
        self._conflicts: dict[tuple[Operation, StreamMachine], float] = {}
        self._granules: dict[tuple[int, int, int], int] = {}
        self._lines: dict[tuple[scf.ForOp, tuple[tuple[int, int], ...], int], dict | None] = {}
        self._evaluators: dict[tuple[tuple[SSAValue, int], ...], IndexEvaluator] = {}

    def footprint(self, arrays: bool = True, regions: bool = True, triangles: bool = False) -> int:
        """`footprint` of the function (worked out once per choice of arguments)."""
        key = (arrays, regions, triangles)
        found = self._footprints.get(key)
        if found is None:
            found = self._footprints[key] = footprint(self.function, arrays, regions, triangles)
        return found

    def _nest(
        self, access: memref.LoadOp | memref.StoreOp
    ) -> tuple[tuple[scf.ForOp, ...], dict[SSAValue, int] | None]:
        """The loops around `access` and its element's coefficients (`_element`)."""
        found = self._nests.get(access)
        if found is None:
            loops = enclosing_loops(access, self.function)
            memo = self._affine_memos.get(loops)
            if memo is None:  # shared by the accesses of one nest: their index arithmetic is
                memo = self._affine_memos[loops] = ({}, {})
            found = loops, _element(access, {loop.body.block.args[0] for loop in loops}, memo)
            self._nests[access] = found
        return found

    def reused(self, access: memref.LoadOp | memref.StoreOp) -> bool:
        """The access may touch an element again: an index of a loop around it is
        in none of its indices (the element is reused across that loop), or its
        row-major element is not one-to-one in the loops' indices (a stencil's
        `y + ky`: neighbouring iterations share elements; `i * 256 + j` with `j`
        under 256 is one-to-one: for two loops, exactly, else by the coefficients
        sorted by size, each beyond the span of the smaller ones). Where the
        element is not an affine function of the loop indices with constant
        coefficients, an index combining two loops' indices is taken as reuse."""
        known = self._reused.get(access)
        if known is None:
            loops, coefficients = self._nest(access)
            if loops not in self._extents:
                self._extents[loops] = loop_extents(loops)
            known = _reused(access, loops, coefficients, self._extents[loops])
            self._reused[access] = known
        return known

    def lines(
        self,
        access: memref.LoadOp | memref.StoreOp,
        line: int,
        cache_bytes: int,
        machine: StreamMachine | None = None,
    ) -> float:
        """The cache lines `access` misses per iteration of the loop around it, in a
        cache of `cache_bytes` with lines of `line` bytes, if it touches each
        element once, or reuses elements across a loop one of whose iterations
        touches at least the cache's lines (`reuse_distance`: LRU evicts a line
        before its next use); none if it reuses them within the cache. Its stride
        over that loop in bytes per line, at most one (an element in a line of its
        own each iteration, a column of a row-major matrix), a line where it is
        reused across that loop itself; a line per line of elements where the
        stride is not known. With `machine` (its sets and ways, `conflicts`): an
        access whose next iteration reads the same line again misses it in the
        iterations where the lines between the two uses fill its set."""
        if self.touched_before(access, line, cache_bytes):
            return 0.0
        reused = self.reused(access)
        if reused and self.reuse_distance(access, line) < cache_bytes // line:
            return 0.0
        loops, coefficients = self._nest(access)
        if coefficients is None or not loops:
            return ENTRY_BYTES / line
        stride = abs(coefficients.get(loops[-1].body.block.args[0], 0)) * ENTRY_BYTES
        if reused and stride == 0:
            return 1.0  # reused across the loop itself, evicted in each of its iterations
        share = min(1.0, stride / line)
        if machine is not None and not reused and 0 < stride < line:
            share += (1.0 - share) * self.conflicts(access, machine)
        return share

    def conflicts(self, access: memref.LoadOp | memref.StoreOp, machine: StreamMachine) -> float:
        """The share of the iterations of the loop around `access` in which its
        line, which the next iteration reads again (a stride under a line), is
        evicted by the lines that map to its set, not by the cache's capacity:
        conflict misses (Hill and Smith, IEEE Trans. Computers 38(12), 1989).
        Between the two uses, one iteration of that loop's body runs: the lines
        it touches (`_iteration_lines`) that fall in the access's set are, where
        they are at least the set's ways, enough for LRU to evict the access's
        line. A line's set is its line number modulo the cache's sets; each
        buffer's base is known modulo `granule` lines only (`_granule`: whatever
        order the buffers are first touched in), so a buffer's lines count at
        the placement that puts fewest in the set (a lower bound); the access's
        own buffer, whose base is its own, counts exactly. Worked out at the
        iterations over which the access's line stays (`line / stride`), the
        loops around it at their first iteration; 0 where the placement, a bound
        or an index is not known."""
        key = (access, machine)
        found = self._conflicts.get(key)
        if found is None:
            if self.source is None:
                found = self._conflicts_of(access, machine)
            else:
                original = self._original(access)
                found = 0.0 if original is None else self.source.conflicts(original, machine)
            self._conflicts[key] = found
        return found

    def _original(self, access: memref.LoadOp | memref.StoreOp) -> Operation | None:
        """The access of `source`'s function that `access` of the layered copy
        was cloned from: the accesses in program order, where the two functions
        hold the same sequence of them (op, buffer by argument or allocation,
        indices); else None for all."""
        assert self.source is not None
        if self._originals is None:
            mine, theirs = _buffer_accesses(self.function), _buffer_accesses(self.source.function)
            same = len(mine) == len(theirs) and all(
                a[1:] == b[1:] for a, b in zip(mine, theirs, strict=True)
            )
            self._originals = (
                {a[0]: b[0] for a, b in zip(mine, theirs, strict=True)} if same else {}
            )
        return self._originals.get(access)

    def _conflicts_of(
        self, access: memref.LoadOp | memref.StoreOp, machine: StreamMachine
    ) -> float:
        loops, _ = self._nest(access)
        granule = self._granule(machine)
        if not loops or not granule:
            return 0.0
        carrier = loops[-1]
        line, sets, ways = machine.cache_line_bytes, machine.cache_sets, machine.cache_ways
        bounds = [static_bounds_of(loop) for loop in loops]
        stride = self._stride(access, carrier)
        if not stride or any(b is None for b in bounds):
            return 0.0
        given = {loop.body.block.args[0]: b[0] for loop, b in zip(loops, bounds, strict=True)}  # type: ignore[index]
        lb, ub, step = bounds[-1]  # type: ignore[misc]
        samples = [lb + k * step for k in range(max(1, line // (stride * step)))]
        samples = [i for i in samples if i < ub]
        evicted = 0
        for i in samples:
            at = {**given, carrier.body.block.args[0]: i}
            mine = _byte_offset(access, at, self._evaluator(at))
            touched = self._iteration_lines(carrier, at, line)
            if mine is None or touched is None:
                return 0.0
            mine //= line
            pressure = 0
            for buffer, lines in touched.items():
                if buffer is access.memref:
                    pressure += sum(1 for n in lines if n != mine and (n - mine) % sets == 0)
                    continue
                # Its base is the access's buffer's plus a multiple of `granule`
                # lines (modulo the sets): the fewest lines any such shift puts
                # in the access's set.
                counts = [0] * sets
                for n in lines:
                    counts[(n - mine) % sets] += 1
                pressure += min(counts[(-shift) % sets] for shift in range(0, sets, granule))
            evicted += pressure >= ways
        return evicted / len(samples) if samples else 0.0

    def _iteration_lines(
        self, carrier: scf.ForOp, given: dict[SSAValue, int], line: int
    ) -> dict[SSAValue, set[int]] | None:
        """The lines, counted from each buffer's base, that one iteration of
        `carrier` (its index and the loops around it `given`) touches, by
        buffer: the accesses of its body, and through its inner loops (their
        bounds evaluated at each of their outer iterations, up to
        `ENUMERATED_POINTS` of them); None where an index or a bound cannot be
        evaluated, or the iteration's runs are too many."""
        key = (carrier, tuple(sorted((id(v), n) for v, n in given.items())), line)
        if key in self._lines:
            return self._lines[key]
        found: dict[SSAValue, set[int]] | None = {}
        budget = [ENUMERATED_POINTS]

        def visit(block: Block, at: dict[SSAValue, int]) -> bool:
            assert found is not None
            evaluator = self._evaluator(at)
            for op in block.ops:
                if isinstance(op, memref.LoadOp | memref.StoreOp):
                    offset = _byte_offset(op, at, evaluator)
                    if offset is None:
                        return False
                    found.setdefault(op.memref, set()).add(offset // line)
                elif isinstance(op, scf.ForOp):
                    try:
                        lb, ub, step = (int(evaluator.value(v)) for v in (op.lb, op.ub, op.step))
                    except CannotEvaluate:
                        return False
                    if step <= 0:
                        return False
                    trips = range(lb, ub, step)
                    budget[0] -= len(trips)
                    if budget[0] < 0:
                        return False
                    iv = op.body.block.args[0]
                    if trips and not any(isinstance(o, scf.ForOp) for o in walk_ops(op.body)):
                        if walk(op, iv, trips, at):
                            continue
                    if not all(visit(op.body.block, {**at, iv: k}) for k in trips):
                        return False
                else:
                    for body in op.regions:  # a branch: either side may run
                        for inner in body.blocks:
                            if not visit(inner, at):
                                return False
            return True

        def walk(loop: scf.ForOp, iv: SSAValue, trips: range, at: dict[SSAValue, int]) -> bool:
            """An innermost loop's accesses at once, each an affine walk from its
            first iteration's element (False, nothing recorded: one is not)."""
            assert found is not None
            walks: list[tuple[SSAValue, np.ndarray]] = []
            steps = np.arange(len(trips), dtype=np.int64) * trips.step
            start = {**at, iv: trips.start}
            evaluator = self._evaluator(start)
            for op in walk_ops(loop.body):
                if not isinstance(op, memref.LoadOp | memref.StoreOp):
                    continue
                coefficients = self._nest(op)[1]
                first = _byte_offset(op, start, evaluator)
                if coefficients is None or first is None:
                    return False
                stride = coefficients.get(iv, 0) * ENTRY_BYTES
                walks.append((op.memref, (first + stride * steps) // line))
            for buffer, lines in walks:
                found.setdefault(buffer, set()).update(lines.tolist())
            return True

        if not visit(carrier.body.block, given):
            found = None
        self._lines[key] = found
        return found

    def _evaluator(self, given: dict[SSAValue, int]) -> IndexEvaluator:
        """An `IndexEvaluator` of the values `given` (loop indices at one
        iteration), shared by the accesses evaluated there: a fully unrolled
        body's accesses share their index arithmetic."""
        key = tuple(given.items())
        found = self._evaluators.get(key)
        if found is None:
            found = self._evaluators[key] = IndexEvaluator((), given)
        return found

    def _stride(self, access: memref.LoadOp | memref.StoreOp, loop: scf.ForOp) -> int:
        """Bytes `access` moves per unit of `loop`'s index (0 if not affine)."""
        _, coefficients = self._nest(access)
        if coefficients is None:
            return 0
        return abs(coefficients.get(loop.body.block.args[0], 0)) * ENTRY_BYTES

    def _granule(self, machine: StreamMachine) -> int:
        """The lines, a power of two up to the cache's sets, modulo which every
        buffer the function touches starts at the same line, whatever order they
        are first touched in (0 if none is known: buffers at a program's own
        addresses, a size known only at run time, buffers that do not start on
        a line): the largest that divides the first buffer's base, each
        buffer's size rounded up to the placement's alignment, and a streamed
        slab's page (`STREAM_SLAB_ALIGNMENT`)."""
        key = (machine.buffer_base, machine.buffer_alignment, machine.cache_line_bytes)
        found = self._granules.get(key)
        if found is not None:
            return found
        line, align = machine.cache_line_bytes, machine.buffer_alignment
        found = 0
        if machine.buffers_packed and align % line == 0 and machine.buffer_base % line == 0:
            values = [
                v
                for v in self.function.body.block.args
                if isinstance(v.type, builtin.MemRefType | region.RegionType)
            ] + [
                r
                for op in walk_ops(self.function)
                if isinstance(op, memref.AllocOp | memref.AllocaOp | region.AllocOp)
                for r in op.results
            ]
            sizes = [static_bytes(v) for v in values]
            if all(sizes):
                common = gcd(machine.buffer_base // line, STREAM_SLAB_ALIGNMENT // line)
                for size in sizes:
                    common = gcd(common, -(-size // align) * align // line)
                found = 1
                while found * 2 <= machine.cache_sets and common % (found * 2) == 0:
                    found *= 2
        self._granules[key] = found
        return found

    def touched_before(
        self, access: memref.LoadOp | memref.StoreOp, line: int, cache_bytes: int
    ) -> bool:
        """Every element `access` touches was touched earlier in the same iteration
        of a loop around it, by an access of the same buffer in an earlier loop of
        that iteration's body (group reuse between sibling loops, Wolf and Lam,
        PLDI 1991): PolyBench's atax reads row `A[i]` in its first inner loop and
        again in its second. The earlier access `other` runs unconditionally in
        each iteration of the innermost loop `c` around both, its loops below `c`
        have the bounds of `access`'s (the same values, or equal constants), and
        each index of the two is the same linear form (`_form`) with `other`'s
        loop indices below `c` read as `access`'s. Between the two uses, at most
        one iteration of `c` passes (`_carrier_lines`, the tape left out as in
        `reuse_distance`): the access hits where those lines fit the cache."""
        key = (access, line, cache_bytes)
        found = self._touched.get(key)
        if found is None:
            found = self._touched[key] = self._group_reuse(access, line, cache_bytes)
        return found

    def _group_reuse(
        self, access: memref.LoadOp | memref.StoreOp, line: int, cache_bytes: int
    ) -> bool:
        if self._by_form is None:
            # By buffer and element form (`_form`): a fully unrolled body holds
            # thousands of accesses of one buffer, in hundreds of loops.
            self._by_form = {}
            for op in walk_ops(self.function):
                if isinstance(op, memref.LoadOp | memref.StoreOp):
                    self._by_form.setdefault((op.memref, self._form(op)), []).append(op)
        loops, _ = self._nest(access)
        for other in self._by_form.get((access.memref, self._form(access)), []):
            theirs, _ = self._nest(other)
            if len(theirs) != len(loops) or theirs == loops:
                continue
            depth = 0
            while depth < len(loops) and loops[depth] is theirs[depth]:
                depth += 1
            if not depth or not self._sibling_loops(loops, theirs, depth):
                continue
            if not all(isinstance(o, scf.ForOp) for o in _parents(other, loops[depth - 1])):
                continue
            if self.carrier_lines(loops[depth - 1], line) < cache_bytes // line:
                return True
        return False

    def _form(self, access: memref.LoadOp | memref.StoreOp) -> tuple[object, ...]:
        """Each index of `access` as a linear form (`LinearForms`), a loop index
        named by its depth among the loops around the access: two accesses of the
        same form under the same outer loops touch the same element where the
        loops below those have the same bounds. A value the forms do not see
        through is a term of its own, so that only the same value matches it."""
        found = self._forms.get(access)
        if found is None:
            loops, _ = self._nest(access)
            level = {loop.body.block.args[0]: n for n, loop in enumerate(loops)}
            indices = []
            for index in access.indices:
                terms, constant = self._linear.form(index)
                named = sorted(
                    (("level", level[t]) if t in level else ("value", id(t)), c) for t, c in terms
                )
                indices.append((tuple(named), constant))
            found = self._forms[access] = tuple(indices)
        return found

    def _sibling_loops(
        self, loops: tuple[scf.ForOp, ...], theirs: tuple[scf.ForOp, ...], depth: int
    ) -> bool:
        """The loops `theirs` below the first `depth` (those around both) run
        before `loops`' in each iteration of the innermost common loop, with no
        branch around them, over the same bounds."""
        carrier = loops[depth - 1]
        block = carrier.body.block
        places = self._places.get(block)
        if places is None:
            places = self._places[block] = {op: n for n, op in enumerate(block.ops)}
        first, their_first = loops[depth], theirs[depth]
        if first.parent_block() is not block or their_first.parent_block() is not block:
            return False
        if places[their_first] >= places[first]:
            return False
        return all(
            _same_bound(a, b)
            for x, y in zip(loops[depth:], theirs[depth:], strict=True)
            for a, b in ((x.lb, y.lb), (x.ub, y.ub), (x.step, y.step))
        )

    def carrier_lines(self, carrier: scf.ForOp, line: int) -> float:
        """`_carrier_lines`, worked out once per loop and line size."""
        key = (carrier, line)
        found = self._distances.get(key)
        if found is None:
            found = self._distances[key] = self._carrier_lines(carrier, line)
        return found

    def reuse_distance(self, access: memref.LoadOp | memref.StoreOp, line: int) -> float:
        """The cache lines the function's arrays touch between two uses of an
        element `access` reuses (an LRU stack distance, Mattson et al., IBM Systems
        Journal 9(2), 1970): those of one iteration of the innermost loop around it
        whose index is in none of its indices (`_carrier_lines`); 0 where every
        loop's index is (a stencil's neighbouring iterations share elements: taken
        as hits). The tape is left out: it passes through the cache only where it
        is kept, and what it pushes out there is the eviction term's."""
        loops, coefficients = self._nest(access)
        if coefficients is not None:
            absent = [loop for loop in loops if coefficients.get(loop.body.block.args[0], 0) == 0]
        else:
            ivs = {loop.body.block.args[0] for loop in loops}
            used = set().union(*(_loop_indices(i, ivs) for i in access.indices))
            absent = [loop for loop in loops if loop.body.block.args[0] not in used]
        if not absent:
            return 0.0
        return self.carrier_lines(absent[-1], line)

    def _nest_runs(self, loops: tuple[scf.ForOp, ...]) -> int | None:
        """`nest_runs(loops)`, worked out once per nest (an iteration of a fully
        unrolled nest holds thousands of accesses under the same loops)."""
        if loops in self._runs:
            return self._runs[loops]
        found = self._runs[loops] = nest_runs(loops)
        return found

    def _carrier_lines(self, carrier: scf.ForOp, line: int) -> float:
        """Cache lines one iteration of `carrier` touches (on average over a
        triangular nest's iterations; unbounded where a trip count is known only at
        run time): per array accessed in it, at most its lines; per access, its
        runs in the iteration times its lines per run of its innermost loop (that
        loop's trip count times its stride in lines, at most one a step; one line a
        run if the loop's index is in none of its indices; one line for an access
        in the iteration's own block)."""
        per = nest_runs((*enclosing_loops(carrier, self.function), carrier))
        if not per:
            return 0.0 if per == 0 else float("inf")
        touched: dict[SSAValue, float] = {}
        for op in walk_ops(carrier.body):
            if not isinstance(op, memref.LoadOp | memref.StoreOp):
                continue
            loops, coefficients = self._nest(op)
            runs = self._nest_runs(loops)
            if runs is None:
                return float("inf")
            inner = loops[-1]
            if inner is carrier:
                lines = 1.0
            elif coefficients is None:
                lines = runs / per * ENTRY_BYTES / line
            else:
                stride = abs(coefficients.get(inner.body.block.args[0], 0)) * ENTRY_BYTES
                outer = self._nest_runs(loops[:-1]) or 1
                lines = runs / per * min(1.0, stride / line) if stride else outer / per
            touched[op.memref] = touched.get(op.memref, 0.0) + lines
        return sum(
            min(lines, static_bytes(array) / line) if static_bytes(array) else lines
            for array, lines in touched.items()
        )


def _buffer_accesses(function: func.FuncOp) -> list[tuple[Operation, str, int, int]]:
    """`function`'s memref loads and stores in program order, each with its op's
    name, its buffer (an argument's position, or an allocation's place among the
    function's allocations, negative) and its index count."""
    places: dict[SSAValue, int] = {arg: n for n, arg in enumerate(function.body.block.args)}
    found: list[tuple[Operation, str, int, int]] = []
    for op in walk_ops(function):
        if isinstance(op, memref.AllocOp | memref.AllocaOp):
            places[op.memref] = -1 - len(places)
        elif isinstance(op, memref.LoadOp | memref.StoreOp):
            found.append((op, op.name, places.get(op.memref, 1 << 30), len(op.indices)))
    return found


def static_bounds_of(loop: scf.ForOp) -> tuple[int, int, int] | None:
    """A loop's constant lower bound, upper bound and positive step, if constant."""
    values = [constant_value(v) for v in (loop.lb, loop.ub, loop.step)]
    if any(v is None for v in values) or values[2] <= 0:  # type: ignore[operator]
        return None
    return values[0], values[1], values[2]  # type: ignore[return-value]


def _byte_offset(
    access: memref.LoadOp | memref.StoreOp,
    given: dict[SSAValue, int],
    evaluator: IndexEvaluator | None = None,
) -> int | None:
    """The byte offset in its buffer of the row-major element `access` touches,
    with the loop indices `given`; None if an index cannot be evaluated.
    `evaluator`: an `IndexEvaluator` of `given`, shared with other accesses."""
    typ = access.memref.type
    assert isinstance(typ, builtin.MemRefType)
    shape = typ.get_shape()
    if any(d < 0 for d in shape):
        return None
    evaluator = evaluator or IndexEvaluator((), given)
    element = 0
    try:
        for index, size in zip(access.indices, shape, strict=True):
            element = element * size + int(evaluator.value(index))
    except CannotEvaluate:
        return None
    return element * ENTRY_BYTES


def _reused(
    access: memref.LoadOp | memref.StoreOp,
    loops: tuple[scf.ForOp, ...],
    coefficients: dict[SSAValue, int] | None,
    extents: list[int] | None,
) -> bool:
    """`AccessReuse.reused` of `access`, given the loops around it, its element's
    coefficients and the loops' extents."""
    ivs = [loop.body.block.args[0] for loop in loops]
    if coefficients is None or extents is None:
        seen: set[SSAValue] = set()
        for index in access.indices:
            used = _loop_indices(index, set(ivs))
            if len(used) > 1:
                return True
            seen |= used
        return len(seen) < len(ivs)
    if any(coefficients.get(iv, 0) == 0 for iv in ivs):
        return True
    if len(ivs) == 2:
        # Two iterations meet where c0*d0 + c1*d1 = 0: the nearest such steps are
        # d0 = c1/g, d1 = -c0/g (g their gcd), within the loops' extents or not.
        (c0, n0), (c1, n1) = (
            (abs(coefficients[iv]), n) for iv, n in zip(ivs, extents, strict=True)
        )
        g = gcd(c0, c1)
        return c1 // g < n0 and c0 // g < n1
    span = 0  # the farthest element the faster-moving loops reach
    for step, extent in sorted(
        (abs(coefficients[iv]), n) for iv, n in zip(ivs, extents, strict=True)
    ):
        if extent > 1 and step <= span:
            return True
        span += step * max(0, extent - 1)
    return False


def _parents(op: Operation, stop: Operation) -> list[Operation]:
    """The ops around `op`, innermost first, up to (not including) `stop`."""
    found: list[Operation] = []
    current = op.parent_op()
    while current is not None and current is not stop:
        found.append(current)
        current = current.parent_op()
    return found


def _same_bound(a: SSAValue, b: SSAValue) -> bool:
    """The same value, or equal constants."""
    if a is b:
        return True
    ca, cb = constant_value(a), constant_value(b)
    return ca is not None and ca == cb


_AffineMemo = tuple[
    dict[SSAValue, "dict[SSAValue, int] | None"], dict[SSAValue, frozenset[SSAValue]]
]
"""`_affine`'s and `_loop_indices`' answers, by value, for one set of loop indices."""


def _element(
    access: memref.LoadOp | memref.StoreOp,
    ivs: set[SSAValue],
    memo: _AffineMemo | None = None,
) -> dict[SSAValue, int] | None:
    """The coefficient of each loop index in the row-major element `access`
    touches, if its memref has a static shape and its indices are affine in the
    loop indices with constant coefficients (`_affine`); else None. `memo`:
    answers found for other accesses under the same loops (`ivs`), shared."""
    typ = access.memref.type
    assert isinstance(typ, builtin.MemRefType)
    shape = typ.get_shape()
    if any(d < 0 for d in shape):
        return None
    total: dict[SSAValue, int] = {}
    stride = 1
    for index, size in reversed(list(zip(access.indices, shape, strict=True))):
        terms = _affine(index, ivs, memo)
        if terms is None:
            return None
        for iv, c in terms.items():
            total[iv] = total.get(iv, 0) + c * stride
        stride *= size
    return total


def _affine(
    value: SSAValue, ivs: set[SSAValue], memo: _AffineMemo | None = None
) -> dict[SSAValue, int] | None:
    """`value` as constant coefficients of the loop indices `ivs` (a term free of
    them is dropped), through `addi`, `subi`, `muli` by a constant and
    `index_cast`; None for anything else that depends on a loop index. `memo`:
    the answers for other values under the same `ivs` (read, not changed, by
    the caller), each value's worked out once."""
    if memo is None:
        return _affine_of(value, ivs, None)
    answers = memo[0]
    if value in answers:
        return answers[value]
    found = answers[value] = _affine_of(value, ivs, memo)
    return found


def _affine_of(
    value: SSAValue, ivs: set[SSAValue], memo: _AffineMemo | None
) -> dict[SSAValue, int] | None:
    if value in ivs:
        return {value: 1}
    if not _loop_indices(value, ivs, None if memo is None else memo[1]):
        return {}
    if not isinstance(value, OpResult):
        return None
    op = value.op
    if isinstance(op, arith.IndexCastOp):
        return _affine(op.input, ivs, memo)
    if isinstance(op, arith.AddiOp | arith.SubiOp):
        lhs, rhs = _affine(op.lhs, ivs, memo), _affine(op.rhs, ivs, memo)
        if lhs is None or rhs is None:
            return None
        sign = -1 if isinstance(op, arith.SubiOp) else 1
        return {iv: lhs.get(iv, 0) + sign * rhs.get(iv, 0) for iv in lhs.keys() | rhs.keys()}
    if isinstance(op, arith.MuliOp):
        for this, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            factor = constant_value(other)
            terms = _affine(this, ivs, memo)
            if factor is not None and terms is not None:
                return {iv: c * factor for iv, c in terms.items()}
    return None


def _loop_indices(
    value: SSAValue,
    loops: set[SSAValue],
    memo: dict[SSAValue, frozenset[SSAValue]] | None = None,
) -> set[SSAValue]:
    """The loop indices among `loops` that `value` is computed from. `memo`: the
    answers for other values under the same `loops`, read where the search
    meets them and given this one's."""
    found: set[SSAValue] = set()
    visited: set[SSAValue] = set()
    pending = [value]
    while pending:
        current = pending.pop()
        if current in visited:
            continue
        visited.add(current)
        if memo is not None and current in memo:
            found |= memo[current]
        elif current in loops:
            found.add(current)
        elif isinstance(current, OpResult):
            pending += current.op.operands
    if memo is not None:
        memo[value] = frozenset(found)
    return found


def _groups(primal: float, tape: float, mshrs: int) -> float:
    """Expected groups of `mshrs` misses per window run, for `primal` and `tape`
    expected misses of streams that advance with the iterations: under one miss
    per run, a run misses at the densest stream's line crossings (the others' fall
    on them), in the fraction `max(primal, tape)` of the runs."""
    share = min(1.0, max(primal, tape))
    if share == 0:
        return 0.0
    return share * ceil((primal + tape) / share / mshrs)


def _depth(ops: Sequence[Operation], folded: set[SSAValue]) -> int:
    """Integer ops on the longest chain within `ops`, from the values they read
    from elsewhere (the tile index, an outer loop's index or trip count); ops on
    constants and `folded` values alone fold away."""
    return _depths(ops, folded)[1]


def _depths(ops: Sequence[Operation], folded: set[SSAValue]) -> tuple[dict[SSAValue, int], int]:
    """`_depth`'s chain length at each result of `ops` that does not fold away,
    and the longest (an op of no result, a store, ends a chain too; a loop's
    yield only passes its values on)."""
    known = folded | {result for op in ops for result in op.results}
    depth: dict[SSAValue, int] = {}
    longest = 0
    for op in ops:
        if isinstance(op, arith.ConstantOp | scf.YieldOp) or op.regions:
            continue
        inputs = [depth.get(v, 0) for v in op.operands if v in depth or not _folds(v, known)]
        if inputs:
            for result in op.results:
                depth[result] = max(inputs) + 1
            longest = max(longest, max(inputs) + 1)
    return depth, longest


def _folds(value: SSAValue, known: set[SSAValue]) -> bool:
    """`value` is a constant or one of `known` (folded, or made by ops that fold)."""
    return value in known or (
        isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp)
    )


def _strip_mined(op: layer.LayerOp) -> scf.ForOp | None:
    """The strip-mined loop a layer's tile runs (None for a piece of straight-line stores)."""
    return next(
        (
            o
            for o in op.body.block.ops
            if isinstance(o, scf.ForOp) and ROWS_PER_ITERATION in o.attributes
        ),
        None,
    )


def _tile_chain(op: layer.LayerOp, fwd: layer.LayerOp, folded: set[SSAValue]) -> int:
    """The longest chain of integer ops of the kernel a tile of the layer `op`
    runs once before its loop (`fwd`: the FWD layer of its tile; `folded`:
    values that fold to constants): its bounds; its stream's row count
    (`tapeflow-streams`: the tile's iterations times the rows of one, the
    multiply taken inside the clamp, `min(T * rows, n * rows)`, no longer than
    the bounds); and in a tile of several groups of stores
    (`lowering.layers.layout`) each group's first row, `tapeflow-spad-bind`'s:
    FWD `offset - lo * rows` (2 ops after the tile's start `lo`), REV `offset +
    (hi - 1) * rows` (3 after its end `hi`, 2 at offset 0; a multiply less at
    one row an iteration). Each iteration's first row, a
    multiply and an add more, runs in the iteration's own kernels: not charged
    (docs/research/stream-cost.md).
    """
    ops = list(op.body.block.ops)
    depths, chain = _depths(ops, folded)
    loop, mined = _strip_mined(op), _strip_mined(fwd)
    if loop is None or mined is None or constant_value(loop.step) != 1:
        return chain
    edge = loop.lb if op.phase.data is Phase.FWD else loop.ub
    if edge not in depths and _folds(edge, folded | {r for o in ops for r in o.results}):
        return chain  # one tile: its first rows are constants
    stores = [o for o in walk_ops(fwd) if isinstance(o, region.StoreOp)]
    layout = tile_layout(stores, mined)
    if layout.groups < 2:
        return chain  # one group: its rows are computed in its innermost loop
    after = 1 + (layout.rows_per_iteration != 1)
    if op.phase.data is Phase.REV:
        after += any(  # a group of the loop's body at a row past the first
            place.row != 0
            for store, place in layout.places.items()
            if not enclosing_loops(store, mined)
        )
    return max(chain, depths.get(edge, 0) + after)


def _kept_bounds(loop: scf.ForOp, mined: scf.ForOp) -> set[SSAValue]:
    """The bounds of the strip-mined loop `mined` before it was strip-mined, found
    in its tile loop `loop` (`lowering.layers.tiles.strip_mine`): the kept loop
    computes them too. FWD's tile loop (and REV's of whole tiles) runs over the
    loop's own bounds; REV's otherwise over `[last, last + trip)`, `trip = ub -
    lb` (`ub` itself where `lb` is 0), its tiles ending at `hi = lb + h`."""
    index = loop.body.block.args[0]
    if mined.lb is index:
        return {loop.lb, loop.ub}
    found: set[SSAValue] = set()
    hi = mined.ub
    lb: SSAValue | None = None
    first = _first_value(loop, mined.lb)
    if first is not mined.lb:
        # Carried bounds: the first tile starts at the loop's own `lb`.
        if constant_value(first) != 0:
            lb = first
            found.add(lb)
    elif isinstance(hi, OpResult) and isinstance(hi.op, arith.AddiOp):
        lb = hi.op.lhs  # `lb + h * d` (`h * d` alone where `lb` is 0)
        found.add(lb)
    end = loop.ub
    if isinstance(end, OpResult) and isinstance(end.op, arith.AddiOp):
        trip = end.op.rhs
        op = trip.op if isinstance(trip, OpResult) else None
        if (
            lb is not None
            and isinstance(op, arith.SubiOp)
            and (op.rhs is lb or constant_value(op.rhs) == constant_value(lb) is not None)
        ):
            found.add(op.lhs)  # `trip = ub - lb`
        elif lb is None:
            found.add(trip)  # `lb` is 0: the trip count is `ub`
    return found


def _first_value(loop: scf.ForOp, value: SSAValue) -> SSAValue:
    """`value`, or where it is a bound the tile loop `loop` carries from tile to
    tile (`lowering.layers.tiles.strip_mine`), the first tile's, computed before
    the loop."""
    args = loop.body.block.args
    if isinstance(value, BlockArgument) and value in args[1:]:
        return loop.iter_args[args.index(value) - 1]
    return value


def _carried(loop: scf.ForOp, mined: scf.ForOp) -> list[SSAValue]:
    """The first tile's carried bounds and row count, the last iteration
    arguments of the tile loop `loop` (none where `mined`'s tiles compute their
    bounds)."""
    count = mined.attributes.get(CARRIED_BOUNDS)
    if not isinstance(count, IntegerAttr):
        return []
    return list(loop.iter_args[len(loop.iter_args) - count.value.data :])


def _tile_count(loop: scf.ForOp) -> list[Operation]:
    """The ops of the block around the tile loop `loop` that compute, for it
    alone, its bounds and the values its tiles' bounds read (REV's end of its
    first tile), in block order: not the strip-mined loop's own bounds, which
    the kept loop computes too (`_kept_bounds`), nor an op whose results have
    users other than these, `loop` or the ops inside it (such as Enzyme's
    reversed index, computed without streaming)."""
    block = loop.parent_block()
    assert block is not None
    owner = next(o for o in loop.body.block.ops if isinstance(o, layer.LayerOp))
    mined = _strip_mined(owner)
    assert mined is not None
    kept = _kept_bounds(loop, mined)
    found: set[Operation] = {loop}
    wanted: set[SSAValue] = {loop.lb, loop.ub, *_carried(loop, mined)}
    for each in owner.body.block.ops:
        if not isinstance(each, scf.ForOp):
            wanted.update(each.operands)
    wanted -= kept
    for op in reversed(list(block.ops)):
        if op in found or not any(result in wanted for result in op.results):
            continue
        users = {block.find_ancestor_op_in_block(u.operation) for r in op.results for u in r.uses}
        if users <= found:
            found.add(op)
            wanted.update(v for v in op.operands if v not in kept)
    return [op for op in block.ops if op in found and op is not loop]


def _partners(function: func.FuncOp) -> dict[int, layer.LayerOp]:
    """The FWD layers of `function`, by id: a REV layer's tile is its partner's."""
    return {
        op.id.value.data: op
        for op in walk_ops(function)
        if isinstance(op, layer.LayerOp) and op.phase.data is Phase.FWD
    }


def _fwd_of(op: layer.LayerOp, partners: dict[int, layer.LayerOp]) -> layer.LayerOp:
    return op if op.phase.data is Phase.FWD else partners[op.partner.value.data]


def added_cycles(
    function: func.FuncOp,
    regions: set[SSAValue],
    machine: StreamMachine,
    spad_bytes: int,
    timeline: RevTimeline | None = None,
    reuse: AccessReuse | None = None,
) -> float:
    """The cycles the layers of `regions` in the layered `function` add. A kernel
    run once costs its schedule's length: its longest chain of integer ops at
    `integer` each (`_tile_chain`); a piece's cut kernel, the misses its parts no
    longer overlap (`_cut_misses`); and on a scratchpad of `spad_bytes`, the REV
    layers' waits for their preloads (`preload_waits`, on `timeline` where given).
    `reuse`: what is known of `function`'s accesses from an earlier call
    (`AccessReuse`; the cost model asks per nest), else made at the first piece."""
    assert reuse is None or reuse.function is function
    kernel = machine.integer + 1  # one integer op issued as a kernel run once
    added = 0.0
    rev: dict[Operation, int] = {}  # the nest's REV layers, with their runs
    partners = _partners(function)
    for op in walk_ops(function):
        if not isinstance(op, layer.LayerOp) or not any(
            isinstance(o, region.StoreOp | region.LoadOp) and o.region in regions
            for o in walk_ops(op)
        ):
            continue
        runs = nest_runs(enclosing_loops(op, function))
        if runs is None:  # pragma: no cover - the nest was counted before layering
            runs = prod(trip_count(each) or 1 for each in enclosing_loops(op, function))
        if op.phase.data is Phase.REV:
            rev[op] = runs
        tile_loop = op.parent_op()
        if _strip_mined(op) is None:
            added += runs * 2 * kernel  # the stream op and the cut kernel
            reuse = reuse or AccessReuse(function)
            added += _cut_misses(op, runs, machine, reuse) * machine.dram_latency
            continue
        folded: set[SSAValue] = set()
        if isinstance(tile_loop, scf.ForOp):
            if trip_count(tile_loop) == 1:
                folded.add(tile_loop.body.block.args[0])  # one tile: constant bounds
            elif trip_count(tile_loop) is None:
                # A run-time trip count: each run of the tile loop computes it (and
                # REV's first tile end) for its tiles.
                outer = nest_runs(enclosing_loops(tile_loop, function))
                chain = _depth(_tile_count(tile_loop), set())
                added += (outer or 0) * chain * machine.integer
        # The tile's bounds, its stream's row count and its groups' first rows
        # are a kernel run once a tile; the stream op itself issues to the stream
        # engine, and each iteration's rows run in the iteration's own kernels.
        chain = _tile_chain(op, _fwd_of(op, partners), folded)
        added += runs * chain * machine.integer
    return added + preload_waits(function, rev, machine, spad_bytes, timeline)


def _cut_misses(
    piece: layer.LayerOp, runs: int, machine: StreamMachine, reuse: AccessReuse
) -> float:
    """The miss groups a piece of straight-line stores adds by cutting the kernel
    it sits in, over its `runs`: the primal accesses before it, in it (the loads
    whose values it stores) and after it (to the loop, layer or end of its
    block) become three kernels, and a run in which more than one part misses
    waits a DRAM latency for each. A part's misses over the runs are its arrays'
    lines where the arrays fit the cache (each missed once, when first touched),
    else a line per line of elements an access touches (`lines`, its set's
    conflicts counted), at most one a run. Kept, the parts' misses in a run
    share a group, at least the most missing part's; cut, each part waits for
    its own: the groups added are the parts' groups but the largest."""
    line = machine.cache_line_bytes
    arrays_fit = reuse.footprint(regions=False) <= machine.cache_bytes

    def accessed(part: Iterable[Operation]) -> list[memref.LoadOp | memref.StoreOp]:
        found: list[memref.LoadOp | memref.StoreOp] = []
        for op in part:
            if isinstance(op, scf.ForOp | layer.LayerOp):
                break
            found += [o for o in walk_ops(op) if isinstance(o, memref.LoadOp | memref.StoreOp)]
        return found

    def misses(accesses: list[memref.LoadOp | memref.StoreOp], shared: set[SSAValue]) -> float:
        if arrays_fit:
            arrays = {o.memref for o in accesses} - shared
            return float(min(runs, sum(-(-static_bytes(a) // line) for a in arrays)))
        return runs * min(
            1.0, sum(reuse.lines(o, line, machine.cache_bytes, machine) for o in accesses)
        )

    # Each part is walked from the piece outwards, op by op, to the first loop or
    # layer: a fully unrolled body's block holds tens of thousands of ops and
    # hundreds of pieces, and listing the block for each piece was quadratic.
    before = accessed(_ops_from(piece.prev_op, back=True))
    after = accessed(_ops_from(piece.next_op))
    # Where the arrays fit, a line misses once, when first touched: the piece's
    # loads of arrays a neighbour touches are that neighbour's misses.
    neighbours = {o.memref for o in before + after}
    parts = [
        misses(before, set()),
        misses(accessed(piece.body.block.ops), neighbours),
        misses(after, set()),
    ]
    return sum(parts) - max(parts)


def _ops_from(op: Operation | None, back: bool = False) -> Iterator[Operation]:
    """`op` and the ops after it in its block (before it, nearest first, if `back`)."""
    while op is not None:
        yield op
        op = op.prev_op if back else op.next_op


PRELOAD_LAYERS = 1 << 12
"""The most REV layers `rev_waits` places one by one; the rest of a longer
sequence wait as the last half of those did (its steady state)."""


@dataclass(frozen=True)
class RevLayer:
    """One run of a REV layer, as the scratchpad's streams see it."""

    entries: int
    """Its tile's entries, taken from the ring when its preload is issued."""
    run: float
    """Cycles from its start to its end, when its entries are freed."""
    gap: float = 0.0
    """Cycles from the previous REV layer's end to its start, waits aside: its
    bounds, and the work between the layers."""
    nbytes: int = 0
    """The bytes its preload moves."""
    charged: bool = True
    """Its wait is counted (a layer of the nest priced; another nest's layers
    take their entries and their time)."""
    refill: float = 0.0
    """Cycles its loop's pipeline takes to fill again after a wait: a tile whose
    loop continues the pipeline of the tile before it loses that overlap."""


@dataclass(frozen=True)
class Ring:
    """The scratchpad's ring and the stream engine, as `sim.models.streams` times them."""

    capacity: int
    """Entries."""
    latency: int
    """Cycles from a preload's issue until its bytes start to arrive."""
    bytes_per_cycle: float
    runahead: bool = True


def rev_waits(layers: Iterable[RevLayer], ring: Ring, charged: int = 0) -> float:
    """The cycles the charged layers of the REV sequence `layers` (in order) wait
    for their preloads, the `cgra` model's mechanism (`sim.models.streams`) from
    the sweep's start with an empty ring (`_Placement`); past `PRELOAD_LAYERS`
    layers from the first charged one, the rest of the `charged` layers in all
    as the last half placed (`_charged_waits`). The direct form, one sequence
    placed whole: the model itself reads each ring's placement shared by the
    nests (`RevTimeline.waits`), and the tests check the two agree."""
    placement = _Placement(ring)
    return _charged_waits(((each.charged, placement.place(each)) for each in layers), charged)


class _Placement:
    """The ring's state along a REV sequence, placed a layer at a time from the
    sweep's start with an empty ring: a preload is issued no earlier than the one
    before it, and than the start of the layer before it without runahead, once
    its entries are free (a layer's are freed at its end); its bytes arrive the
    latency after issue, in turn on the one channel, each its transfer time; a
    layer waits for what has not arrived when it would start, and its pipeline
    fills again (`RevLayer.refill`): every later layer starts that much later.
    Whether a layer is charged does not change the state: a sequence's
    placement serves every nest priced on it."""

    def __init__(self, ring: Ring):
        self.ring = ring
        self.resident: deque[tuple[float, int]] = deque()  # (freed at, entries)
        self.occupied = 0
        self.end = self.channel = self.issued = 0.0
        self.previous = -1.0  # the start of the REV layer before
        self.waits: list[float] = []
        """Each layer placed's wait and refill, in order."""

    def place(self, each: RevLayer) -> float:
        """Place the next layer, `each`: its wait and refill."""
        ring = self.ring
        entries = min(each.entries, ring.capacity)
        at = self.issued if ring.runahead or self.previous < self.issued else self.previous
        resident = self.resident
        while resident and (resident[0][0] <= at or self.occupied + entries > ring.capacity):
            freed, size = resident.popleft()
            self.occupied -= size
            at = max(at, freed)
        arrival = max(at + ring.latency, self.channel) + each.nbytes / ring.bytes_per_cycle
        self.channel, self.issued = arrival, at
        start = self.end + each.gap
        wait = float(max(0, ceil(arrival - start)))
        refill = each.refill if wait > 0 else 0.0
        self.previous = start + wait
        self.end = self.previous + refill + each.run
        resident.append((self.end, entries))
        self.occupied += entries
        self.waits.append(wait + refill)
        return wait + refill


def _charged_waits(placed: Iterable[tuple[bool, float]], charged: int) -> float:
    """The waits of the charged layers of `placed` (whether each is charged, its
    wait and refill; in order): past `PRELOAD_LAYERS` layers from the first
    charged one, once one charged layer is placed, the rest of the `charged`
    layers in all wait as the last half of the charged ones placed."""
    waits: list[float] = []
    total = 0.0
    placed_count = 0
    for is_charged, wait in placed:
        placed_count += bool(placed_count or is_charged)
        if placed_count > PRELOAD_LAYERS and waits:
            tail = waits[len(waits) // 2 :]
            if tail:
                total += (charged - len(waits)) * sum(tail) / len(tail)
            return total
        if is_charged:
            waits.append(wait)
            total += wait
    return total


def preload_waits(
    function: func.FuncOp,
    rev: dict[Operation, int],
    machine: StreamMachine,
    spad_bytes: int,
    timeline: RevTimeline | None = None,
) -> float:
    """The cycles the REV layers `rev` (with their runs) of the layered `function`
    wait for their preloads on a scratchpad of `spad_bytes` (`rev_waits`): the
    sequence of the REV layers in the loops around them, in the order they run,
    each layer's run estimated as a window's compute (`timeline`, one of
    `function` on `machine` shared by the nests priced on it, or a new one)."""
    if not rev:
        return 0.0
    ring = Ring(
        spad_bytes // ENTRY_BYTES,
        machine.dram_latency,
        machine.dram_bytes_per_cycle,
        machine.runahead,
    )
    return (timeline or RevTimeline(function, machine)).waits(rev, ring)


class _Step(Enum):
    """What `RevTimeline._ops` does with an op of a block."""

    WORK = auto()  # straight-line ops, added to the work before the next layer
    LOOP = auto()  # a loop holding no REV layer, its run added to that work
    LAYER = auto()  # a REV layer
    HOLDS = auto()  # a loop or branch holding REV layers, entered


@dataclass
class _Walk:
    """A walk of the REV sweep's layers: the work since the last REV layer, and it."""

    gap: float = 0.0
    last: Operation | None = None


class _Sequence:
    """The REV sweep's layers, each with its layer op and the place of the
    top-level op holding it, made as they are asked for and kept; where each
    layer op first runs; and their placement on each ring asked for
    (`_Placement`), made as far as it is asked for and kept."""

    def __init__(self, made: Iterator[tuple[Operation, int, RevLayer]]):
        self.made = made
        self.done = False
        self.ops: list[Operation] = []
        self.places: list[int] = []
        self.layers: list[RevLayer] = []
        self.first: dict[Operation, int] = {}
        self.placements: dict[Ring, _Placement] = {}
        self.waits: dict[tuple[Ring, frozenset[Operation], int, int], float] = {}

    def has(self, index: int) -> bool:
        """Whether the sweep has a layer at `index`, made if not yet."""
        while index >= len(self.ops) and not self.done:
            item = next(self.made, None)
            if item is None:
                self.done = True
                break
            op, place, each = item
            self.first.setdefault(op, len(self.ops))
            self.ops.append(op)
            self.places.append(place)
            self.layers.append(each)
        return index < len(self.ops)

    def charged_waits(self, charged: set[Operation], last: int, ring: Ring, count: int) -> float:
        """`rev_waits` of the layers through the place `last`, those of `charged`
        charged, `count` runs of them in all, on `ring`: the layers before the
        first charged one are placed once per ring, and charged nowhere."""
        key = (ring, frozenset(charged), last, count)
        found = self.waits.get(key)
        if found is None:
            found = self.waits[key] = _charged_waits(self._placed(charged, last, ring), count)
        return found

    def _placed(
        self, charged: set[Operation], last: int, ring: Ring
    ) -> Iterator[tuple[bool, float]]:
        """From the first charged layer through the place `last`: whether each is
        charged, and its wait and refill on `ring`."""
        index = self._first(charged, last)
        if index is None:
            return
        placement = self.placements.get(ring)
        if placement is None:
            placement = self.placements[ring] = _Placement(ring)
        waits = placement.waits
        while self.has(index) and self.places[index] <= last:
            while len(waits) <= index:
                placement.place(self.layers[len(waits)])
            yield self.ops[index] in charged, waits[index]
            index += 1

    def _first(self, charged: set[Operation], last: int) -> int | None:
        """The index of the first layer of `charged` (None: none through `last`).
        One of them made already is the first: the others run later."""
        made = [self.first[op] for op in charged if op in self.first]
        if made:
            return min(made)
        index = len(self.ops)
        while self.has(index) and self.places[index] <= last:
            if self.ops[index] in charged:
                return index
            index += 1
        return None


class RevTimeline:
    """The REV layers of a layered function's REV sweep, in the order they run,
    each with an estimate of its run and of the work before it, as the windows'
    compute in `saved_cycles`: an innermost loop's run its iterations at its
    recurrence bound or its cache accesses over the ports, at least a cycle
    each, and its pipeline's fill (`cgra` fills a kernel loop's pipeline each
    run; a continued tile spares it); straight-line ops their
    accesses over the ports or their longest chain at `integer` an op (a layer's
    bounds, before its stream op, are work before it). A tile of an innermost
    loop that follows the loop's tile before it refills, after a wait, the
    pipeline: an iteration's longest latency path less the cycles an iteration
    takes (`fill`). Trip counts are evaluated
    at each iteration of the loops around (a triangular nest's, a tile's);
    a branch holding REV layers is taken as run. The sweep's layers are worked
    out once, as far as a nest priced asks for them: the function must not change
    while the timeline is in use. Of the machine it reads only `reads(machine)`:
    machines equal in those share one timeline."""

    @staticmethod
    def reads(machine: StreamMachine) -> tuple[int, int]:
        """The numbers of `machine` the timeline reads: the integer latency and
        the cache ports."""
        return machine.integer, machine.cache_ports

    def __init__(self, function: func.FuncOp, machine: StreamMachine):
        self.function = function
        self.machine = machine
        self._sweep: _Sequence | None = None
        self._tops: dict[Operation, int] = {}
        """The top-level ops' places in the function's body."""
        self._top: dict[Operation, int] = {}
        """A REV layer's top-level op's place."""
        self._holds: dict[Operation, bool] = {}
        self._per_iteration: dict[scf.ForOp, int] = {}
        self._shapes: dict[
            layer.LayerOp,
            tuple[
                int, tuple[Operation, ...], int, tuple[scf.ForOp, ...], bool, tuple[SSAValue, ...]
            ],
        ] = {}
        """A layer's tile entries, ops, bounds' chain, loops, whether its one loop
        is innermost, and the loop indices around it its loops' bounds read."""
        self._made: dict[tuple[object, ...], RevLayer] = {}
        """A layer's run as a REV layer, by its op, whether it continues its
        loop's pipeline, the work before it and the loop indices it reads: one
        object for its runs alike (a tile loop's full tiles)."""
        self._reads: dict[scf.ForOp, tuple[SSAValue, ...]] = {}
        """The loop indices a loop's bounds are computed from."""
        self._evaluated: dict[tuple[object, ...], tuple[int, int, int]] = {}
        self._innermost: dict[scf.ForOp, bool] = {}
        self._fills: dict[scf.ForOp, int] = {}
        self._straight: dict[tuple[Operation, Operation, int], float] = {}
        self._plans: dict[Block | tuple[Operation, ...], list[tuple[_Step, object]]] = {}
        self._partners: dict[int, layer.LayerOp] | None = None
        self._carries_of: dict[scf.ForOp, tuple[tuple[SSAValue, ...], ...]] = {}

    def layers(self, charged: set[Operation]) -> Iterator[RevLayer]:
        """The REV layers of the REV sweep from its start (`reverse_sweep_start`,
        where the first preload may be issued) through the last top-level op
        holding one of the REV layers `charged`, in the order they run, those
        `charged` (`RevLayer.charged`): the REV work and the other nests' layers
        before a nest's first layer take their time and room as they do in the
        `cgra` model. The same sequence each time, made once as far as it is read
        (a nest is priced on every machine sharing the timeline). The sequence as
        `rev_waits` reads it whole: the model reads its placement shared by the
        nests (`waits`), and the tests check the two agree."""
        sweep = self._sequence()
        last = max(self._place(op) for op in charged)
        index = 0
        while sweep.has(index) and sweep.places[index] <= last:
            each = sweep.layers[index]
            yield each if sweep.ops[index] in charged else replace(each, charged=False)
            index += 1

    def waits(self, charged: dict[Operation, int], ring: Ring) -> float:
        """`rev_waits` of `layers(set(charged))` on `ring`, the REV layers
        `charged` run as many times as given: the sweep's placement on `ring` is
        made once for every nest priced on it, and each nest's waits once."""
        sweep = self._sequence()
        last = max(self._place(op) for op in charged)
        return sweep.charged_waits(set(charged), last, ring, sum(charged.values()))

    def _sequence(self) -> _Sequence:
        if self._sweep is None:
            top = list(self.function.body.block.ops)
            self._tops = {op: n for n, op in enumerate(top)}
            holding = [n for n, op in enumerate(top) if self._holds_rev(op)]
            start = min(reverse_sweep_start(self.function, "tapeflow-layers"), *holding[:1])
            made = self._ops(tuple(top[start:]), {}, _Walk())
            self._sweep = _Sequence((op, self._place(op), each) for op, each in made)
        return self._sweep

    def _place(self, op: Operation) -> int:
        """The place in the function's body of the top-level op holding `op`."""
        found = self._top.get(op)
        if found is None:
            top = op
            while top.parent_op() is not self.function:
                top = top.parent_op()
                assert top is not None
            found = self._top[op] = self._tops[top]
        return found

    def _holds_rev(self, op: Operation) -> bool:
        found = self._holds.get(op)
        if found is None:
            found = any(
                isinstance(o, layer.LayerOp) and o.phase.data is Phase.REV for o in walk_ops(op)
            )
            self._holds[op] = found
        return found

    def _taken(self, branch: scf.IfOp) -> Region:
        """The side of `branch` taken as run: the then side if it holds REV
        layers, else the else side (Enzyme's REV of a `while` loop turned into a
        `for` skips the trips past the exit on the then side and holds the
        layers on the else side)."""
        then = branch.true_region.block
        if any(self._holds_rev(op) for op in then.ops) or not branch.false_region.blocks:
            return branch.true_region
        return branch.false_region

    def _ops(
        self, ops: Block | tuple[Operation, ...], env: dict[SSAValue, int], walk: _Walk
    ) -> Iterator[tuple[Operation, RevLayer]]:
        """The REV layers of `ops` (a block's, or a root op) run with the loop
        indices `env`, each with its op; `walk` holds the work since the last."""
        for kind, item in self._plan(ops):
            if kind is _Step.WORK:
                walk.gap += self._work(item)  # type: ignore[arg-type]
            elif kind is _Step.LOOP:
                walk.gap += self._loop(item, env)  # type: ignore[arg-type]
                walk.last = None  # another loop's kernel ran: no tile continues past it
            elif kind is _Step.LAYER:
                yield item, self._layer(item, env, walk)  # type: ignore[misc, arg-type]
            elif isinstance(item, scf.IfOp):
                yield from self._ops(self._taken(item).block, env, walk)
            else:
                assert isinstance(item, scf.ForOp)
                lb, trips, step = self._bounds(item, env)
                iv = item.body.block.args[0]
                # A tile's carried bounds are the tile before's next ones.
                args, firsts, nexts = self._carries(item)
                values = self._values(firsts, env)
                for k in range(trips):
                    inner = {**env, iv: lb + k * step}
                    if values is not None:
                        inner.update(zip(args, values, strict=True))
                    yield from self._ops(item.body.block, inner, walk)
                    if values is not None:
                        values = self._values(nexts, inner)

    def _carries(
        self, loop: scf.ForOp
    ) -> tuple[tuple[SSAValue, ...], tuple[SSAValue, ...], tuple[SSAValue, ...]]:
        """The bounds the tile loop `loop` carries from tile to tile
        (`lowering.layers.tiles.strip_mine`): its arguments, their first values
        and the next tile's values its strip-mined loop yields (none if it
        carries none)."""
        found = self._carries_of.get(loop)
        if found is None:
            found = ((), (), ())
            owner = next((o for o in loop.body.block.ops if isinstance(o, layer.LayerOp)), None)
            mined = _strip_mined(owner) if owner is not None else None
            if mined is not None and CARRIED_BOUNDS in mined.attributes:
                firsts = _carried(loop, mined)
                count = len(firsts)
                yielded = mined.body.block.last_op
                assert isinstance(yielded, scf.YieldOp)
                found = (
                    tuple(loop.body.block.args[-count:]),
                    tuple(firsts),
                    tuple(yielded.operands[-count:]),
                )
            self._carries_of[loop] = found
        return found

    def _values(
        self, values: Sequence[SSAValue], env: dict[SSAValue, int]
    ) -> tuple[int, ...] | None:
        """`values` at `env` (None if there are none, or one cannot be evaluated)."""
        if not values:
            return None
        try:
            evaluator = IndexEvaluator((), env)
            return tuple(int(evaluator.value(v)) for v in values)
        except CannotEvaluate:
            return None

    def _plan(self, ops: Block | tuple[Operation, ...]) -> list[tuple[_Step, object]]:
        """What `_ops` does with `ops`, in order, worked out once per block: the
        straight-line runs between REV layers and the loops and branches holding
        them (their work added where the run ends), the other loops, the layers."""
        found = self._plans.get(ops)
        if found is not None:
            return found
        plan: list[tuple[_Step, object]] = []
        straight: list[Operation] = []
        for op in ops.ops if isinstance(ops, Block) else ops:
            if isinstance(op, layer.LayerOp) and op.phase.data is Phase.REV:
                plan += [(_Step.WORK, tuple(straight)), (_Step.LAYER, op)]
                straight = []
            elif isinstance(op, scf.ForOp | scf.IfOp) and self._holds_rev(op):
                plan += [(_Step.WORK, tuple(straight)), (_Step.HOLDS, op)]
                straight = []
            elif isinstance(op, scf.ForOp):
                plan.append((_Step.LOOP, op))
            else:
                straight.append(op)
        plan.append((_Step.WORK, tuple(straight)))
        self._plans[ops] = plan
        return plan

    def _layer(self, op: layer.LayerOp, env: dict[SSAValue, int], walk: _Walk) -> RevLayer:
        shape = self._shapes.get(op)
        if shape is None:
            tile = op.salloc.tile.type
            assert isinstance(tile, layer.SpadType)
            ops = tuple(op.body.block.ops)
            tile_loop = op.parent_op()
            folded: set[SSAValue] = set()
            if isinstance(tile_loop, scf.ForOp) and trip_count(tile_loop) == 1:
                folded.add(tile_loop.body.block.args[0])
            loops = tuple(o for o in ops if isinstance(o, scf.ForOp))
            for each in loops:
                self._loop_is_innermost(each)
            single = len(loops) == 1 and self._innermost[loops[0]]
            if self._partners is None:
                self._partners = _partners(self.function)
            chain = _tile_chain(op, _fwd_of(op, self._partners), folded)
            # The loop indices around the layer its loops' bounds are computed from:
            # its run depends on no others.
            bounds = [
                v
                for o in loops
                for i in walk_ops(o)
                if isinstance(i, scf.ForOp)
                for v in i.operands[:3]
            ]
            reads = set().union(*(_loop_indices(v, set(env)) for v in bounds))
            shape = self._shapes[op] = (
                tile.entries(),
                ops,
                chain,
                loops,
                single,
                tuple(v for v in env if v in reads),
            )
        entries, ops, chain, loops, single, reads = shape
        before = walk.gap + chain * self.machine.integer
        continued = op is walk.last and single
        walk.last = op
        walk.gap = 0.0
        key = (op, continued, before, *(env[v] for v in reads))
        found = self._made.get(key)
        if found is None:
            run = (
                sum(self._loop(o, env, not continued) for o in loops) if loops else self._work(ops)
            )
            refill = self.fill(loops[0]) if continued else 0
            found = RevLayer(entries, max(1.0, run), before, entries * ENTRY_BYTES, True, refill)
            self._made[key] = found
        return found

    def _bounds(self, loop: scf.ForOp, env: dict[SSAValue, int]) -> tuple[int, int, int]:
        """`loop`'s lower bound, trip count and step at the loop indices `env`
        (its constant trip count, or one, where they are not known)."""
        reads = self._reads.get(loop)
        if reads is None:
            reads = set().union(*(_loop_indices(v, set(env)) for v in loop.operands[:3]))
            reads = self._reads[loop] = tuple(v for v in env if v in reads)
        key = (loop, *(env[v] for v in reads))
        found = self._evaluated.get(key)
        if found is None:
            try:
                evaluator = IndexEvaluator((), {v: env[v] for v in reads})
                lb, ub, step = (int(evaluator.value(v)) for v in (loop.lb, loop.ub, loop.step))
                found = (lb, max(0, -(-(ub - lb) // step)), step) if step > 0 else None
            except CannotEvaluate:
                found = None
            found = found or (0, trip_count(loop) or 1, 1)
            self._evaluated[key] = found
        return found

    def _loop(self, loop: scf.ForOp, env: dict[SSAValue, int], fills: bool = True) -> float:
        """Cycles of a run of `loop` with the loop indices `env`: an innermost
        loop's iterations at its bound per iteration (`_iteration`) and, unless
        not `fills` (a tile continuing its loop's pipeline), its pipeline's fill
        (`fill`), as the `cgra` model times a kernel loop's run; an outer loop's
        its body's at its middle iteration."""
        lb, trips, step = self._bounds(loop, env)
        block = loop.body.block
        if self._loop_is_innermost(loop):
            fill = self.fill(loop) if fills and trips > 0 else 0
            return trips * self._iteration(loop) + fill
        if trips == 0:
            return 0.0
        middle = {**env, block.args[0]: lb + (trips // 2) * step}
        inner = sum(self._loop(o, middle) for o in block.ops if isinstance(o, scf.ForOp))
        return trips * (inner + self._work(list(block.ops)))

    def _loop_is_innermost(self, loop: scf.ForOp) -> bool:
        found = self._innermost.get(loop)
        if found is None:
            found = not any(isinstance(o, scf.ForOp) for o in walk_ops(loop.body.block))
            self._innermost[loop] = found
        return found

    def _iteration(self, loop: scf.ForOp) -> int:
        found = self._per_iteration.get(loop)
        if found is None:
            found = self._per_iteration[loop] = iteration_cycles(loop, self.machine)
        return found

    def fill(self, loop: scf.ForOp) -> int:
        """`pipeline_fill` of `loop` on the timeline's machine, worked out once."""
        found = self._fills.get(loop)
        if found is None:
            found = self._fills[loop] = pipeline_fill(loop, self.machine)
        return found

    def _work(self, ops: Sequence[Operation]) -> float:
        """Straight-line `ops` (loops aside): their cache accesses over the ports or
        their longest chain at `integer` an op."""
        if not ops:
            return 0.0
        key = (ops[0], ops[-1], len(ops))  # a run of a block's ops, placed again
        found = self._straight.get(key)
        if found is None:
            found = self._straight[key] = self._cycles(ops)
        return found

    def _cycles(self, ops: Sequence[Operation]) -> float:
        """`_work` of `ops`, worked out."""
        accesses = sum(
            isinstance(o, memref.LoadOp | memref.StoreOp)
            for op in ops
            if not isinstance(op, scf.ForOp)
            for o in walk_ops(op)
        )
        ports = -(-accesses // max(1, self.machine.cache_ports))
        return float(max(ports, _depth(ops, set()) * self.machine.integer))


def iteration_cycles(loop: scf.ForOp, machine: StreamMachine, read: LoopBody | None = None) -> int:
    """An innermost loop's cycles per iteration: its recurrence bound or its
    cache accesses over the ports, at least one (`read`: its body's ops as
    `pipeline_fill` reads them, `LoopBody.of` on `_latencies_of(machine)`)."""
    body = loop.body.block
    accesses = sum(isinstance(o, memref.LoadOp | memref.StoreOp) for o in walk_ops(body))
    ports = -(-accesses // max(1, machine.cache_ports))
    return max(1, ports, _recurrence(body, machine, read))


def _latencies_of(machine: StreamMachine) -> Hardware:
    """A machine of the default latencies but `machine`'s integer one: what the
    recurrence bound and the pipeline fill read of a loop body's ops."""
    return Hardware("cost", latencies=replace(Latencies(), integer=machine.integer))


def pipeline_fill(loop: scf.ForOp, machine: StreamMachine) -> int:
    """The cycles an innermost loop's pipeline takes to fill: the longest path
    through an iteration (`lowering.scheduling.recurrence.iteration_edges`: an
    operand's producer's latency, `targets.costs.op_latency`, and the order of
    accesses that may meet; routing aside) to its last result, less the cycles
    an iteration takes (`iteration_cycles`); none for a body the scheduler does
    not place (branches), as `_recurrence`."""
    ops = list(loop.body.block.ops)[:-1]
    if not all(placeable(op) for op in ops):
        return 0
    hardware = _latencies_of(machine)
    body = LoopBody.of(ops, hardware)
    issue: list[int] = []
    for edges in iteration_edges(body, hardware):
        issue.append(max((issue[m] + wait for m, wait in edges), default=0))
    last = max((t + latency for t, latency in zip(issue, body.latencies, strict=True)), default=0)
    return max(0, last - iteration_cycles(loop, machine, body))


def continued_fills(
    function: func.FuncOp,
    regions: set[SSAValue],
    machine: StreamMachine,
    timeline: RevTimeline | None = None,
) -> float:
    """The pipeline fills streaming `regions` saves in the layered `function` (the
    fills read off `timeline`, one of `function` on a machine equal to `machine`
    in what it reads, where given: it keeps each loop's). The
    `cgra` model fills a kernel loop's pipeline once per run, but once per chain
    of tiles of one strip-mined loop that follow each other as consecutive layers
    with no other loop kernel between (`sim.models.cgra`): where the tile loop of a
    layer holding one innermost loop is, up to some loop around it, all its
    block holds but straight-line ops before it, the runs of the loop that kept
    its tape (one per run of the tile loop, those of at least one iteration)
    continue each other, one chain per run of the innermost block that is not so
    (a loop, a layer or a branch beside it, or ops after it, which end the block
    as a loop's kernel would). Each run continued saves its fill (`pipeline_fill`)."""
    saved = 0.0
    for op, loop, tile_loop in _tile_layers(function):
        if not _touches(op, regions):
            continue
        levels = enclosing_loops(op, function)
        runs = trip_runs(levels)
        if runs is None:
            continue
        started = sum(count for trips, count in runs.items() if trips > 0)
        chains = _chains(tile_loop, function)
        fill = timeline.fill(loop) if timeline else pipeline_fill(loop, machine)
        saved += max(0, started - chains) * fill
    return saved


def _touches(op: Operation, regions: Collection[SSAValue]) -> bool:
    """`op` holds a tape access of one of `regions`."""
    return any(
        isinstance(o, region.StoreOp | region.LoadOp) and o.region in regions for o in walk_ops(op)
    )


def _tile_layers(function: func.FuncOp) -> Iterator[tuple[layer.LayerOp, scf.ForOp, scf.ForOp]]:
    """Each layer of the layered `function` holding one innermost loop alone in
    its tile loop (`continued_fills`), with that loop and the tile loop."""
    for op in walk_ops(function):
        if not isinstance(op, layer.LayerOp):
            continue
        loops = [o for o in op.body.block.ops if isinstance(o, scf.ForOp)]
        tile_loop = op.parent_op()
        if (
            len(loops) != 1
            or ROWS_PER_ITERATION not in loops[0].attributes
            or any(isinstance(o, scf.ForOp) for o in walk_ops(loops[0].body))
            or not isinstance(tile_loop, scf.ForOp)
            or not _alone(tile_loop.body.block, op)
        ):
            continue
        yield op, loops[0], tile_loop


def restart_cycles(
    loop: scf.ForOp, machine: StreamMachine, misses: float, timeline: RevTimeline | None = None
) -> float:
    """What a run of the tiled innermost `loop` pays where it starts a chain of
    tiles rather than continuing one (`sim.models.cgra`): its pipeline's fill
    (`pipeline_fill`) and, where the run misses (`misses`: the primal lines it is
    expected to miss), a DRAM latency for its first group, which a continued tile
    adds at the loop's steady rate (`mshrs` a latency) instead. A run expected to
    hit pays nothing: its first tile's fill overlaps the layer before it as a
    continued tile's does (MTTKRP's small nest, charged 59 fills of 14 cycles,
    measured 777 cycles slower kept)."""
    if misses <= 0:
        return 0.0
    fill = timeline.fill(loop) if timeline else pipeline_fill(loop, machine)
    first = min(1.0, misses) * machine.dram_latency * (1 - 1 / max(1, machine.cache_mshrs))
    return fill + first


class CutLoops:
    """The loops of a layered copy of `function` whose bodies hold pieces of
    straight-line stores (layers of one iteration) where `function`'s loop around
    their tape accesses fills a pipeline (`pipeline_fill`): an innermost loop whose
    iteration stores more than a layer holds (`straight` entries, where given: a
    nest none of whose loops stores more an iteration was not cut for want of
    room, and loses nothing here). Kept, that loop runs as one
    pipelined kernel loop and fills its pipeline once per run; cut into pieces,
    each iteration runs its pieces' kernels one after the other, each paying its
    own latency path, so each iteration adds at least that fill (a lower bound:
    each piece's kernel also fills and drains). The same map from the layered
    copy's tape accesses to `function`'s prices the chains of tiles a nest's
    layers break (`broken`, `breaks`). Built once per function: the fills are
    worked out once per loop."""

    def __init__(
        self,
        function: func.FuncOp,
        machine: StreamMachine,
        straight: int | None = None,
        accesses: AccessReuse | None = None,
    ):
        self.machine = machine
        self.accesses = accesses
        """What is known of `function`'s accesses (built at the first need)."""
        self.function = function
        self.straight = straight
        """The entries a layer of straight-line stores holds (None: any loop with
        pieces counts as cut by them)."""
        self.originals: dict[tuple[bool, SSAValue, int], Operation] = {}
        for op in walk_ops(function):
            if isinstance(op, region.StoreOp | region.LoadOp):
                self.originals.setdefault(_tape_key(op, op.region), op)
        self.fills: dict[Operation, int] = {}

    def loops(
        self, work: func.FuncOp, regions: dict[SSAValue, SSAValue]
    ) -> Iterator[tuple[scf.ForOp, int, int, scf.ForOp]]:
        """Each loop of the layered `work` cut into pieces of `regions` (mapped to
        `function`'s): the loop, its kept loop's fill, the tape entries its
        pieces store an iteration (0 for REV's), and that kept loop (`function`'s
        loop around its tape accesses)."""
        found: dict[scf.ForOp, list[int]] = {}
        originals: dict[scf.ForOp, scf.ForOp] = {}
        for op in walk_ops(work):
            if not isinstance(op, layer.LayerOp) or _strip_mined(op) is not None:
                continue
            loop = op.parent_op()
            if not isinstance(loop, scf.ForOp):
                continue
            for each in op.body.block.ops:
                if not isinstance(each, region.StoreOp | region.LoadOp) or (
                    each.region not in regions
                ):
                    continue
                original = self.originals.get(_tape_key(each, regions[each.region]))
                kept = original.parent_op() if original is not None else None
                if not isinstance(kept, scf.ForOp):
                    continue
                if kept not in self.fills:
                    self.fills[kept] = pipeline_fill(kept, self.machine)
                counted = found.setdefault(loop, [0, 0])
                if self.fills[kept] > counted[0]:
                    originals[loop] = kept
                counted[0] = max(counted[0], self.fills[kept])
                counted[1] += isinstance(each, region.StoreOp)
        if self.straight is not None and all(e <= self.straight for _, e in found.values()):
            return  # no iteration stores more than a layer holds: not cut by the layers
        for loop, (fill, entries) in found.items():
            if fill:
                yield loop, fill, entries, originals[loop]

    def lost(self, work: func.FuncOp, regions: dict[SSAValue, SSAValue]) -> float:
        """The overlap streaming `regions` costs: each iteration of a loop cut into
        pieces, its kept loop's fill."""
        return sum(
            (nest_runs(enclosing_loops(loop, work) + (loop,)) or 0) * fill
            for loop, fill, _, _ in self.loops(work, regions)
        )

    def iteration(
        self, work: func.FuncOp, regions: dict[SSAValue, SSAValue]
    ) -> tuple[float, set[scf.ForOp]] | None:
        """For a nest of run-time trip counts (no count of its runs) whose layers
        are all pieces of one FWD loop's iterations and of its REV loop's: the
        overlap the cut loses per iteration (the two loops' fills) and those
        loops as `function` holds them, whose iteration `saved_cycles` prices
        (`per_iteration`). None for another nest."""
        cut = list(self.loops(work, regions))
        if sorted(entries > 0 for _, _, entries, _ in cut) != [False, True]:
            return None
        loops = {loop for loop, _, _, _ in cut}
        for op in walk_ops(work):
            if isinstance(op, layer.LayerOp) and any(
                isinstance(o, region.StoreOp | region.LoadOp) and o.region in regions
                for o in walk_ops(op)
            ):
                if _strip_mined(op) is not None or op.parent_op() not in loops:
                    return None
        return sum(fill for _, fill, _, _ in cut), {kept for _, _, _, kept in cut}

    def run_misses(self, loop: scf.ForOp, work: func.FuncOp) -> float:
        """The primal lines a run of the layered innermost `loop` is sure to
        miss: those its kept loop (`function`'s loop around its tape loads or
        stores) misses an iteration through accesses that touch each element once
        (cold lines, `AccessReuse.lines`; a reused element's line is left out,
        its misses an estimate of reuse distance that a restart need not wait
        for), times that loop's trip count (one iteration where it is known only
        at run time); a line where no kept loop is found."""
        mapping = dict(
            zip(
                [op.region for op in walk_ops(work) if isinstance(op, region.AllocOp)],
                [op.region for op in walk_ops(self.function) if isinstance(op, region.AllocOp)],
                strict=False,
            )
        )
        kept = None
        for each in walk_ops(loop.body):
            if isinstance(each, region.StoreOp | region.LoadOp) and each.region in mapping:
                original = self.originals.get(_tape_key(each, mapping[each.region]))
                if original is not None and isinstance(original.parent_op(), scf.ForOp):
                    kept = original.parent_op()
                    break
        if kept is None:
            return 1.0
        self.accesses = self.accesses or AccessReuse(self.function)
        line, size = self.machine.cache_line_bytes, self.machine.cache_bytes
        per_iteration = sum(
            self.accesses.lines(o, line, size, self.machine)
            for o in walk_ops(kept.body)
            if isinstance(o, memref.LoadOp | memref.StoreOp) and not self.accesses.reused(o)
        )
        return per_iteration * (trip_count(kept) or 1)

    def broken(
        self,
        work: func.FuncOp,
        regions: set[SSAValue],
        timeline: RevTimeline | None = None,
        tiles_kept: Collection[SSAValue] = (),
    ) -> float:
        """The cycles streaming `regions` adds in the layered `work` by its layers
        standing between the runs of another nest's tile loop: kept, those
        layers' values go through the cache as straight-line ops, and the runs
        continue each other (`continued_fills`); streamed, each run a layer of
        `regions` separates starts a chain of its own (`restart_cycles`). A piece
        of one value a row beside an inner loop's tiles (a per-row loss beside a
        dot product) costs its REV rows that. The tile loops of regions in
        `tiles_kept` (a nest the cost model keeps) have no chains to break."""
        own = {
            op for op in walk_ops(work) if isinstance(op, layer.LayerOp) and _touches(op, regions)
        }
        if not own:
            return 0.0
        added = 0.0
        for op, loop, tile_loop in _tile_layers(work):
            if op in own or _touches(op, tiles_kept):
                continue
            runs = trip_runs(enclosing_loops(op, work))
            if runs is None:
                continue
            started = sum(count for trips, count in runs.items() if trips > 0)
            now = min(started, _chains(tile_loop, work))
            alone = min(started, _chains(tile_loop, work, own))
            if now > alone:
                misses = self.run_misses(loop, work)
                added += (now - alone) * restart_cycles(loop, self.machine, misses, timeline)
        return added

    def breaks(
        self,
        work: func.FuncOp,
        regions: dict[SSAValue, SSAValue],
        timeline: RevTimeline | None = None,
        tiles_kept: Collection[SSAValue] = (),
    ) -> tuple[float, set[scf.ForOp]] | None:
        """For a nest of run-time trip counts whose layers are all pieces of
        loops' iterations, standing between the runs of another nest's tile loop
        (`chain_breaks`): what those breaks cost per iteration of the loops around
        the pieces (`restart_cycles`), and those loops as `function` holds them
        (`saved_cycles`'s `per_iteration`). None for another nest, or one that
        breaks no chain (the tile loops of regions in `tiles_kept` have none)."""
        own: set[Operation] = set()
        kept_loops: set[scf.ForOp] = set()
        for op in walk_ops(work):
            if not isinstance(op, layer.LayerOp) or not _touches(op, regions):
                continue
            if _strip_mined(op) is not None or not isinstance(op.parent_op(), scf.ForOp):
                return None
            own.add(op)
            for each in op.body.block.ops:
                if isinstance(each, region.StoreOp | region.LoadOp) and each.region in regions:
                    original = self.originals.get(_tape_key(each, regions[each.region]))
                    kept = original.parent_op() if original is not None else None
                    if not isinstance(kept, scf.ForOp):
                        return None
                    kept_loops.add(kept)
        holders = {op.parent_op() for op in own}
        lost = 0.0
        for op, loop, tile_loop in _tile_layers(work):
            if op in own or _touches(op, tiles_kept):
                continue
            stop = _chain_stop(tile_loop, work)
            if stop is None or stop is _chain_stop(tile_loop, work, own):
                continue
            if stop.parent_op() in holders:  # broken once an iteration of that loop
                misses = self.run_misses(loop, work)
                lost += restart_cycles(loop, self.machine, misses, timeline)
        if not lost:
            return None
        return lost, kept_loops


def _tape_key(op: region.StoreOp | region.LoadOp, target: SSAValue) -> tuple[bool, SSAValue, int]:
    """A tape access by the store it is or reads, in region `target`."""
    if isinstance(op, region.StoreOp):
        return (True, target, op.properties["id"].value.data)  # type: ignore[union-attr]
    return (False, target, op.properties["from"].value.data)  # type: ignore[union-attr]


def _chains(tile_loop: scf.ForOp, function: func.FuncOp, ignore: Collection[Operation] = ()) -> int:
    """At most the chains the runs of `tile_loop` form (`continued_fills`): the
    runs of the innermost block around it that holds more than straight-line ops
    before it (one where that is the function's body). The layers in `ignore`
    count as straight-line ops (a nest kept: its pieces' values go through the
    cache)."""
    stop = _chain_stop(tile_loop, function, ignore)
    if stop is None:
        return 1
    counted = nest_runs(enclosing_loops(stop, function))
    return 1 if counted is None else max(1, counted)


def _chain_stop(
    tile_loop: scf.ForOp, function: func.FuncOp, ignore: Collection[Operation] = ()
) -> Operation | None:
    """The op whose block ends the chains of `tile_loop`'s runs (`_chains`): the
    innermost op around it, `tile_loop` included, beside which its block holds more
    than straight-line ops before it or which no loop holds; None where the
    function's body is that block (one chain)."""
    current: Operation = tile_loop
    while True:
        block = current.parent_block()
        owner = block.parent_op() if block is not None else None
        if block is None or owner is None or owner is function:
            return None
        if not isinstance(owner, scf.ForOp) or not _alone(block, current, ignore):
            # The block runs once per iteration of the loops around it (at most,
            # in a branch).
            return current
        current = owner


def _alone(block: Block, op: Operation, ignore: Collection[Operation] = ()) -> bool:
    """Beside `op`, `block` holds constants and straight-line ops before it alone
    (ops after it would end the block as a loop's kernel); a layer in `ignore`
    counts as straight-line ops."""
    seen = False
    for each in block.ops:
        if each is op:
            seen = True
        elif isinstance(each, arith.ConstantOp) or each is block.last_op:
            continue
        elif seen:
            return False
        elif each in ignore:
            continue
        elif any(isinstance(o, scf.ForOp | scf.IfOp | layer.LayerOp) for o in walk_ops(each)):
            return False
    return True
