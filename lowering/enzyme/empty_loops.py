"""
Enzyme's caches of loops that may run no iteration: sizes clamped at zero.

Enzyme-MLIR 0.0.16 sizes the cache of a loop `scf.for %i = %lb to %ub` by its
trip count as `%ub - %lb`, allocated before the loop runs. Where the upper bound is
below the lower bound on some input (`for i = lo to hi` called with `lo > hi`, a
legal `scf.for` that runs no iteration) that count is negative, and the gradient's
`memref.alloc` of a negative extent is undefined behaviour in MLIR (our executor
refuses it, a compiled gradient would ask `malloc` for a huge buffer). The
function is still defined there: its loop is empty, so its gradient flows past the
loop untouched.

`clamp_cache_sizes` gives each top-level cache of a gradient function the size
`max(size, 0)` (`arith.maxsi`, the comparison `scf.for` makes), one clamp per
distinct size value so that the caches of one loop keep sharing their size
operand. Nothing else reads the clamped value: the loops, and the index arithmetic
Enzyme derives from the count for the reverse sweep, keep the count as it was, and
an empty loop never runs the stores and loads that would read it. A count that is
already a constant needs no clamp (Enzyme's static caches have none).

A triangular or ragged nest (`for i < n: for j = f(i) to g(i)`) has its caches
kept per outer iteration (`lowering.enzyme.nested_caches`): a top-level buffer of
handles sized by the outer loop's count, and a buffer allocated in each outer
iteration, sized by the inner loop's count there -- negative on the outer
iterations where `g(i) < f(i)` (a banded solver whose band is clipped at the
matrix edge, `for j = i + 4 to 12` past `i = 8`). Those sizes are clamped the
same way, one clamp per distinct size and block (before the first buffer of the
block it sizes, so that it dominates the others and the buffers of one inner
loop keep sharing their extent), except a per-iteration size that the loops
around it prove at least zero on every iteration that runs (`_nonnegative`:
PolyBench's triangles, whose gradients stay Enzyme's). The nest analyses that
pack the per-iteration buffers into one tape read the clamps that are left:
`lowering.enzyme.ragged_extents` sees through `max(e, 0)` where it proves `e >= 0`
over the tape's indices, counts only the outer iterations that have entries where
`e` falls with the outer index, and keeps the tape a bounding box, with the
reason, anywhere else.

Only Enzyme's caches are clamped (a buffer `classify_cache` or
`classify_nested_cache` accepts): a negative size of a buffer the user's own code
allocates is the user's error, which the executor reports as such.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.enzyme.cache_accesses import NotACache
from lowering.enzyme.caches import classify_cache, reverse_sweep_start
from lowering.enzyme.nested_caches import NotANestedCache, classify_nested_cache
from lowering.ir.index_offsets import LinearForms
from lowering.ir.loops import constant_value
from lowering.ir.walk import walk_ops


def clamp_cache_sizes(function: func.FuncOp, pass_name: str) -> int:
    """Clamp at zero the dynamic sizes of `function`'s caches: top-level ones, and
    every buffer of a nest's chain of per-iteration caches; the number of clamps."""
    body = function.body.block
    rev_start = reverse_sweep_start(function, pass_name)
    caches: list[memref.AllocOp] = []
    per_iteration: list[memref.AllocOp] = []
    for op in body.ops:
        if not isinstance(op, memref.AllocOp):
            continue
        try:
            classify_cache(op, body, rev_start)
        except NotACache:
            try:
                nested = classify_nested_cache(op, body, rev_start)
            except NotANestedCache:
                continue
            caches.append(op)
            per_iteration += [link.alloc for link in nested.chain]
            continue
        caches.append(op)
    forms = LinearForms()
    proven = {
        (alloc, k)
        for alloc in per_iteration
        for k, size in enumerate(alloc.dynamic_sizes)
        if _nonnegative_where_run(size, alloc, body, forms)
    }
    clamped: dict[tuple[SSAValue, Block | None], SSAValue] = {}
    for cache in _in_program_order(caches + per_iteration, body):
        for k, size in enumerate(cache.dynamic_sizes):
            if constant_value(size) is not None or is_clamp(size) or (cache, k) in proven:
                continue
            key = (size, cache.parent_block())
            if key not in clamped:
                clamped[key] = _clamp(size, cache)
            cache.operands[k] = clamped[key]
    return len(clamped)


def _nonnegative_where_run(
    size: SSAValue, alloc: memref.AllocOp, body: Block, forms: LinearForms
) -> bool:
    """`size` is at least zero on every iteration of the loops around `alloc` that
    runs: read as a linear form, each induction variable, innermost first, is
    replaced by the bound of its loop that makes the form smallest (the lower
    bound, or the upper bound less one: the loops count by 1, as
    `tapeflow-unit-steps` leaves them), down to a constant (lu's `for k < j`
    inside `for j < i`: `j` at least 0; syrk's `for j = i + 1 to n` inside
    `for i < n`: `n - i - 1` at least `n - (n - 1) - 1 = 0`)."""
    loops: list[scf.ForOp] = []
    op: Operation = alloc
    while op.parent_block() is not body:
        parent = op.parent_op()
        if not isinstance(parent, scf.ForOp):
            return False  # inside a branch: bounds of no loop
        loops.append(parent)
        op = parent
    return _nonnegative(size, loops, forms)


def _nonnegative(size: SSAValue, loops: list[scf.ForOp], forms: LinearForms) -> bool:
    """`size` at least zero over the iterations of `loops` (innermost first) that
    run: a `min` of operands that are, a `max` of one that is (a tile's count,
    `min(17 - i, 4)`), or a linear form whose smallest value is."""
    if isinstance(size, OpResult) and isinstance(size.op, arith.MinSIOp | arith.MaxSIOp):
        proven = (_nonnegative(o, loops, forms) for o in size.op.operands)
        return all(proven) if isinstance(size.op, arith.MinSIOp) else any(proven)
    terms, constant = forms.form(size)
    form = dict(terms)
    for loop in loops:  # innermost first
        if constant_value(loop.step) != 1:
            return False
        coefficient = form.pop(loop.body.block.args[0], 0)
        if coefficient == 0:
            continue
        bound_terms, bound = forms.form(loop.lb if coefficient > 0 else loop.ub)
        constant += coefficient * (bound if coefficient > 0 else bound - 1)
        for value, c in bound_terms:
            form[value] = form.get(value, 0) + coefficient * c
    return constant >= 0 and not any(form.values())


def is_clamp(value: SSAValue) -> bool:
    """`value` is `max(e, 0)` (`arith.maxsi` with a constant zero)."""
    return clamped_operand(value) is not None


def clamped_operand(value: SSAValue) -> SSAValue | None:
    """`e` if `value` is `max(e, 0)` (`arith.maxsi` with a constant zero, on
    either side), else None."""
    if not isinstance(value, OpResult) or not isinstance(value.op, arith.MaxSIOp):
        return None
    lhs, rhs = value.op.lhs, value.op.rhs
    if constant_value(rhs) == 0:
        return lhs
    if constant_value(lhs) == 0:
        return rhs
    return None


def _in_program_order(allocs: list[memref.AllocOp], body: Block) -> list[memref.AllocOp]:
    """`allocs` in the order a walk of `body` meets them (each once)."""
    wanted = set(allocs)
    return [op for op in walk_ops(body) if op in wanted]


def _clamp(size: SSAValue, first_use: Operation) -> SSAValue:
    """`max(size, 0)`, placed just before the first cache it sizes (the caches are
    visited in program order, so it dominates the others)."""
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    clamp = arith.MaxSIOp(size, zero.result)
    for op in (zero, clamp):
        op.location = first_use.location
    Rewriter.insert_op([zero, clamp], InsertPoint.before(first_use))
    return clamp.result
