"""
`scf` ops: `for` (its step must be positive, as MLIR requires), `if` and
`while` run their regions' steps; a kernel loop (`sim.kernel_compiler`) is its
generated function on the fast path.
"""

from __future__ import annotations

from xdsl.dialects import scf

from sim.compile_context import CompileContext, Frame, Lazy, Step
from sim.errors import nonpositive_step, unsupported
from sim.impls.registry import impl
from sim.kernel_compiler import compile_kernel_loop, is_kernel_loop
from tapeflow_dialects import layer


@impl(scf.ForOp)
def build_for(ctx: CompileContext, op: scf.ForOp, ins: list[int], outs: list[int]) -> Step:
    if ctx.fast and is_kernel_loop(op):
        # The closure step is the fallback of the compiled loop; it is compiled
        # only if a run of the loop needs it.
        reference = Lazy(lambda: for_step(ctx, op, ins, outs), ctx)
        compiled = compile_kernel_loop(ctx, op, ins, outs, reference)
        ctx.add_kernel_loop(op, compiled)
        return compiled
    return for_step(ctx, op, ins, outs)


def for_step(ctx: CompileContext, op: scf.ForOp, ins: list[int], outs: list[int]) -> Step:
    """The closure step of `op` (running its body's steps)."""
    lb, ub, st, *inits = ins
    block = op.body.block
    iv = ctx.slot(block.args[0])
    carried = [ctx.slot(a) for a in block.args[1:]]
    steps, yielded = ctx.region_steps(block)

    def step(fr: Frame) -> None:
        if fr[st] <= 0:
            raise nonpositive_step(op, fr[st])
        for slot, init in zip(carried, inits, strict=False):
            fr[slot] = fr[init]
        for i in range(fr[lb], fr[ub], fr[st]):
            fr[iv] = i
            for s in steps:
                s(fr)
            if carried:
                values = [fr[y] for y in yielded]
                for slot, value in zip(carried, values, strict=False):
                    fr[slot] = value
        for out, slot in zip(outs, carried, strict=False):
            fr[out] = fr[slot]

    return step


@impl(scf.IfOp)
def build_if(ctx: CompileContext, op: scf.IfOp, ins: list[int], outs: list[int]) -> Step:
    (cond,) = ins
    then_steps, then_yield = ctx.region_steps(op.true_region.block)
    if op.false_region.blocks:
        else_steps, else_yield = ctx.region_steps(op.false_region.block)
    else:
        else_steps, else_yield = [], []

    def step(fr: Frame) -> None:
        steps, yielded = (then_steps, then_yield) if fr[cond] else (else_steps, else_yield)
        for s in steps:
            s(fr)
        values = [fr[y] for y in yielded]
        for out, value in zip(outs, values, strict=False):
            fr[out] = value

    return step


@impl(scf.WhileOp)
def build_while(ctx: CompileContext, op: scf.WhileOp, ins: list[int], outs: list[int]) -> Step:
    before, after = op.before_region.block, op.after_region.block
    before_args = [ctx.slot(a) for a in before.args]
    after_args = [ctx.slot(a) for a in after.args]
    before_steps, cond_operands = ctx.region_steps(before)
    after_steps, yielded = ctx.region_steps(after)
    cond, *forwarded = cond_operands

    def step(fr: Frame) -> None:
        values = [fr[i] for i in ins]
        while True:
            for slot, value in zip(before_args, values, strict=False):
                fr[slot] = value
            for s in before_steps:
                s(fr)
            values = [fr[f] for f in forwarded]
            if not fr[cond]:
                break
            for slot, value in zip(after_args, values, strict=False):
                fr[slot] = value
            for s in after_steps:
                s(fr)
            values = [fr[y] for y in yielded]
        for out, value in zip(outs, values, strict=False):
            fr[out] = value

    return step


@impl(scf.YieldOp, scf.ConditionOp, layer.BarrierOp)
def build_terminator(ctx: CompileContext, op: scf.YieldOp, ins: list[int], outs: list[int]) -> Step:
    raise unsupported(op, "a region terminator outside its parent")
