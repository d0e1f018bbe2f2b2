"""`func` ops: `func.return` ends the function's run, `func.call` runs the callee
(a call nesting deeper than Python's recursion limit is an error at the call)."""

from __future__ import annotations

import sys

from xdsl.dialects import func

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import ExecutionError, fault, unsupported
from sim.impls.registry import impl


class Return(Exception):
    """Raised by `func.return`'s step: the values the function returns."""

    def __init__(self, values: tuple[object, ...]):
        self.values = values


@impl(func.ReturnOp)
def build_return(ctx: CompileContext, op: func.ReturnOp, ins: list[int], outs: list[int]) -> Step:
    def step(fr: Frame) -> None:
        raise Return(tuple(fr[i] for i in ins))

    return step


def too_deep(op: func.CallOp) -> str:
    """The message of a call that nests too deeply (made when it is compiled:
    at the limit there is no room left to make it)."""
    return str(
        fault(
            op,
            f"'func.call' of @{op.callee.root_reference.data} nests calls too deeply "
            f"(more than Python's recursion limit of {sys.getrecursionlimit()} frames)",
        )
    )


@impl(func.CallOp)
def build_call(ctx: CompileContext, op: func.CallOp, ins: list[int], outs: list[int]) -> Step:
    callee = op.callee.root_reference.data
    if not ctx.has_function(callee):
        raise unsupported(op, f"the callee @{callee} is not in the module")
    message = too_deep(op)
    function = ctx.function

    def step(fr: Frame) -> None:
        try:
            results = function(callee)([fr[i] for i in ins])
        except RecursionError:
            raise ExecutionError(message) from None
        for slot, value in zip(outs, results, strict=False):
            fr[slot] = value

    return step


__all__ = ["Return", "too_deep"]
