"""
`tensor` ops with MLIR's value semantics, as Enzyme's tensor caches use them
(`enzyme.cache_use_tensor` on a loop: `tensor.empty` threaded through the loop's
`iter_args`, `tensor.insert` of each iteration's value, `tensor.insert_slice` of
an inner loop's cache into the outer one's, `tensor.extract_slice` and
`tensor.extract` in the reverse sweep).

A tensor is an immutable numpy array (made read-only, so that no step can change
a value another SSA value still holds): `tensor.insert` and `tensor.insert_slice`
return a modified copy, `tensor.extract_slice` a read-only view. `tensor.empty`'s
contents are undefined in MLIR; here they are zeros. Indices are bounds-checked
(MLIR leaves an out-of-bounds access undefined; numpy would wrap or clip).
A tensor is a value, not memory: no access to one enters the address trace.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import fault, unsupported
from sim.impls.registry import impl
from sim.storage import allocation_bytes, in_bounds, numpy_dtype, too_large


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@impl(tensor.EmptyOp)
def build_empty(ctx: CompileContext, op: tensor.EmptyOp, ins: list[int], outs: list[int]) -> Step:
    ttype = op.tensor.type
    assert isinstance(ttype, TensorType)
    static = list(ttype.get_shape())
    dynamic = iter(ins)
    slots = [next(dynamic) if d == DYNAMIC_INDEX else None for d in static]
    dtype = numpy_dtype(ttype.element_type)
    (o,) = outs

    def step(fr: Frame) -> None:
        shape = tuple(fr[s] if s is not None else d for d, s in zip(static, slots, strict=False))
        if any(d < 0 for d in shape):
            raise fault(op, f"'tensor.empty' of negative extent {list(shape)}")
        refused = too_large(allocation_bytes(shape))
        if refused is not None:
            raise fault(op, f"'tensor.empty' {refused}")
        fr[o] = _frozen(np.zeros(shape, dtype=dtype))

    return step


def _out_of_bounds(op: Operation, where: tuple[int, ...], shape: tuple[int, ...]) -> Exception:
    return fault(
        op, f"'{op.name}' index {list(where)} is out of bounds for a tensor of shape {list(shape)}"
    )


@impl(tensor.ExtractOp)
def build_extract(
    ctx: CompileContext, op: tensor.ExtractOp, ins: list[int], outs: list[int]
) -> Step:
    t, *idx = ins
    (o,) = outs

    def step(fr: Frame) -> None:
        value, where = fr[t], tuple(fr[i] for i in idx)
        if not in_bounds(where, value.shape):
            raise _out_of_bounds(op, where, value.shape)
        fr[o] = value[where].item()

    return step


@impl(tensor.InsertOp)
def build_insert(ctx: CompileContext, op: tensor.InsertOp, ins: list[int], outs: list[int]) -> Step:
    v, t, *idx = ins
    (o,) = outs

    def step(fr: Frame) -> None:
        dest, where = fr[t], tuple(fr[i] for i in idx)
        if not in_bounds(where, dest.shape):
            raise _out_of_bounds(op, where, dest.shape)
        result = dest.copy()
        result[where] = fr[v]
        fr[o] = _frozen(result)

    return step


class _Slice:
    """Where a slice op's small tensor sits in its big one (the source of
    `extract_slice`, the destination of `insert_slice`)."""

    def __init__(
        self, op: tensor.ExtractSliceOp | tensor.InsertSliceOp, ins: list[int], first: int
    ):
        if op.sizes or op.strides:
            raise unsupported(op, "slices with dynamic sizes or strides are not supported")
        dynamic = iter(ins[first : first + len(op.offsets)])
        self.offsets: list[tuple[int, int | None]] = [
            (0, next(dynamic)) if off == DYNAMIC_INDEX else (off, None)
            for off in op.static_offsets.get_values()
        ]
        self.sizes = tuple(op.static_sizes.get_values())
        self.strides = tuple(op.static_strides.get_values())
        small = op.result.type if isinstance(op, tensor.ExtractSliceOp) else op.source.type
        assert isinstance(small, TensorType)
        to_drop = len(self.sizes) - len(small.get_shape())
        # As for memref.subview: the leftmost unit dimensions are the dropped ones.
        dropped = [d for d, s in enumerate(self.sizes) if s == 1][:to_drop] if to_drop else []
        self.small_shape = tuple(s for d, s in enumerate(self.sizes) if d not in dropped)
        self.op = op

    def index(self, fr: Frame, shape: tuple[int, ...]) -> tuple[Any, ...]:
        starts = [fr[s] if s is not None else off for off, s in self.offsets]
        if len(starts) != len(shape) or not all(
            0 <= start and start + (size - 1) * stride < extent
            for start, size, stride, extent in zip(
                starts, self.sizes, self.strides, shape, strict=False
            )
            if size > 0
        ):
            raise fault(
                self.op,
                f"'{self.op.name}' at offsets {starts} with sizes {list(self.sizes)} and "
                f"strides {list(self.strides)} is out of bounds for a tensor of shape "
                f"{list(shape)}",
            )
        return tuple(
            slice(start, start + size * stride, stride)
            for start, size, stride in zip(starts, self.sizes, self.strides, strict=False)
        )


@impl(tensor.ExtractSliceOp)
def build_extract_slice(
    ctx: CompileContext, op: tensor.ExtractSliceOp, ins: list[int], outs: list[int]
) -> Step:
    geometry = _Slice(op, ins, 1)
    src = ins[0]
    (o,) = outs
    small = geometry.small_shape

    def step(fr: Frame) -> None:
        source = fr[src]
        view = source[geometry.index(fr, source.shape)]
        fr[o] = _frozen(view.reshape(small))

    return step


@impl(tensor.InsertSliceOp)
def build_insert_slice(
    ctx: CompileContext, op: tensor.InsertSliceOp, ins: list[int], outs: list[int]
) -> Step:
    geometry = _Slice(op, ins, 2)
    src, dst = ins[0], ins[1]
    (o,) = outs

    def step(fr: Frame) -> None:
        source, dest = fr[src], fr[dst]
        where = geometry.index(fr, dest.shape)
        result = dest.copy()
        if source.shape != geometry.small_shape:
            raise fault(
                op,
                f"'tensor.insert_slice' inserts a tensor of shape {list(source.shape)} "
                f"where its type says {list(geometry.small_shape)}",
            )
        result[where] = source.reshape(result[where].shape)
        fr[o] = _frozen(result)

    return step
