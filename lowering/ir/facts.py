"""
Facts a pass establishes about a gradient function that later stages and tools
read: attributes on the gradient `func.func`, set by the pass that knows them
and read back the same way by anyone (the simulator, the tools, a user's script).

- `tapeflow.tape_bytes` (i64): the size of the tape Enzyme's caches make, set by
  `tapeflow-measure-tape` (0 where an extent is known only at run time);
- `tapeflow.unroll_factors` (array<i64>): the factor each tape loop was unrolled
  by, in program order (1 for a loop left rolled), set by `tapeflow-unroll`;
- `tapeflow.timing_model` (string): the timing model whose machine the gradient
  was lowered for, set by the simulator's `prepare`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, i64

from lowering.ir.gradients import gradient_functions

TAPE_BYTES = "tapeflow.tape_bytes"
UNROLL_FACTORS = "tapeflow.unroll_factors"
TIMING_MODEL = "tapeflow.timing_model"


def record_tape_bytes(function: func.FuncOp, size: int) -> None:
    function.attributes[TAPE_BYTES] = IntegerAttr(size, 64)


def tape_bytes(module: builtin.ModuleOp) -> int | None:
    """The module's gradients' tapes in bytes, or None if no gradient has had
    its tape measured."""
    gradients = gradient_functions(module)
    found = [f.attributes[TAPE_BYTES] for f in gradients if TAPE_BYTES in f.attributes]
    if not found:
        return None
    return sum(a.value.data for a in found if isinstance(a, IntegerAttr))


def record_unroll_factors(function: func.FuncOp, factors: Sequence[int]) -> None:
    function.attributes[UNROLL_FACTORS] = DenseArrayBase.from_list(i64, list(factors))


def unroll_factors(module: builtin.ModuleOp) -> list[int]:
    """The factor each tape loop of the module's gradients was unrolled by
    (program order; empty if `tapeflow-unroll` has not run)."""
    factors: list[int] = []
    for function in gradient_functions(module):
        attr = function.attributes.get(UNROLL_FACTORS)
        if isinstance(attr, DenseArrayBase):
            factors += [int(v) for v in attr.get_values()]
    return factors


def record_timing_model(module: builtin.ModuleOp, model: str) -> None:
    for function in gradient_functions(module):
        function.attributes[TIMING_MODEL] = StringAttr(model)


def prepared_model(module: builtin.ModuleOp) -> str | None:
    """The timing model the module's gradients were lowered for (None: not known)."""
    for function in gradient_functions(module):
        attr = function.attributes.get(TIMING_MODEL)
        if isinstance(attr, StringAttr):
            return attr.data
    return None


__all__ = [
    "TIMING_MODEL",
    "TAPE_BYTES",
    "UNROLL_FACTORS",
    "record_tape_bytes",
    "record_timing_model",
    "record_unroll_factors",
    "tape_bytes",
    "prepared_model",
    "unroll_factors",
]
