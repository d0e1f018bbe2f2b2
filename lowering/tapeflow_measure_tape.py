"""
`tapeflow-measure-tape`: record on each gradient function the size of the tape
Enzyme's caches make (`tapeflow.tape_bytes`, `lowering.ir.facts`), as
`tapeflow-raise-tape` would raise it, without changing anything else. Run right
after differentiation (and `tapeflow-recompute-loads`, which changes the tape);
the simulator reads it to size the machine a timing model lowers for and to
report the tape.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.bulk import clone_op, release_tree
from lowering.ir.facts import record_tape_bytes
from lowering.ir.gradients import require_gradients
from lowering.ir.stages import Stage, is_placed, stage_of
from lowering.tapeflow_raise_tape import raise_module

PASS = "tapeflow-measure-tape"


class AlreadyLowered(PassFailedException):
    """A gradient past the Enzyme-gradient stage: its tape is no longer Enzyme's."""


def measure_module(module: builtin.ModuleOp) -> dict[str, int]:
    """Record every gradient's tape size on it; returns them by function name."""
    gradients = require_gradients(module, PASS)
    lowered = [
        f.sym_name.data for f in gradients if stage_of(f) is not Stage.GRADIENT or is_placed(f)
    ]
    if lowered:
        raise AlreadyLowered(
            f"{PASS}: @{lowered[0]} is past the Enzyme-gradient stage; the tape is "
            "measured on the gradient as Enzyme made it (run this pass right after "
            "tapeflow-enzyme)"
        )
    copy = clone_op(module)  # `module.clone()`, in bulk; raised to be measured, then dropped
    sizes = {r.function: r.bytes for r in raise_module(copy)}
    release_tree(copy)  # freed by reference counting, not the cycle collector
    for function in gradients:
        record_tape_bytes(function, sizes.get(function.sym_name.data, 0))
    return sizes


@dataclass(frozen=True)
class TapeflowMeasureTapePass(ModulePass):
    """Record each gradient's tape size (`tapeflow.tape_bytes`)."""

    name = "tapeflow-measure-tape"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        measure_module(op)
