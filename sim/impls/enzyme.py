"""`enzyme` ops of Enzyme's gradients: caches are LIFO lists, gradients one-entry
lists, `fill_zero` zeroes a buffer."""

from __future__ import annotations

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import fault
from sim.impls.registry import impl
from tapeflow_dialects import enzyme


@impl(enzyme.FillZeroOp)
def build_fill_zero(ctx: CompileContext, op: enzyme.FillZeroOp, ins: list[int], outs: list[int]) -> Step:
    (m,) = ins

    def step(fr: Frame) -> None:
        fr[m][...] = 0

    return step


@impl(enzyme.InitOp)
def build_init(ctx: CompileContext, op: enzyme.InitOp, ins: list[int], outs: list[int]) -> Step:
    is_cache = isinstance(op.result.type, enzyme.CacheType)
    (o,) = outs

    def step(fr: Frame) -> None:
        fr[o] = [] if is_cache else [0.0]

    return step


@impl(enzyme.PushOp)
def build_push(ctx: CompileContext, op: enzyme.PushOp, ins: list[int], outs: list[int]) -> Step:
    c, v = ins
    return lambda fr: fr[c].append(fr[v])


@impl(enzyme.PopOp)
def build_pop(ctx: CompileContext, op: enzyme.PopOp, ins: list[int], outs: list[int]) -> Step:
    (c,) = ins
    (o,) = outs

    def step(fr: Frame) -> None:
        if not fr[c]:
            raise fault(op, "pop from an empty cache")
        fr[o] = fr[c].pop()

    return step


@impl(enzyme.GetOp)
def build_get(ctx: CompileContext, op: enzyme.GetOp, ins: list[int], outs: list[int]) -> Step:
    (g,) = ins
    (o,) = outs

    def step(fr: Frame) -> None:
        fr[o] = fr[g][0]

    return step


@impl(enzyme.SetOp)
def build_set(ctx: CompileContext, op: enzyme.SetOp, ins: list[int], outs: list[int]) -> Step:
    g, v = ins

    def step(fr: Frame) -> None:
        fr[g][0] = fr[v]

    return step
