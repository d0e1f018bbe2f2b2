"""
`tapeflow-mark-tape-buffers`: the Enzyme baseline's tape, marked in place.

The baseline keeps Enzyme's layout -- one `memref.alloc` per cached value, reached
through the cache -- but the simulator must still tell tape traffic from the
kernel's own (the paper's tape bytes and tape misses). This pass marks each cache
buffer (`lowering.enzyme.caches` says which buffers are caches) with the unit
attribute `tapeflow.tape` and changes nothing else, but for Enzyme's
`enzyme.store/load` (caches of run-time extent), which become the plain
`memref.store/load` they stand for, and Enzyme's tensor caches
(`enzyme.cache_use_tensor`), which become the memref buffers Enzyme's default mode
writes (`lowering.enzyme.tensor_caches`), so the baseline's tape is in memory, through the
cache, whichever cache mode Enzyme ran in. It takes a module at the
Enzyme-gradient stage.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from lowering.enzyme.caches import cache_buffers
from lowering.enzyme.tensor_caches import bufferize_tensor_caches
from lowering.ir.gradients import require_gradients
from lowering.ir.locations import located
from lowering.ir.stages import Stage, require_stages
from lowering.ir.walk import walk_ops
from tapeflow_dialects import enzyme
from tapeflow_dialects.enzyme import TAPE_BUFFER

PASS = "tapeflow-mark-tape-buffers"


def mark_tape_buffers(function: func.FuncOp) -> int:
    """Mark the cache buffers of one gradient function; returns how many."""
    bufferize_tensor_caches(function)
    buffers = cache_buffers(function, PASS)
    for buffer in buffers:
        buffer.attributes[TAPE_BUFFER] = builtin.UnitAttr()
    _plain_cache_accesses(function)
    return len(buffers)


def _plain_cache_accesses(function: func.FuncOp) -> None:
    """
    Enzyme's `enzyme.store/load` (caches of run-time extent) become the
    `memref.store/load` they stand for: the logical extents they carry are
    Enzyme's bookkeeping for flattening its caches, not an access of their own,
    and as plain accesses the baseline's loops are placed on the CGRA like any
    other (the executor checks the extents until here).
    """
    for op in list(walk_ops(function)):
        if isinstance(op, enzyme.CacheStoreOp):
            new = memref.StoreOp.get(op.value, op.buffer, list(op.indices))
        elif isinstance(op, enzyme.CacheLoadOp):
            new = memref.LoadOp.get(op.buffer, list(op.indices))
        else:
            continue
        Rewriter.replace_op(op, located(new, op))


@dataclass(frozen=True)
class TapeflowMarkTapeBuffersPass(ModulePass):
    """Mark Enzyme's cache buffers as the tape, keeping them memrefs (the baseline)."""

    name = "tapeflow-mark-tape-buffers"

    stats: bool = False
    """Print, per gradient function, how many buffers were marked to stderr."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        gradients = require_gradients(op, PASS)
        require_stages(gradients, PASS, {Stage.GRADIENT, Stage.BASELINE})
        for function in gradients:
            marked = mark_tape_buffers(function)
            if self.stats:
                print(
                    f"{PASS}: @{function.sym_name.data}: {marked} cache buffers marked",
                    file=sys.stderr,
                )
