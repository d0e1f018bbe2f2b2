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
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from xdsl.ir import OpResult, SSAValue
from xdsl.ir.affine import AffineMap

from lowering.ir.index_offsets import LinearForms
from lowering.ir.polynomials import Poly
from lowering.ir.ragged import affine_expr, dim, sym


class NotAffineExtents(Exception):
    """The extents are not affine in the tape's indices; the message says why."""


def ragged_extents(
    indices: Sequence[SSAValue], extents: Sequence[int | SSAValue], symbols: Sequence[SSAValue]
) -> AffineMap:
    """The map from the tape's indices (FWD's, one per dimension) to each
    dimension's extent (a static one, or the SSA value FWD sizes it with)."""
    forms = LinearForms()
    known: dict[SSAValue, Poly] = {s: Poly.var(sym(k)) for k, s in enumerate(symbols)}
    results = []
    for m, (index, extent) in enumerate(zip(indices, extents, strict=True)):
        if isinstance(extent, int):
            results.append(affine_expr(Poly.const(extent)))
        else:
            results.append(affine_expr(_over_known(forms, extent, known, m)))
        terms, constant = forms.form(index)
        unknown = [(v, c) for v, c in terms if v not in known]
        if len(unknown) == 1 and abs(unknown[0][1]) == 1:
            # x_m = c*v + rest  =>  v = c * (x_m - rest)
            (value, coefficient), rest = unknown[0], Poly.const(constant)
            for v, c in terms:
                if v is not value:
                    rest = rest + known[v].scale(c)
            known[value] = (Poly.var(dim(m)) - rest).scale(coefficient)
    return AffineMap(len(results), len(symbols), tuple(results))


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
