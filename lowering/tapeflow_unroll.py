"""
`tapeflow-unroll{factor=U}`: unroll the tape-carrying inner loops of the gradient,
FWD and REV alike, to widen the layers.

The paper's layer graphs are compiler defined: a low unroll factor gives a deep
graph of narrow layers, a high one a shallow graph of wide layers; this pass is
the knob. In every gradient function (`tapeflow.gradient_of`), each innermost
`scf.for` that holds a tape or region store or load, and whose bounds and step
are constants, becomes `U` copies of its body per iteration: copy `k` sees the
induction variable `iv + k*step`, the iter_args flow from copy to copy, and the
step is multiplied by `U`.

- The sweeps are unrolled consistently: the loops linked through a tape form a
  group, unrolled by the largest divisor of the gcd of their trip counts that
  does not exceed `factor`. A group that also reaches a tape op outside any
  unrollable loop, and loops with non-constant bounds, are left alone.
- The FWD-to-REV map survives: copy `k > 0` of store `N` gets a fresh id (copy 0
  keeps `N`), and each load copy names the store copy that wrote the elements it
  reads, computed by evaluating the index expressions over the iteration spaces.
  A load copy that would read elements of several store copies (or indices the
  evaluator cannot follow) stops the pass with an error naming the loop.

The pass takes a module at the tape or region stage (`lowering.ir.stages`). The
paper's sections and the matching of store copies: docs/research/loop-rewrites.md,
"Unrolling the tape loops".
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from math import gcd, prod

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin, func, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.facts import record_unroll_factors
from lowering.ir.gradients import require_gradients
from lowering.ir.index_eval import (
    Bounds,
    CannotEvaluate,
    IndexEvaluator,
    loop_name,
    static_bounds,
)
from lowering.ir.loops import enclosing_loops
from lowering.ir.stages import Stage, require_stages
from lowering.ir.unrolling import divisor_factor, unroll_loop
from lowering.ir.walk import walk_ops
from tapeflow_dialects import region, tape
from tapeflow_dialects.locations import location_of

PASS = "tapeflow-unroll"

TapeStore = tape.StoreOp | region.StoreOp
TapeLoad = tape.LoadOp | region.LoadOp
TapeAccess = TapeStore | TapeLoad


def _shape(op: TapeAccess) -> tuple[int, ...]:
    container_type = op.container.type
    assert isinstance(container_type, tape.TapeType | region.RegionType)
    return container_type.get_shape()


def _function_of(op: Operation) -> Operation | None:
    current = op.parent_op()
    while current is not None and not isinstance(current, func.FuncOp):
        current = current.parent_op()
    return current


# --- which copy of a store wrote each element -------------------------------------


@dataclass
class _Points:
    """Every execution of a tape op: the element it touches and its copy number."""

    flat: np.ndarray
    """Flattened element index per point (-1: outside the container)."""
    copy: np.ndarray
    """Which copy of the unrolled loop body executes the point."""


MAX_UNROLL = 1024
"""The largest factor the tools take: beyond it the unrolled IR explodes."""


def _points(op: TapeAccess, unrolled: scf.ForOp | None, factor: int) -> _Points:
    """
    Evaluate the indices of `op` at every iteration of the loops around it (only the
    loops the indices depend on get an axis; the others just repeat the points).
    Iteration `i` of `unrolled` belongs to body copy `i mod factor`.
    """
    evaluator = IndexEvaluator(enclosing_loops(op, _function_of(op)))
    indices = [evaluator.value(i) for i in op.indices]
    if unrolled is not None and factor > 1:
        b = evaluator.bounds(unrolled)
        copy = evaluator.along(unrolled, np.arange(b.trips, dtype=np.int64) % factor)
    else:
        copy = np.zeros((), dtype=np.int64)
    *indices, copy = np.broadcast_arrays(*indices, copy)
    shape = _shape(op)
    stacked = (
        np.stack([i.reshape(-1) for i in indices])
        if indices
        else np.zeros((0, copy.size), np.int64)
    )
    inside = np.all((stacked >= 0) & (stacked < np.array(shape, np.int64)[:, None]), axis=0)
    flat = np.full(copy.size, -1, dtype=np.int64)
    if indices:
        flat[inside] = np.ravel_multi_index(tuple(stacked[:, inside]), shape)
    else:
        flat[:] = 0
    return _Points(flat, copy.reshape(-1))


_UNWRITTEN = -1
_CONFLICT = -2


def _writer_map(store: TapeStore, unrolled: scf.ForOp | None, factor: int) -> np.ndarray:
    """For each element of the container: the store copy that writes it."""
    points = _points(store, unrolled, factor)
    writer = np.full(prod(_shape(store)), _UNWRITTEN, dtype=np.int64)
    ok = points.flat >= 0
    flat, copy = points.flat[ok], points.copy[ok]
    writer[flat] = copy
    writer[flat[writer[flat] != copy]] = _CONFLICT
    return writer


# --- the pass --------------------------------------------------------------------


@dataclass
class _Group:
    """Loops linked through tapes, unrolled by one factor."""

    loops: list[scf.ForOp]
    pinned: bool = False
    """A tape op of the group is outside any unrollable loop."""

    def factor(self, bounds: dict[scf.ForOp, Bounds], requested: int) -> int:
        if self.pinned:
            return 1
        common = 0
        for loop in self.loops:
            common = gcd(common, bounds[loop].trips)
        return divisor_factor(common, requested)


@dataclass
class UnrollReport:
    """What the pass did to one gradient function."""

    function: str
    factors: list[int] = field(default_factory=list)
    """The factor of every unrolled loop, in program order."""

    def summary(self) -> str:
        n = len(self.factors)
        text = f"@{self.function}: {n} loop{'' if n == 1 else 's'} unrolled"
        if self.factors:
            label = "factor" if n == 1 else "factors"
            text += f" ({label} {', '.join(str(f) for f in self.factors)})"
        return text


def _is_tape_access(op: Operation) -> bool:
    return isinstance(op, TapeStore | TapeLoad)


def _innermost_loop(op: Operation) -> scf.ForOp | None:
    current = op.parent_op()
    while current is not None and not isinstance(current, func.FuncOp):
        if isinstance(current, scf.ForOp):
            return current
        current = current.parent_op()
    return None


def _candidate_loops(function: func.FuncOp) -> dict[scf.ForOp, Bounds]:
    """Innermost scf.for ops with a tape op inside and constant bounds."""
    found: dict[scf.ForOp, Bounds] = {}
    for loop in walk_ops(function):
        if not isinstance(loop, scf.ForOp):
            continue
        inner = list(walk_ops(loop.body))
        if any(isinstance(op, scf.ForOp) for op in inner):
            continue
        if not any(_is_tape_access(op) for op in inner):
            continue
        if _in_run_time_nest(loop, inner):
            continue
        bounds = static_bounds(loop)
        if bounds is not None and bounds.trips > 0:
            found[loop] = bounds
    return found


def _in_run_time_nest(loop: scf.ForOp, body_ops: list[Operation]) -> bool:
    """A loop whose tape pairing cannot be evaluated: inside a loop whose trip
    count is known only at run time, or touching a container of `?` extents.
    Such loops are left rolled (the pairing of copies needs every trip count)."""
    for op in body_ops:
        if _is_tape_access(op) and any(d < 0 for d in _shape(op)):
            return True
    parent = loop.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, scf.ForOp) and static_bounds(parent) is None:
            return True
        parent = parent.parent_op()
    return False


def _named_store(load: TapeLoad, function: str) -> TapeStore:
    container = load.container
    for use in container.uses:
        user = use.operation
        if isinstance(user, TapeStore) and use.index == 1 and user.store_id == load.loaded_id:
            return user
    raise PassFailedException(
        f"{PASS}: in @{function}, the '{load.name}' at {location_of(load)} reads store "
        f"{load.loaded_id}, which does not write its container"
    )


def _groups(
    loops: dict[scf.ForOp, Bounds],
    pairs: list[tuple[TapeStore, TapeLoad]],
    owner: Callable[[Operation], scf.ForOp | None],
) -> list[_Group]:
    parent: dict[scf.ForOp, scf.ForOp] = {loop: loop for loop in loops}

    def find(loop: scf.ForOp) -> scf.ForOp:
        while parent[loop] is not loop:
            parent[loop] = parent[parent[loop]]
            loop = parent[loop]
        return loop

    pinned: set[scf.ForOp] = set()
    for store, load in pairs:
        a, b = owner(store), owner(load)
        if a is not None and b is not None:
            parent[find(a)] = find(b)
        elif a is not None or b is not None:
            pinned.add(a if a is not None else b)  # type: ignore[arg-type]
    groups: dict[scf.ForOp, _Group] = {}
    for loop in loops:  # program order
        groups.setdefault(find(loop), _Group([])).loops.append(loop)
    for loop in pinned:
        groups[find(loop)].pinned = True
    return list(groups.values())


def _pairing(
    store: TapeStore,
    load: TapeLoad,
    store_loop: scf.ForOp | None,
    load_loop: scf.ForOp | None,
    factor_of: Callable[[scf.ForOp | None], int],
    function: str,
) -> list[int]:
    """For each copy of `load`, the copy of `store` that wrote what it reads."""
    store_factor, load_factor = factor_of(store_loop), factor_of(load_loop)
    if store_factor == 1:
        return [0] * load_factor
    blamed = load_loop if load_factor > 1 else store_loop
    assert blamed is not None

    def fail(reason: str) -> PassFailedException:
        return PassFailedException(
            f"{PASS}: cannot unroll {loop_name(blamed)} in @{function}: {reason}"
        )

    try:
        writer = _writer_map(store, store_loop, store_factor)
        points = _points(load, load_loop, load_factor)
    except CannotEvaluate as err:
        raise fail(
            f"which copy of store {store.store_id} the '{load.name}' at "
            f"{location_of(load)} reads cannot be established: {err}"
        ) from None
    written = np.full(points.flat.shape, _UNWRITTEN, dtype=np.int64)
    inside = points.flat >= 0
    written[inside] = writer[points.flat[inside]]
    result: list[int] = []
    for k in range(load_factor):
        copies = written[points.copy == k]
        load_copy = f"copy {k} of the '{load.name}' at {location_of(load)}"
        if np.any(copies == _CONFLICT):
            raise fail(
                f"{load_copy} reads elements that several copies of store {store.store_id} write"
            )
        found = np.unique(copies[copies >= 0])
        if found.size == 0:
            raise fail(f"{load_copy} reads no element store {store.store_id} writes")
        if found.size > 1:
            raise fail(
                f"{load_copy} reads elements written by copies "
                f"{', '.join(str(c) for c in found)} of store {store.store_id}; "
                "one load names one store"
            )
        result.append(int(found[0]))
    return result


@dataclass
class _Plan:
    """The loops of one gradient function that `tapeflow-unroll` may unroll, the
    factor each gets, and the tape loads with the stores they read."""

    loops: dict[scf.ForOp, Bounds]
    factors: dict[scf.ForOp, int]
    pairs: list[tuple[TapeStore, TapeLoad]]
    accesses: list[Operation]

    def owner(self, op: Operation) -> scf.ForOp | None:
        loop = _innermost_loop(op)
        return loop if loop in self.loops else None


def _plan(function: func.FuncOp, factor: int) -> _Plan:
    name = function.sym_name.data
    loops = _candidate_loops(function)
    accesses = [op for op in walk_ops(function) if _is_tape_access(op)]
    loads = [op for op in accesses if isinstance(op, TapeLoad)]
    pairs = [(_named_store(load, name), load) for load in loads]
    plan = _Plan(loops, {}, pairs, accesses)
    for group in _groups(loops, pairs, plan.owner):
        group_factor = group.factor(loops, factor)
        for loop in group.loops:
            plan.factors[loop] = group_factor
    return plan


def unroll_function(function: func.FuncOp, factor: int) -> UnrollReport:
    """Unroll the tape-carrying innermost loops of one gradient function in place."""
    name = function.sym_name.data
    report = UnrollReport(name)
    if factor == 1:
        return report  # nothing to do, nothing recorded
    plan = _plan(function, factor)
    record_unroll_factors(function, [plan.factors[loop] for loop in plan.loops])
    loops, factors, pairs, accesses, owner = (
        plan.loops,
        plan.factors,
        plan.pairs,
        plan.accesses,
        plan.owner,
    )

    def factor_of(loop: scf.ForOp | None) -> int:
        return 1 if loop is None else factors[loop]

    # Decide every pairing on the original IR, before any rewrite.
    pairing = {
        load: _pairing(store, load, owner(store), owner(load), factor_of, name)
        for store, load in pairs
    }

    copies: dict[Operation, list[Operation]] = {}
    for loop in loops:  # program order
        if factors[loop] > 1:
            copies.update(unroll_loop(loop, factors[loop], loops[loop].step, _is_tape_access))
            report.factors.append(factors[loop])

    # Fresh ids: copy 0 keeps the store's id; copies 1.. get ids above every id of
    # the function, so they are unique per container (and function-wide if the
    # input's were, as tapeflow-raise-tape makes them).
    stores = [op for op in accesses if isinstance(op, TapeStore)]
    next_id = max((op.store_id for op in stores), default=-1) + 1
    copy_ids: dict[Operation, list[int]] = {}
    for store in stores:
        ids = [store.store_id]
        for clone in copies.get(store, [store])[1:]:
            assert isinstance(clone, TapeStore)
            clone.properties["id"] = IntegerAttr(next_id, 64)
            ids.append(next_id)
            next_id += 1
        copy_ids[store] = ids
    for store, load in pairs:
        for clone, source in zip(copies.get(load, [load]), pairing[load], strict=True):
            clone.properties["from"] = IntegerAttr(copy_ids[store][source], 64)
    return report


def unroll_module(module: builtin.ModuleOp, factor: int) -> list[UnrollReport]:
    if factor < 1:
        raise PassFailedException(f"{PASS}: factor must be at least 1, got {factor}")
    gradients = require_gradients(module, PASS)
    require_stages(gradients, PASS, {Stage.TAPE, Stage.REGIONS})
    return [unroll_function(f, factor) for f in gradients]


def format_reports(reports: list[UnrollReport]) -> Iterator[str]:
    for report in reports:
        yield f"{PASS}: {report.summary()}"


@dataclass(frozen=True)
class TapeflowUnrollPass(ModulePass):
    """Unroll the tape-carrying innermost loops of FWD and REV by one factor."""

    name = "tapeflow-unroll"

    factor: int = 1
    """Copies of the body per iteration (per loop: the largest divisor of its trip
    count, shared with the loops it is linked to through tapes, up to this)."""

    stats: bool = False
    """Print, per gradient function, the loops unrolled and their factors to stderr."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        reports = unroll_module(op, self.factor)
        if self.stats:
            for line in format_reports(reports):
                print(line, file=sys.stderr)
