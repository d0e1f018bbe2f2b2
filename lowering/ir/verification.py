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

from xdsl.ir import Block, ErasedSSAValue, IRNode, Operation, Region
from xdsl.irdl import IRDLOperation
from xdsl.irdl.operations import (
    OpDef,
    OptAttributeDef,
    OptPropertyDef,
    VarIRConstruct,
    VerificationContext,
    irdl_op_verify_arg_list,
    irdl_op_verify_regions,
    verify_variadic_size,
)
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, OpTrait
from xdsl.utils.exceptions import VerifyException


@dataclass(frozen=True)
class _Plan:
    """How an op of one class is checked by signature."""

    definition: OpDef
    custom: Callable[[Operation], None] | None
    """The class's own `verify_`, run after the generic check."""


@dataclass(frozen=True)
class _Isolated:
    """How an op of a class with regions and `IsolatedFromAbove` is checked: its
    definition's generic check, its traits' but `IsolatedFromAbove`'s (checked by
    `_isolated`), then its class's own `verify_`."""

    definition: OpDef
    traits: tuple[OpTrait, ...]
    """Its traits but `IsolatedFromAbove`."""
    custom: Callable[[Operation], None] | None


@dataclass
class _Checked:
    """What one verification has found to pass."""

    plans: dict[type[Operation], _Plan | None] = field(default_factory=dict)
    isolated: dict[type[Operation], _Isolated | None] = field(default_factory=dict)
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
    cls = type(op)
    if cls not in checked.isolated:
        checked.isolated[cls] = _isolated_plan(cls)
    plan = checked.isolated[cls]
    if plan is None or not _verify_isolated(op, plan):
        op.verify(verify_nested_ops=False)


def _verify_region(region: Region, checked: _Checked) -> None:
    for block in region.blocks:
        _verify_block(block, checked)
        if block.parent is not region:  # `!=`: IR nodes compare by identity
            raise ValueError("Parent pointer of block does not refer to containing region")


def _verify_block(block: Block, checked: _Checked) -> None:
    for operation in block.ops:
        if operation.parent is not block:  # `!=`: IR nodes compare by identity
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
    generated = _generated_verify(cls)
    if generated is None:
        return None
    definition, custom = generated
    if definition.options or definition.regions or definition.successors:
        return None
    if any(type(trait).verify is not OpTrait.verify for trait in definition.traits):
        return None
    constraints = [d.constr for _, d in (*definition.operands, *definition.results)]
    constraints += [d.constr for d in definition.properties.values()]
    constraints += [d.constr for d in definition.attributes.values()]
    if any(c.variables() for c in constraints):
        return None
    return _Plan(definition, custom)


def _generated_verify(
    cls: type[Operation],
) -> tuple[OpDef, Callable[[Operation], None] | None] | None:
    """The definition and the class's own check of `cls` if its `verify_` is the
    one `irdl_op_definition` makes (the generic check, then the class's own)."""
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
    if cells.get("op_def") is not definition or set(cells) - {"op_def", "custom_verify"}:
        return None
    return definition, cells.get("custom_verify")


def _isolated_plan(cls: type[Operation]) -> _Isolated | None:
    """How ops of `cls` (with regions) are checked apart from
    `IsolatedFromAbove`'s own walk; None where they are not."""
    generated = _generated_verify(cls)
    if generated is None:
        return None
    definition, custom = generated
    traits = tuple(definition.traits)
    if not any(type(t) is IsolatedFromAbove for t in traits) or definition.successors:
        return None
    others = tuple(t for t in traits if type(t) is not IsolatedFromAbove)
    return _Isolated(definition, others, custom)


def _verify_isolated(op: Operation, plan: _Isolated) -> bool:
    """`op.verify(verify_nested_ops=False)` for an op of an `_Isolated` class, the
    `IsolatedFromAbove` check done by `_isolated`: False (nothing checked) for an
    op with successors, left to xDSL. Raises where xDSL raises (its message may
    differ: a failed verification is redone by xDSL)."""
    if op.successors:
        return False
    for operand in op.operands:
        if isinstance(operand, ErasedSSAValue):
            raise ValueError("Erased SSA value is used by the operation")
    block = op.parent
    region = None if block is None else block.parent
    if block is not None and region is not None and block.last_op is op:
        # `Operation.verify`'s check of a block's last op
        if len(region.blocks) == 1:
            parent = region.parent
            if parent is not None and not parent.has_trait(NoTerminator):
                if not op.has_trait(IsTerminator):
                    raise VerifyException(f"{op.name} ends its block but is not a terminator")
        elif len(region.blocks) > 1 and not op.has_trait(IsTerminator):
            raise VerifyException(f"{op.name} ends its block but is not a terminator")
    # `OpDef.verify`, its traits but `IsolatedFromAbove`.
    definition = plan.definition
    context = VerificationContext()
    irdl_op_verify_arg_list(op, definition, VarIRConstruct.OPERAND, context)
    irdl_op_verify_arg_list(op, definition, VarIRConstruct.RESULT, context)
    irdl_op_verify_regions(op, definition, context)
    verify_variadic_size(op, definition, VarIRConstruct.SUCCESSOR)
    for name, attr_def in definition.properties.items():
        if name not in op.properties:
            if isinstance(attr_def, OptPropertyDef):
                continue
            raise VerifyException(f"property '{name}' expected in operation '{op.name}'")
        attr_def.constr.verify(op.properties[name], context)
    for name in op.properties:
        if name not in definition.properties:
            raise VerifyException(f"property '{name}' is not defined by '{op.name}'")
    for name, attr_def in definition.attributes.items():
        if name not in op.attributes:
            if isinstance(attr_def, OptAttributeDef):
                continue
            raise VerifyException(f"attribute '{name}' expected in operation '{op.name}'")
        attr_def.constr.verify(op.attributes[name], context)
    for trait in plan.traits:
        trait.verify(op)
    _isolated(op)
    if plan.custom is not None:
        plan.custom(op)
    return True


def _isolated(op: Operation) -> None:
    """`IsolatedFromAbove.verify(op)`: every operand of an op nested in `op` (not
    inside a nested isolated op, which checks its own) is defined inside `op`,
    not by `op` itself. xDSL walks each operand's owner up to `op`
    (`is_ancestor`); here each node found inside is remembered, so that a walk
    stops at the first node known to be inside: the same parent pointers
    followed, each once."""
    inside: dict[int, IRNode] = {id(op): op}  # the nodes known to lie in `op` (and `op`)
    regions: list[Region] = list(op.regions)
    while regions:
        region = regions.pop()
        for block in region.blocks:
            for child in block.ops:
                for operand in child.operands:
                    owner = operand.owner
                    if owner is op:
                        raise VerifyException(
                            "Operation using value defined out of its IsolatedFromAbove "
                            f"parent: {child}"
                        )
                    if id(owner) in inside:
                        continue
                    path: list[IRNode] = []
                    node: IRNode | None = owner
                    while node is not None and id(node) not in inside:
                        path.append(node)
                        node = node.parent_node
                    if node is None:
                        raise VerifyException(
                            "Operation using value defined out of its IsolatedFromAbove "
                            f"parent: {child}"
                        )
                    for each in path:
                        inside[id(each)] = each
                if child.regions and not child.has_trait(IsolatedFromAbove):
                    regions += child.regions


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
    operands = op.operands
    for operand in operands:
        if isinstance(operand, ErasedSSAValue):
            return None
    block = op.parent
    if block is not None and block.last_op is op:
        return None  # a block's terminator: checked as xDSL does
    properties, attributes = op.properties, op.attributes
    signature = (
        cls,
        tuple([id(o.type) for o in operands]),
        tuple([id(r.type) for r in op.results]),
        tuple(properties),
        tuple(attributes),
    )
    if signature not in checked.signatures:
        return signature  # the first of its signature: checked in full
    definition = plan.definition
    values = checked.values
    for name, value in properties.items():
        key = (cls, "property", name, id(value))
        if key not in values and not _holds(checked, key, value, definition.properties[name]):
            return None
    for name, value in attributes.items():
        attribute = definition.attributes.get(name)
        if attribute is None:
            continue
        key = (cls, "attribute", name, id(value))
        if key not in values and not _holds(checked, key, value, attribute):
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
