"""
Where each tape value of a layer sits in its scratchpad tile: the one rule
`tapeflow-layers` sizes tiles by and `tapeflow-spad-bind` binds accesses by.

A layer's stores are grouped by the innermost loop around them inside the layer
(stores in no loop form one group), in the order of their first store. A group of
`k` stores in loops of `n` iterations per iteration of the strip-mined loop (1 for
a piece of straight-line stores) holds `n * k` values. The tile has `S` slots, the
greatest common divisor of the groups' `k`, so that no entry stays empty (a tile
streams whole rows, and the tape holds exactly the values). A group takes `k / S`
rows per inner iteration, its stores filling them in order, slot by slot; one
iteration of the strip-mined loop takes the groups' rows one group after the other
(`tapeflow.rows_per_iteration`). A store's entry is `(row, slot)` with

    row  = position of the strip-mined iteration in the tile * rows per iteration
         + first row of its group + (its index in the group) // S
         + (row-major position of the group's inner loops) * k / S
    slot = (its index in the group) % S

With one group (all stores in one loop body, the paper's tiles) that is a row per
inner iteration and a slot per store. An inner loop of run-time trip count counts
as its proven bound (`tile_trips`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import gcd, prod

from xdsl.dialects import builtin, scf
from xdsl.ir import Operation

from lowering.ir.loops import enclosing_loops, trip_count
from lowering.layers.records import TRIP_BOUND
from tapeflow_dialects import region


def tile_trips(loop: scf.ForOp) -> int | None:
    """The iterations of `loop` a tile has rows for: its trip count, or where that
    is known only at run time, the bound `tapeflow-layers` proved and marked it
    with (`TRIP_BOUND`): each iteration of the strip-mined loop around it takes
    rows for that many, the runs that are shorter leaving the last ones empty."""
    bound = loop.attributes.get(TRIP_BOUND)
    if isinstance(bound, builtin.IntegerAttr):
        return bound.value.data
    return trip_count(loop)


@dataclass(frozen=True)
class Placement:
    """Where one store's values go in each iteration's rows."""

    row: int
    """The first row, from the iteration's first row."""
    stride: int
    """Rows between consecutive iterations of the group's inner loops."""
    slot: int


@dataclass(frozen=True)
class TileLayout:
    slots: int
    rows_per_iteration: int
    places: dict[region.StoreOp, Placement]
    groups: int

    @property
    def entries_per_iteration(self) -> int:
        return self.slots * self.rows_per_iteration


def tile_layout(
    stores: Sequence[region.StoreOp],
    outer: Operation,
    bounds: Mapping[Operation, int] | None = None,
) -> TileLayout:
    """The layout of `stores` (in program order) in a tile of the layer or strip-mined
    loop `outer`; the loops inside `outer` around them must have constant trip counts,
    or a bound on them (`tile_trips`, or given in `bounds` before they are marked)."""
    groups: dict[Operation | None, list[region.StoreOp]] = {}
    rows: dict[Operation | None, int] = {}
    for store in stores:
        loops = enclosing_loops(store, outer)
        key = loops[-1] if loops else None
        groups.setdefault(key, []).append(store)
        rows[key] = prod((bounds or {}).get(each) or tile_trips(each) or 0 for each in loops)
    if not groups:
        return TileLayout(1, 0, {}, 0)
    slots = 0
    for members in groups.values():
        slots = gcd(slots, len(members))
    places: dict[region.StoreOp, Placement] = {}
    start = 0
    for key, members in groups.items():
        for index, store in enumerate(members):
            places[store] = Placement(start + index // slots, len(members) // slots, index % slots)
        start += rows[key] * len(members) // slots
    return TileLayout(slots, start, places, len(groups))
