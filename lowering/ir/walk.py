"""
`walk_ops(node)`: the ops of an op, region or block in the order of xDSL's
`node.walk()` (an op, then the ops of its regions, block by block, each block's
ops in turn), found with fewer generator frames.

xDSL's walk nests one generator per op, region and block (`Operation.walk` ->
`Region.walk` -> `Block.walk` -> `Operation.walk`), so each op it yields passes
through two frames per level of nesting and an op without regions costs a
generator of its own. Here one frame walks a block's ops by their `next_op`
links, and only an op with regions opens a frame for them. What xDSL reads when
is kept: an op's successor is read before the op is yielded (an op erased when
met does not end the walk), its regions after (regions the caller gives it when
met are walked), a block's first op when the walk reaches the block.
`test_walk_ops.py` checks the order against `walk()` on real kernels' modules,
random nests and walks that erase or add ops as they go.

`frozen_walks(root)`: while IR that nothing changes is read many times over (the
layering's cost model walks a function and its layered copy once per nest and
per term), its ops are listed once in walk order, and the walk of any op, block
or region inside `root` is the slice of that list it spans (every op's nested
ops follow it contiguously in a pre-order walk).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.ir import Block, Operation, Region

_frozen: dict[int, tuple[list[Operation], int, int]] = {}
"""`id` of an op, block or region inside a root of `frozen_walks` -> the root's
ops in walk order and the span of the node's walk in it."""


@contextmanager
def frozen_walks(*roots: Operation) -> Iterator[None]:
    """While open, `walk_ops` of an op, block or region inside `roots` reads a
    list of their ops made on entry: the IR under `roots` must not change until
    it closes (no op added, erased or moved). A root some enclosing
    `frozen_walks` holds already is read from that one's list."""
    added: list[int] = []
    for root in roots:
        if id(root) in _frozen:
            continue
        ops: list[Operation] = []
        _index(root, ops, added)
    try:
        yield
    finally:
        for key in added:
            del _frozen[key]


def _index(op: Operation, ops: list[Operation], added: list[int]) -> None:
    """List `op` and the ops nested in it in walk order, noting each node's span
    (a node some open `frozen_walks` holds already keeps its own)."""
    start = len(ops)
    ops.append(op)
    for region in op.regions:
        region_start = len(ops)
        for block in region.blocks:
            block_start = len(ops)
            inner = block.first_op
            while inner is not None:
                _index(inner, ops, added)
                inner = inner.next_op
            _note(block, ops, block_start, added)
        _note(region, ops, region_start, added)
    _note(op, ops, start, added)


def _note(node: Operation | Region | Block, ops: list[Operation], start: int, added: list[int]):
    key = id(node)
    if key not in _frozen:
        _frozen[key] = (ops, start, len(ops))
        added.append(key)


def walk_ops(node: Operation | Region | Block) -> Iterator[Operation]:
    """`walk_ops(node)`: an op and every op nested in it, or the ops of a region or
    block, in xDSL's order."""
    if _frozen:
        span = _frozen.get(id(node))
        if span is not None:
            ops, start, end = span
            return iter(ops[start:end])
    if isinstance(node, Operation):
        return _op(node)
    if isinstance(node, Region):
        return _region(node)
    return _block(node)


def _op(op: Operation) -> Iterator[Operation]:
    yield op
    for region in op.regions:
        yield from _region(region)


def _region(region: Region) -> Iterator[Operation]:
    for block in region.blocks:
        yield from _block(block)


def _block(block: Block) -> Iterator[Operation]:
    op = block.first_op
    while op is not None:
        following = op.next_op
        yield op
        if op.regions:
            for region in op.regions:
                for inner in region.blocks:
                    yield from _block(inner)
        op = following
