"""
The op implementations of the executor, registered by op class, as xDSL's
interpreters register theirs (`xdsl.interpreter.impl`): a module per dialect
decorates a builder with the op classes it implements.

The executor compiles rather than interprets, so an implementation is a
*builder*: given the compile context, the op and the frame slots of its
operands and results, it returns the op's step (a closure over the frame).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation

from sim.compile_context import CompileContext, Step
from sim.errors import unsupported

Builder = Callable[[CompileContext, Operation, list[int], list[int]], Step]

BUILDERS: dict[type[Operation], Builder] = {}
"""The builder of each op class (looked up by the op's exact class)."""


def impl(*op_types: type[Operation]) -> Callable[[Builder], Builder]:
    """Register the decorated builder for ops of `op_types`."""

    def register(builder: Builder) -> Builder:
        for op_type in op_types:
            if op_type in BUILDERS:
                raise ValueError(f"{op_type.__name__} has two implementations")
            BUILDERS[op_type] = builder
        return builder

    return register


def build(ctx: CompileContext, op: Operation) -> Step:
    """The step of `op` (without timing or trace record), or a located
    `ExecutionError` naming the op if no implementation is registered."""
    builder = BUILDERS.get(type(op))
    if builder is None:
        # A subclass of a registered op (the upstream ops whose MLIR syntax
        # tapeflow_dialects.upstream_syntax adds) runs as the op it extends.
        builder = next((BUILDERS[t] for t in type(op).__mro__[1:] if t in BUILDERS), None)
        if builder is not None:
            BUILDERS[type(op)] = builder
    if builder is None:
        raise unsupported(op, "the reference executor has no semantics for it")
    ins = [ctx.slot(v) for v in op.operands]
    outs = [ctx.slot(r) for r in op.results]
    return builder(ctx, op, ins, outs)


__all__ = ["BUILDERS", "Builder", "build", "impl"]
