"""
`tapeflow-to-upstream`: a gradient as upstream MLIR only, for any MLIR tool.

The gradient `tapeflow-enzyme` makes (or the Enzyme baseline, or the tape stage:
any stage before `tapeflow-regions`) holds a few things only this project and
Enzyme know: Enzyme's cache ops of run-time extent (`enzyme.store`/`enzyme.load`,
which address the buffer as `memref.store`/`memref.load` do and add the logical
extents Enzyme's `enzyme-flatten-caches` would use), `enzyme.fill_zero` of the
shadows of temporary buffers, the tape dialect, and annotations (`tapeflow.*`
attributes, `#enzyme.activity` values, Enzyme's `enzyme.*` and `preserve_cache`
markers); with `enzyme.cache_use_tensor`, tensor caches. This pass writes the
cache ops as `memref.store`/`memref.load`, the fills as `linalg.fill` of the
element type's zero, tapes as the buffers Enzyme made (`tapeflow-sink-tape`'s
patterns), tensor caches as the memref buffers of Enzyme's default mode
(`lowering.enzyme.tensor_caches`), and drops the annotations, none of which changes what
the code computes. What is left is func, scf, arith, math, memref and linalg
(tensor where a tensor cache keeps its value semantics): `mlir-opt` verifies it with no flags, and
MLIR's standard pipeline lowers it to LLVM (test/lowering/test_to_upstream.py runs it natively and
compares every value with tapeflow-run's; examples/upstream/ shows the commands).

Anything else (an op of another dialect, a gradient past the tape stage, an
`enzyme.autodiff` not yet differentiated) is an error naming the op and where it
is, rather than output MLIR would reject. A module already in upstream form (this
pass's output) passes through unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import PassFailedException

from lowering.enzyme.tensor_caches import bufferize_tensor_caches
from lowering.ir.gradients import gradient_functions
from lowering.ir.locations import located, where
from lowering.ir.stages import Stage, require_stages
from lowering.ir.walk import walk_ops
from lowering.tapeflow_sink_tape import SinkTapeAlloc, SinkTapeFree, SinkTapeLoad, SinkTapeStore
from tapeflow_dialects import enzyme

PASS = "tapeflow-to-upstream"

UPSTREAM_DIALECTS = ("builtin", "func", "scf", "arith", "math", "memref", "linalg", "tensor")
"""The dialects the output holds (all of MLIR's own, registered in `mlir-opt`).
`tensor` only where Enzyme cached in tensors (`enzyme.cache_use_tensor`) in a shape
`lowering.enzyme.tensor_caches` cannot turn into one buffer; MLIR's `one-shot-bufferize`
then comes before the lowering to LLVM."""

_PRIVATE_PREFIXES = ("tapeflow.", "enzyme.")
"""Discardable attributes of this project's and Enzyme's, dropped."""
_ENZYME_MARKERS = ("preserve_cache",)
"""Enzyme's discardable attributes without a dialect prefix (it puts
`preserve_cache` on the forward sweep's scf.if ops it keeps for the reverse)."""
_FOREIGN = ("#enzyme", "!enzyme", "!tape", "#tapeflow", "!region", "!stream", "#cgra", "!cgra")


class CacheStoreToMemref(RewritePattern):
    """`enzyme.store %v, %c[%i] ([%n])` -> `memref.store %v, %c[%i]`: the extents
    only describe the buffer for Enzyme's own flattening."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: enzyme.CacheStoreOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, located(memref.StoreOp.get(op.value, op.buffer, op.indices), op))


class CacheLoadToMemref(RewritePattern):
    """`enzyme.load %c[%i] ([%n])` -> `memref.load %c[%i]`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: enzyme.CacheLoadOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, located(memref.LoadOp.get(op.buffer, op.indices), op))


class FillZeroToLinalg(RewritePattern):
    """`enzyme.fill_zero %b` -> `linalg.fill ins(%zero) outs(%b)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: enzyme.FillZeroOp, rewriter: PatternRewriter) -> None:
        buffer = op.buffer.type
        assert isinstance(buffer, MemRefType)
        zero = located(arith.ConstantOp(_zero(buffer.element_type, op)), op)
        fill = located(FillOp([zero.result], [op.buffer], res=[]), op)
        rewriter.replace(op, [zero, fill], [])


def _zero(element: Attribute, op: Operation) -> Attribute:
    if isinstance(element, AnyFloat):
        return FloatAttr(0.0, element)
    if isinstance(element, IntegerType | IndexType):
        return IntegerAttr(0, element)
    raise PassFailedException(f"{where(op)}{PASS}: cannot zero a buffer of {element}")


def _drop_annotations(op: Operation) -> None:
    for name in list(op.attributes):
        if name.startswith(_PRIVATE_PREFIXES) or name in _ENZYME_MARKERS:
            del op.attributes[name]


def _check_upstream(module: builtin.ModuleOp) -> None:
    """Every op is of an upstream dialect, and no attribute or type of this
    project's or Enzyme's is left."""
    for op in walk_ops(module):
        dialect = op.name.split(".", 1)[0]
        if dialect not in UPSTREAM_DIALECTS:
            hint = (
                "; differentiate it first with tapeflow-enzyme"
                if isinstance(op, enzyme.AutoDiffOp)
                else ""
            )
            raise PassFailedException(
                f"{where(op)}{PASS}: '{op.name}' has no upstream MLIR form here (the "
                f"output holds {', '.join(UPSTREAM_DIALECTS)} only){hint}"
            )
        texts = [str(a) for a in (*op.attributes.values(), *op.properties.values())]
        texts += [str(v.type) for v in op.results]
        texts += [str(a.type) for r in op.regions for b in r.blocks for a in b.args]
        for text in texts:
            foreign = next((f for f in _FOREIGN if f in text), None)
            if foreign is not None:
                raise PassFailedException(
                    f"{where(op)}{PASS}: '{op.name}' keeps '{text}', which upstream "
                    "MLIR does not know"
                )


def to_upstream(module: builtin.ModuleOp) -> None:
    """Rewrite the module's gradients (any stage before tapeflow-regions) into
    upstream MLIR, or raise naming what cannot be."""
    gradients = gradient_functions(module)
    if not gradients:  # nothing differentiated yet, or written upstream already
        _check_upstream(module)
        return
    require_stages(gradients, PASS, {Stage.GRADIENT, Stage.BASELINE, Stage.TAPE})
    for gradient in gradients:
        bufferize_tensor_caches(gradient)
    patterns: list[RewritePattern] = [
        SinkTapeAlloc(),
        SinkTapeStore(),
        SinkTapeLoad(),
        SinkTapeFree(),
        CacheStoreToMemref(),
        CacheLoadToMemref(),
        FillZeroToLinalg(),
    ]
    PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns, dce_enabled=False), apply_recursively=False
    ).rewrite_module(module)
    for op in walk_ops(module):
        _drop_annotations(op)
    _check_upstream(module)


@dataclass(frozen=True)
class TapeflowToUpstreamPass(ModulePass):
    """Write gradients as upstream MLIR (func, scf, arith, math, memref, linalg)."""

    name = "tapeflow-to-upstream"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        to_upstream(op)
