"""
`verify(op)`: xDSL's `Operation.verify` of `op` and everything nested in it, with
the generic IRDL check of an op (`OpDef.verify`) done once per op signature where
that check provably depends on the signature alone.

A placed, fully unrolled gradient holds hundreds of thousands of `cgra.op`,
`cgra.load` and `cgra.store` ops of a handful of operand and result types; the
generic check of each (its operands' and results' types against the
definition's constraints, the names of its properties, each property's value
against its constraint) repeats the same answers. For an op of a class whose
definition (`OpDef`) has

- no constraint variable (no constraint in it reads or writes the verification
  context another one reads: each part is checked on its own),
- no operand or result segments given by a property (`options` empty),
- no region or successor definition, and the op no region or successor,
- no trait with a check of its own (every trait's `verify` is `OpTrait.verify`),

`OpDef.verify` is the conjunction of a check of (its class, its operands' types,
its results' types, its property and attribute names) and one check per property
and attribute value. Each is done once per verification and kept where it
passes (types and values keyed by identity, each kept alive while the
verification runs: an equal one made apart is checked once more); an op whose
check fails is verified by `Operation.verify` itself, which
raises the error it always did. What else `Operation.verify` checks is checked
for every op as it does: no erased operand, the parent pointers, the terminator
of a block, the empty blocks, and the class's own `verify_` (the part after the
generic check). Ops of any other class, and every op with regions, are verified
by `Operation.verify` (`verify_nested_ops=False`) after their regions. xDSL
checks an op's operands, successors and place as a terminator before its
regions, so where an op and an op nested in it are both broken this walk meets
the nested one's error first: a module that fails is verified again by
`op.verify()`, whose error is raised. A module passes exactly where it passes
`op.verify()`, and fails with the error `op.verify()` raises.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.ir import Block, ErasedSSAValue, Operation, Region
from xdsl.irdl import IRDLOperation
from xdsl.irdl.operations import OpDef, VerificationContext
from xdsl.traits import NoTerminator, OpTrait
from xdsl.utils.exceptions import VerifyException


@dataclass(frozen=True)
class _Plan:
    """How an op of one class is checked by signature."""

    definition: OpDef
    custom: Callable[[Operation], None] | None
    """The class's own `verify_`, run after the generic check."""


@dataclass
class _Checked:
    """What one verification has found to pass."""

    plans: dict[type[Operation], _Plan | None] = field(default_factory=dict)
    signatures: set[tuple[object, ...]] = field(default_factory=set)
    values: set[tuple[object, ...]] = field(default_factory=set)
    pinned: list[object] = field(default_factory=list)
    """The types and attributes the keys name by identity, kept alive (an object's
    `id` is its own while it lives)."""


def verify(op: Operation) -> None:
    """Verify `op` and every op nested in it, as `op.verify()` does."""
    try:
        _verify_op(op, _Checked())
    except Exception:
        # Broken: xDSL's own walk raises the error it meets first.
        op.verify()
        raise


def _verify_op(op: Operation, checked: _Checked) -> None:
    if not op.regions and not op.successors:
        signature = _by_signature(op, checked)
        if signature is True:
            return
        op.verify(verify_nested_ops=False)
        if signature is not None:  # it passed: so does every op of its signature
            _note(op, signature, checked)
        return
    for region in op.regions:
        _verify_region(region, checked)
    op.verify(verify_nested_ops=False)


def _verify_region(region: Region, checked: _Checked) -> None:
    for block in region.blocks:
        _verify_block(block, checked)
        if block.parent != region:
            raise ValueError("Parent pointer of block does not refer to containing region")


def _verify_block(block: Block, checked: _Checked) -> None:
    for operation in block.ops:
        if operation.parent != block:
            raise ValueError("Parent pointer of operation does not refer to containing region")
        _verify_op(operation, checked)
    if block.first_op is None:
        if (region := block.parent) is not None and (parent_op := region.parent) is not None:
            if len(region.blocks) == 1 and not parent_op.has_trait(NoTerminator):
                raise VerifyException(
                    f"Operation {parent_op.name} contains empty block in "
                    "single-block region that expects at least a terminator"
                )


def _plan(cls: type[Operation]) -> _Plan | None:
    """How ops of `cls` are checked by signature; None where they cannot be."""
    if not issubclass(cls, IRDLOperation) or not hasattr(cls, "get_irdl_definition"):
        return None
    definition = cls.get_irdl_definition()
    generated = cls.verify_
    if not hasattr(generated, "__code__"):
        return None
    cells = dict(
        zip(
            generated.__code__.co_freevars,
            (cell.cell_contents for cell in generated.__closure__ or ()),
            strict=True,
        )
    )
    # The `verify_` `irdl_op_definition` makes: the generic check, then the
    # class's own (`custom_verify`), if any.
    if cells.get("op_def") is not definition or set(cells) - {"op_def", "custom_verify"}:
        return None
    if definition.options or definition.regions or definition.successors:
        return None
    if any(type(trait).verify is not OpTrait.verify for trait in definition.traits):
        return None
    constraints = [d.constr for _, d in (*definition.operands, *definition.results)]
    constraints += [d.constr for d in definition.properties.values()]
    constraints += [d.constr for d in definition.attributes.values()]
    if any(c.variables() for c in constraints):
        return None
    return _Plan(definition, cells.get("custom_verify"))


def _by_signature(op: Operation, checked: _Checked) -> tuple[object, ...] | bool | None:
    """Verify region-free `op` by its signature if its class allows (`_plan`):
    True if it did; else its signature, to note if `Operation.verify` passes
    (None: none to note). An op whose check fails is left to `Operation.verify`,
    which raises the error it always did."""
    cls = type(op)
    if cls not in checked.plans:
        checked.plans[cls] = _plan(cls)
    plan = checked.plans[cls]
    if plan is None:
        return None
    for operand in op.operands:
        if isinstance(operand, ErasedSSAValue):
            return None
    block = op.parent
    if block is not None and block.last_op is op:
        return None  # a block's terminator: checked as xDSL does
    signature = (
        cls,
        tuple(id(o.type) for o in op.operands),
        tuple(id(r.type) for r in op.results),
        tuple(op.properties),
        tuple(op.attributes),
    )
    if signature not in checked.signatures:
        return signature  # the first of its signature: checked in full
    definition = plan.definition
    for name, value in op.properties.items():
        if not _holds(
            checked, (cls, "property", name, id(value)), value, definition.properties[name]
        ):
            return None
    for name, value in op.attributes.items():
        attribute = definition.attributes.get(name)
        if attribute is not None and not _holds(
            checked, (cls, "attribute", name, id(value)), value, attribute
        ):
            return None
    if plan.custom is not None:
        try:
            plan.custom(op)
        except VerifyException:
            return None
    return True


def _holds(checked: _Checked, key: tuple[object, ...], value: object, definition: object) -> bool:
    """Whether a property's or attribute's `value` (`key`: by identity) meets its
    definition's constraint (found once, kept where it does)."""
    if key in checked.values:
        return True
    try:
        definition.constr.verify(value, VerificationContext())  # type: ignore[attr-defined]
    except VerifyException:
        return False
    checked.values.add(key)
    checked.pinned.append(value)
    return True


def _note(op: Operation, signature: tuple[object, ...], checked: _Checked) -> None:
    """`op`, of `signature`, passed `Operation.verify`: so does every op of its
    signature whose values pass (and its class's own check)."""
    cls = type(op)
    plan = checked.plans[cls]
    assert plan is not None
    checked.signatures.add(signature)
    checked.pinned.append(op)  # its types: the signature names them by identity
    for name, value in op.properties.items():
        checked.values.add((cls, "property", name, id(value)))
    for name, value in op.attributes.items():
        if name in plan.definition.attributes:
            checked.values.add((cls, "attribute", name, id(value)))
    checked.pinned.append((list(op.properties.values()), list(op.attributes.values())))
