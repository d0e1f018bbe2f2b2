"""
`tapeflow-sink-tape`: the inverse of `tapeflow-raise-tape`, for the Enzyme baseline.

Unrolling needs the FWD-to-REV map that only tape ops carry, so the unrolled
baseline is made by raising the tape, unrolling, and sinking the tape back into
Enzyme's layout: every `tape.alloc` becomes a `memref.alloc` of its own shape (one
buffer per cached value, as Enzyme lays it out) marked `tapeflow.tape` as
`tapeflow-mark-tape-buffers` marks the caches it finds, its stores and loads become
memref ones and its free a dealloc. Each op is rewritten on its own, by a rewrite
pattern. The pass takes a module at the tape stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, memref
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from lowering.ir.gradients import require_gradients
from lowering.ir.locations import located
from lowering.ir.stages import Stage, require_stages
from tapeflow_dialects import tape
from tapeflow_dialects.enzyme import TAPE_BUFFER

PASS = "tapeflow-sink-tape"


class SinkTapeAlloc(RewritePattern):
    """`tape.alloc : !tape.tape<8x4xf64>` -> `memref.alloc() {tapeflow.tape} : memref<8x4xf64>`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tape.AllocOp, rewriter: PatternRewriter) -> None:
        tape_type = op.tape.type
        assert isinstance(tape_type, tape.TapeType)
        # A tape of `?` extents keeps its run-time sizes (a triangular nest's
        # tape becomes one bounding-box buffer, not Enzyme's per-iteration ones).
        buffer = memref.AllocOp.get(
            tape_type.element_type,
            shape=tape_type.get_shape(),
            dynamic_sizes=list(op.dynamic_sizes),
        )
        buffer.attributes[TAPE_BUFFER] = builtin.UnitAttr()
        rewriter.replace(op, located(buffer, op))


class SinkTapeStore(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tape.StoreOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, located(memref.StoreOp.get(op.value, op.tape, op.indices), op))


class SinkTapeLoad(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tape.LoadOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, located(memref.LoadOp.get(op.tape, op.indices), op))


class SinkTapeFree(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tape.FreeOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, located(memref.DeallocOp.get(op.tape), op))


def sink_tapes(module: builtin.ModuleOp) -> None:
    """Sink every tape of the module's gradient functions back into a marked buffer."""
    require_stages(require_gradients(module, PASS), PASS, {Stage.TAPE})
    patterns = [SinkTapeAlloc(), SinkTapeStore(), SinkTapeLoad(), SinkTapeFree()]
    PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns, dce_enabled=False), apply_recursively=False
    ).rewrite_module(module)


@dataclass(frozen=True)
class TapeflowSinkTapePass(ModulePass):
    """Turn tape ops back into Enzyme-layout buffers marked as the tape."""

    name = "tapeflow-sink-tape"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        sink_tapes(op)
