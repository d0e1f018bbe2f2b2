"""
Whether an op has side effects, as MLIR's op definitions declare it.

The passes ask this of an op before they replay, move, recompute or erase it.
xDSL's `is_side_effect_free` reads the op's traits, and xDSL 0.74 declares two
`arith` ops with none where MLIR's `ArithOps.td` declares them free of memory
effects: `arith.extsi` (`Pure` in MLIR) and `arith.remui` (`NoMemoryEffect`,
speculatable only where its divisor is known not to be zero, as for the other
integer divisions, which xDSL marks as MLIR does). Without this, a sign
extension or an unsigned remainder (a mask `i % 3`) in a loop body reads as a
write of unknown memory, and every cache computed past it stays in DRAM.
Whether a division may trap where it did not run is a separate question, which
the passes that compute an op where it did not run ask themselves.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Operation
from xdsl.traits import is_side_effect_free

_NO_MEMORY_EFFECT_IN_MLIR = (arith.ExtSIOp, arith.RemUIOp)
"""Ops that MLIR declares free of memory effects and xDSL 0.74 declares without
an effect trait."""


INTEGER_DIVISIONS = (
    arith.DivSIOp,
    arith.DivUIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
    arith.FloorDivSIOp,
    arith.RemSIOp,
    arith.RemUIOp,
)
"""Integer ops whose result is undefined for some operands (a zero divisor, an
overflowing signed quotient): free of memory effects, but not to be computed
where they did not run."""


def is_effect_free(op: Operation) -> bool:
    """`op` (and every op it nests) has no side effects, as MLIR declares it."""
    return isinstance(op, _NO_MEMORY_EFFECT_IN_MLIR) or is_side_effect_free(op)


__all__ = ["INTEGER_DIVISIONS", "is_effect_free"]
