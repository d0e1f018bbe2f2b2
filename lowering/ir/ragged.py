"""
The ragged extents of a triangular tape, and its packed layout.

A chain of Enzyme's per-iteration caches (`lowering.enzyme.nested_caches`) is
raised to one tape indexed by every loop index; where the nest is triangular, the
extent of a dimension depends on the indices outside it (PolyBench lu's
`i, j < i, k < j`: extents 5, i, j). `tapeflow-raise-tape` records those extents
on the tape's alloc as an affine map, the attribute `tapeflow.ragged`:

    tape.alloc(%m1, %m2) {tapeflow.ragged = affine_map<(d0, d1, d2)[s0, s1] -> (5, d0, d1)>}
        : !tape.tape<5x?x?xf64>

result `m` being the extent of dimension `m` as a function of the dimensions
before it (`d0 .. d(m-1)`) and the alloc's size operands (`s0 ..`). The tape's
`?` extents are the bounding box of the triangle, so that the passes that prove
and tile (`tapeflow-layers`) keep reasoning on affine indices; `tapeflow-regions`
carries the attribute to the region. `tapeflow-pack-tapes` then lays out what is
still a tape or a region in DRAM packed: one dimension of exactly the entries of
the ragged space (`count`), entry `(x0, .., xr-1)` at its rank in lexicographic
order (`offset`), both closed-form polynomials (`lowering.ir.polynomials`):

    offset(x) = sum over m of  sum over y < x_m of  size_(m+1)(x0, .., x(m-1), y)
    size_r = 1,  size_m(x0 .. x(m-1)) = sum over y < E_m(x0 .. x(m-1)) of size_(m+1)(.., y)

(lu's first nest: 10 entries for N = 5, not the bounding box's 5 * 4 * 3 = 60).
Each level's term is a product of at most `r` indices and sizes over a small
denominator, in 64-bit `index` arithmetic: exact while those products fit, far
beyond any tape that fits in memory (lu's cubes for N up to 2**20).

A nest whose inner loop runs no iteration on some outer ones (`for i < n: for j =
i + 4 to 12`: extent `8 - i`, negative past `i = 8`, where Enzyme's cache is
sized `max(8 - i, 0)`, `lowering.enzyme.empty_loops`) has its entries in the
outer iterations `i < 8` alone when the extent falls as `i` grows: a prefix of
dimension 0. `tapeflow-raise-tape` records where that prefix ends with the ragged
extents, the attribute `tapeflow.ragged_clip`:

    tape.alloc(%n, %m) {tapeflow.ragged = affine_map<(d0, d1)[s0, s1] -> (s0, -d0 + 8)>,
                        tapeflow.ragged_clip = affine_map<()[s0, s1] -> (8, 1)>}

results `(r, c)`: the extent of dimension 1 is `r - c * d0` (`c > 0`), positive
exactly for `d0 < ceil(r / c)`. The extents stand as they are for every entry
(the outer iterations before an entry all have entries, so `offset` holds); the
count sums dimension 1's entries over `d0 < min(E_0, ceil(max(r, 0) / c))`
(`clipped_extent`), a value `tapeflow-pack-tapes` computes at run time where it is
not a constant.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir import Operation
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from lowering.ir.polynomials import Poly

RAGGED = "tapeflow.ragged"
"""The attribute of a `tape.alloc`/`region.alloc` that gives its ragged extents."""

RAGGED_CLIP = "tapeflow.ragged_clip"
"""The attribute of a ragged alloc whose dimension 0 has entries only in a prefix
(`clip_map`)."""

CLIPPED = "t0"
"""The variable of a clipped count: the outer iterations that have entries."""


class NotRagged(Exception):
    """A `tapeflow.ragged` attribute that does not describe a ragged space."""


def dim(m: int) -> str:
    return f"d{m}"


def sym(k: int) -> str:
    return f"s{k}"


def ragged_map(op: Operation) -> AffineMap | None:
    """The ragged extents recorded on an alloc, None if it has none; `NotRagged`
    if the attribute is malformed for this alloc."""
    attr = op.attributes.get(RAGGED)
    if attr is None:
        return None
    if not isinstance(attr, AffineMapAttr):
        raise NotRagged(f"'{RAGGED}' must be an affine_map, got {attr}")
    return attr.data


def clip_map(op: Operation) -> AffineMap | None:
    """The clip recorded on an alloc (`(r, c)` over its symbols), None if it has
    none; `NotRagged` if the attribute is malformed."""
    attr = op.attributes.get(RAGGED_CLIP)
    if attr is None:
        return None
    if (
        not isinstance(attr, AffineMapAttr)
        or attr.data.num_dims != 0
        or len(attr.data.results) != 2
        or not isinstance(attr.data.results[1], AffineConstantExpr)
        or attr.data.results[1].value <= 0
    ):
        raise NotRagged(
            f"'{RAGGED_CLIP}' must be an affine_map ()[..] -> (r, c), c > 0, got {attr}"
        )
    return attr.data


def clipped_extent(ragged: AffineMap, clip: AffineMap) -> tuple[Poly, Poly, int]:
    """`(E_0, r, c)`: the outer iterations that have entries are those below
    `min(E_0, ceil(max(r, 0) / c))`."""
    r, c = clip.results
    assert isinstance(c, AffineConstantExpr)
    return extents(ragged)[0], _poly(r), c.value


def _clipped_constant(ragged: AffineMap, clip: AffineMap) -> int | None:
    outer, r, c = clipped_extent(ragged, clip)
    e0, r0 = outer.constant(), r.constant()
    if e0 is None or r0 is None:
        return None
    return max(0, min(int(e0), -(-max(int(r0), 0) // c)))


def extents(ragged: AffineMap) -> list[Poly]:
    """Each dimension's extent as a polynomial over `d0 ..` and `s0 ..`; checks
    that an extent depends only on the dimensions outside it."""
    out = []
    for m, expr in enumerate(ragged.results):
        extent = _poly(expr)
        inner = [v for v in extent.variables() if v.startswith("d") and int(v[1:]) >= m]
        if inner:
            raise NotRagged(
                f"the extent of dimension {m} ({expr}) depends on {', '.join(sorted(inner))}: "
                "an extent may depend only on the dimensions before it"
            )
        out.append(extent)
    return out


def is_triangular(ragged: AffineMap) -> bool:
    """Some extent depends on an index (else the packed layout is row-major)."""
    return any(v.startswith("d") for e in extents(ragged) for v in e.variables())


def _sizes(ragged: AffineMap) -> list[Poly]:
    """`size_m` for m = 0 .. r: entries under a prefix of m indices."""
    bounds = extents(ragged)
    sizes = [Poly.const(1)]
    for m in reversed(range(len(bounds))):
        sizes.insert(0, sizes[0].substitute(dim(m), Poly.var("y")).sum_below("y", bounds[m]))
    return sizes


def count(ragged: AffineMap, clip: AffineMap | None = None) -> Poly:
    """Entries of the ragged space, over the symbols (and, with a clip not known
    before the run, `CLIPPED`: the outer iterations that have entries)."""
    sizes = _sizes(ragged)
    if clip is None:
        return sizes[0]
    known = _clipped_constant(ragged, clip)
    below = Poly.var(CLIPPED) if known is None else Poly.const(known)
    return sizes[1].substitute(dim(0), Poly.var("y")).sum_below("y", below)


def known_entries(op: Operation) -> int | None:
    """The entries of the ragged space an alloc records, if they are known before
    it runs: its extents functions of its outer indices alone (covariance's `j >=
    i` over constant bounds), not of its sizes; None otherwise."""
    ragged = ragged_map(op)
    entries = count(ragged, clip_map(op)).constant() if ragged is not None else None
    if entries is None or entries.denominator != 1 or entries < 0:
        return None
    return int(entries)


def offset(ragged: AffineMap) -> Poly:
    """The packed position of entry `(d0, ..)`, over the dimensions and symbols."""
    sizes = _sizes(ragged)
    total = Poly()
    for m in range(len(ragged.results)):
        inner = sizes[m + 1].substitute(dim(m), Poly.var("y"))
        total = total + inner.sum_below("y", Poly.var(dim(m)))
    return total


def _poly(expr: AffineExpr) -> Poly:
    if isinstance(expr, AffineConstantExpr):
        return Poly.const(expr.value)
    if isinstance(expr, AffineDimExpr):
        return Poly.var(dim(expr.position))
    if isinstance(expr, AffineSymExpr):
        return Poly.var(sym(expr.position))
    if isinstance(expr, AffineBinaryOpExpr):
        if expr.kind is AffineBinaryOpKind.Add:
            return _poly(expr.lhs) + _poly(expr.rhs)
        if expr.kind is AffineBinaryOpKind.Mul:
            return _poly(expr.lhs) * _poly(expr.rhs)
    raise NotRagged(f"a ragged extent must be a sum of multiples of indices and sizes, got {expr}")


def affine_expr(poly: Poly) -> AffineExpr:
    """An affine polynomial over `d..`/`s..` with integer coefficients as an
    affine expression."""
    out: AffineExpr = AffineExpr.constant(int(poly.terms.get((), 0)))
    for monomial, coefficient in sorted(poly.terms.items()):
        if not monomial:
            continue
        ((name, _),) = monomial
        atom = (
            AffineExpr.dimension(int(name[1:]))
            if name.startswith("d")
            else AffineExpr.symbol(int(name[1:]))
        )
        out = out + atom * int(coefficient)
    return out


__all__ = [
    "CLIPPED",
    "RAGGED",
    "RAGGED_CLIP",
    "NotRagged",
    "affine_expr",
    "clip_map",
    "clipped_extent",
    "count",
    "dim",
    "extents",
    "is_triangular",
    "offset",
    "ragged_map",
    "sym",
]
