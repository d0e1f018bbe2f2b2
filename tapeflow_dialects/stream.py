"""
TapeFlow's explicit streams (Pass 3) and scratchpad slot accesses (Pass 4).

Under TapeFlow the tape lives in DRAM as a sequence of tiles, `!stream.tape`.
Two stream engines move tiles between it and the scratchpad, decoupled from the
datapath:

- the FWD-stream (`stream.fwd`) drains the first `rows` rows of a scratchpad
  tile to the tail of the tape once the FWD layer that filled it has passed its
  barrier;
- the REV-stream (`stream.rev`) preloads the tile of a REV layer from the tape
  into the scratchpad, ahead of the layer, so that the layer's loads never miss.
  It names the FWD stream it reverses (`of`), whose tile shape it repeats.

The tape is consumed last-in first-out: the REV layers run in the inverse order
of their FWD partners, so each REV-stream reads back the most recent tile not yet
read. The datapath reaches the scratchpad with `stream.store` (FWD) and
`stream.load` (REV) at `row`, `slot` of a tile; they keep the tape's `id`/`from`
link.
"""

from __future__ import annotations

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import I64, IndexType, IntegerAttr
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)
from xdsl.utils.exceptions import VerifyException

from tapeflow_dialects.container_ops import (
    ContainerAllocOp,
    ContainerLoadOp,
    ContainerStoreOp,
    SlotAccess,
)
from tapeflow_dialects.layer import ENTRY_BYTES, LayerOp, Phase, SAllocOp, SpadType


def constant_index(value: SSAValue) -> int | None:
    """The value of an `arith.constant` index/integer, else None."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


@irdl_attr_definition
class TapeType(ParametrizedAttribute, TypeAttribute):
    """`!stream.tape`: the gradient tape in DRAM, a stack of scratchpad tiles."""

    name = "stream.tape"


@irdl_op_definition
class AllocOp(ContainerAllocOp):
    """
    The tape in DRAM, in one of two forms:

    - `stream.alloc bytes N`: N bytes reserved at once (the region's size, known at
      compile time); a push beyond them is an error;
    - `stream.alloc slab S`: a slab tape that grows while it runs, for a region
      whose size is known only at run time. The tape starts empty; a push that
      does not fit the slabs it has appends one more slab of S bytes, linked
      after the last (no reallocation, no copy: the slab tape of Clad, Vassilev
      et al., see docs/research or the shared notes `clad-tape.md`). A tile may
      straddle two slabs. Slabs are kept until the tape is freed, so the slab
      count is the tape's high-water mark in slabs.
    """

    name = "stream.alloc"
    bytes = opt_prop_def(IntegerAttr[I64])
    slab = opt_prop_def(IntegerAttr[I64])
    tape = result_def(TapeType)
    assembly_format = "(`bytes` $bytes^)? (`slab` $slab^)? attr-dict `:` type($tape)"

    def __init__(self, size_bytes: int | None = None, slab_bytes: int | None = None):
        properties: dict[str, Attribute] = {}
        if size_bytes is not None:
            properties["bytes"] = IntegerAttr(size_bytes, 64)
        if slab_bytes is not None:
            properties["slab"] = IntegerAttr(slab_bytes, 64)
        super().__init__(result_types=[TapeType()], properties=properties)

    @property
    def slab_bytes(self) -> int | None:
        return None if self.slab is None else self.slab.value.data

    def verify_(self) -> None:
        if (self.bytes is None) == (self.slab is None):
            raise VerifyException(
                f"'{self.name}' takes either 'bytes' (a tape of known size) or 'slab' "
                "(a tape that grows by slabs of that size), exactly one"
            )
        if self.bytes is not None:
            size = self.bytes.value.data
            if size < 0:
                raise VerifyException(f"'{self.name}' size must not be negative")
            if size % ENTRY_BYTES:
                raise VerifyException(
                    f"'{self.name}' size {size} is not a whole number of {ENTRY_BYTES}-byte "
                    "tape words; the DRAM tape holds the scratchpad's entries, one word each"
                )
        if self.slab is not None:
            slab = self.slab.value.data
            if slab <= 0 or slab % ENTRY_BYTES:
                raise VerifyException(
                    f"'{self.name}' slab size must be a positive multiple of {ENTRY_BYTES} "
                    f"bytes (one scratchpad entry), got {slab}"
                )


def _verify_rows(op: IRDLOperation, tile: SpadType, rows: SSAValue) -> None:
    count = constant_index(rows)
    if count is not None and not 0 <= count <= tile.rows.data:
        raise VerifyException(
            f"'{op.name}' moves {count} rows but its scratchpad tile {tile} has "
            f"{tile.rows.data} ({tile.size_bytes()} bytes): a stream tile cannot be "
            "larger than its scratchpad tile"
        )


@irdl_op_definition
class FwdOp(IRDLOperation):
    """FWD-stream: append the first `rows` rows of `tile` to the tape's tail."""

    name = "stream.fwd"
    tile = operand_def(SpadType)
    rows = operand_def(IndexType)
    tape = operand_def(TapeType)
    id = prop_def(IntegerAttr[I64])
    assembly_format = "$tile `rows` $rows `to` $tape `id` $id attr-dict `:` type($tile)"

    def __init__(self, tile: SSAValue, rows: SSAValue, tape: SSAValue, ident: int):
        super().__init__(operands=[tile, rows, tape], properties={"id": IntegerAttr(ident, 64)})

    def verify_(self) -> None:
        assert isinstance(self.tile.type, SpadType)
        _verify_rows(self, self.tile.type, self.rows)
        verify_in_layer(self, self.tile, Phase.FWD)
        _verify_fits_tape(self, self.tile.type, self.rows, self.tape)


@irdl_op_definition
class RevOp(IRDLOperation):
    """REV-stream: preload into `tile` the `rows` rows written by FWD-stream `of`."""

    name = "stream.rev"
    tape = operand_def(TapeType)
    rows = operand_def(IndexType)
    tile = operand_def(SpadType)
    of = prop_def(IntegerAttr[I64])
    assembly_format = "$tape `rows` $rows `to` $tile `of` $of attr-dict `:` type($tile)"

    def __init__(self, tape: SSAValue, rows: SSAValue, tile: SSAValue, of: int):
        super().__init__(operands=[tape, rows, tile], properties={"of": IntegerAttr(of, 64)})

    def verify_(self) -> None:
        assert isinstance(self.tile.type, SpadType)
        _verify_rows(self, self.tile.type, self.rows)
        verify_in_layer(self, self.tile, Phase.REV)
        fwd = self._matching_fwd()
        if fwd is None:
            raise VerifyException(
                f"'{self.name}' reverses FWD-stream {self.of.value.data}, which does "
                "not write this tape"
            )
        if fwd.tile.type != self.tile.type:
            raise VerifyException(
                f"'{self.name}' preloads a {self.tile.type} tile but FWD-stream "
                f"{self.of.value.data} wrote a {fwd.tile.type} tile"
            )

    def _matching_fwd(self) -> FwdOp | None:
        for use in self.tape.uses:
            op: Operation = use.operation
            if isinstance(op, FwdOp) and op.id == self.of:
                return op
        return None


def _verify_fits_tape(op: IRDLOperation, tile: SpadType, rows: SSAValue, tape: SSAValue) -> None:
    """A FWD stream of a known number of rows moves `rows x slots` words; they must
    fit the DRAM tape it pushes onto (one word per entry on both sides: the layout
    rule of `tapeflow_dialects.layout`)."""
    count = constant_index(rows)
    alloc = tape.owner
    if count is None or not isinstance(alloc, AllocOp) or alloc.bytes is None:
        return  # a slab tape grows to hold what is pushed
    moved = count * tile.slots.data * ENTRY_BYTES
    if moved > alloc.bytes.value.data:
        raise VerifyException(
            f"'{op.name}' moves {count} rows of {tile} ({moved} bytes) onto a DRAM tape "
            f"of {alloc.bytes.value.data} bytes; the tape must hold at least one tile "
            f"({ENTRY_BYTES} bytes per entry)"
        )


def verify_in_layer(op: IRDLOperation, tile: SSAValue, phase: Phase) -> None:
    """
    A scratchpad access or stream sits in a layer of the given phase and uses the
    tile that layer's `layer.salloc` reserved: FWD layers fill and spill tiles, REV
    layers preload and read them, and no layer reaches into another's tile.
    """
    layer = op.parent_op()
    while layer is not None and not isinstance(layer, LayerOp):
        layer = layer.parent_op()
    if layer is None:
        raise VerifyException(f"'{op.name}' must be inside a {phase.value} layer")
    if layer.phase.data is not phase:
        raise VerifyException(
            f"'{op.name}' belongs in a {phase.value} layer, but layer "
            f"{layer.id.value.data} is {layer.phase.data.value}"
        )
    first = layer.body.block.first_op
    if not (isinstance(first, SAllocOp) and tile is first.tile):
        raise VerifyException(
            f"'{op.name}' uses a scratchpad tile that layer {layer.id.value.data} did "
            "not allocate; a layer reaches only the tile of its own layer.salloc"
        )


def _verify_slot(op: IRDLOperation, tile: SSAValue, row: SSAValue, slot: IntegerAttr) -> None:
    tile_type = tile.type
    assert isinstance(tile_type, SpadType)
    index = slot.value.data
    if not 0 <= index < tile_type.slots.data:
        raise VerifyException(
            f"'{op.name}' slot {index} is beyond the {tile_type.slots.data} slots of "
            f"scratchpad tile {tile_type}"
        )
    row_index = constant_index(row)
    if row_index is not None and not 0 <= row_index < tile_type.rows.data:
        raise VerifyException(
            f"'{op.name}' row {row_index} is beyond the {tile_type.rows.data} rows of "
            f"scratchpad tile {tile_type}"
        )


@irdl_op_definition
class StoreOp(ContainerStoreOp, SlotAccess):
    """FWD: write a tape value into entry (`row`, `slot`) of a scratchpad tile."""

    name = "stream.store"
    value = operand_def()
    tile = operand_def(SpadType)
    row = operand_def(IndexType)
    assembly_format = (
        "$value `,` $tile `[` $row `]` `slot` $slot `id` $id attr-dict "
        "`:` type($value) `,` type($tile)"
    )

    def __init__(self, value: SSAValue, tile: SSAValue, row: SSAValue, slot: int, ident: int):
        super().__init__(
            operands=[value, tile, row],
            properties={"slot": IntegerAttr(slot, 64), "id": IntegerAttr(ident, 64)},
        )

    def verify_(self) -> None:
        _verify_slot(self, self.tile, self.row, self.slot)
        verify_in_layer(self, self.tile, Phase.FWD)


@irdl_op_definition
class LoadOp(ContainerLoadOp, SlotAccess):
    """REV: read entry (`row`, `slot`) of a preloaded scratchpad tile. Its `from`
    names a store of the partner FWD layer's tile, which the FWD-stream spilled and
    the REV-stream preloaded."""

    name = "stream.load"
    tile = operand_def(SpadType)
    row = operand_def(IndexType)
    assembly_format = (
        "$tile `[` $row `]` `slot` $slot `from` $from attr-dict `:` type($tile) `->` type($result)"
    )

    def __init__(
        self,
        tile: SSAValue,
        row: SSAValue,
        slot: int,
        store: int,
        result_type: Attribute,
    ):
        super().__init__(
            operands=[tile, row],
            result_types=[result_type],
            properties={"slot": IntegerAttr(slot, 64), "from": IntegerAttr(store, 64)},
        )

    def verify_(self) -> None:
        _verify_slot(self, self.tile, self.row, self.slot)
        verify_in_layer(self, self.tile, Phase.REV)


Stream = Dialect("stream", [AllocOp, FwdOp, RevOp, StoreOp, LoadOp], [TapeType])
