"""
Wrappers that add what the simulator observes to an op's step: its cost for
the timing recorder (`timed`) and the address it touches for the memory trace
(`traced`). The executor wraps every step it compiles, in that order (the
trace record first, then the timing, then the op).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import memref, scf
from xdsl.ir import Operation

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import nonpositive_step
from sim.kernel_compiler import is_kernel_loop
from tapeflow_dialects import cgra, enzyme, layer, region, stream, tape
from tapeflow_dialects.enzyme import REV_START
from tapeflow_dialects.layer import Phase, SpadType
from targets.costs import KernelProfile, kernel_profile

_KIND_CLASSES: tuple[tuple[type[Operation], str], ...] = (
    (scf.ForOp, "for"),
    (cgra.KernelOp, "kernel"),
    (stream.FwdOp, "fwd"),
    (stream.RevOp, "rev"),
    (layer.LayerOp, "layer"),
    (memref.LoadOp, "load"),
    (tape.LoadOp, "tape_load"),
    (memref.StoreOp, "store"),
    (tape.StoreOp, "tape_store"),
    (enzyme.CacheLoadOp, "cache_load"),
    (enzyme.CacheStoreOp, "cache_store"),
    (region.LoadOp, "region_load"),
    (region.StoreOp, "region_store"),
)
_KINDS: dict[type[Operation], str | None] = {}


def _kind(op: Operation) -> str | None:
    """The name `timed` and `traced` know `op`'s class by (`_KIND_CLASSES`; None:
    neither treats it apart), found once per class: an xDSL op class is an
    abstract base class, whose `isinstance` costs ten dictionary look-ups."""
    cls = type(op)
    if cls in _KINDS:
        return _KINDS[cls]
    kind = next((name for base, name in _KIND_CLASSES if isinstance(op, base)), None)
    _KINDS[cls] = kind
    return kind


def timed(ctx: CompileContext, op: Operation, step: Step) -> Step:
    """`step`, reporting what it costs to the timing recorder (and starting the
    REV phase at the op marked as its first)."""
    timing = ctx.timing
    assert timing is not None
    costed = _costed(ctx, op, step)
    if REV_START not in op.attributes:
        return costed

    def rev_step(fr: Frame) -> None:
        timing.set_phase("rev")
        costed(fr)

    return rev_step


def _costed(ctx: CompileContext, op: Operation, step: Step) -> Step:
    timing = ctx.timing
    assert timing is not None
    if ctx.in_kernel:
        return step
    kind = _kind(op)
    if kind == "for" and is_kernel_loop(op):
        return _timed_kernel_loop(ctx, op, step)  # type: ignore[arg-type]
    if kind == "kernel" and not is_kernel_loop(op.parent_op()):  # type: ignore[arg-type]
        return _timed_straight_kernel(ctx, op, step)  # type: ignore[arg-type]
    if kind == "fwd" or kind == "rev":
        assert isinstance(op, stream.FwdOp | stream.RevOp)
        direction = kind
        rows_slot = ctx.slot(op.rows)
        tile_type = op.tile.type
        assert isinstance(tile_type, SpadType)
        row_bytes = tile_type.slots.data * 8

        def stream_step(fr: Frame) -> None:
            timing.stream(direction, fr[rows_slot] * row_bytes)
            step(fr)

        return stream_step
    if kind == "layer":
        assert isinstance(op, layer.LayerOp)
        entries, rev = layer_tile(op)

        def layer_step(fr: Frame) -> None:
            timing.layer(entries, rev)
            step(fr)
            timing.end_layer()

        return layer_step
    cost = timing.op_cost(op)
    if cost is None:
        return step

    # Bound as defaults, not closed over: two objects per op, not seven (what
    # the cycle collector walks after a run is mostly such closures).
    def op_step(
        fr: Frame,
        record: Callable[[int, str | None, str | None], None] = timing.op,
        latency: int = cost.latency,
        fu_class: str | None = cost.fu_class,
        memory: str | None = cost.memory,
        step: Step = step,
    ) -> None:
        record(latency, fu_class, memory)
        step(fr)

    return op_step


def layer_tile(op: layer.LayerOp) -> tuple[int, bool]:
    """The scratchpad entries a layer's tile takes (its `layer.salloc`, 0 if none)
    and whether it is a REV layer."""
    rev = op.phase.data is Phase.REV
    for inner in op.body.block.ops:
        if isinstance(inner, layer.SAllocOp):
            tile = inner.results[0].type
            assert isinstance(tile, SpadType)
            return tile.entries(), rev
    return 0, rev


def _timed_kernel_loop(ctx: CompileContext, op: scf.ForOp, step: Step) -> Step:
    timing = ctx.timing
    assert timing is not None
    kernel = next(o for o in op.body.block.ops if isinstance(o, cgra.KernelOp))
    # Made when the step first runs: the fast path's generated code, which times
    # the loop itself, leaves it to the runs that take the closures.
    profile: list[KernelProfile] = []
    lb, ub, st = (ctx.slot(v) for v in (op.lb, op.ub, op.step))

    def loop_step(fr: Frame) -> None:
        if fr[st] <= 0:
            raise nonpositive_step(op, fr[st])
        trips = len(range(fr[lb], fr[ub], fr[st]))
        if not profile:
            profile.append(kernel_profile(kernel, timing.hardware, timing.planner))
        timing.kernel_loop(trips, profile[0])
        step(fr)
        timing.end_kernel_loop()

    return loop_step


def _timed_straight_kernel(ctx: CompileContext, op: cgra.KernelOp, step: Step) -> Step:
    """A kernel no loop iterates (a layer's straight-line dataflow): one trip."""
    timing = ctx.timing
    assert timing is not None
    profile = kernel_profile(op, timing.hardware, timing.planner)
    cell, rows, accesses = (
        timing.kernel_cell(profile),
        timing.kernel_rows.extend,
        timing.trace.packed,
    )

    def kernel_step(fr: Frame) -> None:
        if not timing.idle:
            timing.kernel_loop(1, profile)
            step(fr)
            timing.end_kernel_loop()
            return
        try:
            step(fr)
        except BaseException:
            timing.kernel_loop(1, profile)  # the window it failed in, unended
            raise
        if cell[0] < 0:
            timing.kernel_ran(1, profile)
        else:  # what kernel_ran records
            rows((cell[0], 1, len(accesses)))

    return kernel_step


_TRACED = frozenset(
    (
        "load",
        "tape_load",
        "store",
        "tape_store",
        "cache_load",
        "cache_store",
        "region_load",
        "region_store",
    )
)
"""The kinds `traced` records an access of."""


def traced(ctx: CompileContext, op: Operation, step: Step) -> Step:
    """`step`, recording the address it touches first (memory ops only)."""
    trace = ctx.trace
    assert trace is not None
    kind = _kind(op)
    if kind not in _TRACED:
        return step
    ins = [ctx.slot(v) for v in op.operands]
    match kind:
        case "load" | "tape_load" as kind:
            buffer, idx, write, is_tape, slot = ins[0], ins[1:], False, kind == "tape_load", None
        case "store" | "tape_store" as kind:
            buffer, idx, write, is_tape, slot = ins[1], ins[2:], True, kind == "tape_store", None
        case "cache_load":
            rank = len(op.indices)  # type: ignore[attr-defined]
            buffer, idx, write, is_tape, slot = ins[0], ins[1 : 1 + rank], False, False, None
        case "cache_store":
            rank = len(op.indices)  # type: ignore[attr-defined]
            buffer, idx, write, is_tape, slot = ins[1], ins[2 : 2 + rank], True, False, None
        case "region_load":
            slot = op.slot.value.data  # type: ignore[attr-defined]
            buffer, idx, write, is_tape = ins[0], ins[1:], False, True
        case "region_store":
            slot = op.slot.value.data  # type: ignore[attr-defined]
            buffer, idx, write, is_tape = ins[1], ins[2:], True, True
        case _:
            return step
    unwrap = is_tape  # tapes and regions keep their storage in `.data`
    record = trace.record

    def traced_step(fr: Frame) -> None:
        target = fr[buffer]
        where = tuple(fr[i] for i in idx)
        if slot is not None:
            where = (*where, slot)
        record(target.data if unwrap else target, where, write, is_tape)
        step(fr)

    return traced_step


__all__ = ["timed", "traced"]
