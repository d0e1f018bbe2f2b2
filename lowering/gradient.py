"""
What every TapeFlow pass needs to know about an Enzyme gradient function: which
functions are gradients, where an op sits in the function's top-level sequence,
how to give the ops a pass creates the location of the op they replace, and
constant-folding index arithmetic for the address computations passes insert.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects import arith, builtin, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from tapeflow_dialects.enzyme import GRADIENT_OF

OpT = TypeVar("OpT", bound=Operation)


def gradient_functions(module: builtin.ModuleOp) -> list[func.FuncOp]:
    """The functions `tapeflow-enzyme` generated, in module order."""
    return [
        f
        for f in module.body.block.ops
        if isinstance(f, func.FuncOp) and GRADIENT_OF in f.attributes
    ]


def require_gradients(module: builtin.ModuleOp, pass_name: str) -> list[func.FuncOp]:
    """The gradient functions, or a clear error if Enzyme has not run."""
    gradients = gradient_functions(module)
    if not gradients:
        raise PassFailedException(
            f"{pass_name}: the module has no gradient function (no func.func "
            f"carries '{GRADIENT_OF}'); differentiate it first with tapeflow-enzyme"
        )
    return gradients


def top_level_op(op: Operation, body: Block) -> Operation:
    """The op of `body` that contains `op` (or `op` itself)."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not body:
        current = current.parent_op()
    assert current is not None, "op outside the block"
    return current


def enclosing_loops(op: Operation, stop: Operation) -> tuple[scf.ForOp, ...]:
    """The `scf.for` ops around `op`, outermost first, up to (not including) `stop`."""
    loops: list[scf.ForOp] = []
    current = op.parent_op()
    while current is not None and current is not stop:
        if isinstance(current, scf.ForOp):
            loops.append(current)
        current = current.parent_op()
    return tuple(reversed(loops))


def located(new: OpT, old: Operation) -> OpT:
    """`new`, placed where the op it replaces was written."""
    new.location = old.location
    return new


def constant_value(value: SSAValue) -> int | None:
    """The value of an `arith.constant` integer, else None."""
    if isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp):
        attr = value.op.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def trip_count(loop: scf.ForOp) -> int | None:
    """Iterations of a loop with constant bounds and step, else None."""
    lb, ub, step = constant_value(loop.lb), constant_value(loop.ub), constant_value(loop.step)
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


Index = SSAValue | int
"""An index value: an SSA value, or a constant not yet materialized."""


class IndexBuilder:
    """
    Builds index arithmetic before an insertion point, folding constants: operands
    may be Python ints, and a constant becomes an `arith.constant` only when an op
    needs it (`value`).
    """

    def __init__(self, at: InsertPoint):
        self.at = at

    def _emit(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, self.at)
        return op.results[0]

    @staticmethod
    def _known(x: Index) -> int | None:
        return x if isinstance(x, int) else constant_value(x)

    def value(self, x: Index) -> SSAValue:
        """`x` as an SSA value."""
        if isinstance(x, int):
            return self._emit(arith.ConstantOp(IntegerAttr(x, IndexType())))
        return x

    def const(self, value: int) -> SSAValue:
        return self.value(value)

    def _binary(self, a: Index, b: Index, fold, make) -> Index:  # type: ignore[no-untyped-def]
        x, y = self._known(a), self._known(b)
        if x is not None and y is not None:
            return fold(x, y)
        return self._emit(make(self.value(a), self.value(b)))

    def add(self, a: Index, b: Index) -> Index:
        if self._known(b) == 0:
            return a
        if self._known(a) == 0:
            return b
        return self._binary(a, b, lambda x, y: x + y, arith.AddiOp)

    def sub(self, a: Index, b: Index) -> Index:
        if self._known(b) == 0:
            return a
        return self._binary(a, b, lambda x, y: x - y, arith.SubiOp)

    def mul(self, a: Index, b: Index) -> Index:
        if self._known(b) == 1:
            return a
        if self._known(a) == 1:
            return b
        if self._known(a) == 0 or self._known(b) == 0:
            return 0
        return self._binary(a, b, lambda x, y: x * y, arith.MuliOp)

    def div(self, a: Index, b: Index) -> Index:
        if self._known(b) == 1:
            return a
        return self._binary(a, b, lambda x, y: x // y, arith.DivSIOp)

    def ceildiv(self, a: Index, b: Index) -> Index:
        if self._known(b) == 1:
            return a
        return self._binary(a, b, lambda x, y: -(-x // y), arith.CeilDivSIOp)

    def min(self, a: Index, b: Index) -> Index:
        return self._binary(a, b, min, arith.MinSIOp)

    def max(self, a: Index, b: Index) -> Index:
        return self._binary(a, b, max, arith.MaxSIOp)
