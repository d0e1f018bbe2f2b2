"""
Loops of run-time trip count, for `tapeflow-layers`: the affine forms of their
bounds and indices, the symbolic proof that a REV loop mirrors its FWD loop for
every value of the bounds (`prove_run_time_mirror`), the tiling plans of the loops
so proven, and the regions that cannot be (`run_time_regions`: they stay in DRAM,
read through the cache).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

import numpy as np
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue

from lowering.ir.effects import INTEGER_DIVISIONS, is_effect_free
from lowering.ir.loops import constant_value, enclosing_loops, trip_count
from lowering.ir.ragged import known_entries
from lowering.ir.walk import walk_ops
from lowering.layers.layout import TileLayout, tile_layout
from lowering.layers.records import region_name
from tapeflow_dialects import region
from tapeflow_dialects.layer import ENTRY_BYTES


def run_time_regions(
    function: func.FuncOp,
    plans: dict[scf.ForOp, RunTimePlan] | None = None,
    reasons: dict[SSAValue, str] | None = None,
    proven: set[SSAValue] | None = None,
) -> dict[SSAValue, str]:
    """
    The regions this pass leaves unlayered because a trip count they depend on is
    known only at run time, their loops could not be strip-mined and REV could not
    be proven to mirror FWD (`proven`: cut into pieces of one iteration), with the
    reason (`reasons`, from `run_time_tiling_plans`): a region of `?` extents, or
    one accessed inside a loop whose bounds are not constants.

    The proof that REV mirrors FWD for constant trip counts (`_mirror_error`)
    evaluates every index over the loops' iteration spaces, which needs their trip
    counts. Where they are run-time values and the symbolic proof fails, the region
    stays a correct DRAM region, read through the cache (the pipeline never rejects
    a gradient Enzyme produced); the report (`stats=true`) says which and why.
    """
    found: dict[SSAValue, str] = {}
    planned = {r for plan in (plans or {}).values() for r in plan.regions}
    # Whether a loop around an op has a run-time trip count, by the op's block
    # (the loops around it): a fully unrolled body holds thousands of accesses
    # in one block.
    run_time_blocks: dict[Block | None, bool] = {}
    for op in walk_ops(function):
        if not isinstance(op, region.StoreOp | region.LoadOp) or op.region in found:
            continue
        if op.region in planned or op.region in (proven or set()):
            continue  # strip-mined with a run-time number of tiles, or in pieces
        region_type = op.region.type
        assert isinstance(region_type, region.RegionType)
        block = op.parent_block()
        if block not in run_time_blocks:
            run_time_blocks[block] = any(
                trip_count(loop) is None for loop in enclosing_loops(op, function)
            )
        run_time = not region_type.is_static() or run_time_blocks[block]
        if run_time:
            found[op.region] = (reasons or {}).get(
                op.region, "its loops could not be strip-mined with a run-time number of tiles"
            )
    return found


class _NotAffine(Exception):
    pass


Form = dict[object, int]
"""An affine index expression: coefficient per atom (an induction variable, a
value defined outside the loops, a `TapeValue`, or 1 for the constant term)."""


@dataclass(frozen=True)
class TapeValue:
    """An atom standing for the value of one tape element: slot `slot` of `region`
    at `indices` (each an affine form, frozen). FWD's value stored there and REV's
    load of it are the same atom when their indices agree (at mirrored
    iterations): a loop bound Enzyme cached on the tape (the row pointers of a
    sparse matrix) is then an atom of both nests' forms."""

    region: SSAValue
    slot: int
    indices: tuple[frozenset[tuple[object, int]], ...]

    def forms(self) -> list[Form]:
        return [dict(index) for index in self.indices]


@dataclass(frozen=True)
class IndexOp:
    """An atom standing for an integer op of affine operands the forms cannot
    express (`max`, `min`, a product of two variables, a division, a comparison, a
    select, an unsigned extension or a truncation), or for any other
    side-effect-free `arith` or `math` op of one result whose operands are forms
    (a float op of tape values, a float constant: a trip count computed from data
    as `fptosi(|v| * r) + 1`, REV recomputing it from the cached `v`): `name` of
    the op (with a comparison's predicate, a constant's value) and its operands'
    frozen forms, in a set where the op commutes. The same op of equal operands in
    FWD and REV (a band's bounds `max(1, i - w)`, recomputed by REV at the
    mirrored iteration) is the same atom: such ops are deterministic functions of
    their operands, given their `signature` (properties such as a float op's
    `fastmath`, operand and result types: `trunci` to `i8` is not `trunci` to
    `i16` of the same operand, and forms do not tell an integer's width)."""

    name: str
    operands: tuple[frozenset[tuple[object, int]], ...] | frozenset[frozenset[tuple[object, int]]]
    signature: tuple[object, ...] = ()

    def forms(self) -> list[Form]:
        return [dict(operand) for operand in self.operands]

    def substituted(self, sigma: dict[SSAValue, Form]) -> IndexOp:
        operands = (frozenset(_substitute(f, sigma).items()) for f in self.forms())
        if isinstance(self.operands, frozenset):
            return IndexOp(self.name, frozenset(operands), self.signature)
        return IndexOp(self.name, tuple(operands), self.signature)


_COMMUTING = (arith.MaxSIOp, arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp, arith.MuliOp)
_OPAQUE = (
    *_COMMUTING,
    *INTEGER_DIVISIONS,
    arith.CmpiOp,
    arith.SelectOp,
    arith.ExtUIOp,
    arith.TruncIOp,
)


_FLOAT_COMMUTING = (arith.AddfOp, arith.MulfOp, arith.MaximumfOp, arith.MinimumfOp)


def _opaque(op: Operation) -> bool:
    """Whether `op` is an atom of the forms (`IndexOp`)."""
    if isinstance(op, _OPAQUE):
        return True
    return (
        op.name.split(".")[0] in ("arith", "math")
        and len(op.results) == 1
        and not op.regions
        and is_effect_free(op)
    )


def _index_op(op: Operation, ivs: set[SSAValue], inside: Operation | None) -> IndexOp:
    """The atom of `op` (a comparison's predicate, a constant's value are part of
    its name)."""
    operands = [frozenset(affine_form(o, ivs, inside).items()) for o in op.operands]
    name = op.name
    if isinstance(op, arith.CmpiOp | arith.CmpfOp):
        name = f"{op.name} {op.predicate.value.data}"
    elif isinstance(op, arith.ConstantOp):
        name = f"{op.name} {op.value}"
    signature = (
        tuple(sorted(op.properties.items(), key=lambda item: item[0])),
        tuple(op.operand_types),
        tuple(op.result_types),
    )
    if isinstance(op, (*_COMMUTING, *_FLOAT_COMMUTING)):
        return IndexOp(name, frozenset(operands), signature)
    return IndexOp(name, tuple(operands), signature)


def _bits(kind: Attribute) -> int | None:
    """The width of an integer type (`index`: 64, as lowered), else None."""
    if isinstance(kind, IndexType):
        return 64
    return kind.width.data if isinstance(kind, IntegerType) else None


def _tape_value(value: SSAValue, ivs: set[SSAValue], inside: Operation) -> TapeValue | None:
    """The tape element `value` is: REV's `region.load` of it, or FWD's value
    stored to a region in the loop body that defines it (a loop of the nest whose
    induction variables are `ivs`), once per iteration of the loops around it."""
    if isinstance(value, OpResult) and isinstance(value.op, region.LoadOp):
        load = value.op
        return TapeValue(load.region, load.loaded_id, _frozen(load.indices, ivs, inside))
    stores = [
        use.operation
        for use in value.uses
        if isinstance(use.operation, region.StoreOp) and use.operation.value == value
    ]
    if len(stores) != 1 or not isinstance(value, OpResult):
        return None
    (store,) = stores
    # The loop body holding the store, through branches: a store under an
    # `scf.if` runs at most once per iteration, and the value, defined in the
    # branch's block, is used only where the branch runs and has stored it (a
    # row pointer loaded inside a group mask's branch, bounding the row's loop).
    holder = store.parent_op()
    while isinstance(holder, scf.IfOp):
        holder = holder.parent_op()
    if (
        store.parent_block() is not value.op.parent_block()
        or not isinstance(holder, scf.ForOp)
        or holder.body.block.args[0] not in ivs
    ):
        return None
    assert isinstance(inside, scf.ForOp)
    loops = (inside, *enclosing_loops(store, inside))
    forms = [affine_form(i, ivs, inside) for i in store.indices]
    if not _injective(forms, [loop.body.block.args[0] for loop in loops]):
        return None
    return TapeValue(store.region, store.store_id, tuple(frozenset(f.items()) for f in forms))


def _injective(forms: Sequence[Form], ivs: Sequence[SSAValue]) -> bool:
    """Whether the indices `forms` name a different element at every iteration of
    the loops of `ivs` (outermost first). Without tape values: the coefficients
    have full column rank. With them (functions of the iterations whose indices
    they mention): level by level, outermost first, some index has a nonzero
    coefficient for that level's variable and otherwise depends on outer levels
    only (an atom of that variable, `k - floor(k / 2)`, may repeat values), so
    equal indices mean equal variables."""
    if not any(isinstance(atom, TapeValue | IndexOp) for form in forms for atom in form):
        columns = np.array([[form.get(iv, 0) for iv in ivs] for form in forms], dtype=float)
        return np.linalg.matrix_rank(columns.reshape(-1, len(ivs))) == len(ivs)
    known: set[SSAValue] = set()
    for iv in ivs:
        if not any(
            form.get(iv, 0)
            and all(atom is iv or _mentions(atom) & set(ivs) <= known for atom in form)
            for form in forms
        ):
            return False
        known.add(iv)
    return True


def _mentions(atom: object) -> set[SSAValue]:
    """The values an atom of a form depends on, through tape values' indices
    (symbols count: they are fixed while the loops run)."""
    if isinstance(atom, TapeValue | IndexOp):
        return {m for form in atom.forms() for a in form for m in _mentions(a)}
    return {atom} if isinstance(atom, SSAValue) else set()


def _frozen(
    indices: Sequence[SSAValue], ivs: set[SSAValue], inside: Operation
) -> tuple[frozenset[tuple[object, int]], ...]:
    return tuple(frozenset(affine_form(i, ivs, inside).items()) for i in indices)


def affine_form(value: SSAValue, ivs: set[SSAValue], inside: Operation | None) -> Form:
    """`value` as an exact affine form over the induction variables `ivs` and the
    values defined outside `inside` (symbols: arguments such as the bound `%n`),
    through `arith.constant/addi/subi/muli` (by a constant) and the casts that keep
    the integer (`index_cast` that does not narrow, `extsi`); a value of the loops
    that is not is an atom where it is an index op of such forms (`IndexOp`) or a
    tape element (`TapeValue`); `_NotAffine` else."""
    try:
        return _decomposed(value, ivs, inside)
    except _NotAffine:
        # A value the forms cannot follow (a trip count computed from data:
        # `fptosi` of a float, plus 1) that FWD caches on the tape itself, once
        # per iteration, is the tape element it is stored as: REV's load of it at
        # the mirrored index is the same atom.
        atom = _tape_value(value, ivs, inside) if _within(value, inside) else None
        if atom is None:
            raise
        assert inside is not None
        return {atom: 1}


def _decomposed(value: SSAValue, ivs: set[SSAValue], inside: Operation | None) -> Form:
    """`affine_form` through the integer ops themselves (`_NotAffine` where
    they do not lead to induction variables, symbols, index ops or tape
    elements)."""
    if value in ivs:
        return {value: 1}
    constant = constant_value(value)
    if constant is not None:
        # No zero coefficients: a form is a normal form, `{}` the zero, so that
        # `max(i - w, 0)` in REV equals FWD's after substitution (which drops them).
        return {1: constant} if constant else {}
    if isinstance(value, OpResult):
        op = value.op
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp):
            wide, narrow = _bits(op.result.type), _bits(op.input.type)
            if wide is not None and narrow is not None and wide >= narrow:
                return affine_form(op.input, ivs, inside)  # the same integer
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            left = affine_form(op.lhs, ivs, inside)
            right = affine_form(op.rhs, ivs, inside)
            return _combine(left, right, 1 if isinstance(op, arith.AddiOp) else -1)
        if isinstance(op, arith.MuliOp):
            left = affine_form(op.lhs, ivs, inside)
            right = affine_form(op.rhs, ivs, inside)
            if set(left) <= {1}:
                return _scale(right, left.get(1, 0))
            if set(right) <= {1}:
                return _scale(left, right.get(1, 0))
        if _opaque(op) and _within(value, inside):
            return {_index_op(op, ivs, inside): 1}
    if _within(value, inside):
        assert inside is not None
        atom = _tape_value(value, ivs, inside)
        if atom is None:
            raise _NotAffine("a value of the loop that is not an index expression")
        return {atom: 1}
    return {value: 1}  # a symbol: fixed while the loops run


def _within(value: SSAValue, inside: Operation | None) -> bool:
    """`value` is defined inside `inside` (a value of the loops, not a symbol)."""
    if inside is None:
        return False
    owner = value.owner
    parent = owner if isinstance(owner, Operation) else owner.parent_op()
    return parent is not None and inside.is_ancestor(parent)


def _combine(a: Form, b: Form, sign: int) -> Form:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    return {k: v for k, v in out.items() if v}


def _scale(a: Form, factor: int) -> Form:
    return {k: v * factor for k, v in a.items() if v * factor}


_CANDIDATES = 16
"""The most affine forms a bound's `min`/`max` clamps are expanded into."""


def trip_bound(loop: scf.ForOp, function: Operation) -> int | None:
    """
    A constant upper bound on the trip count of `loop`, for every run, proven from
    the IR; its trip count where that is a constant; None where no bound is proven.

    The trip count is `ceildiv(ub - lb, step)` (none below 0) with a constant
    step of 1 or more; a loop of a variable, zero or negative step gets no bound.
    `ub` is at most each operand of a signed `min` it is (`arith.minsi`), and `lb`
    at least each operand of a signed `max` (`arith.maxsi`), through sums and
    differences (`ub - lb` of `a + b` is bounded by the bounds of `a` and `b`).
    Each pair of such affine forms bounds `ub - lb`: a constant where the loops'
    indices cancel (a band's `min(n, i + w + 1) - max(1, i - w)` is at most `2w +
    1`), else its largest value over the enclosing loops of constant bounds
    (`j < i` in `i < n`: at most `n - 1`, constant steps of 1 or more). A form
    that keeps a value fixed while the loops run (an argument `%n`) or a value
    computed in them (a tape element, a quotient) has no largest value: it bounds
    nothing. The bound is the smallest of the pairs'.
    """
    step = constant_value(loop.step)
    if step is None or step < 1:
        return None
    exact = trip_count(loop)
    if exact is not None:
        return exact
    outer = enclosing_loops(loop, function)
    ivs = {each.body.block.args[0] for each in outer}
    inside = outer[0] if outer else None
    ranges: dict[SSAValue, tuple[int, int]] = {}
    for each in outer:
        trips, first = trip_count(each), constant_value(each.lb)
        each_step = constant_value(each.step)
        if trips and first is not None and each_step is not None:
            ranges[each.body.block.args[0]] = (first, first + (trips - 1) * each_step)
    try:
        uppers = _clamped(loop.ub, ivs, inside, upper=True)
        lowers = _clamped(loop.lb, ivs, inside, upper=False)
    except _NotAffine:
        return None
    best: int | None = None
    for u in uppers:
        for low in lowers:
            most = _largest(_combine(u, low, -1), ranges)
            if most is not None and (best is None or most < best):
                best = most
    if best is None:
        return None
    return max(0, -(-best // step))


def _clamped(
    value: SSAValue, ivs: set[SSAValue], inside: Operation | None, upper: bool
) -> list[Form]:
    """Affine forms each at least (`upper`) or at most `value`: the operands of a
    signed `min` (`upper`) or `max` (else), through sums and differences; the
    value's own form otherwise (`affine_form`)."""
    if isinstance(value, OpResult):
        op = value.op
        if isinstance(op, arith.MinSIOp if upper else arith.MaxSIOp):
            found = [f for each in op.operands for f in _clamped(each, ivs, inside, upper)]
            return found[:_CANDIDATES]
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            sign = 1 if isinstance(op, arith.AddiOp) else -1
            left = _clamped(op.lhs, ivs, inside, upper)
            right = _clamped(op.rhs, ivs, inside, upper if sign == 1 else not upper)
            return [_combine(a, b, sign) for a in left for b in right][:_CANDIDATES]
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp):
            return _clamped(op.input, ivs, inside, upper)
    return [affine_form(value, ivs, inside)]


def _largest(form: Form, ranges: dict[SSAValue, tuple[int, int]]) -> int | None:
    """The largest value of `form` over the induction variables' `ranges` (first
    and last values), None where it has another atom."""
    most = 0
    for atom, coefficient in form.items():
        if atom == 1:
            most += coefficient
        elif isinstance(atom, SSAValue) and atom in ranges:
            most += max(coefficient * end for end in ranges[atom])
        else:
            return None
    return most


@dataclass(frozen=True)
class RunTimePlan:
    """A FWD loop of run-time trip count (or a constant loop inside one), its REV
    mirror, and the regions they carry, proven to mirror for every trip count
    (`prove_run_time_mirror`)."""

    regions: tuple[SSAValue, ...]
    fwd: scf.ForOp
    rev: scf.ForOp
    stores: tuple[region.StoreOp, ...]
    loads: tuple[region.LoadOp, ...]
    layout: TileLayout
    """Where each iteration's values go in the tile (`lowering.layers.layout`)."""
    bounds: tuple[tuple[scf.ForOp, int], ...] = ()
    """The loops of run-time trip count inside `fwd` and `rev` (FWD's, then
    REV's mirror), each with the bound on its trip count (`trip_bound`) that the
    layout gives rows for."""


@dataclass(frozen=True)
class MirrorProof:
    """A region whose REV nest mirrors its FWD nest for all values of the bounds."""

    region: SSAValue
    fwd_nest: tuple[scf.ForOp, ...]
    rev_nest: tuple[scf.ForOp, ...]
    stores: tuple[region.StoreOp, ...]
    loads: tuple[region.LoadOp, ...]
    depth: int
    """The innermost loop of run-time trip count; the loops inside it have
    constant trip counts, the same in REV."""


def run_time_tiling_plans(
    function: func.FuncOp,
    entries: int,
    kept: set[SSAValue] | None = None,
    loop_entries: int | None = None,
) -> tuple[dict[scf.ForOp, RunTimePlan], dict[SSAValue, str], set[SSAValue]]:
    """
    The FWD loops that can be strip-mined with a run-time number of tiles, by FWD
    loop, why the other regions of run-time trip counts cannot be, and the regions
    proven mirrored (`prove_run_time_mirror`), strip-mined or not: those that are
    not are cut into pieces of one iteration (their REV loads mirror their FWD
    stores iteration by iteration, so the pieces' tiles form a stack). A loop is
    strip-mined with every region it stores to (besides those in `kept`): their
    values share its tiles. The loop is the innermost of run-time trip count
    around their stores, or, where one of its iterations stores more than a tile
    of `entries` holds, the constant loop inside it whose iteration fits (as the
    constant-trip tiler descends). Where the innermost loop of run-time trip
    count has a constant bound, the loop around it is strip-mined instead if a
    loop's tile (`loop_entries`, else `entries`) holds two of its iterations at
    that bound (`_bounded_plan`).
    """
    kept = kept or set()
    stores_of: dict[SSAValue, list[region.StoreOp]] = {}
    loads_of: dict[SSAValue, list[region.LoadOp]] = {}
    for op in walk_ops(function):
        if isinstance(op, region.StoreOp) and op.region not in kept:
            stores_of.setdefault(op.region, []).append(op)
        elif isinstance(op, region.LoadOp) and op.region not in kept:
            loads_of.setdefault(op.region, []).append(op)
    proofs: dict[SSAValue, MirrorProof] = {}
    reasons: dict[SSAValue, str] = {}
    for target, stores in stores_of.items():
        proof = prove_run_time_mirror(function, target, stores, loads_of.get(target, []))
        if isinstance(proof, MirrorProof):
            proofs[target] = proof
        else:
            reasons[target] = proof
    plans: dict[scf.ForOp, RunTimePlan] = {}
    for target, proof in proofs.items():
        if any(target in plan.regions for plan in plans.values()):
            continue
        reason = "one iteration of its innermost loop stores more values than a tile holds"
        bounded = _bounded_plan(function, proofs, proof, entries, loop_entries, kept, plans)
        if bounded is not None:
            plans[bounded.fwd] = bounded
            continue
        for level in range(proof.depth, len(proof.fwd_nest)):
            found = _plan_at(proofs, proof, level, entries, kept, plans)
            if isinstance(found, RunTimePlan):
                plans[found.fwd] = found
                break
            if found is not None:
                reason = found
                break
        if not any(target in plan.regions for plan in plans.values()):
            reasons[target] = reason
    return plans, reasons, set(proofs)


def _bounded_plan(
    function: func.FuncOp,
    proofs: dict[SSAValue, MirrorProof],
    proof: MirrorProof,
    entries: int,
    loop_entries: int | None,
    kept: set[SSAValue],
    plans: dict[scf.ForOp, RunTimePlan],
) -> RunTimePlan | None:
    """A plan strip-mining the loop around the region's innermost loop of run-time
    trip count, where that count has a constant bound (`trip_bound`: a band's
    clamps, a triangle in a loop of constant bounds): each of its iterations takes
    the tile rows of the bound's inner iterations, the shorter runs leaving the
    rest empty, and a tile holds as many of them as fit (two at least, else the
    inner loop is strip-mined on its own). None where there is no bound or no
    such tile."""
    if proof.depth == 0:
        return None
    inner_fwd, inner_rev = proof.fwd_nest[proof.depth], proof.rev_nest[proof.depth]
    bound = trip_bound(inner_fwd, function)
    if not bound or trip_bound(inner_rev, function) is None:
        return None
    bounds = ((inner_fwd, bound), (inner_rev, bound))
    found = _plan_at(proofs, proof, proof.depth - 1, entries, kept, plans, bounds)
    if not isinstance(found, RunTimePlan):
        return None
    per_iteration = found.layout.entries_per_iteration
    trip = trip_count(found.fwd)
    if (loop_entries or entries) // per_iteration < 2 or (trip is not None and trip < 2):
        return None
    reserved = [_reserved_bytes(r) for r in found.regions]
    runs = [trip_count(each) for each in (*enclosing_loops(found.fwd, function), found.fwd)]
    if all(size is not None for size in reserved) and (
        any(each is None for each in runs)
        or prod(each or 0 for each in runs) * per_iteration * ENTRY_BYTES
        > sum(s for s in reserved if s)
    ):
        # The regions' stream tape is reserved at their size (a static shape, a
        # packed triangle's entries), which has no room for the tiles' empty rows.
        return None
    return found


def _reserved_bytes(handle: SSAValue) -> int | None:
    """The bytes `tapeflow-streams` reserves for a region's tape where it knows
    them before the region is filled: a static shape's, or a packed triangle's
    entries (`lowering.ir.ragged.known_entries`); None for a tape that grows."""
    kind = handle.type
    assert isinstance(kind, region.RegionType)
    if kind.is_static():
        return kind.size_bytes()
    alloc = handle.owner
    entries = known_entries(alloc) if isinstance(alloc, Operation) else None
    return None if entries is None else entries * kind.struct_bytes()


def _plan_at(
    proofs: dict[SSAValue, MirrorProof],
    proof: MirrorProof,
    level: int,
    entries: int,
    kept: set[SSAValue],
    plans: dict[scf.ForOp, RunTimePlan],
    bounds: tuple[tuple[scf.ForOp, int], ...] = (),
) -> RunTimePlan | str | None:
    """A plan strip-mining the loop at `level` of the region's nest with every
    region it holds; None if one iteration does not fit a tile (a loop inside it
    may), or why it cannot be. `bounds`: the loops of run-time trip count inside
    it, with the bounds their rows are laid out for (`_bounded_plan`)."""
    fwd, rev = proof.fwd_nest[level], proof.rev_nest[level]
    members: list[SSAValue] = []
    for loop in (fwd, rev):
        for op in walk_ops(loop):
            if isinstance(op, region.StoreOp | region.LoadOp) and op.region not in kept:
                if op.region not in members:
                    members.append(op.region)
    for other in members:
        mine = proofs.get(other)
        name = region_name(other)
        if mine is None:
            return f"its loop also holds region {name}, which could not be proven mirrored"
        if any(other in plan.regions for plan in plans.values()):
            return f"its loop also holds region {name}, strip-mined in a loop inside it"
        if (
            mine.fwd_nest[: level + 1] != proof.fwd_nest[: level + 1]
            or mine.rev_nest[: level + 1] != proof.rev_nest[: level + 1]
        ):
            return f"its loop also holds region {name}, which REV reads in other loops"
        if mine.depth > level and not (
            mine.depth == level + 1
            and (mine.fwd_nest[mine.depth], mine.rev_nest[mine.depth])
            == tuple(loop for loop, _ in bounds)
        ):
            return (
                f"its loop also holds region {name}, stored in a loop of run-time trip "
                "count inside it"
            )
    stores = tuple(
        o for o in walk_ops(fwd) if isinstance(o, region.StoreOp) and o.region in members
    )
    loads = tuple(o for o in walk_ops(rev) if isinstance(o, region.LoadOp) and o.region in members)
    layout = tile_layout(stores, fwd, dict(bounds))
    if layout.entries_per_iteration > entries:
        return None
    return RunTimePlan(tuple(members), fwd, rev, stores, loads, layout, bounds)


def prove_run_time_mirror(
    function: func.FuncOp,
    target: SSAValue,
    stores: list[region.StoreOp],
    loads: list[region.LoadOp],
) -> MirrorProof | str:
    """
    A proof if the region's tape is written directly in the body of one FWD loop
    `F_d` of a nest `F_0 .. F_d` (each with a constant lower bound and step 1;
    one at least with a trip count known only at run time, those inside the
    innermost such loop constant) and read directly in the body of one REV loop
    `R_d` of a nest `R_0 .. R_d` of the same shape, and if REV reads, for all
    values of the bounds, exactly what the mirrored FWD iteration wrote; else why
    not.

    The proof is symbolic. Every index and bound is an exact affine form over the
    induction variables and the values fixed while the loops run (arguments such
    as `%n`). Mirroring means FWD iteration `F_k.iv = ub_k - 1 - (R_k.iv - lb_k)`
    at every level, `ub_k` being FWD's upper bound at that iteration: that is the
    substitution `sigma`, applied outermost first (a triangular nest's `ub_k`
    depends on the outer induction variables). Then, as identities of forms: each
    REV upper bound equals `sigma(ub_k)` (the same trip counts), and each REV
    index equals `sigma` of its store's index (the same element). FWD must write
    each element once: the indices, as a linear map of the induction variables,
    have full column rank. Anything else gets no proof: the region stays on the
    cache path.
    """
    if not loads:
        return "REV reads none of its values"
    fwd_nest = enclosing_loops(stores[0], function)
    rev_nest = enclosing_loops(loads[0], function)
    if not fwd_nest or len(fwd_nest) != len(rev_nest) or any(r in fwd_nest for r in rev_nest):
        return "REV reads it in a loop nest of another depth than FWD writes it"
    if any(enclosing_loops(st, function) != fwd_nest for st in stores) or any(
        enclosing_loops(each, function) != rev_nest for each in loads
    ):
        return "its values are written or read in several loop nests"
    if any(st.parent_op() is not fwd_nest[-1] for st in stores) or any(
        each.parent_op() is not rev_nest[-1] for each in loads
    ):
        return "its values are written or read under a branch of a loop of run-time trip count"
    depth = max((k for k, each in enumerate(fwd_nest) if trip_count(each) is None), default=None)
    if depth is None:
        return "its loops have constant trip counts"
    inner_trips = [trip_count(each) for each in fwd_nest[depth + 1 :]]
    if [trip_count(each) for each in rev_nest[depth + 1 :]] != inner_trips:
        return "REV's inner loops run other trip counts than FWD's"
    if any(constant_value(each.step) != 1 for each in (*fwd_nest, *rev_nest)):
        return "a loop around its accesses has a step other than 1"
    by_id = {st.store_id: st for st in stores}
    if len(by_id) != len(stores) or {each.loaded_id for each in loads} - set(by_id):
        return "REV reads a value no store of its loop writes"
    try:
        f_ivs = [each.body.block.args[0] for each in fwd_nest]
        r_ivs = [each.body.block.args[0] for each in rev_nest]
        sigma: dict[SSAValue, Form] = {}
        for k, (f_loop, r_loop) in enumerate(zip(fwd_nest, rev_nest, strict=True)):
            upper = _substitute(affine_form(f_loop.ub, set(f_ivs), fwd_nest[0]), sigma)
            lower = _substitute(affine_form(f_loop.lb, set(f_ivs), fwd_nest[0]), sigma)
            r_upper = affine_form(r_loop.ub, set(r_ivs), rev_nest[0])
            r_lower = affine_form(r_loop.lb, set(r_ivs), rev_nest[0])
            if _combine(r_upper, r_lower, -1) != _combine(upper, lower, -1):
                return "REV's loops do not run FWD's trip counts at mirrored iterations"
            # FWD iteration T-1-u, u = R_k.iv - rlb_k: F_k.iv = ub_k - 1 - R_k.iv + rlb_k
            sigma[f_ivs[k]] = _combine(_combine(upper, {r_ivs[k]: 1, 1: 1}, -1), r_lower, 1)
        for load in loads:
            store = by_id[load.loaded_id]
            forms = []
            for f_index, g_index in zip(store.indices, load.indices, strict=True):
                f = affine_form(f_index, set(f_ivs), fwd_nest[0])
                g = affine_form(g_index, set(r_ivs), rev_nest[0])
                if _substitute(f, sigma) != g:
                    return "REV does not read the elements in the inverse order FWD wrote them"
                forms.append(f)
            if not _injective(forms, f_ivs):
                return "FWD may write some tape element more than once"
    except _NotAffine as err:
        return f"an index or bound is not an affine form of the loops' indices ({err})"
    return MirrorProof(target, fwd_nest, rev_nest, tuple(stores), tuple(loads), depth)


def _substitute(form: Form, sigma: dict[SSAValue, Form]) -> Form:
    """`form` with each atom in `sigma` replaced by its form."""
    out: Form = {}
    for atom, coefficient in form.items():
        if isinstance(atom, TapeValue):
            atom = TapeValue(
                atom.region,
                atom.slot,
                tuple(frozenset(_substitute(f, sigma).items()) for f in atom.forms()),
            )
        elif isinstance(atom, IndexOp):
            atom = atom.substituted(sigma)
        replacement = sigma.get(atom) if isinstance(atom, SSAValue) else None
        out = _combine(
            out,
            _scale(replacement, coefficient) if replacement is not None else {atom: coefficient},
            1,
        )
    return out
