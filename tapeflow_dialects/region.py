"""
TapeFlow's array-of-structs tape (Pass 1, region formation).

A region merges the tapes that one forward loop nest writes into a single array
whose element is a struct with one slot per cached value:
`!region.region<8x4, [f64, i1, f64]>` holds, for each of the 8x4 iterations,
three consecutive 8-byte slots (every slot is one 8-byte word whatever its type:
the layout rule of `tapeflow_dialects.layout`). Slots are ordered by the reverse sweep's
consumption order, so the values one REV iteration needs share a cache line (or
a scratchpad tile) instead of living in three distant arrays. On hardware a
region is one contiguous DRAM buffer; the address of slot `s` of element `e` is
`base + e * struct_bytes + slot_offset(s)` = `base + 8 (e n + s)` for `n` slots.

Stores and loads keep the `id`/`from` FWD-to-REV link of the tape they replace.

Extents may be `?` (loops whose trip count is known only at run time), given to
`region.alloc` as operands: `region.alloc(%n) : !region.region<?, [f64, f64]>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IndexType, IntAttr, IntegerAttr
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tapeflow_dialects.container_ops import (
    ContainerAllocOp,
    ContainerFreeOp,
    ContainerLoadOp,
    ContainerStoreOp,
    SlotAccess,
)
from tapeflow_dialects.ftor import verify_rank
from tapeflow_dialects.layout import SLOT_BYTES, slot_problem
from tapeflow_dialects.tape import verify_dynamic_sizes

KEPT = "tapeflow.kept"
"""On a `region.alloc`: `tapeflow-layers` left this region unlayered (the string
says why). It stays an array-of-structs region in DRAM, read through the cache as
the aos variant reads it; the streams and scratchpad passes leave it alone."""


def is_kept(value: SSAValue) -> bool:
    """`value` is a region whose `region.alloc` carries `tapeflow.kept`."""
    owner = value.owner
    return isinstance(owner, AllocOp) and KEPT in owner.attributes


@irdl_attr_definition
class RegionType(ParametrizedAttribute, TypeAttribute):
    """`!region.region<8x4, [f64, index]>`: 8x4 structs of two slots each."""

    name = "region.region"
    shape: ArrayAttr[IntAttr]
    slots: ArrayAttr[Attribute]

    def __init__(self, shape: Sequence[int], slots: Sequence[Attribute]):
        super().__init__(ArrayAttr(IntAttr(d) for d in shape), ArrayAttr(slots))

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    def slot_types(self) -> tuple[Attribute, ...]:
        return self.slots.data

    def slot_offset(self, slot: int) -> int:
        """Byte offset of `slot` within one struct: one word per slot."""
        return SLOT_BYTES * slot

    def struct_bytes(self) -> int:
        return self.slot_offset(len(self.slots.data))

    def dynamic_dims(self) -> int:
        """How many extents are known only at run time (`?`)."""
        return sum(1 for d in self.get_shape() if d == DYNAMIC_INDEX)

    def is_static(self) -> bool:
        return self.dynamic_dims() == 0

    def size_bytes(self) -> int:
        """Bytes of a region of static shape (ask `is_static` first)."""
        if not self.is_static():
            raise ValueError(f"{self} has extents known only at run time")
        return prod(self.get_shape()) * self.struct_bytes()

    def verify(self) -> None:
        if any(d.data <= 0 and d.data != DYNAMIC_INDEX for d in self.shape.data):
            raise VerifyException(
                f"region dimensions must be positive (or '?', known at run time), got {self}"
            )
        if not self.slots.data:
            raise VerifyException("a region struct needs at least one slot")
        for index, slot_type in enumerate(self.slots.data):
            problem = slot_problem(slot_type)
            if problem is not None:
                raise VerifyException(
                    f"region slot {index} cannot hold a tape value: {problem} (every "
                    f"slot is one {SLOT_BYTES}-byte word)"
                )

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        if self.shape.data:
            printer.print_string(
                "x".join("?" if d == DYNAMIC_INDEX else str(d) for d in self.get_shape()) + ", "
            )
        printer.print_string("[")
        printer.print_list(self.slots.data, printer.print_attribute)
        printer.print_string("]>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            shape = parser.parse_dimension_list()
            if shape:
                parser.parse_punctuation(",")
            slots = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_type)
        return [ArrayAttr(IntAttr(d) for d in shape), ArrayAttr(slots)]


def _checked_slot_type(op: IRDLOperation, region: SSAValue, slot: IntegerAttr) -> Attribute:
    region_type = region.type
    assert isinstance(region_type, RegionType)
    index = slot.value.data
    if not 0 <= index < len(region_type.slots):
        raise VerifyException(
            f"'{op.name}' slot {index} is out of range for {region_type}, whose "
            f"struct has {len(region_type.slots)} slots"
        )
    return region_type.slot_types()[index]


@irdl_op_definition
class AllocOp(ContainerAllocOp):
    """Allocates the region's DRAM buffer (one per forward loop nest)."""

    name = "region.alloc"
    STORE_NAME: ClassVar[str | None] = "region.store"
    dynamic_sizes = var_operand_def(IndexType)
    region = result_def(RegionType)
    assembly_format = "(`(` $dynamic_sizes^ `)`)? attr-dict `:` type($region)"

    def __init__(self, region_type: RegionType, dynamic_sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[dynamic_sizes], result_types=[region_type])

    def verify_(self) -> None:
        super().verify_()
        region_type = self.region.type
        assert isinstance(region_type, RegionType)
        verify_dynamic_sizes(self, region_type, region_type.dynamic_dims(), self.dynamic_sizes)


@irdl_op_definition
class StoreOp(ContainerStoreOp, SlotAccess):
    """FWD: saves `value` into `slot` of the struct at `indices`."""

    name = "region.store"
    value = operand_def()
    region = operand_def(RegionType)
    indices = var_operand_def(IndexType)
    assembly_format = (
        "$value `,` $region `[` $indices `]` `slot` $slot `id` $id attr-dict "
        "`:` type($value) `,` type($region)"
    )

    def __init__(
        self,
        value: SSAValue,
        region: SSAValue,
        indices: Sequence[SSAValue],
        slot: int,
        ident: int,
    ):
        super().__init__(
            operands=[value, region, indices],
            properties={"slot": IntegerAttr(slot, 64), "id": IntegerAttr(ident, 64)},
        )

    def verify_(self) -> None:
        assert isinstance(self.region.type, RegionType)
        verify_rank(self, self.indices, len(self.region.type.shape))
        slot_type = _checked_slot_type(self, self.region, self.slot)
        if self.value.type != slot_type:
            raise VerifyException(
                f"'{self.name}' stores a {self.value.type} into slot "
                f"{self.slot.value.data} of type {slot_type}"
            )


@irdl_op_definition
class LoadOp(ContainerLoadOp, SlotAccess):
    """REV: reads back `slot` of the struct at `indices`, saved by store `from`."""

    name = "region.load"
    STORE_NAME: ClassVar[str | None] = "region.store"
    region = operand_def(RegionType)
    indices = var_operand_def(IndexType)
    assembly_format = (
        "$region `[` $indices `]` `slot` $slot `from` $from attr-dict "
        "`:` type($region) `->` type($result)"
    )

    def __init__(self, region: SSAValue, indices: Sequence[SSAValue], slot: int, store: int):
        assert isinstance(region.type, RegionType)
        super().__init__(
            operands=[region, indices],
            result_types=[region.type.slot_types()[slot]],
            properties={"slot": IntegerAttr(slot, 64), "from": IntegerAttr(store, 64)},
        )

    def verify_(self) -> None:
        assert isinstance(self.region.type, RegionType)
        verify_rank(self, self.indices, len(self.region.type.shape))
        slot_type = _checked_slot_type(self, self.region, self.slot)
        if self.result.type != slot_type:
            raise VerifyException(
                f"'{self.name}' loads a {self.result.type} from slot "
                f"{self.slot.value.data} of type {slot_type}"
            )
        self.verify_loaded_store()


@irdl_op_definition
class FreeOp(ContainerFreeOp):
    """Releases the region once REV has consumed it."""

    name = "region.free"
    region = operand_def(RegionType)
    assembly_format = "$region attr-dict `:` type($region)"

    def __init__(self, region: SSAValue):
        super().__init__(operands=[region])


Region = Dialect("region", [AllocOp, StoreOp, LoadOp, FreeOp], [RegionType])
