"""`region` ops: an array of structs with a written mask; every entry access is
checked (range, written before read, use after free)."""

from __future__ import annotations

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import fault
from sim.impls.registry import impl
from sim.storage import (
    Region,
    allocation_bytes,
    in_bounds,
    python_scalar,
    run_time_shape,
    too_large,
)
from tapeflow_dialects import region


@impl(region.AllocOp)
def build_alloc(ctx: CompileContext, op: region.AllocOp, ins: list[int], outs: list[int]) -> Step:
    rtype = op.region.type
    assert isinstance(rtype, region.RegionType)
    (o,) = outs
    if op.dynamic_sizes:  # extents known at run time: sized when the op runs
        sizes = [ctx.slot(v) for v in op.dynamic_sizes]

        def dynamic_alloc(fr: Frame) -> None:
            actual = run_time_shape(rtype.get_shape(), [fr[s] for s in sizes])
            if isinstance(actual, str):
                raise fault(op, f"'region.alloc' {actual}")
            refused = too_large(allocation_bytes(Region.entries(rtype, actual)))
            if refused is not None:
                raise fault(op, f"'region.alloc' {refused}")
            fr[o] = Region(rtype, actual)

        return dynamic_alloc
    refused = too_large(allocation_bytes(Region.entries(rtype)))

    def alloc(fr: Frame) -> None:
        if refused is not None:
            raise fault(op, f"'region.alloc' {refused}")
        fr[o] = Region(rtype)

    return alloc


@impl(region.FreeOp)
def build_free(ctx: CompileContext, op: region.FreeOp, ins: list[int], outs: list[int]) -> Step:
    (r,) = ins

    def free(fr: Frame) -> None:
        store: Region = fr[r]
        if store.freed:
            raise fault(op, f"'region.free' frees {store.type} twice")
        store.freed = True

    return free


def _entry(op: region.StoreOp | region.LoadOp):  # type: ignore[no-untyped-def]
    """The checked (region, index with slot) of an access by `op`."""
    name, slot = op.name, op.slot.value.data

    def entry(fr: Frame, r: int, idx: list[int]) -> tuple[Region, tuple[int, ...]]:
        store: Region = fr[r]
        if store.freed:
            raise fault(op, f"'{name}' uses {store.type} after its region.free")
        where = tuple(fr[i] for i in idx)
        if not in_bounds((*where, slot), store.data.shape):
            raise fault(
                op, f"'{name}' entry {list(where)} slot {slot} is out of range for {store.type}"
            )
        return store, (*where, slot)

    return entry


@impl(region.StoreOp)
def build_store(ctx: CompileContext, op: region.StoreOp, ins: list[int], outs: list[int]) -> Step:
    entry = _entry(op)
    v, r, *idx = ins

    def store_step(fr: Frame) -> None:
        store, where = entry(fr, r, idx)
        store.data[where] = fr[v]
        store.written[where] = True

    return store_step


@impl(region.LoadOp)
def build_load(ctx: CompileContext, op: region.LoadOp, ins: list[int], outs: list[int]) -> Step:
    entry = _entry(op)
    slot = op.slot.value.data
    r, *idx = ins
    (o,) = outs
    ident = op.store.value.data
    as_scalar = python_scalar(op.result.type)

    def load_step(fr: Frame) -> None:
        store, where = entry(fr, r, idx)
        if not store.written[where]:
            raise fault(
                op,
                f"'region.load' (slot {slot}, from store {ident}) reads entry "
                f"{list(where[:-1])} before it was written",
            )
        fr[o] = as_scalar(store.data[where])

    return load_step
