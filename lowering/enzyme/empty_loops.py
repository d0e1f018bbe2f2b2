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

A triangular nest's caches (a top-level buffer of handles and a buffer per outer
iteration) are left as they are: their sizes are what the nest analyses read
(`lowering.enzyme.nested_caches`) to pack them, and a negative one is still refused
by the executor, with its location and cause.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.enzyme.cache_accesses import NotACache
from lowering.enzyme.caches import classify_cache, reverse_sweep_start
from lowering.ir.loops import constant_value


def clamp_cache_sizes(function: func.FuncOp, pass_name: str) -> int:
    """Clamp at zero the dynamic sizes of `function`'s top-level caches; the
    number of distinct sizes clamped."""
    body = function.body.block
    rev_start = reverse_sweep_start(function, pass_name)
    caches = []
    for op in body.ops:
        if isinstance(op, memref.AllocOp):
            try:
                classify_cache(op, body, rev_start)
            except NotACache:
                continue
            caches.append(op)
    clamped: dict[SSAValue, SSAValue] = {}
    for cache in caches:
        for k, size in enumerate(cache.dynamic_sizes):
            if constant_value(size) is not None:
                continue
            if size not in clamped:
                clamped[size] = _clamp(size, cache)
            cache.operands[k] = clamped[size]
    return len(clamped)


def _clamp(size: SSAValue, first_use: Operation) -> SSAValue:
    """`max(size, 0)`, placed just before the first cache it sizes (the caches are
    visited in program order, so it dominates the others)."""
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    clamp = arith.MaxSIOp(size, zero.result)
    for op in (zero, clamp):
        op.location = first_use.location
    Rewriter.insert_op([zero, clamp], InsertPoint.before(first_use))
    return clamp.result
