"""
`arith` ops: `arith.constant`, and every scalar op of the semantics table
(`tapeflow_dialects.semantics`), whose function each step calls.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Operation

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import undefined, unsupported
from sim.impls.registry import impl
from tapeflow_dialects.semantics import (
    OPS,
    Scalar,
    UndefinedBehavior,
    constant_value,
    scalar,
)


def scalar_of(op: Operation) -> Scalar | None:
    """The semantics-table entry of `op` at its types, if it has one."""
    return scalar(
        op.name,
        [v.type for v in op.operands],
        [r.type for r in op.results],
        op.properties,
    )


def scalar_step(
    ctx: CompileContext, op: Operation, entry: Scalar, ins: list[int], outs: list[int]
) -> Step:
    """The step computing `entry` of the operand slots into the result slot;
    undefined behaviour is reported at `op`."""
    function, name, state = entry.function, entry.name, ctx.state
    (o,) = outs
    if len(ins) != entry.arity:
        raise unsupported(op, f"it takes {entry.arity} operands, not {len(ins)}", name)
    if not entry.total:

        def guarded(fr: Frame) -> None:
            try:
                if entry.counted:
                    state.ops_executed += 1
                fr[o] = function(*[fr[i] for i in ins])
            except UndefinedBehavior as err:
                raise undefined(op, name, err) from None

        return guarded
    if entry.arity == 1:
        (a,) = ins
        if entry.counted:

            def unary_counted(fr: Frame) -> None:
                state.ops_executed += 1
                fr[o] = function(fr[a])

            return unary_counted

        def unary(fr: Frame) -> None:
            fr[o] = function(fr[a])

        return unary
    if entry.arity == 2:
        a, b = ins
        if entry.counted:

            def binary_counted(fr: Frame) -> None:
                state.ops_executed += 1
                fr[o] = function(fr[a], fr[b])

            return binary_counted

        def binary(fr: Frame) -> None:
            fr[o] = function(fr[a], fr[b])

        return binary
    a, b, c = ins
    if entry.counted:

        def ternary_counted(fr: Frame) -> None:
            state.ops_executed += 1
            fr[o] = function(fr[a], fr[b], fr[c])

        return ternary_counted

    def ternary(fr: Frame) -> None:
        fr[o] = function(fr[a], fr[b], fr[c])

    return ternary


def build_scalar(ctx: CompileContext, op: Operation, ins: list[int], outs: list[int]) -> Step:
    entry = scalar_of(op)
    if entry is None:
        types = ", ".join(str(v.type) for v in op.operands)
        raise unsupported(op, f"no semantics at these types ({types})")
    return scalar_step(ctx, op, entry, ins, outs)


impl(*(op for op in arith.Arith.operations if op.name in OPS))(build_scalar)


@impl(arith.ConstantOp)
def build_constant(
    ctx: CompileContext, op: arith.ConstantOp, ins: list[int], outs: list[int]
) -> Step:
    value = op.value
    if isinstance(value, DenseIntOrFPElementsAttr):
        raise unsupported(op, "dense constants are not supported")
    const: Any = constant_value(value)
    if const is None:
        raise unsupported(op, f"constant {value}")
    (o,) = outs

    def step(fr: Frame) -> None:
        fr[o] = const

    return step


__all__ = ["build_scalar", "scalar_of", "scalar_step"]
