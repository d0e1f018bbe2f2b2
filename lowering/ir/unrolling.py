"""
Unrolling one `scf.for` in place, shared by the passes that unroll: the primal's
loops before differentiation (`tapeflow-unroll-primal`, with the remainder of a
count that does not divide the trips in line) and the gradient's tape loops after
it (`tapeflow-unroll`, by a divisor of the trips).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.ir.bulk import clone_op
from lowering.ir.locations import located
from lowering.ir.walk import walk_ops


def divisor_factor(trips: int, requested: int) -> int:
    """The factor a loop of `trips` iterations is unrolled by when `requested` is
    asked for: the largest divisor of `trips` not above it (so no remainder loop;
    a request of `trips` or more unrolls it fully), 1 for a loop that never runs."""
    if trips <= 0:
        return 1
    return max(d for d in range(1, min(requested, trips) + 1) if trips % d == 0)


def peel_remainder(loop: scf.ForOp, lb: int, step: int, trips: int, rest: int) -> None:
    """
    Move the last `rest` of the `trips` iterations of `loop` (constant lower
    bound `lb` and step `step`) out of it, in place: its upper bound becomes
    `lb + (trips - rest) * step` and copies of its body follow it in line, copy `k`
    seeing the induction variable `lb + (trips - rest + k) * step` and the values
    the copy before it (the loop, for the first) carried; the loop's results are
    replaced by what the last copy yields. This is the remainder of an unroll
    count that does not divide a constant trip count: LLVM's `UnrollLoop` keeps
    the count and exits from the copy at `TripCount % Count` of the last trip,
    which runs the same iterations in the same order.
    """
    body = loop.body.block
    iv, *carried_args = body.args
    terminator = body.last_op
    assert isinstance(terminator, scf.YieldOp)
    originals = [op for op in body.ops if op is not terminator]
    uses = [list(result.uses) for result in loop.results]
    after = InsertPoint.after(loop)
    carried: list[SSAValue] = list(loop.results)
    for k in range(rest):
        at = index_constant(lb + (trips - rest + k) * step, iv.type, after)
        after = InsertPoint.after(at.owner)  # type: ignore[arg-type]
        mapper: dict[SSAValue, SSAValue] = {iv: at}
        mapper.update(zip(carried_args, carried, strict=True))
        for original in originals:
            clone = clone_op(original, mapper)  # `original.clone(value_mapper=mapper)`
            Rewriter.insert_op(clone, after)
            after = InsertPoint.after(clone)
        carried = [mapper.get(v, v) for v in terminator.arguments]
    for result_uses, value in zip(uses, carried, strict=True):
        for use in result_uses:
            use.operation.operands[use.index] = value
    loop.operands[1] = index_constant(
        lb + (trips - rest) * step, loop.ub.type, InsertPoint.before(loop)
    )


def index_constant(value: int, type_: Attribute, at: InsertPoint) -> SSAValue:
    """An `arith.constant` of `value` and `type_` inserted at `at`."""
    op = arith.ConstantOp(IntegerAttr(value, type_))
    op.result.name_hint = f"c{value}" if value >= 0 else f"c_{-value}"
    Rewriter.insert_op(op, at)
    return op.result


def unroll_loop(
    loop: scf.ForOp, factor: int, step: int, tracked: Callable[[Operation], bool]
) -> dict[Operation, list[Operation]]:
    """
    Unroll `loop`, whose constant step is `step` and whose trip count `factor`
    divides, in place: its body becomes `factor` copies, copy `k` seeing the
    induction variable plus `k * step` (copy 0 the variable itself), the
    iter_args flowing from copy to copy, and the step becomes `factor * step`.
    Returns, for each op of the body (nested ops included) that `tracked`
    selects, its copies in order.
    """
    body = loop.body.block
    iv, *carried_args = body.args
    terminator = body.last_op
    assert isinstance(terminator, scf.YieldOp)
    originals = [op for op in body.ops if op is not terminator]
    copies: dict[Operation, list[Operation]] = {
        op: [op] for original in originals for op in walk_ops(original) if tracked(op)
    }
    before_loop = InsertPoint.before(loop)
    carried = list(terminator.arguments)
    for k in range(1, factor):
        offset = index_constant(k * step, iv.type, before_loop)
        shifted = arith.AddiOp(iv, offset)
        shifted.result.name_hint = iv.name_hint
        Rewriter.insert_op(located(shifted, loop), InsertPoint.before(terminator))
        mapper: dict[SSAValue, SSAValue] = {iv: shifted.result}
        mapper.update(zip(carried_args, carried, strict=True))
        for original in originals:
            clone = clone_op(original, mapper)  # `original.clone(value_mapper=mapper)`
            Rewriter.insert_op(clone, InsertPoint.before(terminator))
            for old, new in zip(walk_ops(original), walk_ops(clone), strict=True):
                if old in copies:
                    copies[old].append(new)
        carried = [mapper.get(v, v) for v in terminator.arguments]
    Rewriter.replace_op(terminator, located(scf.YieldOp(*carried), terminator))
    loop.operands[2] = index_constant(step * factor, loop.step.type, before_loop)
    return copies


__all__ = ["divisor_factor", "index_constant", "peel_remainder", "unroll_loop"]
