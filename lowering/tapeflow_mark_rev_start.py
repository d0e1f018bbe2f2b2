"""
`tapeflow-mark-rev-start`: mark the first top-level op of each gradient's reverse
sweep with the unit attribute `tapeflow.rev_start`.

The simulator splits its timing and traffic reports into the forward and the
reverse sweep at that op. Where REV begins is read off the gradient as
`lowering.enzyme.caches.reverse_sweep_start` reads it (the first top-level op that
reads a seed or touches a shadow). The layout passes move and wrap top-level ops
(strip-mined loops go into tile loops), so the mark is made once the tape's layout
is final: the variant pipelines run this pass just before `tapeflow-to-cgra`. Any
earlier mark is replaced. A gradient with no reverse sweep gets no mark.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.passes import ModulePass

from lowering.enzyme.caches import reverse_sweep_start
from lowering.ir.gradients import require_gradients
from tapeflow_dialects.enzyme import REV_START

PASS = "tapeflow-mark-rev-start"


def mark_rev_start(function: func.FuncOp) -> None:
    """Mark where one gradient function's reverse sweep begins."""
    start = reverse_sweep_start(function, PASS)
    ops = list(function.body.block.ops)
    for op in ops:
        op.attributes.pop(REV_START, None)
    if start < len(ops):
        ops[start].attributes[REV_START] = builtin.UnitAttr()


@dataclass(frozen=True)
class TapeflowMarkRevStartPass(ModulePass):
    """Mark the first top-level op of each gradient's reverse sweep."""

    name = "tapeflow-mark-rev-start"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for function in require_gradients(op, PASS):
            mark_rev_start(function)
