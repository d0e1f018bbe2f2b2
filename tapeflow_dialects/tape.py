"""
The baseline gradient tape, as Enzyme lays it out: struct-of-arrays.

Enzyme gives every value that the reverse sweep needs its own buffer, shaped by
the loop nest that produces it: a `!tape.tape<8x4xf64>` holds one f64 per
iteration of an 8x4 nest. The forward sweep (FWD) writes each element once with
`tape.store`; the reverse sweep (REV) reads it back, in the opposite iteration
order, with `tape.load`. On hardware, each tape is a separate array in DRAM
reached through the cache, so the values an iteration needs are spread over as
many cache lines as there are tapes: the poor locality TapeFlow sets out to fix.

Stores carry an `id`; loads name the store they read with `from` (the FtoR map,
see `ftor.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
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
)
from tapeflow_dialects.ftor import verify_rank
from tapeflow_dialects.layout import slot_bytes


def element_bytes(element_type: Attribute) -> int:
    """Bytes one tape entry occupies: one 8-byte word whatever its scalar type (the
    layout rule of `tapeflow_dialects.layout`)."""
    return slot_bytes(element_type)


@irdl_attr_definition
class TapeType(ParametrizedAttribute, TypeAttribute):
    """`!tape.tape<8x4xf64>`: one cached value per point of an 8x4 iteration space."""

    name = "tape.tape"
    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(ArrayAttr(IntAttr(d) for d in shape), element_type)

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    def entries(self) -> int:
        return prod(self.get_shape())

    def size_bytes(self) -> int:
        return self.entries() * element_bytes(self.element_type)

    def verify(self) -> None:
        if any(d.data <= 0 for d in self.shape.data):
            raise VerifyException(f"tape dimensions must be positive, got {self}")

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for d in self.get_shape():
            printer.print_string(f"{d}x")
        printer.print_attribute(self.element_type)
        printer.print_string(">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            shape, element_type = parser.parse_ranked_shape()
        return [ArrayAttr(IntAttr(d) for d in shape), element_type]


@irdl_op_definition
class AllocOp(ContainerAllocOp):
    """Allocates a tape in DRAM (Enzyme: the cache buffer's `memref.alloc`)."""

    name = "tape.alloc"
    STORE_NAME: ClassVar[str | None] = "tape.store"
    tape = result_def(TapeType)
    value_name = opt_prop_def(StringAttr, prop_name="name")
    assembly_format = "(`name` $name^)? attr-dict `:` type($tape)"

    def __init__(self, tape_type: TapeType, value_name: str | None = None):
        super().__init__(
            result_types=[tape_type],
            properties={"name": StringAttr(value_name)} if value_name else {},
        )


@irdl_op_definition
class StoreOp(ContainerStoreOp):
    """FWD: saves `value` at `indices` of the tape."""

    name = "tape.store"
    value = operand_def()
    tape = operand_def(TapeType)
    indices = var_operand_def(IndexType)
    assembly_format = (
        "$value `,` $tape `[` $indices `]` `id` $id attr-dict "
        "`:` type($value) `,` type($tape)"
    )

    def __init__(
        self, value: SSAValue, tape: SSAValue, indices: Sequence[SSAValue], ident: int
    ):
        super().__init__(
            operands=[value, tape, indices],
            properties={"id": IntegerAttr(ident, 64)},
        )

    def verify_(self) -> None:
        tape_type = self.tape.type
        assert isinstance(tape_type, TapeType)
        verify_rank(self, self.indices, len(tape_type.shape))
        if self.value.type != tape_type.element_type:
            raise VerifyException(
                f"'{self.name}' stores a {self.value.type} into {tape_type}"
            )


@irdl_op_definition
class LoadOp(ContainerLoadOp):
    """REV: reads back the value that store `from` saved at `indices`."""

    name = "tape.load"
    STORE_NAME: ClassVar[str | None] = "tape.store"
    tape = operand_def(TapeType)
    indices = var_operand_def(IndexType)
    assembly_format = (
        "$tape `[` $indices `]` `from` $from attr-dict `:` type($tape) "
        "`->` type($result)"
    )

    def __init__(self, tape: SSAValue, indices: Sequence[SSAValue], store: int):
        assert isinstance(tape.type, TapeType)
        super().__init__(
            operands=[tape, indices],
            result_types=[tape.type.element_type],
            properties={"from": IntegerAttr(store, 64)},
        )

    def verify_(self) -> None:
        tape_type = self.tape.type
        assert isinstance(tape_type, TapeType)
        verify_rank(self, self.indices, len(tape_type.shape))
        if self.result.type != tape_type.element_type:
            raise VerifyException(
                f"'{self.name}' loads a {self.result.type} from {tape_type}"
            )
        self.verify_loaded_store()


@irdl_op_definition
class FreeOp(ContainerFreeOp):
    """Releases the tape once REV has consumed it."""

    name = "tape.free"
    tape = operand_def(TapeType)
    assembly_format = "$tape attr-dict `:` type($tape)"

    def __init__(self, tape: SSAValue):
        super().__init__(operands=[tape])


Tape = Dialect("tape", [AllocOp, StoreOp, LoadOp, FreeOp], [TapeType])
