"""
Building, appending, erasing and cloning ops by the ten thousand: what xDSL's
`Operation.create`, `Block.add_op`, `Rewriter.erase_op(op, safe_erase=False)`
and `Operation.clone` do, without the checks that the ops handled here pass by
construction. A fully unrolled loop body placed on the grid is tens of
thousands of ops made, appended and erased one by one; each of those xDSL calls
repeats checks no such op can fail (an op added to a block is checked not to
hold that block, which an op without regions cannot; an erased value with no
use is still replaced by an `ErasedSSAValue` that nothing reads; a clone sets
each op's operands through the generic setter and checks each op it adds to a
block, and validates each name hint it copies, one by one).

Each function leaves the IR exactly as the xDSL calls it stands for leave it
(test/lowering/test_bulk_ir.py compares them op by op, field by field); `release`
then unlinks erased ops from their results, so that they are freed without the
cycle collector.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
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


_PLAIN: dict[type[Operation], bool] = {}
"""Per op class: an IRDL class whose definition gives nothing a default (`new_op`
makes its ops field by field)."""


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
    plain = _PLAIN.get(cls)
    if plain is None:
        plain = _PLAIN[cls] = issubclass(cls, IRDLOperation) and _without_defaults(cls)
    if not plain:
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=properties,
            location=location,  # type: ignore[arg-type]
        )
    op = cls.__new__(cls)
    values = SSAValues(operands)
    uses = tuple([Use(op, n) for n in range(len(values))])
    for value, use in zip(values, uses, strict=True):
        # `value.add_use(use)`
        first = value.first_use
        use._next_use = first  # pyright: ignore[reportPrivateUsage]
        if first is not None:
            first._prev_use = use  # pyright: ignore[reportPrivateUsage]
        value.first_use = use
    op._operands = values  # pyright: ignore[reportPrivateUsage]
    op._operand_uses = uses  # pyright: ignore[reportPrivateUsage]
    op.results = SSAValues([OpResult(t, op, n) for n, t in enumerate(result_types)])
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


def release(ops: Sequence[Operation]) -> None:
    """Drop the link from each of `ops`, erased ops (`erase_ops`) that nothing
    reads again, to its results, so that reference counting frees an op and its
    results once nothing else holds them. Each result names its op as its
    owner, and the op lists its results: a cycle, which only Python's cycle
    collector frees, walking every object allocated since its last collection
    (a fully unrolled body's lowering erases tens of thousands of ops while the
    collector is paused, `sim.simulator.prepare`). A released op has no
    results; a result keeps its owner, its type and its uses."""
    empty: SSAValues[OpResult] = SSAValues()
    for op in ops:
        if op.parent is not None or op._operand_uses:  # pyright: ignore[reportPrivateUsage]
            raise ValueError("release takes erased ops")
        op.results = empty


def release_tree(root: Operation) -> None:
    """Cut every link between the IR objects of `root`, a detached op nothing
    reads again (a module after its run), and its regions: each op's results,
    operands, uses, neighbours, parent and regions, each block's arguments, ops
    and neighbours, each region's blocks, each value's use list. Every parent
    pointer, use list and result's owner closes a cycle, which only Python's
    cycle collector frees, walking each object of the tree to find it garbage;
    cut, reference counting frees each object once nothing else holds it. What
    is left of an op is a shell: its class, properties, attributes and location."""
    if root.parent is not None:
        raise ValueError("release_tree takes a detached op")
    _cut([root])


def release_blocks(blocks: Sequence[Block]) -> None:
    """`release_tree` for detached blocks nothing reads again and whose ops use
    no value from outside them, nor any op outside a value of theirs (a
    function's body that another replaced, `tapeflow-layers`: a function is
    isolated from above): every link between their IR objects cut, those of
    each block's ops too, so that reference counting frees them."""
    ops: list[Operation] = []
    for block in blocks:
        if block.parent is not None:
            raise ValueError("release_blocks takes detached blocks")
        ops.extend(block.ops)
        _cut_block(block)
    _cut(ops)


def _cut_block(block: Block) -> None:
    for argument in block.args:
        argument.first_use = None
    block._args = ()  # pyright: ignore[reportPrivateUsage]
    block.first_use = None
    block._first_op = block._last_op = None  # pyright: ignore[reportPrivateUsage]
    block._prev_block = block._next_block = None  # pyright: ignore[reportPrivateUsage]
    block.parent = None


def _cut(ops: list[Operation]) -> None:
    """Cut every link of `ops` and of the ops nested in them (`release_tree`)."""
    empty: SSAValues[SSAValue] = SSAValues()
    while ops:
        op = ops.pop()
        for use in op._operand_uses:  # pyright: ignore[reportPrivateUsage]
            use._prev_use = use._next_use = None  # pyright: ignore[reportPrivateUsage]
        for use in op._successor_uses:  # pyright: ignore[reportPrivateUsage]
            use._prev_use = use._next_use = None  # pyright: ignore[reportPrivateUsage]
        for result in op.results:
            result.first_use = None
        op._operands = empty  # pyright: ignore[reportPrivateUsage]
        op._operand_uses = ()  # pyright: ignore[reportPrivateUsage]
        op._successors = ()  # pyright: ignore[reportPrivateUsage]
        op._successor_uses = ()  # pyright: ignore[reportPrivateUsage]
        op.results = empty  # type: ignore[assignment]
        op.parent = None
        op._prev_op = op._next_op = None  # pyright: ignore[reportPrivateUsage]
        for region in op.regions:
            blocks = list(region.blocks)
            for block in blocks:
                ops.extend(block.ops)
                _cut_block(block)
            region._first_block = region._last_block = None  # pyright: ignore[reportPrivateUsage]
            region.parent = None
        op.regions = ()


_NAMES: dict[str, str] = {}
"""Name hints as the `name_hint` setter stores them, by the name given."""


def valid_name(name: str | None) -> str | None:
    """`SSAValue.extract_valid_name(name)` (what `value.name_hint = name` stores),
    found once per name."""
    if name is None:
        return None
    found = _NAMES.get(name)
    if found is None:
        found = _NAMES[name] = SSAValue.extract_valid_name(name)
    return found


def clone_op(op: OpT, value_mapper: dict[SSAValue, SSAValue] | None = None) -> OpT:
    """`op.clone(value_mapper)`: the op, its regions and every op in them copied,
    each copy reading the copies of the values made inside `op` (and the values
    `value_mapper` maps, which it extends), with its name hints, and its operands'
    use lists ordered as xDSL's clone orders them (each op's operands set in the
    order `walk` visits the ops)."""
    values: dict[SSAValue, SSAValue] = {} if value_mapper is None else value_mapper
    blocks: dict[Block, Block] = {}
    pairs: list[tuple[Operation, Operation]] = []
    copy = _shell(op, values, blocks, pairs)
    for old, new in pairs:
        operands = SSAValues(values.get(v, v) for v in old._operands)  # pyright: ignore[reportPrivateUsage]
        uses = tuple(Use(new, n) for n in range(len(operands)))
        for value, use in zip(operands, uses, strict=True):
            value.add_use(use)
        new._operands = operands  # pyright: ignore[reportPrivateUsage]
        new._operand_uses = uses  # pyright: ignore[reportPrivateUsage]
    return copy


def _shell(
    op: OpT,
    values: dict[SSAValue, SSAValue],
    blocks: dict[Block, Block],
    pairs: list[tuple[Operation, Operation]],
) -> OpT:
    """`op` copied without operands (`clone_without_regions(clone_operands=False)`),
    its regions' blocks and ops copied into it; each (op, copy) noted in `pairs`
    in `walk` order."""
    cls = type(op)
    if op.successors or not (issubclass(cls, IRDLOperation) and _without_defaults(cls)):
        new = op.clone_without_regions(values, blocks, clone_operands=False)
    else:
        new = cls.__new__(cls)
        new._operands = SSAValues()  # pyright: ignore[reportPrivateUsage]
        new._operand_uses = ()  # pyright: ignore[reportPrivateUsage]
        new.results = SSAValues(OpResult(r.type, new, n) for n, r in enumerate(op.results))
        new.properties = op.properties.copy()
        new.attributes = op.attributes.copy()
        new.location = op.location
        new._successors = ()  # pyright: ignore[reportPrivateUsage]
        new._successor_uses = ()  # pyright: ignore[reportPrivateUsage]
        new.regions = ()
        for _ in op.regions:
            new.add_region(Region())
        for old, result in zip(op.results, new.results, strict=True):
            values[old] = result
            result._name = valid_name(old._name)  # pyright: ignore[reportPrivateUsage]
    pairs.append((op, new))
    for region, into in zip(op.regions, new.regions, strict=True):
        made = [Block() for _ in region.blocks]
        for block, copy in zip(region.blocks, made, strict=True):
            blocks[block] = copy
        into.insert_block(made, len(into.blocks))
        for block, copy in zip(region.blocks, made, strict=True):
            for n, arg in enumerate(block.args):
                new_arg = copy.insert_arg(arg.type, n, arg.location)
                values[arg] = new_arg
                new_arg._name = valid_name(arg._name)  # pyright: ignore[reportPrivateUsage]
            last: Operation | None = None
            for inner in block.ops:
                made_op = _shell(inner, values, blocks, pairs)
                made_op.parent = copy
                made_op._prev_op = last  # pyright: ignore[reportPrivateUsage]
                if last is None:
                    copy._first_op = made_op  # pyright: ignore[reportPrivateUsage]
                else:
                    last._next_op = made_op  # pyright: ignore[reportPrivateUsage]
                last = made_op
            copy._last_op = last  # pyright: ignore[reportPrivateUsage]
    return new
