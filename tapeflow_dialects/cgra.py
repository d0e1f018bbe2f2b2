"""
The CGRA the gradient runs on: a grid of double-precision functional units (PEs)
joined by a static mesh operand network, a cache for ordinary memory, a banked
scratchpad with full/empty bits for the tape, and two stream engines (FWD-S to
DRAM, REV-S from DRAM).

A `cgra.kernel` is one configuration of the grid: every op in it is placed on a
PE `at row, col` and issued at a fixed `cycle` of the kernel's static schedule.
When the kernel is iterated (by an enclosing loop), a new iteration starts every
`ii` cycles (the initiation interval), so two ops may share a PE only if their
cycles differ modulo `ii`. Memory ops name the path they take: the cache, a
scratchpad entry, or a stream engine. The loops that iterate kernels stay in the
IR as ordinary `scf` loops.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from xdsl.dialects.builtin import (
    I64,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import HasParent, IsTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from tapeflow_dialects.layer import (
    HoldsNoLayers,
    LayerOp,
    PhaseAttr,
    SpadType,
    verify_yielded_types,
)
from tapeflow_dialects.region import RegionType
from tapeflow_dialects.stream import TapeType


class MemPath(StrEnum):
    CACHE = "cache"
    """Through the cache (inputs, outputs, shadows; the tape in the baseline)."""
    SPAD = "spad"
    """A scratchpad entry (the tape under TapeFlow)."""


@irdl_attr_definition
class MemPathAttr(EnumAttribute[MemPath], SpacedOpaqueSyntaxAttribute):
    """`#cgra<path cache>`: which memory a load or store uses."""

    name = "cgra.path"


@cache
def i64_attr(value: int) -> IntegerAttr:
    """The i64 attribute of `value`, made once: attributes are immutable, and
    placing a fully unrolled body makes hundreds of thousands of them."""
    return IntegerAttr(value, i64)


@cache
def opcode_attr(name: str) -> StringAttr:
    """A `cgra.op`'s opcode attribute, made once per op name."""
    return StringAttr(name)


def enclosing_kernel(op: Operation) -> KernelOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp):
        parent = parent.parent_op()
    return parent


class PlacedOp(IRDLOperation):
    """An op issued at `cycle` on the PE at (`row`, `col`) of its kernel's grid."""

    row = prop_def(IntegerAttr[I64])
    col = prop_def(IntegerAttr[I64])
    cycle = prop_def(IntegerAttr[I64])

    # The properties read from `properties` itself (what the accessors return),
    # for the hundreds of thousands of placed ops a fully unrolled body holds.

    def pe(self) -> tuple[int, int]:
        properties = self.properties
        return properties["row"].value.data, properties["col"].value.data  # type: ignore[attr-defined]

    def verify_placement(self) -> None:
        if self.properties["cycle"].value.data < 0:  # type: ignore[attr-defined]
            raise VerifyException(f"'{self.name}' is scheduled at a negative cycle")
        kernel = enclosing_kernel(self)
        if kernel is None:
            raise VerifyException(f"'{self.name}' must be inside a 'cgra.kernel'")
        row, col = self.pe()
        rows, cols = kernel.grid()
        if not (0 <= row < rows and 0 <= col < cols):
            raise VerifyException(
                f"'{self.name}' is placed on PE ({row}, {col}), outside the "
                f"{rows}x{cols} grid of its kernel"
            )


@irdl_op_definition
class ComputeOp(PlacedOp):
    """
    An arithmetic op of the dataflow, placed on a PE. `opcode` is the op it
    implements (for example `arith.mulf`) and `attrs` that op's properties (a
    comparison predicate, fastmath flags).
    """

    name = "cgra.op"
    opcode = prop_def(StringAttr)
    attrs = opt_prop_def(DictionaryAttr)
    args = var_operand_def()
    res = var_result_def()
    assembly_format = (
        "$opcode `(` $args `)` `at` $row `,` $col `cycle` $cycle (`attrs` $attrs^)? attr-dict "
        "`:` functional-type($args, $res)"
    )

    def __init__(
        self,
        opcode: str,
        args: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        pe: tuple[int, int],
        cycle: int,
        attrs: DictionaryAttr | None = None,
    ):
        props: dict[str, Attribute] = {
            "opcode": opcode_attr(opcode),
            "row": i64_attr(pe[0]),
            "col": i64_attr(pe[1]),
            "cycle": i64_attr(cycle),
        }
        if attrs is not None:
            props["attrs"] = attrs
        super().__init__(operands=[args], result_types=[result_types], properties=props)

    def verify_(self) -> None:
        self.verify_placement()


def _verify_memory(
    op: PlacedOp,
    memory: SSAValue,
    indices: Sequence[SSAValue],
    path: MemPathAttr,
    slot: IntegerAttr | None,
) -> None:
    if path.data == MemPath.CACHE and isinstance(memory.type, RegionType):
        # An array-of-structs region read through the cache (TapeFlow's layout
        # without the scratchpad): element `indices`, struct slot `slot`.
        if len(indices) != len(memory.type.get_shape()) or slot is None:
            raise VerifyException(
                f"'{op.name}' on a region takes one index per dimension and a slot"
            )
        if not 0 <= slot.value.data < len(memory.type.slot_types()):
            raise VerifyException(
                f"'{op.name}' slot {slot.value.data} is beyond the struct of {memory.type}"
            )
        return
    if path.data == MemPath.CACHE:
        if not isinstance(memory.type, MemRefType):
            raise VerifyException(
                f"'{op.name}' goes through the cache but accesses a {memory.type}, not a memref"
            )
        if len(indices) != memory.type.get_num_dims():
            raise VerifyException(
                f"'{op.name}' has {len(indices)} indices for a rank "
                f"{memory.type.get_num_dims()} memref"
            )
        if slot is not None:
            raise VerifyException(f"'{op.name}' names a slot on the cache path")
    else:
        if not isinstance(memory.type, SpadType):
            raise VerifyException(f"'{op.name}' uses the scratchpad but accesses a {memory.type}")
        if len(indices) != 1 or slot is None:
            raise VerifyException(f"'{op.name}' on the scratchpad takes one row index and a slot")
        if not 0 <= slot.value.data < memory.type.slots.data:
            raise VerifyException(
                f"'{op.name}' slot {slot.value.data} is beyond the "
                f"{memory.type.slots.data} slots of {memory.type}"
            )


@irdl_op_definition
class LoadOp(PlacedOp):
    """Loads one value through `path`, issued by the PE it is placed on."""

    name = "cgra.load"
    memory = operand_def(MemRefType | SpadType | RegionType)
    indices = var_operand_def(IndexType)
    path = prop_def(MemPathAttr)
    slot = opt_prop_def(IntegerAttr[I64])
    result = result_def()
    assembly_format = (
        "$memory `[` $indices `]` $path (`slot` $slot^)? `at` $row `,` $col "
        "`cycle` $cycle attr-dict `:` type($memory) `->` type($result)"
    )

    def verify_(self) -> None:
        self.verify_placement()
        operands = self.operands  # the memory, then the indices
        properties = self.properties
        _verify_memory(self, operands[0], operands[1:], properties["path"], properties.get("slot"))  # type: ignore[arg-type]


@irdl_op_definition
class StoreOp(PlacedOp):
    """Stores one value through `path`, issued by the PE it is placed on."""

    name = "cgra.store"
    value = operand_def()
    memory = operand_def(MemRefType | SpadType | RegionType)
    indices = var_operand_def(IndexType)
    path = prop_def(MemPathAttr)
    slot = opt_prop_def(IntegerAttr[I64])
    assembly_format = (
        "$value `,` $memory `[` $indices `]` $path (`slot` $slot^)? `at` $row `,` "
        "$col `cycle` $cycle attr-dict `:` type($value) `,` type($memory)"
    )

    def verify_(self) -> None:
        self.verify_placement()
        operands = self.operands  # the value, the memory, then the indices
        properties = self.properties
        _verify_memory(self, operands[1], operands[2:], properties["path"], properties.get("slot"))  # type: ignore[arg-type]


@irdl_op_definition
class StreamOp(IRDLOperation):
    """
    Starts a stream engine at `cycle`: `fwd` drains `rows` rows of a scratchpad
    tile to the tape's tail, `rev` preloads them back. The engine runs
    decoupled from the grid; `cgra.barrier` waits for it.
    """

    name = "cgra.stream"
    direction = prop_def(PhaseAttr)
    tile = operand_def(SpadType)
    rows = operand_def(IndexType)
    tape = operand_def(TapeType)
    id = prop_def(IntegerAttr[I64])
    cycle = prop_def(IntegerAttr[I64])
    assembly_format = (
        "$direction $tile `rows` $rows `tape` $tape `id` $id `cycle` $cycle "
        "attr-dict `:` type($tile)"
    )

    def verify_(self) -> None:
        if self.cycle.value.data < 0:
            raise VerifyException(f"'{self.name}' is scheduled at a negative cycle")


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """Waits until every memory and stream op issued so far has completed."""

    name = "cgra.barrier"
    assembly_format = "attr-dict"


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a kernel, forwarding its results."""

    name = "cgra.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(KernelOp)))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[values])


@irdl_op_definition
class KernelOp(IRDLOperation):
    """
    One configuration of the PE grid: `cgra.kernel 0 rows 4 cols 4 ii 2 { ... }`.
    Ops inside are placed and scheduled; `ii` is the initiation interval used
    when the kernel is iterated.
    """

    name = "cgra.kernel"
    traits = lazy_traits_def(lambda: (HoldsNoLayers(),))
    id = prop_def(IntegerAttr[I64])
    rows = prop_def(IntegerAttr[I64])
    cols = prop_def(IntegerAttr[I64])
    ii = prop_def(IntegerAttr[I64])
    res = var_result_def()
    body = region_def("single_block")
    assembly_format = (
        "$id `rows` $rows `cols` $cols `ii` $ii (`->` type($res)^)? attr-dict-with-keyword $body"
    )

    def __init__(
        self,
        ident: int,
        grid: tuple[int, int],
        ii: int,
        body: Region,
        result_types: Sequence[Attribute] = (),
    ):
        super().__init__(
            result_types=[result_types],
            regions=[body],
            properties={
                "id": i64_attr(ident),
                "rows": i64_attr(grid[0]),
                "cols": i64_attr(grid[1]),
                "ii": i64_attr(ii),
            },
        )

    def grid(self) -> tuple[int, int]:
        return self.rows.value.data, self.cols.value.data

    def verify_(self) -> None:
        rows, cols = self.grid()
        if rows <= 0 or cols <= 0:
            raise VerifyException(f"'{self.name}' grid {rows}x{cols} is empty")
        ii = self.ii.value.data
        if ii <= 0:
            raise VerifyException(f"'{self.name}' initiation interval must be positive")
        terminator = self.body.block.last_op
        if not isinstance(terminator, YieldOp):
            raise VerifyException(f"'{self.name}' must end with 'cgra.yield'")
        verify_yielded_types(self, terminator.values)
        busy: dict[tuple[int, int, int], PlacedOp] = {}
        for op in self.body.block.ops:
            # An op without regions holds no layer (a placed op, most of a body).
            holds = op.regions or isinstance(op, LayerOp)
            if holds and (layer := next((o for o in op.walk() if isinstance(o, LayerOp)), None)):
                raise VerifyException(
                    f"'{self.name}' holds 'layer.layer' {layer.id.value.data}; a kernel is one "
                    "configuration of placed dataflow, inside a layer or outside any"
                )
            if not isinstance(op, PlacedOp):
                continue
            row, col = op.pe()
            slot = (row, col, op.cycle.value.data % ii)
            if slot in busy:
                raise VerifyException(
                    f"'{self.name}' issues '{busy[slot].name}' and '{op.name}' on PE "
                    f"({row}, {col}) in the same cycle modulo ii={ii}"
                )
            busy[slot] = op


Cgra = Dialect(
    "cgra",
    [KernelOp, ComputeOp, LoadOp, StoreOp, StreamOp, BarrierOp, YieldOp],
    [MemPathAttr],
)
