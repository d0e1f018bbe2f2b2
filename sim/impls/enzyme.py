"""`enzyme` ops of Enzyme's gradients: caches are LIFO lists, gradients one-entry
lists, `fill_zero` zeroes a buffer, `enzyme.store/load` access a cache buffer of
run-time extents (checked against the logical extents they carry)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import fault
from sim.impls.registry import impl
from sim.storage import in_bounds
from tapeflow_dialects import enzyme


@impl(enzyme.FillZeroOp)
def build_fill_zero(
    ctx: CompileContext, op: enzyme.FillZeroOp, ins: list[int], outs: list[int]
) -> Step:
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


def _extents(op: enzyme.CacheStoreOp | enzyme.CacheLoadOp, ctx: CompileContext) -> list[int | None]:
    """Per index: its constant logical extent, or None where the extent is a value."""
    return [None if e == DYNAMIC_INDEX else e for e in op.static_sizes.get_values()]


def _check_cache_access(
    op: enzyme.CacheStoreOp | enzyme.CacheLoadOp,
    fr: Frame,
    buffer: np.ndarray,
    where: tuple[int, ...],
    extents: list[int | None],
    size_slots: list[int],
) -> None:
    """The index must be inside the buffer and inside the logical extents Enzyme
    gave (its cache's trip counts): otherwise FWD and REV disagree on the cache."""
    sizes = iter(size_slots)
    logical = [fr[next(sizes)] if e is None else e for e in extents]
    if not in_bounds(where, buffer.shape):
        raise fault(
            op,
            f"'{op.name}' index {list(where)} is out of bounds for a cache buffer of "
            f"shape {list(buffer.shape)}",
        )
    if not in_bounds(where, tuple(logical)):
        raise fault(
            op,
            f"'{op.name}' index {list(where)} is outside the cache's logical extents {logical}",
        )


@impl(enzyme.CacheStoreOp)
def build_cache_store(
    ctx: CompileContext, op: enzyme.CacheStoreOp, ins: list[int], outs: list[int]
) -> Step:
    """`enzyme.store`: a `memref.store` into a cache buffer, checked against the
    cache's logical extents."""
    rank = len(op.indices)
    v, m, idx, size_slots = ins[0], ins[1], ins[2 : 2 + rank], ins[2 + rank :]
    extents = _extents(op, ctx)

    def step(fr: Frame) -> None:
        buffer, where = fr[m], tuple(fr[i] for i in idx)
        _check_cache_access(op, fr, buffer, where, extents, size_slots)
        buffer[where] = fr[v]

    return step


@impl(enzyme.CacheLoadOp)
def build_cache_load(
    ctx: CompileContext, op: enzyme.CacheLoadOp, ins: list[int], outs: list[int]
) -> Step:
    """`enzyme.load`: a `memref.load` from a cache buffer, checked the same way."""
    rank = len(op.indices)
    m, idx, size_slots = ins[0], ins[1 : 1 + rank], ins[1 + rank :]
    extents = _extents(op, ctx)
    (o,) = outs

    def step(fr: Frame) -> None:
        buffer, where = fr[m], tuple(fr[i] for i in idx)
        _check_cache_access(op, fr, buffer, where, extents, size_slots)
        value = buffer[where]
        fr[o] = value if isinstance(value, np.ndarray) else value.item()

    return step
