"""
Bounds on the magnitude of integer values, for the fast path's generated code:
where an `addi`, `subi` or `muli` provably cannot leave its width, it is the
plain Python operator, without the wrap-around check of its semantics-table
entry (`Scalar.exact`, `Scalar.result_bits`).

A bound of `b` bits means |value| < 2^b. Constants have theirs; the inputs of a
piece of generated code (a function's arguments, a kernel loop's outside values
and its range) are *guarded*: the code assumes |x| < 2^GUARD_BITS and checks
that once where it starts, running the closure executor instead if an input is
larger. Results of ops follow from their operands (`Scalar.result_bits`); loaded,
loop-carried and called values have no bound.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import arith
from xdsl.ir import Attribute, OpResult, SSAValue

from tapeflow_dialects.semantics import Scalar, constant_value, int_width

GUARD_BITS = 24
"""Guarded inputs are taken to be below 2^24 in magnitude: products of two and
sums of many such values stay far inside 64 bits."""

Bound = tuple[int, frozenset[str]]
"""(bits, the guards it rests on: expressions of the generated code)."""


def is_integer(value_type: Attribute) -> bool:
    """An integer or index type wider than i1 (the types bounds are kept for)."""
    width = int_width(value_type)
    return width is not None and width > 1


def constant_bits(value: SSAValue) -> int | None:
    """The bound of an integer `arith.constant`, if `value` is one."""
    if isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp):
        const = constant_value(value.op.value)
        if isinstance(const, int) and not isinstance(const, bool):
            return abs(const).bit_length()
    return None


def positive_constant(value: SSAValue) -> bool:
    """`value` is an integer constant above 0 (a loop step that needs no check)."""
    if isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp):
        const = constant_value(value.op.value)
        return isinstance(const, int) and not isinstance(const, bool) and const > 0
    return False


class Bounds:
    """Bounds of the values of one piece of generated code, and the guards the
    ones used so far rest on."""

    def __init__(self) -> None:
        self.known: dict[SSAValue, Bound] = {}
        self.guards: dict[str, None] = {}
        """Guarded input expressions, in the order first used."""

    def set(self, value: SSAValue, bound: Bound | None) -> None:
        if bound is not None:
            self.known[value] = bound

    def get(self, value: SSAValue) -> Bound | None:
        return self.known.get(value)

    @staticmethod
    def guarded(*expressions: str) -> Bound:
        """The bound of an input read by `expressions`, once they are guarded."""
        return GUARD_BITS, frozenset(expressions)

    @staticmethod
    def joined(bounds: Iterable[Bound | None], bits: int | None) -> Bound | None:
        """The bound `bits` of a result computed from operands of `bounds`."""
        known = list(bounds)
        if bits is None or any(b is None for b in known):
            return None
        return bits, frozenset().union(*(b[1] for b in known if b is not None))

    def lines_of(
        self, entry: Scalar, operands: list[Bound | None]
    ) -> tuple[list[int | None], Bound | None]:
        """The operand bits to render `entry` with, and its result's bound. The
        exact statements are used (and their guards kept) only if they apply."""
        bits = [b[0] if b is not None else None for b in operands]
        result = entry.result_bits(bits)
        if result is None:
            return [], None
        bound = self.joined(operands if entry.growth != "select" else operands[1:], result)
        if entry.exact is not None and bound is not None:
            self.guards.update(dict.fromkeys(sorted(bound[1])))
            return bits, bound
        return [], bound

    def condition(self) -> str | None:
        """The check the generated code makes where it starts; None if none."""
        if not self.guards:
            return None
        limit = 1 << GUARD_BITS
        return " and ".join(f"-{limit} < {g} < {limit}" for g in self.guards)


__all__ = ["GUARD_BITS", "Bounds", "constant_bits", "is_integer", "positive_constant"]
