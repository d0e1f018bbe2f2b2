"""
The ragged extents of a chain of Enzyme's per-iteration caches, as functions of
the tape's own indices (`lowering.ir.ragged`).

Each per-iteration buffer's `?` extent is computed in FWD from the induction
variables around its alloc (lu: the buffer for `k < j` has extent `j`); the tape
is indexed by each level's handle index (`i`, `j`, then `k`, or normalised as
`j - i`). Reading every index as a linear form (`lowering.ir.index_offsets`), the
dimensions are taken outermost first: an index with exactly one value not yet
known, with coefficient +-1, gives that value (usually an induction variable) as
an affine function of the dimensions so far; an extent is then rewritten over
the dimensions before it and the tape's size operands (the symbols). Where an
extent cannot be so written (it depends on a load, on an index that is not
affine, ...), there is no ragged map and the tape stays the bounding box, with
the reason.

Enzyme's sizes reach here clamped at zero (`lowering.enzyme.empty_loops`: a loop
whose upper bound is below its lower bound runs no iteration, and its cache has
no entry). A size `max(e, 0)` of the tape (the outer loop's count, a symbol)
stands for `e` wherever the loop runs an iteration, so `e`, read as a linear form,
gives the one value it leaves unknown like an index does (syrk's `n` from the
symbol `max(n, 0)`); where the loop runs none, the ragged space has no entry
whatever `e` is. A per-iteration extent `max(e, 0)` is `e` where `e >= 0` on every
iteration that runs: proven by taking, innermost dimension first, the bound of
each dimension that makes the affine `e` smallest (`0`, or the dimension's own
extent less one, the iteration that runs last), down to a form in the symbols
alone, whose coefficients and constant must then be nonnegative (every symbol is
a size, at least zero). Enzyme's sizes that `lowering.enzyme.empty_loops` proves
at least zero the same way, on the loops themselves, reach here unclamped.

An extent of dimension 1 that may be negative, `r - c * d0` with `c > 0` (the
bounds of `for j = i + 4 to 12` cross past `i = 8`), is positive on a prefix of
dimension 0, `d0 < ceil(r / c)`, and nowhere after it: the extents stand, and
the clip `(r, c)` (`lowering.ir.ragged`) makes the count sum over that prefix
alone. Any other extent that may be negative (one that grows with the index
outside it, `for j = 0 to i - 3`, has its entries in a suffix; one deeper in
the nest) has no polynomial count here: the tape stays the bounding box, with
the reason, and runs as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from xdsl.ir import OpResult, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from lowering.enzyme.empty_loops import clamped_operand
from lowering.ir.index_offsets import LinearForms
from lowering.ir.polynomials import Poly
from lowering.ir.ragged import affine_expr, dim, sym


class NotAffineExtents(Exception):
    """The extents are not affine in the tape's indices; the message says why."""


def ragged_extents(
    indices: Sequence[SSAValue], extents: Sequence[int | SSAValue], symbols: Sequence[SSAValue]
) -> tuple[AffineMap, AffineMap | None]:
    """The map from the tape's indices (FWD's, one per dimension) to each
    dimension's extent (a static one, or the SSA value FWD sizes it with), and
    the clip of dimension 0 (`lowering.ir.ragged`), if it needs one."""
    forms = LinearForms()
    clips: list[tuple[Poly, int]] = []
    known: dict[SSAValue, Poly] = {s: Poly.var(sym(k)) for k, s in enumerate(symbols)}
    for k, s in enumerate(symbols):
        clamped = clamped_operand(s)
        if clamped is not None:  # max(e, 0) is e on every iteration that runs
            _solve(forms.form(clamped), Poly.var(sym(k)), known)
    polys: list[Poly] = []
    for m, (index, extent) in enumerate(zip(indices, extents, strict=True)):
        if isinstance(extent, int):
            polys.append(Poly.const(extent))
        else:
            polys.append(_extent(forms, extent, known, m, polys, clips))
        _solve(forms.form(index), Poly.var(dim(m)), known)
    results = tuple(affine_expr(p) for p in polys)
    ragged = AffineMap(len(results), len(symbols), results)
    if not clips:
        return ragged, None
    ((r, c),) = clips
    return ragged, AffineMap(0, len(symbols), (affine_expr(r), AffineExpr.constant(c)))


def _solve(form: tuple[tuple[tuple[SSAValue, int], ...], int], equals: Poly, known: dict) -> None:
    """Where `form` (a linear form equal to `equals`) has exactly one value not yet
    known, with coefficient +-1, record that value."""
    terms, constant = form
    unknown = [(v, c) for v, c in terms if v not in known]
    if len(unknown) == 1 and abs(unknown[0][1]) == 1:
        # equals = c*v + rest  =>  v = c * (equals - rest)
        (value, coefficient), rest = unknown[0], Poly.const(constant)
        for v, c in terms:
            if v is not value:
                rest = rest + known[v].scale(c)
        known[value] = (equals - rest).scale(coefficient)


def _extent(
    forms: LinearForms,
    extent: SSAValue,
    known: dict[SSAValue, Poly],
    m: int,
    outer: list[Poly],
    clips: list[tuple[Poly, int]],
) -> Poly:
    """Dimension `m`'s extent over the dimensions before it and the symbols; a
    clamped one, `max(e, 0)`, as `e` where `e >= 0` on every iteration that runs,
    or where `e` falls with `d0` alone (dimension 1; its clip goes to `clips`)."""
    clamped = clamped_operand(extent)
    if clamped is None:
        return _over_known(forms, extent, known, m)
    poly = _over_known(forms, clamped, known, m)
    if _nonnegative(poly, outer):
        return poly
    falls = -poly.terms.get(((dim(0), 1),), Fraction(0))
    rest = poly + Poly.var(dim(0)).scale(falls)
    if (
        m == 1
        and falls > 0
        and falls.denominator == 1
        and not any(v.startswith("d") for v in rest.variables())
        and all(c.denominator == 1 for c in rest.terms.values())
    ):
        clips.append((rest, int(falls)))
        return poly
    raise NotAffineExtents(
        f"the extent of dimension {m}, max({poly}, 0), may be negative on an "
        "iteration that runs (the inner loop's bounds cross there), other than on "
        "the outer iterations after those that have entries: its entries have no "
        "polynomial count"
    )


def _nonnegative(poly: Poly, outer: list[Poly]) -> bool:
    """`poly` (affine in `d0 ..` and the symbols) is at least 0 wherever
    `0 <= d_k < outer[k]` for every k (the iterations that run), every symbol
    being at least 0: its smallest value over those, innermost dimension first."""
    for k in reversed(range(len(outer))):
        name = dim(k)
        coefficient = poly.terms.get(((name, 1),), Fraction(0))
        if poly.degree_in(name) > 1:
            return False
        low = outer[k] - Poly.const(1) if coefficient < 0 else Poly.const(0)
        poly = poly.substitute(name, low)
    return all(
        c >= 0 and all(v.startswith("s") and e == 1 for v, e in monomial) and len(monomial) <= 1
        for monomial, c in poly.terms.items()
    )


def _over_known(forms: LinearForms, extent: SSAValue, known: dict[SSAValue, Poly], m: int) -> Poly:
    terms, constant = forms.form(extent)
    out = Poly.const(constant)
    for value, coefficient in terms:
        if value not in known:
            raise NotAffineExtents(
                f"the extent of dimension {m} depends on {_describe(value)}, which is not "
                "an affine function of the indices outside it or a size of the tape"
            )
        out = out + known[value].scale(Fraction(coefficient))
    return out


def _describe(value: SSAValue) -> str:
    if isinstance(value, OpResult):
        return f"the result of '{value.op.name}'"
    return f"%{value.name_hint}" if value.name_hint else "a block argument"


__all__ = ["NotAffineExtents", "ragged_extents"]
