"""
Building, appending and erasing ops by the ten thousand: what xDSL's
`Operation.create`, `Block.add_op` and `Rewriter.erase_op(op, safe_erase=False)`
do for one op, without the checks that the ops handled here pass by
construction. A fully unrolled loop body placed on the grid is tens of
thousands of ops made, appended and erased one by one; each of those xDSL calls
repeats checks no such op can fail (an op added to a block is checked not to
hold that block, which an op without regions cannot; an erased value with no
use is still replaced by an `ErasedSSAValue` that nothing reads).

Each function leaves the IR exactly as the xDSL calls it stands for leave it
(test/lowering/test_bulk_ir.py compares them op by op, field by field).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.core import OpResult, SSAValues, Use
from xdsl.irdl import IRDLOperation
from xdsl.irdl.operations import OptionalDef

OpT = TypeVar("OpT", bound=Operation)

_NO_DEFAULTS: dict[type[Operation], bool] = {}
"""Per IRDL op class: whether its definition gives no property or attribute a
default (the defaults `IRDLOperation.__post_init__` fills in)."""


def _without_defaults(cls: type[Operation]) -> bool:
    known = _NO_DEFAULTS.get(cls)
    if known is None:
        definition = cls.get_irdl_definition()  # type: ignore[attr-defined]
        known = _NO_DEFAULTS[cls] = not any(
            not isinstance(d, OptionalDef) and d.default_value is not None
            for d in (*definition.properties.values(), *definition.attributes.values())
        )
    return known


def new_op(
    cls: type[OpT],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: Mapping[str, Attribute],
    location: Attribute,
) -> OpT:
    """`cls.create(operands=..., result_types=..., properties=..., location=...)`
    for an IRDL op class whose definition gives nothing a default (else that
    call itself): no attribute, successor or region."""
    if not (issubclass(cls, IRDLOperation) and _without_defaults(cls)):
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=properties,
            location=location,  # type: ignore[arg-type]
        )
    op = cls.__new__(cls)
    values = SSAValues(operands)
    uses = tuple(Use(op, n) for n in range(len(values)))
    for value, use in zip(values, uses, strict=True):
        value.add_use(use)
    op._operands = values  # pyright: ignore[reportPrivateUsage]
    op._operand_uses = uses  # pyright: ignore[reportPrivateUsage]
    op.results = SSAValues(OpResult(t, op, n) for n, t in enumerate(result_types))
    op.properties = dict(properties)
    op.attributes = {}
    op.location = location  # type: ignore[assignment]
    op._successors = ()  # pyright: ignore[reportPrivateUsage]
    op._successor_uses = ()  # pyright: ignore[reportPrivateUsage]
    op.regions = ()
    return op


def append_ops(block: Block, ops: Sequence[Operation]) -> None:
    """`block.add_op(op)` for each of `ops`, in order: ops attached nowhere and
    holding no region (so none can hold `block`)."""
    for op in ops:
        if op.parent is not None or op.regions:
            raise ValueError("append_ops takes detached ops without regions")
    last = block.last_op
    for op in ops:
        op.parent = block
        op._prev_op = last  # pyright: ignore[reportPrivateUsage]
        op._next_op = None  # pyright: ignore[reportPrivateUsage]
        if last is None:
            block._first_op = op  # pyright: ignore[reportPrivateUsage]
        else:
            last._next_op = op  # pyright: ignore[reportPrivateUsage]
        last = op
    block._last_op = last  # pyright: ignore[reportPrivateUsage]


def erase_ops(ops: Sequence[Operation]) -> None:
    """`Rewriter.erase_op(op, safe_erase=False)` for each of `ops`, in order:
    ops holding no region. A result still used is replaced by an erased value,
    as there; one used nowhere needs no replacement."""
    for op in ops:
        if op.regions:
            raise ValueError("erase_ops takes ops without regions")
        block = op.parent
        if block is not None:
            block.detach_op(op)
        op.drop_all_references()
        for result in op.results:
            if result.first_use is not None:
                result.erase(safe_erase=False)
