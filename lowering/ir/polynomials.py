"""
Polynomials with rational coefficients, for the closed forms of packed tapes.

A packed triangular tape (`lowering.ir.ragged`) stores entry `(x0, .., xr-1)` at
the number of entries before it in lexicographic order: sums, over the outer
indices, of inner extents that are affine in the indices around them. Such sums
are polynomials (Faulhaber's formula, `sum_below`), of degree at most the tape's
rank, so their closed forms are built here exactly and emitted as `index`
arithmetic: integer coefficients over one common denominator, divided once at
the end (exactly: the polynomial takes integer values at the points it is used).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import cache
from math import comb, lcm

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Operation, SSAValue

Monomial = tuple[tuple[str, int], ...]
"""Sorted (variable, exponent > 0) pairs; () is the constant monomial."""


class Poly:
    """A polynomial over named variables; immutable."""

    __slots__ = ("terms",)

    def __init__(self, terms: Mapping[Monomial, Fraction] | None = None):
        self.terms: dict[Monomial, Fraction] = {m: c for m, c in (terms or {}).items() if c}

    @staticmethod
    def const(value: int | Fraction) -> Poly:
        return Poly({(): Fraction(value)})

    @staticmethod
    def var(name: str) -> Poly:
        return Poly({((name, 1),): Fraction(1)})

    def __add__(self, other: Poly) -> Poly:
        terms = dict(self.terms)
        for m, c in other.terms.items():
            terms[m] = terms.get(m, Fraction(0)) + c
        return Poly(terms)

    def __sub__(self, other: Poly) -> Poly:
        return self + other.scale(-1)

    def scale(self, factor: int | Fraction) -> Poly:
        return Poly({m: c * factor for m, c in self.terms.items()})

    def __mul__(self, other: Poly) -> Poly:
        terms: dict[Monomial, Fraction] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = _times(m1, m2)
                terms[m] = terms.get(m, Fraction(0)) + c1 * c2
        return Poly(terms)

    def power(self, exponent: int) -> Poly:
        out = Poly.const(1)
        for _ in range(exponent):
            out = out * self
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Poly) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    def __repr__(self) -> str:
        if not self.terms:
            return "0"
        return " + ".join(
            f"{c}*" + "*".join(f"{v}^{e}" if e > 1 else v for v, e in m) if m else str(c)
            for m, c in sorted(self.terms.items())
        )

    def variables(self) -> set[str]:
        return {v for m in self.terms for v, _ in m}

    def degree_in(self, name: str) -> int:
        return max((dict(m).get(name, 0) for m in self.terms), default=0)

    def constant(self) -> Fraction | None:
        """The value if the polynomial has no variables, else None."""
        return None if self.variables() else self.terms.get((), Fraction(0))

    def substitute(self, name: str, value: Poly) -> Poly:
        """The polynomial with variable `name` replaced by `value`."""
        out = Poly()
        for m, c in self.terms.items():
            exponent = dict(m).get(name, 0)
            rest = Poly({tuple((v, e) for v, e in m if v != name): c})
            out = out + rest * value.power(exponent)
        return out

    def evaluate(self, values: Mapping[str, int]) -> Fraction:
        total = Fraction(0)
        for m, c in self.terms.items():
            term = c
            for v, e in m:
                term *= values[v] ** e
            total += term
        return total

    def sum_below(self, name: str, upper: Poly) -> Poly:
        """`sum over name = 0 .. upper - 1` of the polynomial (Faulhaber)."""
        out = Poly()
        for p in range(self.degree_in(name) + 1):
            coefficient = Poly(
                {
                    tuple((v, e) for v, e in m if v != name): c
                    for m, c in self.terms.items()
                    if dict(m).get(name, 0) == p
                }
            )
            if coefficient.terms:
                out = out + coefficient * _power_sum(p).substitute("n", upper)
        return out

    def emit(
        self, value_of: Callable[[str], SSAValue], insert: Callable[[Operation], None]
    ) -> SSAValue:
        """The polynomial as `index` arithmetic, each op passed to `insert`;
        `value_of` gives the SSA value of a variable. The numerator over the
        common denominator is evaluated by Horner's rule, in the variable of
        highest degree first (its coefficients, polynomials of the others,
        likewise), then divided once (`arith.divsi`, exact where the polynomial
        takes integer values)."""
        constants: dict[int, SSAValue] = {}

        def constant(v: int) -> SSAValue:
            if v not in constants:
                op = arith.ConstantOp(IntegerAttr(v, IndexType()))
                insert(op)
                constants[v] = op.result
            return constants[v]

        def binary(kind: type[Operation], a: SSAValue, b: SSAValue) -> SSAValue:
            op = kind(a, b)
            insert(op)
            return op.results[0]

        def horner(poly: Poly) -> SSAValue:
            value = poly.constant()
            if value is not None:
                return constant(int(value))
            name = max(sorted(poly.variables()), key=poly.degree_in)
            degree = poly.degree_in(name)
            coefficients = [
                Poly(
                    {
                        tuple((v, e) for v, e in m if v != name): c
                        for m, c in poly.terms.items()
                        if dict(m).get(name, 0) == k
                    }
                )
                for k in range(degree + 1)
            ]
            top = coefficients[degree]
            acc = None if top == Poly.const(1) else horner(top)  # None stands for 1
            for k in reversed(range(degree)):
                acc = value_of(name) if acc is None else binary(arith.MuliOp, acc, value_of(name))
                if coefficients[k].terms:
                    acc = binary(arith.AddiOp, acc, horner(coefficients[k]))
            assert acc is not None
            return acc

        denominator = lcm(*(c.denominator for c in self.terms.values())) if self.terms else 1
        total = horner(self.scale(denominator))
        if denominator != 1:
            total = binary(arith.DivSIOp, total, constant(denominator))
        return total


def _times(a: Monomial, b: Monomial) -> Monomial:
    exponents = dict(a)
    for v, e in b:
        exponents[v] = exponents.get(v, 0) + e
    return tuple(sorted(exponents.items()))


@cache
def _bernoulli(k: int) -> Fraction:
    """B_k with B_1 = -1/2."""
    if k == 0:
        return Fraction(1)
    return -sum((comb(k + 1, j) * _bernoulli(j) for j in range(k)), Fraction(0)) / (k + 1)


@cache
def _power_sum(p: int) -> Poly:
    """`sum over y = 0 .. n - 1 of y**p` as a polynomial in `n`."""
    n = Poly.var("n")
    out = Poly()
    for k in range(p + 1):
        out = out + n.power(p + 1 - k).scale(comb(p + 1, k) * _bernoulli(k))
    return out.scale(Fraction(1, p + 1))


__all__ = ["Monomial", "Poly"]
