"""
Where an op sits in a gradient function: the top-level op that holds it, the
`scf.for` nest around it, and the constant bounds of those loops. The passes that
group, cut and index the tape by loop nest share these.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Block, Operation, OpResult, SSAValue


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


def constant_value(value: SSAValue) -> int | None:
    """The value of an `arith.constant` integer, else None."""
    if isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp):
        attr = value.op.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def loop_type(loop: scf.ForOp) -> IntegerType | IndexType:
    """The type an `scf.for` counts in (its bounds', step's and induction
    variable's): `index`, or a signless integer such as `i32`."""
    iv_type = loop.body.block.args[0].type
    assert isinstance(iv_type, IntegerType | IndexType)
    return iv_type


def trip_count(loop: scf.ForOp) -> int | None:
    """Iterations of a loop with constant bounds and step, else None."""
    lb, ub, step = constant_value(loop.lb), constant_value(loop.ub), constant_value(loop.step)
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))
