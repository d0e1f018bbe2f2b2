"""
Which memory accesses of one iteration provably touch different elements.

An index is read as a linear form: a constant plus integer multiples of values
the form does not look into (induction variables, loads, arguments), built from
`arith.constant`, `addi`, `subi` and `muli` by a constant (and `index_cast`),
also where `tapeflow-to-cgra` placed them in a kernel (`cgra.op`) whose result
another kernel reads.
Index arithmetic wraps at 64 bits, and the difference of two such forms wraps
alike, so two indices whose forms differ by a non-zero constant (below 2**63 in
size) are different values whatever the other values are: `A[i]` and `A[i+1]`
never meet, `A[i]` and `A[j]` may. Arithmetic on narrower integers wraps sooner
(`lo + 4 : i32` is below `lo` for `lo` near 2**31), so its results, and an
`index_cast` that truncates, are values the form does not look into; an
`index_cast` that widens an `i32` keeps its operand's value. (Forms of `i32`
arithmetic, modulo 2**32, are read on request: `LinearForms(bits=32)`.)

An access is then keyed by its buffer, the symbolic part of each index, and the
slot it reads (a region's or scratchpad tile's struct slot): two accesses of one
buffer are independent when their symbolic parts are the same and their
constants or slots differ. Different symbolic parts may meet, so they stay
ordered. `tapeflow-to-cgra`'s scheduler (`lowering.scheduling`) orders only accesses that
may meet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, OpResult, SSAValue

from tapeflow_dialects import cgra

Form = tuple[tuple[tuple[SSAValue, int], ...], int]
"""(sorted (value, coefficient) terms, constant)."""

FORM_LIMIT = _LIMIT = 1 << 62
"""Constants and coefficients beyond this are not followed (the difference of
two forms must stay below 2**63 to be known non-zero after wrapping)."""


@dataclass(frozen=True)
class AccessKey:
    """What decides whether two accesses of one buffer may meet."""

    symbolic: tuple[object, ...]
    """Per index, its terms."""
    offsets: tuple[int, ...]
    """Per index, its constant."""
    slot: int | None
    """The struct slot of a region or scratchpad access (None for a buffer)."""


class LinearForms:
    """Linear forms of index values, each computed once (a body may hold
    thousands of accesses sharing their index arithmetic).

    `bits` is the width of the arithmetic followed: 64 (`index` and `i64`, with
    `index_cast`s that widen into them), or a narrower one (`bits=32`: forms of
    `i32` values, through `i32` arithmetic alone), whose forms hold modulo
    2**bits: two values whose forms differ by `D` differ by `D` plus a multiple
    of 2**bits."""

    def __init__(self, bits: int = 64) -> None:
        self.bits = bits
        self._forms: dict[int, tuple[SSAValue, Form]] = {}
        """Per value, by its id (a value's hash is a Python call of its own), the
        value (kept alive, so that its id stays its own) and its form."""

    def form(self, value: SSAValue) -> Form:
        known = self._forms.get(id(value))
        if known is None:
            found = self._compute(value)
            self._forms[id(value)] = (value, found)
            return found
        return known[1]

    def _compute(self, value: SSAValue) -> Form:
        opaque: Form = (((value, 1),), 0)
        if not isinstance(value, OpResult):
            return opaque
        op = value.op
        width = _width(value.type)
        if isinstance(op, arith.ConstantOp):
            attr = op.value
            if isinstance(attr, IntegerAttr) and width is not None:
                constant = _signed(attr.value.data, width)
                if abs(constant) < _LIMIT:
                    return ((), constant)
            return opaque
        if width != self.bits:
            return opaque  # arithmetic that wraps elsewhere (or not an integer)
        if isinstance(op, cgra.KernelOp):
            # A kernel yields values of its own placed ops: an index computed
            # before a tile loop, in the kernel of its bounds, keeps its form
            # where another kernel of the same iteration uses it (each SSA
            # value a form names is the one instance that kernel's run made).
            last = op.body.block.last_op
            if isinstance(last, cgra.YieldOp):
                return self.form(last.values[value.index])
            return opaque
        if isinstance(op, cgra.ComputeOp) and len(op.args) == 2 and len(op.res) == 1:
            name = op.opcode.data
            if name in ("arith.addi", "arith.subi"):
                a, b = self.form(op.args[0]), self.form(op.args[1])
                return _combine(a, b, 1 if name == "arith.addi" else -1) or opaque
            if name == "arith.muli":
                a, b = self.form(op.args[0]), self.form(op.args[1])
                if not b[0]:
                    return _scale(a, b[1]) or opaque
                if not a[0]:
                    return _scale(b, a[1]) or opaque
            return opaque
        if isinstance(op, arith.IndexCastOp):
            known = _width(op.operands[0].type)
            if known is None or known > width:
                return opaque  # a truncation
            return self.form(op.operands[0])
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            a, b = self.form(op.lhs), self.form(op.rhs)
            sign = 1 if isinstance(op, arith.AddiOp) else -1
            return _combine(a, b, sign) or opaque
        if isinstance(op, arith.MuliOp):
            a, b = self.form(op.lhs), self.form(op.rhs)
            if not b[0]:
                return _scale(a, b[1]) or opaque
            if not a[0]:
                return _scale(b, a[1]) or opaque
        return opaque

    def key(self, indices: Sequence[SSAValue], slot: int | None) -> AccessKey:
        forms = [self.form(v) for v in indices]
        return AccessKey(tuple(terms for terms, _ in forms), tuple(c for _, c in forms), slot)


_INDEX_BITS = 64
"""The width index arithmetic is taken to wrap at (as on the machines modelled)."""


def _width(kind: Attribute) -> int | None:
    """The bits an integer or index value has, else None."""
    if isinstance(kind, IndexType):
        return _INDEX_BITS
    if isinstance(kind, IntegerType):
        return kind.width.data
    return None


def _signed(value: int, width: int) -> int:
    """`value` (an integer attribute's, stored signed or unsigned) as a signed
    integer of `width` bits."""
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def _combine(a: Form, b: Form, sign: int) -> Form | None:
    terms: dict[SSAValue, int] = dict(a[0])
    for value, coefficient in b[0]:
        terms[value] = terms.get(value, 0) + sign * coefficient
    constant = a[1] + sign * b[1]
    if abs(constant) >= _LIMIT or any(abs(c) >= _LIMIT for c in terms.values()):
        return None
    return _normal(terms, constant)


def _scale(a: Form, factor: int) -> Form | None:
    if abs(factor) >= _LIMIT or abs(a[1] * factor) >= _LIMIT:
        return None
    if any(abs(c * factor) >= _LIMIT for _, c in a[0]):
        return None
    return _normal({v: c * factor for v, c in a[0]}, a[1] * factor)


def _normal(terms: dict[SSAValue, int], constant: int) -> Form:
    ordered = sorted(((v, c) for v, c in terms.items() if c), key=lambda t: id(t[0]))
    return tuple(ordered), constant


def may_meet(a: AccessKey, b: AccessKey) -> bool:
    """Whether two accesses of one buffer may touch the same element: not when
    they read different slots, nor when their indices differ by constants."""
    if a.slot is not None and b.slot is not None and a.slot != b.slot:
        return False
    return a.symbolic != b.symbolic or a.offsets == b.offsets


__all__ = ["FORM_LIMIT", "AccessKey", "LinearForms", "may_meet"]
