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
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Block, Operation, Region


def walk_ops(node: Operation | Region | Block) -> Iterator[Operation]:
    """`walk_ops(node)`: an op and every op nested in it, or the ops of a region or
    block, in xDSL's order."""
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
