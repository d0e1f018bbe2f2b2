"""
`cgra` ops: a `cgra.kernel` runs its placed ops in order; a placed op computes
what the op it was lowered from computes, so that op is rebuilt (detached from
the IR, at the placed op's location) and compiled in its place, sharing slots.
"""

from __future__ import annotations

from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import FileLineColLoc, IntegerAttr, LocationAttr
from xdsl.ir import Operation

from sim.compile_context import CompileContext, Frame, Lazy, Step
from sim.errors import unsupported
from sim.impls.registry import impl
from sim.kernel_compiler import compile_straight_kernel, is_kernel_loop
from tapeflow_dialects import cgra, region, stream
from tapeflow_dialects.layer import SpadType

COMPUTE_OPS: dict[str, type[Operation]] = {
    op.name: op for dialect in (arith.Arith, math_dialect.Math) for op in dialect.operations
}
"""The op class of each `cgra.op` opcode."""


def _location(op: Operation) -> LocationAttr | None:
    current: Operation | None = op
    while current is not None:
        if isinstance(current.location, FileLineColLoc):
            return current.location
        current = current.parent_op()
    return None


def unplaced(op: cgra.ComputeOp | cgra.LoadOp | cgra.StoreOp) -> Operation | None:
    """The plain op a placed CGRA op stands for (not inserted anywhere), located
    where the placed op is."""
    proto = _unplaced(op)
    location = _location(op)
    if proto is not None and location is not None:
        proto.location = location
    return proto


def _unplaced(op: cgra.ComputeOp | cgra.LoadOp | cgra.StoreOp) -> Operation | None:
    if isinstance(op, cgra.ComputeOp):
        cls = COMPUTE_OPS.get(op.opcode.data)
        if cls is None:
            return None
        properties = dict(op.attrs.data) if op.attrs is not None else {}
        return cls.create(
            operands=list(op.args), result_types=[r.type for r in op.res], properties=properties
        )
    memory = op.memory
    link = IntegerAttr(0, 64)
    slot = op.slot
    if isinstance(op, cgra.LoadOp):
        result = [op.result.type]
        if isinstance(memory.type, SpadType):
            return stream.LoadOp.create(
                operands=[memory, *op.indices],
                result_types=result,
                properties={"slot": slot, "from": link},  # type: ignore[dict-item]
            )
        if isinstance(memory.type, region.RegionType):
            return region.LoadOp.create(
                operands=[memory, *op.indices],
                result_types=result,
                properties={"slot": slot, "from": link},  # type: ignore[dict-item]
            )
        return memref.LoadOp.create(operands=[memory, *op.indices], result_types=result)
    if isinstance(memory.type, SpadType):
        return stream.StoreOp.create(
            operands=[op.value, memory, *op.indices],
            properties={"slot": slot, "id": link},  # type: ignore[dict-item]
        )
    if isinstance(memory.type, region.RegionType):
        return region.StoreOp.create(
            operands=[op.value, memory, *op.indices],
            properties={"slot": slot, "id": link},  # type: ignore[dict-item]
        )
    return memref.StoreOp.create(operands=[op.value, memory, *op.indices])


@impl(cgra.KernelOp)
def build_kernel(ctx: CompileContext, op: cgra.KernelOp, ins: list[int], outs: list[int]) -> Step:
    if ctx.fast and not is_kernel_loop(op.parent_op()):
        # A kernel run once where it stands: its compiled body, with the closure
        # steps as the fallback (compiled only if a run needs them).
        reference = Lazy(lambda: kernel_step(ctx, op, outs), ctx)
        return compile_straight_kernel(ctx, op, outs, reference)
    return kernel_step(ctx, op, outs)


def kernel_step(ctx: CompileContext, op: cgra.KernelOp, outs: list[int]) -> Step:
    """The closure step of `op` (running its placed ops' steps)."""
    with ctx.kernel_scope():
        steps, yielded = ctx.region_steps(op.body.block)

    def step(fr: Frame) -> None:
        for s in steps:
            s(fr)
        for out, value in zip(outs, [fr[y] for y in yielded], strict=False):
            fr[out] = value

    return step


@impl(cgra.ComputeOp, cgra.LoadOp, cgra.StoreOp)
def build_placed(
    ctx: CompileContext,
    op: cgra.ComputeOp | cgra.LoadOp | cgra.StoreOp,
    ins: list[int],
    outs: list[int],
) -> Step:
    proto = unplaced(op)
    if proto is None:
        raise unsupported(op, "no semantics known for this placed op")
    for placed_result, proto_result in zip(op.results, proto.results, strict=False):
        ctx.alias(proto_result, placed_result)
    try:
        return ctx.step(proto)
    finally:
        proto.drop_all_references()


@impl(cgra.BarrierOp)
def build_barrier(ctx: CompileContext, op: cgra.BarrierOp, ins: list[int], outs: list[int]) -> Step:
    return lambda fr: None
