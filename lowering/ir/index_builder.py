"""
Index arithmetic for the address computations passes insert (tile rows, strip-mined
bounds, stream row counts), folding constants as it goes so that a constant index
costs no op. Folding computes what the op computes, with the same semantics table
the executor runs (`tapeflow_dialects.semantics`); where MLIR leaves the result
undefined (a division by zero), the op is emitted instead of folded.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, LocationAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.ir.loops import constant_value
from tapeflow_dialects.semantics import INDEX_WIDTH, fold_int, int_width

Index = SSAValue | int
"""An index value: an SSA value, or a constant not yet materialized."""


class ViewGeometry(Protocol):
    """Where a view (a subview, a tensor slice) sits in what it views: per
    dimension of the viewed value an offset and a stride; `kept` the dimensions the
    view keeps (the others are dropped by a rank reduction)."""

    offsets: Sequence[Index]
    strides: Sequence[int]
    kept: Collection[int]


def compose_view_indices(
    indices: Sequence[SSAValue], views: Sequence[ViewGeometry], at: InsertPoint
) -> list[SSAValue]:
    """`indices` into the innermost of `views` (outermost first) as indices into
    the value the outermost one views: per view, a dropped dimension takes its
    offset, a kept one `offset + index * stride`; the ops go before `at`."""

    def constant(value: int) -> SSAValue:
        op = arith.ConstantOp(IntegerAttr(value, IndexType()))
        Rewriter.insert_op(op, at)
        return op.result

    current = list(indices)
    for view in reversed(views):
        inner = iter(current)
        outer: list[SSAValue] = []
        for dim, (offset, stride) in enumerate(zip(view.offsets, view.strides, strict=False)):
            if dim not in view.kept:
                outer.append(offset if isinstance(offset, SSAValue) else constant(offset))
                continue
            index = next(inner)
            if stride != 1:
                mul = arith.MuliOp(index, constant(stride))
                Rewriter.insert_op(mul, at)
                index = mul.result
            if isinstance(offset, SSAValue) or offset != 0:
                add = arith.AddiOp(
                    offset if isinstance(offset, SSAValue) else constant(offset), index
                )
                Rewriter.insert_op(add, at)
                index = add.result
            outer.append(index)
        current = outer
    return current


class IndexBuilder:
    """
    Builds index arithmetic before an insertion point, folding constants: operands
    may be Python ints, and a constant becomes an `arith.constant` only when an op
    needs it (`value`). The arithmetic is in `int_type`: `index` by default, a loop's
    own type (`i32` for an `scf.for` over `i32` bounds) where it computes that loop's
    bounds, since an `scf.for`'s bounds, step and induction variable share one type.
    """

    def __init__(
        self,
        at: InsertPoint,
        int_type: IntegerType | IndexType | None = None,
        location: LocationAttr | None = None,
    ):
        self.at = at
        self.int_type: IntegerType | IndexType = int_type if int_type is not None else IndexType()
        self.location = location
        """Given to every op emitted (a rewrite's ops at the loop they replace)."""

    def _emit(self, op: Operation) -> SSAValue:
        if self.location is not None:
            op.location = self.location
        Rewriter.insert_op(op, self.at)
        return op.results[0]

    @staticmethod
    def _known(x: Index) -> int | None:
        return x if isinstance(x, int) else constant_value(x)

    def value(self, x: Index) -> SSAValue:
        """`x` as an SSA value."""
        if isinstance(x, int):
            return self._emit(arith.ConstantOp(IntegerAttr(x, self.int_type)))
        return x

    def cast(self, x: Index, to: IntegerType | IndexType) -> Index:
        """`x` as a `to`, by `arith.index_cast` where its type differs (an index is
        never cast to index; an `i32` or `i64` is, to index)."""
        if isinstance(x, int) or x.type == to:
            return x
        return self._emit(arith.IndexCastOp(x, to))

    def const(self, value: int) -> SSAValue:
        return self.value(value)

    def _binary(self, a: Index, b: Index, make: type[Operation]) -> Index:
        x, y = self._known(a), self._known(b)
        if x is not None and y is not None:
            folded = fold_int(make.name, x, y, self.int_type)
            if folded is not None:
                return int(folded)
        return self._emit(make(self.value(a), self.value(b)))  # type: ignore[call-arg]

    def add(self, a: Index, b: Index) -> Index:
        if self._known(b) == 0:
            return a
        if self._known(a) == 0:
            return b
        return self._binary(a, b, arith.AddiOp)

    def sub(self, a: Index, b: Index) -> Index:
        if self._known(b) == 0:
            return a
        return self._binary(a, b, arith.SubiOp)

    def span(self, lo: Index, hi: Index) -> Index:
        """`hi - lo`, without an op where the bounds were built one from the other
        (`_cancelled`): a strip-mined tile's trip count, its bounds' difference."""
        cancelled = _cancelled(hi, lo)
        return cancelled if cancelled is not None else self.sub(hi, lo)

    def mul(self, a: Index, b: Index) -> Index:
        if self._known(b) == 1:
            return a
        if self._known(a) == 1:
            return b
        if self._known(a) == 0 or self._known(b) == 0:
            return 0
        return self._binary(a, b, arith.MuliOp)

    def div(self, a: Index, b: Index) -> Index:
        if self._known(b) == 1:
            return a
        return self._binary(a, b, arith.DivSIOp)

    def rem(self, a: Index, b: Index) -> Index:
        if self._known(b) == 1:
            return 0
        return self._binary(a, b, arith.RemSIOp)

    def ceildiv(self, a: Index, b: Index) -> Index:
        if self._known(b) == 1:
            return a
        return self._binary(a, b, arith.CeilDivSIOp)

    def trips(self, lb: Index, ub: Index, step: Index, unsigned: bool = False) -> Index:
        """How many of `lb, lb + s, ...` are below `ub` (`s > 0`, as `scf.for`
        requires): `lb < ub ? ceildivui(ub - lb, s) : 0`. The difference is taken
        unsigned: where `lb < ub` (signed, as `scf.for` compares) it is below 2^w,
        so it is exact even where the signed subtraction overflows, and `ceildivui`
        (`(d - 1) / s + 1` for `d > 0`) does not round through `d + s - 1`. Where
        the values and the first one past `ub` are all representable, the count
        is below 2^(w-1). Constants fold to the count, computed exactly. With
        `unsigned`, `lb < ub` compares the values unsigned (C's `unsigned` and
        `size_t` counters), and the count is exact the same way."""
        a, b, s = self._known(lb), self._known(ub), self._known(step)
        width = int_width(self.int_type) or INDEX_WIDTH
        if a is not None and b is not None and s is not None and s > 0:
            if unsigned:
                a, b = a % 2**width, b % 2**width
            count = max(0, -(-(b - a) // s))
            if count < 2 ** (width - 1):
                return count
        difference = self._emit(arith.SubiOp(self.value(ub), self.value(lb)))
        count = self._emit(arith.CeilDivUIOp(difference, self.value(step)))
        below = "ult" if unsigned else "slt"
        runs = self._emit(arith.CmpiOp(self.value(lb), self.value(ub), below))
        return self._emit(arith.SelectOp(runs, count, self.value(0)))

    def min(self, a: Index, b: Index) -> Index:
        return self._binary(a, b, arith.MinSIOp)

    def max(self, a: Index, b: Index) -> Index:
        return self._binary(a, b, arith.MaxSIOp)


def _cancelled(a: Index, b: Index) -> Index | None:
    """`a - b` without an op where the operands cancel, exactly as the wrapping
    integers do: `x - x = 0`, `(x + y) - x = y`, `x - (x - y) = y`. A strip-mined
    loop's row count is the difference of its bounds, built as one bound plus or
    minus the count (`lowering.layers.tiles.strip_mine`)."""
    if isinstance(a, int) or isinstance(b, int):
        return None
    if a is b:
        return 0
    if isinstance(a.owner, arith.AddiOp):
        lhs, rhs = a.owner.lhs, a.owner.rhs
        if lhs is b:
            return rhs
        if rhs is b:
            return lhs
    if isinstance(b.owner, arith.SubiOp) and b.owner.lhs is a:
        return b.owner.rhs
    return None
