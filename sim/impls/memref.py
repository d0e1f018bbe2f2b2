"""
`memref` ops on numpy arrays: alloc/alloca (refused beyond
`storage.ALLOCATION_LIMIT_BYTES`), dealloc, load and store (bounds-checked),
subview (a numpy view, bounds-checked: numpy would silently clip), dim, copy (shapes
must agree: numpy would broadcast), cast, and `get_global`: the buffer of a
`memref.global` (a constant table), made from its initial value once per run and
the same array at every `get_global`, so that its loads go through the memory
trace (and the cache) like any buffer's.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseIntOrFPElementsAttr, MemRefType
from xdsl.ir import Attribute, SSAValue
from xdsl.traits import SymbolTable

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import fault, unsupported
from sim.impls.registry import impl
from sim.storage import allocation_bytes, in_bounds, numpy_dtype, too_large
from tapeflow_dialects.enzyme import GRADIENT_OF, TAPE_BUFFER
from tapeflow_dialects.memref_views import UnsupportedSubview, subview_geometry


@impl(memref.AllocOp, memref.AllocaOp)
def build_alloc(
    ctx: CompileContext, op: memref.AllocOp | memref.AllocaOp, ins: list[int], outs: list[int]
) -> Step:
    mtype = op.memref.type
    assert isinstance(mtype, MemRefType)
    static = tuple(mtype.get_shape())
    dtype = buffer_dtype(mtype.element_type)
    (o,) = outs
    trace = ctx.trace if TAPE_BUFFER in op.attributes else None
    if op.dynamic_sizes:
        return _dynamic_alloc(op, static, dtype, [ctx.slot(v) for v in op.dynamic_sizes], o, trace)
    refused = too_large(allocation_bytes(static))

    def step(fr: Frame) -> None:
        if refused is not None:
            raise fault(op, f"'{op.name}' {refused}")
        fr[o] = np.zeros(static, dtype=dtype)
        if trace is not None:
            trace.mark_tape(fr[o])

    return step


def _negative_note(op: memref.AllocOp | memref.AllocaOp) -> str:
    """What a negative extent means in a gradient Enzyme made. Enzyme sizes its
    caches by the trip counts of the loops that fill them, `ub - lb`, negative
    where a loop's bounds cross (a loop that runs no iteration); `tapeflow-enzyme`
    sizes every cache it recognises at least zero, top-level ones and a nest's
    per-iteration ones alike (`lowering/enzyme/empty_loops.py`). A negative
    extent left is the program's own: an allocation of the differentiated
    function, which the gradient repeats, sized negative on this input."""
    function = op.parent_op()
    while function is not None and not isinstance(function, func.FuncOp):
        function = function.parent_op()
    if function is None or GRADIENT_OF not in function.attributes:
        return ""
    return (
        " (in a gradient: Enzyme's caches are sized at least zero by tapeflow-enzyme, "
        "so this is most likely an allocation of the differentiated function itself, "
        "which the gradient repeats, whose size is negative on this input)"
    )


def buffer_dtype(element_type: Attribute) -> object:
    """A buffer of memrefs (Enzyme's cache of the per-iteration caches of a
    triangular nest, `memref<?xmemref<?x4xf64>>`) holds numpy arrays: object."""
    if isinstance(element_type, MemRefType):
        return object
    return numpy_dtype(element_type)


def _dynamic_alloc(
    op: memref.AllocOp | memref.AllocaOp,
    static: tuple[int, ...],
    dtype: object,
    size_slots: list[int],
    o: int,
    trace: object,
) -> Step:
    """A buffer whose `?` extents are the op's size operands, in order (MLIR's
    rule), read when the op runs; a negative extent is an error."""

    note = _negative_note(op)

    def step(fr: Frame) -> None:
        sizes = iter(fr[s] for s in size_slots)
        shape = tuple(next(sizes) if d == DYNAMIC_INDEX else d for d in static)
        if any(d < 0 for d in shape):
            raise fault(op, f"'{op.name}' of negative extent: shape {list(shape)}{note}")
        refused = too_large(allocation_bytes(shape))
        if refused is not None:
            raise fault(op, f"'{op.name}' {refused}")
        fr[o] = (
            np.zeros(shape, dtype=dtype) if dtype is not object else np.empty(shape, dtype=object)
        )
        if trace is not None:
            trace.mark_tape(fr[o])

    return step


@impl(memref.GetGlobalOp)
def build_get_global(
    ctx: CompileContext, op: memref.GetGlobalOp, ins: list[int], outs: list[int]
) -> Step:
    name = op.name_.root_reference.data
    found = SymbolTable.lookup_symbol(op, name)
    if not isinstance(found, memref.GlobalOp):
        raise unsupported(op, f"@{name} is not a memref.global of this module")
    initial = _initial_value(found)
    (o,) = outs
    buffers = ctx.state.globals

    def step(fr: Frame) -> None:
        buffer = buffers.get(name)
        if buffer is None:
            buffer = buffers[name] = initial.copy()
        fr[o] = buffer

    return step


def _initial_value(op: memref.GlobalOp) -> np.ndarray:
    """The contents a `memref.global` starts with: its dense literal (a splat
    filling the whole shape), or zeros when `uninitialized`."""
    mtype = op.type
    assert isinstance(mtype, MemRefType)
    shape = tuple(mtype.get_shape())
    dtype = numpy_dtype(mtype.element_type)
    if not isinstance(op.initial_value, DenseIntOrFPElementsAttr):
        return np.zeros(shape, dtype=dtype)
    values = np.array(op.initial_value.get_values(), dtype=dtype)
    return np.broadcast_to(values, shape).copy() if values.size == 1 else values.reshape(shape)


@impl(memref.DeallocOp)
def build_dealloc(
    ctx: CompileContext, op: memref.DeallocOp, ins: list[int], outs: list[int]
) -> Step:
    return lambda fr: None


def out_of_bounds(
    op: memref.LoadOp | memref.StoreOp, where: tuple[int, ...], shape: tuple[int, ...]
) -> Exception:
    return fault(
        op,
        f"'{op.name}' index {list(where)} is out of bounds for a buffer of shape {list(shape)}",
    )


@impl(memref.LoadOp)
def build_load(ctx: CompileContext, op: memref.LoadOp, ins: list[int], outs: list[int]) -> Step:
    m, *idx = ins
    (o,) = outs
    if numpy_dtype(op.res.type) is np.dtype(object):  # a handle: no scalar to unbox

        def step_object(fr: Frame) -> None:
            buffer, where = fr[m], tuple(fr[i] for i in idx)
            if not in_bounds(where, buffer.shape):
                raise out_of_bounds(op, where, buffer.shape)
            fr[o] = buffer[where]

        return step_object

    def step(fr: Frame) -> None:
        buffer, where = fr[m], tuple(fr[i] for i in idx)
        if not in_bounds(where, buffer.shape):
            raise out_of_bounds(op, where, buffer.shape)
        value = buffer[where]
        fr[o] = value if isinstance(value, np.ndarray) else value.item()

    return step


@impl(memref.StoreOp)
def build_store(ctx: CompileContext, op: memref.StoreOp, ins: list[int], outs: list[int]) -> Step:
    v, m, *idx = ins

    def step(fr: Frame) -> None:
        buffer, where = fr[m], tuple(fr[i] for i in idx)
        if not in_bounds(where, buffer.shape):
            raise out_of_bounds(op, where, buffer.shape)
        buffer[where] = fr[v]

    return step


@impl(memref.CopyOp)
def build_copy(ctx: CompileContext, op: memref.CopyOp, ins: list[int], outs: list[int]) -> Step:
    src, dst = ins

    def step(fr: Frame) -> None:
        source, target = fr[src], fr[dst]
        if source.shape != target.shape:
            raise fault(
                op,
                f"'memref.copy' copies a buffer of shape {list(source.shape)} into one "
                f"of shape {list(target.shape)}",
            )
        target[...] = source

    return step


@impl(memref.CastOp)
def build_cast(ctx: CompileContext, op: memref.CastOp, ins: list[int], outs: list[int]) -> Step:
    (a,) = ins
    (o,) = outs

    def step(fr: Frame) -> None:
        fr[o] = fr[a]

    return step


@impl(memref.SubviewOp)
def build_subview(
    ctx: CompileContext, op: memref.SubviewOp, ins: list[int], outs: list[int]
) -> Step:
    try:
        geometry = subview_geometry(op)
    except UnsupportedSubview as err:
        raise unsupported(op, str(err)) from None
    src = ins[0]
    (o,) = outs
    # A dynamic offset takes the next offset operand, in order.
    dynamic = iter(ins[1 : 1 + len(op.offsets)])
    offsets = [off if isinstance(off, int) else None for off in geometry.offsets]
    offset_slots = [next(dynamic) if off is None else None for off in offsets]
    strides, squeeze = geometry.strides, geometry.dropped
    layouts, kept, fast = ctx.layouts, geometry.kept, ctx.fast
    # A dynamic size takes the next size operand, in order.
    size_slots = [ctx.slot(s) if isinstance(s, SSAValue) else None for s in geometry.sizes]
    static_sizes = [s if isinstance(s, int) else 0 for s in geometry.sizes]
    dynamic_sizes = any(slot is not None for slot in size_slots)

    def outside(starts: list[int], sizes: list[int], shape: tuple[int, ...]) -> Exception | None:
        if len(shape) == len(starts) and all(
            0 <= start and start + (size - 1) * stride < extent
            for start, size, stride, extent in zip(starts, sizes, strides, shape, strict=False)
            if size > 0
        ):
            return None
        return fault(
            op,
            f"'memref.subview' at offsets {starts} with sizes {list(sizes)} and strides "
            f"{list(strides)} is out of bounds for a buffer of shape {list(shape)}",
        )

    def step(fr: Frame) -> None:
        starts = [
            fr[slot] if slot is not None else off
            for off, slot in zip(offsets, offset_slots, strict=False)
        ]
        sizes = (
            [
                fr[slot] if slot is not None else s
                for s, slot in zip(static_sizes, size_slots, strict=False)
            ]
            if dynamic_sizes
            else static_sizes
        )
        if dynamic_sizes and any(s < 0 for s in sizes):
            raise fault(op, f"'memref.subview' of negative size {list(sizes)}")
        source = fr[src]
        error = outside(starts, sizes, source.shape)
        if error is not None:
            raise error
        # The trailing `...` keeps a rank-0 source's view a (0-d) view: indexing
        # one with `()` would give a copy of its value, not a place to write.
        view = source[
            (
                *(
                    slice(start, start + size * stride, stride)
                    for start, size, stride in zip(starts, sizes, strides, strict=False)
                ),
                ...,
            )
        ]
        view = view.squeeze(axis=squeeze) if squeeze else view
        fr[o] = view
        if fast:  # its layout, for the generated code
            layouts.register_subview(view, source, starts, sizes, strides, kept)

    return step


@impl(memref.DimOp)
def build_dim(ctx: CompileContext, op: memref.DimOp, ins: list[int], outs: list[int]) -> Step:
    """The extent of one dimension (Enzyme asks a cache of run-time extent for it);
    an index outside the rank is an error (MLIR: undefined)."""
    src, index = ins
    (o,) = outs

    def step(fr: Frame) -> None:
        shape = fr[src].shape
        d = fr[index]
        if not 0 <= d < len(shape):
            raise fault(op, f"'memref.dim' of dimension {d} of a buffer of rank {len(shape)}")
        fr[o] = int(shape[d])

    return step
