"""
`layer` ops: a `layer.layer` runs its body each time it is reached and yields
its barrier's operands; `layer.salloc` hands out a tile of the run's
scratchpad, which the first salloc of the run sizes (8-byte entries with a
full/empty bit each).
"""

from __future__ import annotations

from sim.compile_context import CompileContext, Frame, Step
from sim.errors import fault, unsupported
from sim.impls.registry import impl
from sim.storage import Scratchpad, Tile, too_large
from tapeflow_dialects import layer
from tapeflow_dialects.layer import ENTRY_BYTES
from tapeflow_dialects.locations import location_of


@impl(layer.LayerOp)
def build_layer(ctx: CompileContext, op: layer.LayerOp, ins: list[int], outs: list[int]) -> Step:
    block = op.body.block
    if not isinstance(block.last_op, layer.BarrierOp):
        raise unsupported(op, "a layer must end with 'layer.barrier'")
    steps, yielded = ctx.region_steps(block)

    def step(fr: Frame) -> None:
        for s in steps:
            s(fr)
        values = [fr[y] for y in yielded]
        for out, value in zip(outs, values, strict=True):
            fr[out] = value

    return step


@impl(layer.SAllocOp)
def build_salloc(ctx: CompileContext, op: layer.SAllocOp, ins: list[int], outs: list[int]) -> Step:
    tile_type = op.tile.type
    assert isinstance(tile_type, layer.SpadType)
    rows, slot_count = tile_type.rows.data, tile_type.slots.data
    base, capacity = op.base.value.data, op.capacity.value.data
    refused = too_large(capacity)
    state = ctx.state
    (o,) = outs

    def step(fr: Frame) -> None:
        spad = state.scratchpad
        if spad is None:
            if capacity <= 0 or capacity % ENTRY_BYTES:
                raise fault(
                    op,
                    f"'layer.salloc' scratchpad capacity must be a positive multiple of "
                    f"{ENTRY_BYTES} bytes, got {capacity}",
                )
            if refused is not None:
                raise fault(op, f"'layer.salloc' {refused}")
            spad = state.scratchpad = Scratchpad(capacity, location_of(op))
        elif spad.capacity != capacity:
            raise fault(
                op,
                f"'layer.salloc' names a scratchpad of {capacity} bytes, but this run's "
                f"scratchpad has {spad.capacity} bytes (set by the 'layer.salloc' at "
                f"{spad.configured_at})",
            )
        if base < 0 or (base + rows * slot_count) * ENTRY_BYTES > capacity:
            raise fault(
                op,
                f"'layer.salloc' tile {tile_type} at entry {base} does not fit a scratchpad "
                f"of {capacity} bytes",
            )
        fr[o] = Tile(spad, base, rows, slot_count)

    return step
