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

An extent may be `?` when the loop's trip count is known only at run time (a
bound that is an argument; a triangular nest, whose tape is the bounding box of
the per-iteration caches Enzyme allocates until `tapeflow-pack-tapes` packs it,
see `lowering/ir/ragged.py`): `tape.alloc` then takes the extents as operands,
and only the entries FWD writes may be read.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
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
from tapeflow_dialects.layout import slot_bytes, slot_problem


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
        """The extents, `DYNAMIC_INDEX` for a `?` one."""
        return tuple(d.data for d in self.shape.data)

    def dynamic_dims(self) -> int:
        """How many extents are known only at run time (`?`)."""
        return sum(1 for d in self.get_shape() if d == DYNAMIC_INDEX)

    def is_static(self) -> bool:
        return self.dynamic_dims() == 0

    def entries(self) -> int:
        """Entries of a tape of static shape (a dynamic one has no count before
        it runs: ask `is_static` first)."""
        if not self.is_static():
            raise ValueError(f"{self} has extents known only at run time")
        return prod(self.get_shape())

    def size_bytes(self) -> int:
        return self.entries() * element_bytes(self.element_type)

    def verify(self) -> None:
        if any(d.data <= 0 and d.data != DYNAMIC_INDEX for d in self.shape.data):
            raise VerifyException(
                f"tape dimensions must be positive (or '?', known at run time), got {self}"
            )
        problem = slot_problem(self.element_type)
        if problem is not None:
            # A tape holds values, one word each: never handles of buffers (a
            # chain of Enzyme's per-iteration caches is raised to one value tape).
            raise VerifyException(f"a tape cannot hold {self.element_type}: {problem}")

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for d in self.get_shape():
            printer.print_string("?x" if d == DYNAMIC_INDEX else f"{d}x")
        printer.print_attribute(self.element_type)
        printer.print_string(">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            shape, element_type = parser.parse_ranked_shape()
        return [ArrayAttr(IntAttr(d) for d in shape), element_type]


def verify_dynamic_sizes(
    op: IRDLOperation, what: Attribute, dims: int, sizes: Sequence[SSAValue]
) -> None:
    """An alloc of a container with `?` extents takes one size operand per `?`,
    in order (MLIR's `memref.alloc` rule)."""
    if dims != len(sizes):
        raise VerifyException(
            f"'{op.name}' of {what} needs {dims} size operand(s), one per '?' "
            f"extent, but has {len(sizes)}"
        )


@irdl_op_definition
class AllocOp(ContainerAllocOp):
    """Allocates a tape in DRAM (Enzyme: the cache buffer's `memref.alloc`). A
    tape with `?` extents (a loop whose trip count is known only at run time)
    takes their values as operands: `tape.alloc(%n) : !tape.tape<?xf64>`."""

    name = "tape.alloc"
    STORE_NAME: ClassVar[str | None] = "tape.store"
    dynamic_sizes = var_operand_def(IndexType)
    tape = result_def(TapeType)
    value_name = opt_prop_def(StringAttr, prop_name="name")
    assembly_format = "(`(` $dynamic_sizes^ `)`)? (`name` $name^)? attr-dict `:` type($tape)"

    def __init__(
        self,
        tape_type: TapeType,
        value_name: str | None = None,
        dynamic_sizes: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[dynamic_sizes],
            result_types=[tape_type],
            properties={"name": StringAttr(value_name)} if value_name else {},
        )

    def verify_(self) -> None:
        super().verify_()
        tape_type = self.tape.type
        assert isinstance(tape_type, TapeType)
        verify_dynamic_sizes(self, tape_type, tape_type.dynamic_dims(), self.dynamic_sizes)


@irdl_op_definition
class StoreOp(ContainerStoreOp):
    """FWD: saves `value` at `indices` of the tape."""

    name = "tape.store"
    value = operand_def()
    tape = operand_def(TapeType)
    indices = var_operand_def(IndexType)
    assembly_format = (
        "$value `,` $tape `[` $indices `]` `id` $id attr-dict `:` type($value) `,` type($tape)"
    )

    def __init__(self, value: SSAValue, tape: SSAValue, indices: Sequence[SSAValue], ident: int):
        super().__init__(
            operands=[value, tape, indices],
            properties={"id": IntegerAttr(ident, 64)},
        )

    def verify_(self) -> None:
        tape_type = self.tape.type
        assert isinstance(tape_type, TapeType)
        verify_rank(self, self.indices, len(tape_type.shape))
        if self.value.type != tape_type.element_type:
            raise VerifyException(f"'{self.name}' stores a {self.value.type} into {tape_type}")


@irdl_op_definition
class LoadOp(ContainerLoadOp):
    """REV: reads back the value that store `from` saved at `indices`."""

    name = "tape.load"
    STORE_NAME: ClassVar[str | None] = "tape.store"
    tape = operand_def(TapeType)
    indices = var_operand_def(IndexType)
    assembly_format = (
        "$tape `[` $indices `]` `from` $from attr-dict `:` type($tape) `->` type($result)"
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
            raise VerifyException(f"'{self.name}' loads a {self.result.type} from {tape_type}")
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
