"""
`tapeflow-unit-steps`: every loop with a step other than 1 becomes a loop of step 1
over its trip count, its induction variable recomputed as `lb + k * s`.

Why: Enzyme-MLIR 0.0.16 (enzyme-ad) differentiates `scf.for %i = %lb to %ub step
%s` as if `s` were 1 (its reverse sweep visits the iterations of a step-1 loop and
its caches get too few entries), so the gradient is wrong for every step other
than 1 (docs/enzyme-bugs.md has the reproducer). Its rules for a loop of step 1
are right. `tapeflow-enzyme` runs this rewrite on the module it hands Enzyme; it
is a pass of its own so that its output can be read and tested.

The rewrite changes no function's value on any input where the loop is defined:

* `scf.for`: `trips = lb < ub ? ceildivui(ub - lb, s) : 0` and `scf.for %k = 0 to
  trips step 1` carrying the same values, `%i = lb + k * s` at the start of the
  body: exact wherever the original loop ends without its induction variable
  wrapping; an empty loop stays empty. Constant bounds give a constant count
  (Enzyme's caches keep a static size).
* `affine.for`: with one lower bound `L`, `affine.for %k = 0 to min_j ((U_j - L)
  ceildiv s)` and `%i = affine.apply (L + k * s)`. A lower bound that is the max of
  several expressions is refused by name (`strided_loops_left`), rather than
  handed to Enzyme to get a wrong gradient.

A loop whose bounds are not constants but differ by a constant (`%lo to %lo +
4`) is rewritten too, step 1 included, with that constant count (counted in `i32`,
where `%lo + 4` wraps below `%lo` near 2**31 and the loop is then empty, the
rewritten loop sits under `scf.if %lo < %lo + 4`): Enzyme-MLIR gives a
loop whose bounds vary with an enclosing loop one cache per enclosing iteration
(and casts each to a dynamic shape where it folds the size to a constant); with a
constant count the loop's cache is one static buffer for the nest.

Nested loops are rewritten independently. Why the count and the induction
variable are exact: docs/research/loop-rewrites.md, "Unit steps".
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, scf
from xdsl.dialects.builtin import AffineMapAttr, IntegerType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.ir.index_builder import IndexBuilder
from lowering.ir.index_offsets import LinearForms
from lowering.ir.locations import where
from lowering.ir.loops import constant_value, loop_type
from lowering.ir.walk import walk_ops

PASS = "tapeflow-unit-steps"


class _Builder:
    """Emits ops before an insertion point, each at the loop's location."""

    def __init__(self, at: InsertPoint, loop: Operation):
        self.at = at
        self.loop = loop

    def emit(self, op: Operation) -> SSAValue:
        op.location = self.loop.location
        Rewriter.insert_op(op, self.at)
        self.at = InsertPoint.after(op)
        return op.results[0]


def _strided(step: SSAValue) -> bool:
    """A step other than 1; a constant one that is not positive (not a valid
    `scf.for`) is left to the verifiers."""
    known = constant_value(step)
    return known is None or known > 1


@dataclass(frozen=True)
class Span:
    """The constant trip count of a loop whose bounds differ by a constant."""

    trips: int
    guarded: bool
    """Whether the bounds are counted in an integer narrower than 64 bits, where
    `ub` is `lb` plus the constant, or that less 2**bits when the sum wrapped
    (the loop is then empty): the rewritten loop runs where `lb < ub` only."""


def _span_trips(loop: scf.ForOp) -> Span | None:
    """The trip count of an `scf.for` with a positive constant step whose bounds
    are not both constants but differ by a constant (`%lo to %lo + 4`, `%g * 4 to
    %g * 4 + 4`: both bounds linear forms of the same values,
    `lowering.ir.index_offsets`, in the loop's own arithmetic, modulo 2**bits for
    an integer narrower than 64 bits), else None."""
    step = constant_value(loop.step)
    if step is None or step <= 0:
        return None
    if constant_value(loop.lb) is not None and constant_value(loop.ub) is not None:
        return None
    kind = loop_type(loop)
    bits = kind.width.data if isinstance(kind, IntegerType) else 64
    forms = LinearForms(bits)
    (low, low_constant), (high, high_constant) = forms.form(loop.lb), forms.form(loop.ub)
    span = high_constant - low_constant
    if bits >= 64:
        if dict(low) != dict(high):
            return None
        return Span(max(0, -(-span // step)), guarded=False)
    # The forms hold modulo 2**bits: coefficients and the difference are read
    # there (a sum that wrapped on the way, `lo + 127 + 127 - 250 : i8`, is lo + 4).
    modulus, half = 1 << bits, 1 << (bits - 1)
    if _residues(low, modulus) != _residues(high, modulus):
        return None
    span = (span + half) % modulus - half
    # `ub` is `lb + span` or, where that sum wrapped, below `lb`.
    if span <= 0:
        return None
    return Span(-(-span // step), guarded=True)


def _residues(terms: tuple[tuple[SSAValue, int], ...], modulus: int) -> dict[SSAValue, int]:
    """A form's coefficients modulo `modulus`, those that vanish there dropped."""
    return {value: c % modulus for value, c in terms if c % modulus}


def _guard(loop: scf.ForOp) -> None:
    """Put `loop` under `scf.if lb < ub` (signed, as `scf.for` compares), yielding
    its results, or its initial values where it does not run."""
    ok = arith.CmpiOp(loop.lb, loop.ub, "slt")
    ok.location = loop.location
    Rewriter.insert_op(ok, InsertPoint.before(loop))
    branch = scf.IfOp(ok, [r.type for r in loop.results], Region(Block()), Region(Block()))
    branch.location = loop.location
    Rewriter.insert_op(branch, InsertPoint.before(loop))
    for result, chosen in zip(loop.results, branch.results, strict=True):
        result.replace_all_uses_with(chosen)
    skipped = scf.YieldOp(*loop.iter_args)
    loop.detach()
    ran = branch.true_region.block
    ran.add_op(loop)
    ran.add_op(scf.YieldOp(*loop.results))
    branch.false_region.block.add_op(skipped)
    for op in (*ran.ops, skipped):
        if op is not loop:
            op.location = loop.location


def _unit_scf(loop: scf.ForOp, span: Span | None = None) -> None:
    """Rewrite `loop` in place: `0 to trips step 1`, the iv recomputed in the body
    (`trips` a constant where the bounds differ by one, `_span_trips`, the loop
    then under `lb < ub` where that constant holds only if the bounds' arithmetic
    did not wrap)."""
    if span is not None and span.guarded:
        _guard(loop)
    ints = IndexBuilder(InsertPoint.before(loop), loop_type(loop), loop.location)
    if span is None:
        trips = ints.value(ints.trips(loop.lb, loop.ub, loop.step))
    else:
        trips = ints.const(span.trips)
    zero, one = ints.const(0), ints.const(1)
    iv = loop.body.block.args[0]
    inside = _Builder(InsertPoint.at_start(loop.body.block), loop)
    if constant_value(loop.step) == 1:
        scaled = iv
        value = inside.emit(arith.AddiOp(loop.lb, iv))
    else:
        scaled = inside.emit(arith.MuliOp(iv, loop.step))
        value = inside.emit(arith.AddiOp(loop.lb, scaled))
    for use in list(iv.uses):
        if use.operation is not scaled.owner and use.operation is not value.owner:
            use.operation.operands[use.index] = value
    value.name_hint, iv.name_hint = iv.name_hint, None
    loop.operands[0], loop.operands[1], loop.operands[2] = zero, trips, one


def _unit_affine(loop: affine.ForOp) -> None:
    """Replace `loop` (one lower bound `L`) by `0 to min_j ((U_j - L) ceildiv s)`."""
    step = loop.step.value.data
    lower, upper = loop.lowerBoundMap.data, loop.upperBoundMap.data
    (low,) = lower.results
    nld, nls = lower.num_dims, lower.num_symbols
    nud, nus = upper.num_dims, upper.num_symbols
    # Operands of the new upper bound: L's dims, U's dims, L's symbols, U's symbols.
    shifted_low = low.replace_dims_and_symbols(
        [AffineExpr.dimension(d) for d in range(nld)],
        [AffineExpr.symbol(s) for s in range(nls)],
    )
    trips = [
        (
            up.replace_dims_and_symbols(
                [AffineExpr.dimension(nld + d) for d in range(nud)],
                [AffineExpr.symbol(nls + s) for s in range(nus)],
            )
            - shifted_low
        ).ceil_div(step)
        for up in upper.results
    ]
    low_dims = loop.lowerBoundOperands[:nld]
    low_syms = loop.lowerBoundOperands[nld:]
    up_dims = loop.upperBoundOperands[:nud]
    up_syms = loop.upperBoundOperands[nud:]
    body = loop.body.block
    iv = body.args[0]
    new = affine.ForOp.from_region(
        [],
        [*low_dims, *up_dims, *low_syms, *up_syms],
        list(loop.inits),
        list(loop.result_types),
        0,
        AffineMapAttr(AffineMap(nld + nud, nls + nus, tuple(trips))),
        Rewriter.move_region_contents_to_new_regions(loop.body),
        1,
    )
    new.location = loop.location
    # %i = L + k * s over (L's dims, k)[L's symbols]
    apply = affine.ApplyOp(
        [*low_dims, iv, *low_syms],
        AffineMapAttr(AffineMap(nld + 1, nls, (low + AffineExpr.dimension(nld) * step,))),
    )
    apply.location = loop.location
    Rewriter.insert_op(apply, InsertPoint.at_start(body))
    for use in list(iv.uses):
        if use.operation is not apply:
            use.operation.operands[use.index] = apply.result
    Rewriter.replace_op(loop, new)


def _strided_affine(op: Operation) -> bool:
    return isinstance(op, affine.ForOp) and op.step.value.data != 1


def _one_lower_bound(op: affine.ForOp) -> bool:
    return len(op.lowerBoundMap.data.results) == 1


def strided_loops_left(module: builtin.ModuleOp) -> list[affine.ForOp]:
    """The strided loops `unit_steps` cannot rewrite: an `affine.for` whose lower
    bound is the max of several expressions."""
    return [op for op in walk_ops(module) if _strided_affine(op) and not _one_lower_bound(op)]


def unit_steps(module: builtin.ModuleOp) -> int:
    """Give every `scf.for` and `affine.for` of `module` a step of 1 (see the
    module's doc), except `strided_loops_left`; returns how many were rewritten."""
    loops = [
        op
        for op in walk_ops(module)
        if (isinstance(op, scf.ForOp) and (_strided(op.step) or _span_trips(op) is not None))
        or (_strided_affine(op) and _one_lower_bound(op))
    ]
    for loop in loops:
        if isinstance(loop, scf.ForOp):
            _unit_scf(loop, _span_trips(loop))
        else:
            _unit_affine(loop)
    return len(loops)


@dataclass(frozen=True)
class TapeflowUnitStepsPass(ModulePass):
    """Give every strided loop step 1 (Enzyme-MLIR reverses a strided loop as if
    its step were 1)."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        unit_steps(op)
        for loop in strided_loops_left(op):
            print(
                f"{where(loop)}warning: {PASS}: 'affine.for' with step "
                f"{loop.step.value.data} left as it is: its lower bound is the max of "
                "several expressions",
                file=sys.stderr,
            )
