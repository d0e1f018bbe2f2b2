"""
Whether a store that runs after a load can write the element the load read.

Both accesses index one buffer directly (no view between them and it). Their
indices are read as linear forms (`lowering.ir.index_offsets.LinearForms`) over
the induction variables of `scf.for` loops with constant bounds and over values
that are the same wherever the two accesses run (defined at the top of the
function, outside every loop). The store runs after the load in one of these
ways, each checked on its own:

- in a later iteration of a loop that holds both (the same iterations of the
  loops outside it, any iteration of the loops inside it);
- in the same iterations of every loop that holds both, later in the loop body;
- after the loop nest of the load, when no loop holds both.

In each way, the difference of the two indices of one dimension is bounded by
interval arithmetic over the variables' ranges (a later iteration is the load's
plus `k` steps, `1 <= k < trips`); when, in every way, some dimension's
difference cannot be 0, the store never writes what the load read. Anything else
(an `scf.if` or a `while` around either access, a loop without constant bounds,
an index that is not linear in such values) answers that it may.

Index arithmetic wraps at 64 bits: the bounds stay far below 2**62 or nothing is
proved.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.dialects import func, memref, scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from lowering.ir.index_eval import Bounds, static_bounds
from lowering.ir.index_offsets import FORM_LIMIT as _LIMIT
from lowering.ir.index_offsets import LinearForms


@dataclass(frozen=True)
class _Place:
    """Where an access runs: the loops around it (outermost first) and, per
    level, the op of that level's block that holds it."""

    loops: tuple[scf.ForOp, ...]
    path: tuple[Operation, ...]
    """The ancestors of the access, from the function body's op down to it."""


def _place(op: Operation, body: Block) -> _Place | None:
    """None if an op other than `scf.for` holds `op` (below the function body)."""
    path: list[Operation] = [op]
    loops: list[scf.ForOp] = []
    current = op
    while current.parent_block() is not body:
        parent = current.parent_op()
        if parent is None:
            return None
        if not isinstance(parent, scf.ForOp):
            return None
        loops.append(parent)
        path.append(parent)
        current = parent
    return _Place(tuple(reversed(loops)), tuple(reversed(path)))


class LaterWrites:
    """Answers `may_write_after` for the accesses of one function."""

    def __init__(self, function: func.FuncOp):
        self.body = function.body.block
        self.forms = LinearForms()
        self._places: dict[Operation, _Place | None] = {}

    def _place_of(self, op: Operation) -> _Place | None:
        if op not in self._places:
            self._places[op] = _place(op, self.body)
        return self._places[op]

    def may_write_after(self, load: memref.LoadOp, store: memref.StoreOp) -> bool:
        """Whether `store`, in some run after `load`, may write the element
        `load` read (both index the same buffer directly)."""
        at_load, at_store = self._place_of(load), self._place_of(store)
        if at_load is None or at_store is None:
            return True
        common = 0
        while (
            common < min(len(at_load.loops), len(at_store.loops))
            and at_load.loops[common] is at_store.loops[common]
        ):
            common += 1
        # The ops that hold each access in the innermost block holding both.
        mine, theirs = at_load.path[common], at_store.path[common]
        block = mine.parent_block()
        assert block is not None
        store_later_in_body = block.get_operation_index(theirs) > block.get_operation_index(mine)
        for later in _orders(common, store_later_in_body):
            if not self._some_dimension_differs(load, store, at_load, at_store, common, later):
                return True
        return False

    def _some_dimension_differs(
        self,
        load: memref.LoadOp,
        store: memref.StoreOp,
        at_load: _Place,
        at_store: _Place,
        common: int,
        later: int | None,
    ) -> bool:
        """In the order `later` (the common loop whose iteration is later, or
        None: the same iterations of all), some index pair is never equal."""
        same = common if later is None else later
        """The common loops whose iteration the two accesses share."""
        ranges: dict[object, tuple[int, int]] = {}
        renamed: dict[SSAValue, object] = {}
        """The store's induction variables that are not the load's."""
        for loop in at_load.loops:
            bounds = static_bounds(loop)
            if bounds is None:
                return False
            ranges[loop.body.block.args[0]] = (bounds.lb, _last(bounds))
        for depth, loop in enumerate(at_store.loops):
            if depth < same:
                continue
            bounds = static_bounds(loop)
            if bounds is None:
                return False
            variable = loop.body.block.args[0]
            if depth == later:
                if bounds.trips < 2:
                    return True  # no later iteration: this order never happens
                # The store's variable is the load's plus k steps, 1 <= k < trips.
                renamed[variable] = ("later", loop)
                ranges[("later", loop)] = (bounds.step, bounds.step * (bounds.trips - 1))
            else:
                renamed[variable] = ("store", loop)
                ranges[("store", loop)] = (bounds.lb, _last(bounds))
        return any(
            self._never_equal(mine, theirs, ranges, renamed)
            for mine, theirs in zip(load.indices, store.indices, strict=True)
        )

    def _never_equal(
        self,
        mine: SSAValue,
        theirs: SSAValue,
        ranges: dict[object, tuple[int, int]],
        renamed: dict[SSAValue, object],
    ) -> bool:
        terms_mine, constant_mine = self.forms.form(mine)
        terms_theirs, constant_theirs = self.forms.form(theirs)
        difference: dict[object, int] = {}
        for value, coefficient in terms_mine:
            if value not in ranges and not self._invariant(value):
                return False
            difference[value] = difference.get(value, 0) + coefficient
        for value, coefficient in terms_theirs:
            variable = renamed.get(value, value)
            if variable not in ranges and not self._invariant(value):
                return False
            if isinstance(variable, tuple) and variable[0] == "later":
                own = variable[1].body.block.args[0]  # the load's iteration ...
                difference[own] = difference.get(own, 0) - coefficient
            difference[variable] = difference.get(variable, 0) - coefficient  # ... + k steps
        low = high = constant_mine - constant_theirs
        for variable, coefficient in difference.items():
            if not coefficient:
                continue
            if variable not in ranges:
                return False  # an invariant value of unknown size
            lo, hi = ranges[variable]
            a, b = coefficient * lo, coefficient * hi
            low, high = low + min(a, b), high + max(a, b)
        if abs(low) >= _LIMIT or abs(high) >= _LIMIT:
            return False
        return low > 0 or high < 0

    def _invariant(self, value: SSAValue) -> bool:
        """Defined once at the top of the function: the same at both accesses."""
        if isinstance(value, BlockArgument):
            return value.block is self.body
        return value.op.parent_block() is self.body


def _last(bounds: Bounds) -> int:
    return bounds.lb + bounds.step * max(bounds.trips - 1, 0)


def _orders(common: int, store_later_in_body: bool) -> Iterator[int | None]:
    """The ways the store runs after the load: a later iteration of each common
    loop, then (if it comes later in the body) the same iterations."""
    yield from range(common)
    if store_later_in_body:
        yield None


__all__ = ["LaterWrites"]
