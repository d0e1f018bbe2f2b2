"""
TapeFlow's layers (Pass 2, layering).

A layer is a piece of the forward (FWD) or reverse (REV) dataflow whose tape accesses
all fall in one tile, small enough to sit in the scratchpad (the tile may hold the
values of several regions). It opens with `layer.salloc`, which reserves that tile in
the scratchpad, and ends with `layer.barrier`, after which every tape value of the tile
has been written (FWD) or consumed (REV), so the tile can be streamed out or reused. FWD
layers run in program order; their REV partners run in the inverse order, and each layer
names its partner in the other phase.

The scratchpad is a set of 8-byte entries, each with a full/empty bit. A tile
`!layer.spad<4x3>` is 4 rows (iterations) of 3 slots (a region's struct,
or part of it), laid out row-major from entry `base`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from xdsl.dialects import scf
from xdsl.dialects.builtin import I64, IntAttr, IntegerAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    prop_def,
    region_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, OpTrait
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from tapeflow_dialects.layout import SLOT_BYTES
from tapeflow_dialects.region import StoreOp, is_kept

ENTRY_BYTES = SLOT_BYTES
"""One scratchpad entry holds one tape value in a 64-bit word, whatever its type
(and has one full/empty bit): the layout rule of `tapeflow_dialects.layout`."""


class Phase(StrEnum):
    FWD = "fwd"
    REV = "rev"


def verify_yielded_types(op: Operation, yielded: Sequence[SSAValue], label: str = "") -> None:
    """The terminator of a region-holding op forwards exactly the op's results."""
    got = [v.type for v in yielded]
    want = list(op.result_types)
    if got != want:
        raise VerifyException(
            f"'{op.name}'{label} yields [{', '.join(map(str, got))}] but its results "
            f"are [{', '.join(map(str, want))}]"
        )


@irdl_attr_definition
class PhaseAttr(EnumAttribute[Phase], SpacedOpaqueSyntaxAttribute):
    """`#layer<phase fwd>`: which sweep a layer belongs to."""

    name = "layer.phase"


@irdl_attr_definition
class SpadType(ParametrizedAttribute, TypeAttribute):
    """`!layer.spad<rows x slots>`: a tile of the scratchpad, in 8-byte entries."""

    name = "layer.spad"
    rows: IntAttr
    slots: IntAttr

    def __init__(self, rows: int, slots: int):
        super().__init__(IntAttr(rows), IntAttr(slots))

    def entries(self) -> int:
        return self.rows.data * self.slots.data

    def size_bytes(self) -> int:
        return self.entries() * ENTRY_BYTES

    def verify(self) -> None:
        if self.rows.data <= 0 or self.slots.data <= 0:
            raise VerifyException(f"scratchpad tile must be non-empty, got {self}")

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.rows.data}x{self.slots.data}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            dims = parser.parse_dimension_list()
        if len(dims) != 2:
            parser.raise_error("expected a tile shape of the form <rows x slots>")
        return [IntAttr(dims[0]), IntAttr(dims[1])]


@irdl_op_definition
class SAllocOp(IRDLOperation):
    """
    Reserves a tile of the scratchpad for the enclosing layer, starting at entry
    `base` of a scratchpad of `capacity` bytes. It is the layer's first op.
    """

    name = "layer.salloc"
    base = prop_def(IntegerAttr[I64])
    capacity = prop_def(IntegerAttr[I64])
    tile = result_def(SpadType)
    traits = lazy_traits_def(lambda: (HasParent(LayerOp),))
    assembly_format = "`base` $base `capacity` $capacity attr-dict `:` type($tile)"

    def __init__(self, tile: SpadType, base: int, capacity: int):
        super().__init__(
            result_types=[tile],
            properties={
                "base": IntegerAttr(base, 64),
                "capacity": IntegerAttr(capacity, 64),
            },
        )

    def verify_(self) -> None:
        tile = self.tile.type
        assert isinstance(tile, SpadType)
        base = self.base.value.data
        capacity = self.capacity.value.data
        if capacity <= 0 or capacity % ENTRY_BYTES:
            raise VerifyException(
                f"'{self.name}' scratchpad capacity must be a positive multiple of "
                f"{ENTRY_BYTES} bytes, got {capacity}"
            )
        if base < 0:
            raise VerifyException(f"'{self.name}' base entry {base} is negative")
        end = (base + tile.entries()) * ENTRY_BYTES
        if end > capacity:
            raise VerifyException(
                f"'{self.name}' tile {tile} at entry {base} ends at byte {end}, beyond "
                f"the configured scratchpad of {capacity} bytes"
            )


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """
    Ends a layer: all tape accesses of the layer have completed (FWD: every entry
    of the tile is full; REV: every entry has been read). Forwards `values` as the
    layer's results.
    """

    name = "layer.barrier"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(LayerOp)))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[values])


@irdl_op_definition
class LayerOp(IRDLOperation):
    """
    One layer of the FWD or REV dataflow: `layer.layer 3 fwd partner 8 { ... }`.
    Its body starts with `layer.salloc` and ends with `layer.barrier`, and the
    values it stores to regions outside any loop fit its tile (regions
    `tapeflow-layers` kept in DRAM, `region.KEPT`, it may read or write through the
    cache like memory).
    """

    name = "layer.layer"
    id = prop_def(IntegerAttr[I64])
    phase = prop_def(PhaseAttr)
    partner = prop_def(IntegerAttr[I64])
    res = var_result_def()
    body = region_def("single_block")
    assembly_format = (
        "$id $phase `partner` $partner (`->` type($res)^)? attr-dict-with-keyword $body"
    )

    def __init__(
        self,
        ident: int,
        phase: Phase,
        partner: int,
        body: Region,
        result_types: Sequence[Attribute] = (),
    ):
        super().__init__(
            result_types=[result_types],
            regions=[body],
            properties={
                "id": IntegerAttr(ident, 64),
                "phase": PhaseAttr(phase),
                "partner": IntegerAttr(partner, 64),
            },
        )

    @property
    def salloc(self) -> SAllocOp:
        first = self.body.block.first_op
        assert isinstance(first, SAllocOp)
        return first

    def verify_(self) -> None:
        ident = self.id.value.data
        block = self.body.block
        if not isinstance(block.first_op, SAllocOp):
            raise VerifyException(f"'{self.name}' {ident} must start with 'layer.salloc'")
        barrier = block.last_op
        if not isinstance(barrier, BarrierOp):
            raise VerifyException(f"'{self.name}' {ident} must end with 'layer.barrier'")
        verify_yielded_types(self, barrier.values, f" {ident}")
        self._verify_capacity(ident)
        self._verify_partner(ident)

    def _verify_not_nested(self, ident: int, op: Operation) -> None:
        if isinstance(op, LayerOp):
            raise VerifyException(
                f"'{self.name}' {ident} holds layer {op.id.value.data}; layers do not nest "
                "(each is one step of the flat FWD or REV layer sequence)"
            )

    def _verify_capacity(self, ident: int) -> None:
        """The stores that run once per layer (in no loop inside it) must fit its
        tile: each takes an entry of it."""
        stored = 0
        for op in self.body.walk():
            self._verify_not_nested(ident, op)
            if isinstance(op, StoreOp) and not is_kept(op.region) and not _in_loop(op, self):
                stored += 1
        tile = self.salloc.tile.type
        assert isinstance(tile, SpadType)
        entries = tile.rows.data * tile.slots.data
        if stored > entries:
            raise VerifyException(
                f"'{self.name}' {ident} stores {stored} values outside loops but its tile "
                f"{tile} has {entries} entries"
            )

    def _verify_partner(self, ident: int) -> None:
        partner = self.partner.value.data
        if partner == ident:
            raise VerifyException(f"'{self.name}' {ident} names itself as partner")
        scope: Operation | None = self.parent_op()
        while scope is not None and not scope.has_trait(IsolatedFromAbove):
            scope = scope.parent_op()
        if scope is None:
            return
        found: LayerOp | None = None
        for op in _layers_in(scope):
            if op is self:
                continue
            if op.id.value.data == ident:
                raise VerifyException(f"'{self.name}' id {ident} is used by two layers")
            if op.id.value.data == partner:
                found = op
        if found is None:
            raise VerifyException(
                f"'{self.name}' {ident} names partner {partner}, but no layer has that id"
            )
        if found.phase == self.phase:
            raise VerifyException(
                f"'{self.name}' {ident} and its partner {partner} are both "
                f"{self.phase.data.value} layers; partners are one FWD and one REV"
            )
        if found.partner.value.data != ident:
            raise VerifyException(
                f"'{self.name}' {ident} names partner {partner}, whose partner is "
                f"{found.partner.value.data}"
            )


class HoldsNoLayers(OpTrait):
    """An op whose body never holds a `layer.layer` (a `cgra.kernel`: one grid
    configuration of placed dataflow), which the search for a layer's partner
    (`_layers_in`) does not enter: a fully unrolled kernel has tens of thousands
    of placed ops, and every layer searches its function."""


def _in_loop(op: Operation, layer: Operation) -> bool:
    """`op` sits in a loop inside `layer`."""
    parent = op.parent_op()
    while parent is not None and parent is not layer:
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            return True
        parent = parent.parent_op()
    return False


def _layers_in(scope: Operation) -> Iterator[LayerOp]:
    """Every `layer.layer` in `scope`, without entering the layers' bodies (layers
    do not nest, which each layer's verifier checks on its own body). Each layer
    looks for its partner in the whole function; walking every op for every layer
    made verification quadratic, the largest cost of lowering a fully unrolled
    kernel (tens of thousands of ops, hundreds of layers)."""
    pending = [scope]
    while pending:
        for region in pending.pop().regions:
            for block in region.blocks:
                op = block.first_op
                while op is not None:
                    if isinstance(op, LayerOp):
                        yield op
                    elif op.regions and not op.has_trait(HoldsNoLayers):
                        pending.append(op)
                    op = op.next_op


Layer = Dialect("layer", [LayerOp, SAllocOp, BarrierOp], [PhaseAttr, SpadType])
