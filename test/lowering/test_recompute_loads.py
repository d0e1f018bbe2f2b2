"""
`tapeflow-recompute-loads` on every benchmark kernel: the gradient it leaves
computes the same values, bit for bit, as Enzyme-MLIR's caches did (the same ops
on the same operands, only later), and equals the autograd reference of the numpy
primal; the tape only shrinks. The rule for which caches go is checked by hand in
test/filecheck/passes/tapeflow-recompute-loads/recompute.mlir.
"""

from __future__ import annotations

import contextlib
from functools import partial

import numpy as np
import pytest
from xdsl.dialects import memref

from lowering.enzyme.cache_accesses import NotACache
from lowering.enzyme.caches import cache_buffers, classify_cache, reverse_sweep_start
from lowering.enzyme.nested_caches import NotANestedCache, classify_nested_cache
from lowering.ir.gradients import gradient_functions
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_recompute_loads import (
    PASS,
    TapeflowRecomputeLoadsPass,
    _NotRecomputable,
    _recompute,
    _recompute_nested,
    _Writes,
)
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.tapeflow_run import run_function


def _cached_values(module) -> int:
    total = 0
    for function in gradient_functions(module):
        for alloc in cache_buffers(function, "test"):
            total += int(np.prod(alloc.memref.type.get_shape()))
    return total


@pytest.mark.parametrize("key", sorted(KERNELS))
def test_recomputed_gradient_is_bit_identical_and_right(key: str) -> None:
    kernel = KERNELS[key]
    ctx = make_context()
    module = parse_kernel(ctx, key, "small")
    TapeflowEnzymePass().apply(ctx, module)
    recomputed = module.clone()
    TapeflowRecomputeLoadsPass().apply(ctx, recomputed)
    recomputed.verify()
    inputs = kernel.inputs("small")
    named = {f"arg{i}": a for i, a in enumerate(inputs)}
    cached_out = run_function(module, f"{key}_grad", {k: v.copy() for k, v in named.items()})
    recomputed_out = run_function(
        recomputed, f"{key}_grad", {k: v.copy() for k, v in named.items()}
    )
    for name, value in cached_out.items():
        np.testing.assert_array_equal(recomputed_out[name], value, err_msg=f"{key} {name}")
    for name, want in kernel.expected("small", inputs).items():
        scale = max(1.0, float(np.max(np.abs(want))))
        np.testing.assert_allclose(
            recomputed_out[name], want, rtol=1e-9, atol=1e-9 * scale, err_msg=f"{key} {name}"
        )
    assert _cached_values(recomputed) <= _cached_values(module)


def test_the_authors_matdescent_keeps_only_the_product() -> None:
    # M is constant and out is written before the loop that reads it: only the
    # product's carried value (400 partial products) stays cached.
    ctx = make_context()
    module = parse_kernel(ctx, "matdescent", "artifact")
    TapeflowEnzymePass().apply(ctx, module)
    assert _cached_values(module) == 400 * 400 + 800
    TapeflowRecomputeLoadsPass().apply(ctx, module)
    assert _cached_values(module) == 400


@pytest.mark.parametrize("key", ["matdescent", "lenet", "massspring"])
def test_one_pass_over_the_caches_rewrites_as_one_pass_per_cache(key: str) -> None:
    """The pass finds REV's head once and renumbers its record of the writes after
    each rewrite; the reference reads both afresh before every cache, as a pass
    run once per cache would."""
    ctx = make_context()
    module = parse_kernel(ctx, key, "artifact")
    TapeflowEnzymePass().apply(ctx, module)
    reference = module.clone()
    TapeflowRecomputeLoadsPass().apply(ctx, module)
    for function in gradient_functions(reference):
        body = function.body.block
        for alloc in [op for op in body.ops if isinstance(op, memref.AllocOp)]:
            rev_start = reverse_sweep_start(function, PASS)
            try:
                rewrite = partial(_recompute, classify_cache(alloc, body, rev_start))
            except NotACache:
                try:
                    nested = classify_nested_cache(alloc, body, rev_start)
                except NotANestedCache:
                    continue
                rewrite = partial(_recompute_nested, nested)
            with contextlib.suppress(_NotRecomputable):
                rewrite(_Writes.of(function), rev_start)
    assert str(module) == str(reference)
