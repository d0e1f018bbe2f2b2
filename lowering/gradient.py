"""
What every TapeFlow pass needs to know about an Enzyme gradient function: which
functions are gradients, where an op sits in the function's top-level sequence,
and how to give the ops a pass creates the location of the op they replace.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects import builtin, func, scf
from xdsl.ir import Block, Operation
from xdsl.utils.exceptions import PassFailedException

from tapeflow_dialects.enzyme import GRADIENT_OF

OpT = TypeVar("OpT", bound=Operation)


def gradient_functions(module: builtin.ModuleOp) -> list[func.FuncOp]:
    """The functions `tapeflow-enzyme` generated, in module order."""
    return [
        f
        for f in module.body.block.ops
        if isinstance(f, func.FuncOp) and GRADIENT_OF in f.attributes
    ]


def require_gradients(module: builtin.ModuleOp, pass_name: str) -> list[func.FuncOp]:
    """The gradient functions, or a clear error if Enzyme has not run."""
    gradients = gradient_functions(module)
    if not gradients:
        raise PassFailedException(
            f"{pass_name}: the module has no gradient function (no func.func "
            f"carries '{GRADIENT_OF}'); differentiate it first with tapeflow-enzyme"
        )
    return gradients


def top_level_op(op: Operation, body: Block) -> Operation:
    """The op of `body` that contains `op` (or `op` itself)."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not body:
        current = current.parent_op()
    assert current is not None, "op outside the block"
    return current


def enclosing_loops(op: Operation, stop: Operation) -> tuple[scf.ForOp, ...]:
    """The `scf.for` ops around `op`, outermost first, up to (not including) `stop`."""
    loops: list[scf.ForOp] = []
    current = op.parent_op()
    while current is not None and current is not stop:
        if isinstance(current, scf.ForOp):
            loops.append(current)
        current = current.parent_op()
    return tuple(reversed(loops))


def located(new: OpT, old: Operation) -> OpT:
    """`new`, placed where the op it replaces was written."""
    new.location = old.location
    return new
