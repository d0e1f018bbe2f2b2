"""`tape` ops: a tape is storage plus the mask of entries FWD wrote; a load of an
entry not written, or an index outside the tape, is an error."""

from __future__ import annotations

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import fault
from sim.impls.registry import impl
from sim.storage import Tape, allocation_bytes, in_bounds, numpy_dtype, run_time_shape, too_large
from tapeflow_dialects import tape


@impl(tape.AllocOp)
def build_alloc(ctx: CompileContext, op: tape.AllocOp, ins: list[int], outs: list[int]) -> Step:
    ttype = op.tape.type
    assert isinstance(ttype, tape.TapeType)
    shape, dtype = tuple(ttype.get_shape()), numpy_dtype(ttype.element_type)
    (o,) = outs
    if op.dynamic_sizes:  # extents known at run time: sized when the op runs
        sizes = [ctx.slot(v) for v in op.dynamic_sizes]

        def dynamic_step(fr: Frame) -> None:
            actual = run_time_shape(shape, [fr[s] for s in sizes])
            if isinstance(actual, str):
                raise fault(op, f"'tape.alloc' {actual}")
            refused = too_large(allocation_bytes(actual))
            if refused is not None:
                raise fault(op, f"'tape.alloc' {refused}")
            fr[o] = Tape(actual, dtype)

        return dynamic_step
    refused = too_large(allocation_bytes(shape))

    def step(fr: Frame) -> None:
        if refused is not None:
            raise fault(op, f"'tape.alloc' {refused}")
        fr[o] = Tape(shape, dtype)

    return step


def _outside(op: tape.StoreOp | tape.LoadOp, where: tuple[int, ...], store: Tape) -> Exception:
    return fault(
        op,
        f"'{op.name}' index {list(where)} is out of bounds for a tape of shape "
        f"{list(store.data.shape)}",
    )


@impl(tape.StoreOp)
def build_store(ctx: CompileContext, op: tape.StoreOp, ins: list[int], outs: list[int]) -> Step:
    v, t, *idx = ins

    def step(fr: Frame) -> None:
        where = tuple(fr[i] for i in idx)
        store: Tape = fr[t]
        if not in_bounds(where, store.data.shape):
            raise _outside(op, where, store)
        store.data[where] = fr[v]
        store.written[where] = True

    return step


@impl(tape.LoadOp)
def build_load(ctx: CompileContext, op: tape.LoadOp, ins: list[int], outs: list[int]) -> Step:
    t, *idx = ins
    (o,) = outs
    ident = op.store.value.data

    def step(fr: Frame) -> None:
        where = tuple(fr[i] for i in idx)
        store: Tape = fr[t]
        if not in_bounds(where, store.data.shape):
            raise _outside(op, where, store)
        if not store.written[where]:
            raise fault(
                op,
                f"'tape.load' (from store {ident}) reads entry {list(where)} before FWD wrote it",
            )
        fr[o] = store.data[where].item()

    return step


@impl(tape.FreeOp)
def build_free(ctx: CompileContext, op: tape.FreeOp, ins: list[int], outs: list[int]) -> Step:
    return lambda fr: None
