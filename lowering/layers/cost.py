"""
The cost model of `tapeflow-layers{stream=auto}`: per loop nest (the regions that
share its layers), whether streaming its tape through the scratchpad saves at
least the cycles it adds; if not, the nest's regions are kept in DRAM, read through
the cache as the aos variant reads them. Estimates in cycles, from the machine's own
numbers (`StreamMachine`, the fields of `targets.hardware.Hardware` the timing
models charge; each mechanism and its source: docs/research/stream-cost.md).

* Saved (`saved_cycles`), an upper bound: each window (a run of an innermost
  loop, or of the straight-line ops of a loop body) is taken as memory-bound.
  Streaming removes its
  tape accesses from the cache ports (`ports` a cycle) and its tape misses, which
  cost only the groups of `mshrs` outstanding misses they add to the window's
  primal ones (`dram_latency` a group). A tape line misses in
  FWD (its first touch) and in REV unless the function's tape and arrays fit the
  cache; where they do not, each cache's worth of tape lines may evict every
  reused line once more (LRU), each missed again in a group of its own.
* Added (`added_cycles`), from the layered IR: each layer executed runs its tile
  bookkeeping (the bounds of its tile, a chain of integer ops on the tile index)
  and its stream op as kernels run once, each its chain at `integer` per op plus
  one cycle to issue; an iteration of a strip-mined loop whose body holds inner
  loops computes its row offset as another such kernel; a piece of straight-line
  stores cuts the kernel it sits in, one more kernel run once.

Trip counts are the loops' constants, or, in a triangular nest (a bound computed
from an outer loop's index), the iterations counted over the outer ones
(`nest_runs`). A nest whose trip counts depend on the function's arguments is
streamed (no estimate).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import ceil, prod

from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.ir import Block, Operation, OpResult, SSAValue

from lowering.ir.index_eval import CannotEvaluate, IndexEvaluator
from lowering.ir.loops import enclosing_loops, trip_count
from lowering.layers.records import ROWS_PER_ITERATION
from tapeflow_dialects import layer, region
from tapeflow_dialects.layer import ENTRY_BYTES
from targets.hardware import CacheConfig, DramConfig, Latencies

STREAM_CHOICES = ("auto", "always")
"""`tapeflow-layers`'s `stream` option: decide per nest by the cost model, or
stream every nest that can be layered (the paper's Pass 2)."""


_CACHE, _DRAM, _LATENCIES = CacheConfig(), DramConfig(), Latencies()


@dataclass(frozen=True)
class StreamMachine:
    """The machine numbers the cost model reads; defaults: `targets.hardware`'s."""

    cache_bytes: int = _CACHE.size_bytes
    cache_line_bytes: int = _CACHE.line_bytes
    cache_mshrs: int = _CACHE.mshrs
    cache_ports: int = _CACHE.ports
    dram_latency: int = _DRAM.latency_cycles
    integer: int = _LATENCIES.integer


def static_bytes(value: SSAValue) -> int:
    typ = value.type
    if isinstance(typ, region.RegionType) and typ.is_static():
        return typ.size_bytes()
    if isinstance(typ, builtin.MemRefType) and all(d >= 0 for d in typ.get_shape()):
        return prod(typ.get_shape()) * ENTRY_BYTES
    return 0


def footprint(function: func.FuncOp, arrays: bool = True, regions: bool = True) -> int:
    """Bytes of the function's arrays (arguments and allocations) and regions."""
    kinds = (memref.AllocOp,) * arrays + (region.AllocOp,) * regions
    values = [*function.body.block.args] if arrays else []
    values += [r for op in function.walk() if isinstance(op, kinds) for r in op.results]
    return sum(static_bytes(v) for v in values)


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
    budget = [ENUMERATED_POINTS]

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
        inner = [trip_count(each) for each in loops[depth + 1 :]]
        if all(t is not None for t in inner):
            return trips * prod(t or 0 for t in inner)
        budget[0] -= trips
        if budget[0] < 0:
            raise _RunTime
        iv = loop.body.block.args[0]
        return sum(count(depth + 1, {**given, iv: lb + k * step}) for k in range(trips))

    try:
        return count(0, {})
    except _RunTime:
        return None


def _window(access: Operation, function: func.FuncOp) -> tuple[Block, float, int] | None:
    """The window `access` runs in: its block, the iterations of one run (the
    trip count of an innermost loop, on average in a triangular nest, else 1)
    and the runs (`nest_runs` of the loops around it); None if a trip count is
    known only at run time."""
    block = access.parent_block()
    owner = block.parent_op() if block is not None else None
    while isinstance(owner, scf.IfOp):
        block = owner.parent_block()
        owner = block.parent_op() if block is not None else None
    assert block is not None
    loops = enclosing_loops(access, function)
    total = nest_runs(loops)
    innermost = isinstance(owner, scf.ForOp) and not any(
        isinstance(o, scf.ForOp) for o in owner.body.walk()
    )
    if total is None or not innermost:
        return None if total is None else (block, 1, total)
    runs = nest_runs(loops[:-1])
    assert runs is not None  # the outer loops of a nest that was counted
    return block, total / runs if runs else 0, runs


def _in_window(block: Block) -> list[Operation]:
    """The ops of a window's block, looking through branches, not loops."""
    found: list[Operation] = []
    for op in block.ops:
        found.append(op)
        if isinstance(op, scf.IfOp):
            for body in op.regions:
                for inner in body.blocks:
                    found += _in_window(inner)
    return found


def saved_cycles(
    function: func.FuncOp, regions: set[SSAValue], machine: StreamMachine
) -> float | None:
    """At most the cycles streaming `regions` saves (None: run-time trip counts)."""
    arrays = footprint(function, regions=False)
    arrays_fit = arrays <= machine.cache_bytes
    fits = arrays + footprint(function, arrays=False) <= machine.cache_bytes
    windows: dict[Block, tuple[float, int]] = {}
    # An access's window depends only on the block it sits in: one per block (a
    # fully unrolled body holds thousands of accesses in one block).
    seen: dict[Block | None, tuple[Block, float, int] | None] = {}
    for op in function.walk():
        if isinstance(op, region.StoreOp | region.LoadOp) and op.region in regions:
            block = op.parent_block()
            if block not in seen:
                seen[block] = _window(op, function)
            window = seen[block]
            if window is None:
                return None
            windows[window[0]] = window[1:]
    # Where the tape does not fit beside the arrays, it pushes reused lines out of
    # the (LRU) cache: a reused line is evicted at most once more per cache's worth
    # of tape lines passing, and missed again in a group of its own; in FWD and REV.
    reused_arrays: set[SSAValue] = set()
    for o in function.walk():
        if (
            isinstance(o, memref.LoadOp | memref.StoreOp)
            and o.memref not in reused_arrays
            and _reused(o, function)
        ):
            reused_arrays.add(o.memref)
    line = machine.cache_line_bytes
    cache_lines = machine.cache_bytes // line
    reused_lines = min(cache_lines, -(-sum(static_bytes(a) for a in reused_arrays) // line))
    passes = -(-sum(static_bytes(r) for r in regions) // (cache_lines * line))
    saved = 0.0 if fits else 2.0 * passes * reused_lines * machine.dram_latency
    for block, (iterations, runs) in windows.items():
        ops = _in_window(block)
        tape = [
            o for o in ops if isinstance(o, region.StoreOp | region.LoadOp) and o.region in regions
        ]
        primal = [o for o in ops if isinstance(o, memref.LoadOp | memref.StoreOp)]
        reused = sum(_reused(o, function) for o in primal)
        words = iterations * ENTRY_BYTES / machine.cache_line_bytes
        missing = sum(isinstance(o, region.StoreOp) or not fits for o in tape)
        # Primal misses: none if the arrays stay in the cache, else a line per line
        # of elements an access touches once.
        primal_misses = 0 if arrays_fit else (len(primal) - reused) * words
        mshrs = machine.cache_mshrs
        groups = _groups(primal_misses, missing * words, mshrs) - _groups(primal_misses, 0.0, mshrs)
        ports = len(tape) * iterations / machine.cache_ports
        saved += runs * (groups * machine.dram_latency + ports)
    return saved


def _reused(access: memref.LoadOp | memref.StoreOp, function: func.FuncOp) -> bool:
    """The access may touch an element again: an index of a loop around it is in
    none of its indices (the element is reused across that loop), or one index
    combines two loops' indices (a stencil's `y + ky`: neighbouring iterations
    share elements). Otherwise it touches each element once."""
    loops = [loop.body.block.args[0] for loop in enclosing_loops(access, function)]
    seen: set[SSAValue] = set()
    for index in access.indices:
        used = _loop_indices(index, set(loops))
        if len(used) > 1:
            return True
        seen |= used
    return len(seen) < len(loops)


def _loop_indices(value: SSAValue, loops: set[SSAValue]) -> set[SSAValue]:
    """The loop indices among `loops` that `value` is computed from."""
    found: set[SSAValue] = set()
    visited: set[SSAValue] = set()
    pending = [value]
    while pending:
        current = pending.pop()
        if current in visited:
            continue
        visited.add(current)
        if current in loops:
            found.add(current)
        elif isinstance(current, OpResult):
            pending += current.op.operands
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


def _depth(ops: list[Operation], start: SSAValue | None) -> int:
    """Integer ops on the longest chain from `start` (the tile index) within `ops`;
    ops on constants alone fold away."""
    depth: dict[SSAValue, int] = {} if start is None else {start: 0}
    longest = 0
    for op in ops:
        if isinstance(op, arith.ConstantOp) or op.regions:
            continue
        inputs = [depth[v] for v in op.operands if v in depth]
        if not inputs:
            continue
        for result in op.results:
            depth[result] = max(inputs) + 1
        longest = max(longest, max(inputs) + 1)
    return longest


def added_cycles(function: func.FuncOp, regions: set[SSAValue], machine: StreamMachine) -> float:
    """The cycles the layers of `regions` in the layered `function` add."""
    kernel = machine.integer + 1  # one integer op issued as a kernel run once
    added = 0.0
    for op in function.walk():
        if not isinstance(op, layer.LayerOp) or not any(
            isinstance(o, region.StoreOp | region.LoadOp) and o.region in regions for o in op.walk()
        ):
            continue
        runs = nest_runs(enclosing_loops(op, function))
        if runs is None:  # pragma: no cover - the nest was counted before layering
            runs = prod(trip_count(each) or 1 for each in enclosing_loops(op, function))
        loop = next(
            (
                o
                for o in op.body.block.ops
                if isinstance(o, scf.ForOp) and ROWS_PER_ITERATION in o.attributes
            ),
            None,
        )
        tile_loop = op.parent_op()
        if loop is None:
            added += runs * 2 * kernel  # the stream op and the cut kernel
            continue
        index = tile_loop.body.block.args[0] if isinstance(tile_loop, scf.ForOp) else None
        if isinstance(tile_loop, scf.ForOp) and trip_count(tile_loop) == 1:
            index = None  # one tile: its bounds are constants
        chain = _depth(list(op.body.block.ops), index)
        added += runs * ((chain * machine.integer + 1 if chain else 0) + kernel)
        if any(isinstance(o, scf.ForOp) for o in loop.body.walk()):
            per_iteration = loop.attributes[ROWS_PER_ITERATION]
            assert isinstance(per_iteration, builtin.IntegerAttr)
            tile = op.salloc.tile.type
            assert isinstance(tile, layer.SpadType)
            iterations = tile.rows.data // per_iteration.value.data
            added += runs * iterations * kernel  # a row offset per iteration
    return added
