"""
`IndexBuilder.span`: a strip-mined tile's trip count, the difference of bounds built
one from the other, without a subtraction; any other difference, with one. The
values are checked by evaluating the emitted ops on sample bounds.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, SSAValue
from xdsl.rewriter import InsertPoint

from lowering.ir.index_builder import IndexBuilder

OPS = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MinSIOp: min,
    arith.MuliOp: lambda a, b: a * b,
}


def _value(v: SSAValue | int, args: dict[SSAValue, int]) -> int:
    """`v` evaluated with the block arguments `args` (the ops above only)."""
    if isinstance(v, int):
        return v
    if v in args:
        return args[v]
    op = v.owner
    if isinstance(op, arith.ConstantOp):
        return op.value.value.data  # type: ignore[union-attr]
    return OPS[type(op)](*(_value(o, args) for o in op.operands))


def _builder() -> tuple[IndexBuilder, Block]:
    block = Block(arg_types=[IndexType(), IndexType()])
    return IndexBuilder(InsertPoint.at_end(block)), block


@pytest.mark.parametrize("t, trip", [(0, 10), (1, 10), (3, 10), (2, 9)])
def test_fwd_tile_count_is_the_min(t: int, trip: int) -> None:
    """FWD tile [lo, lo + min(T, trip - lo)): the count is the min, no op added."""
    index, block = _builder()
    tile, n = block.args
    lo = index.value(index.mul(tile, 3))
    count = index.min(3, index.sub(n, lo))
    hi = index.value(index.add(lo, count))
    before = len(block.ops)
    span = index.span(lo, hi)
    assert span is count and len(block.ops) == before
    args = {tile: t, n: trip}
    assert _value(span, args) == _value(hi, args) - _value(lo, args) == min(3, trip - 3 * t)


@pytest.mark.parametrize("end", [1, 2, 3, 7])
def test_rev_tile_count_is_the_min(end: int) -> None:
    """REV tile [hi - min(hi, T), hi): the count is min(hi, T), no op added."""
    index, block = _builder()
    hi = block.args[0]
    count = index.min(hi, 3)
    lo = index.value(index.sub(hi, count))
    before = len(block.ops)
    span = index.span(lo, hi)
    assert span is count and len(block.ops) == before
    assert _value(span, {hi: end}) == end - _value(lo, {hi: end}) == min(end, 3)


def test_other_differences_subtract() -> None:
    index, block = _builder()
    a, b = block.args
    span = index.span(a, b)
    assert isinstance(span, SSAValue) and isinstance(span.owner, arith.SubiOp)
    assert _value(span, {a: 4, b: 11}) == 7
    assert index.span(a, a) == 0
    assert index.span(5, 12) == 7
