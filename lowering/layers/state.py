"""
The state one layering attempt of `tapeflow-layers` rewrites a gradient function
with (`LayeringState`), the exception that drops an attempt and keeps a region
(`Unlayerable`), and the checks the tiles and the pieces share: which stores a
layer holds, where they sit, and that REV mirrors them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import prod

import numpy as np
from xdsl.dialects import func, scf
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.index_eval import CannotEvaluate, IndexEvaluator
from lowering.ir.loops import enclosing_loops, trip_count
from lowering.ir.walk import walk_ops
from lowering.layers.records import LayersReport
from lowering.layers.run_time import RunTimePlan
from tapeflow_dialects import region
from tapeflow_dialects.layer import ENTRY_BYTES


def fail(message: str) -> PassFailedException:
    return PassFailedException(f"tapeflow-layers: {message}")


@dataclass
class LayeringState:
    op: func.FuncOp
    spad_bytes: int
    report: LayersReport
    loads: dict[tuple[SSAValue, int], list[region.LoadOp]]
    kept: set[SSAValue] = field(default_factory=set)
    """Regions left unlayered (in DRAM, read through the cache); to this pass their
    accesses are plain memory accesses, which a layer may hold like any compute."""
    next_id: int = 0
    unlayered: set[SSAValue] = field(default_factory=set)
    """Regions of run-time trip counts that cannot be strip-mined (see
    `run_time_regions`): not layered, kept once the attempt succeeds."""
    plans: dict[scf.ForOp, RunTimePlan] = field(default_factory=dict)
    """FWD loops of run-time trip count proven to be mirrored: strip-mined with a
    run-time number of tiles."""
    proven: set[SSAValue] = field(default_factory=set)
    """Regions in loops of run-time trip count whose REV nest is proven to mirror
    their FWD nest symbolically (`prove_run_time_mirror`), which `_mirror_error`
    cannot evaluate."""
    tile_entries: int = 0
    """The most entries one tile of a strip-mined loop may take (`tile_entries`
    for the loop tiles in flight)."""
    layer_entries: int = 0
    """The most entries a layer of straight-line stores may take (`tile_entries`
    for the tiles in flight; 0: as a loop's tile)."""

    @property
    def straight_entries(self) -> int:
        return self.layer_entries or self.tile_entries

    def loop_entries(self, per_iteration: int) -> int:
        """The entries a strip-mined loop's tile may take when an iteration stores
        `per_iteration` values: a loop tile's share, or where one iteration does
        not fit in it but fits in a straight-line layer's, one iteration."""
        if per_iteration <= self.tile_entries or per_iteration > self.straight_entries:
            return self.tile_entries
        return per_iteration

    def new_ids(self) -> tuple[int, int]:
        ident = self.next_id
        self.next_id += 2
        return ident, ident + 1

    def loads_of(self, stores: Sequence[region.StoreOp]) -> list[region.LoadOp]:
        found = [
            load
            for store in stores
            for load in self.loads.get((store.region, store.id.value.data), [])
        ]
        return sorted(found, key=self.position)

    def stores_in(self, op: Operation) -> list[region.StoreOp]:
        """The stores inside `op` (or `op` itself) of the regions being layered."""
        return [s for s in stores_in(op) if s.region not in self.kept]

    def position(self, op: Operation) -> int:
        return self._positions[op]

    def refresh_positions(self) -> None:
        self._positions = {op: i for i, op in enumerate(walk_ops(self.op))}


DRAM_BURST_BYTES = 64
"""What one DRAM access moves: a DDR4 burst of 8 beats on a 64-bit channel (BL8),
as the cache's 64-byte lines."""


def loop_tile_entries(spad_bytes: int, tiles_in_flight: int, loop_tiles_in_flight: int) -> int:
    """The entries one tile of a strip-mined loop may take: its share of the
    scratchpad for `loop_tiles_in_flight` tiles, but no less than a DRAM burst
    where a straight-line layer's share (`tiles_in_flight`) holds one: a smaller
    tile would make each stream move less than a burst."""
    share = tile_entries(spad_bytes, loop_tiles_in_flight or tiles_in_flight)
    burst = DRAM_BURST_BYTES // ENTRY_BYTES
    return max(share, min(tile_entries(spad_bytes, tiles_in_flight), burst))


def tile_entries(spad_bytes: int, tiles_in_flight: int) -> int:
    """The entries one tile may take so that `tiles_in_flight` tiles fit in the
    scratchpad at once (at least one entry)."""
    return max(1, spad_bytes // ENTRY_BYTES // tiles_in_flight)


class Unlayerable(Exception):
    """A region this pass cannot cut into layers (raised before or while the
    function is rewritten; the attempt is dropped and the region kept)."""

    def __init__(self, target: SSAValue, reason: str):
        super().__init__(reason)
        self.target = target
        self.reason = reason


def _mirror_error(
    store: region.StoreOp,
    load: region.LoadOp,
    function: func.FuncOp,
    evaluators: dict[tuple[scf.ForOp, ...], IndexEvaluator] | None = None,
) -> str | None:
    """
    Why the REV loop nest of `load` does not run the FWD iterations of `store`
    backwards, or None if it does: REV iteration (j0, j1, ...) must read the element
    FWD iteration (N0-1-j0, N1-1-j1, ...) wrote. Only the outermost REV loop may run
    fewer iterations (the last FWD iterations, backwards), which leaves the tiles
    it does not need at the bottom of the region's stack. This is what makes the
    tiles of a region a stack, and rows mirror (Pass 4). `evaluators`: an
    `IndexEvaluator` per loop nest, shared by the accesses checked in it (a
    fully unrolled body's accesses share their index arithmetic).
    """
    region_type = store.region.type
    assert isinstance(region_type, region.RegionType)
    shape = region_type.get_shape()
    fwd_loops = enclosing_loops(store, function)
    rev_loops = enclosing_loops(load, function)
    if evaluators is None:
        evaluators = {}
    for loops in (fwd_loops, rev_loops):
        if loops not in evaluators:
            evaluators[loops] = IndexEvaluator(loops)
    try:
        written = evaluators[fwd_loops].flat_elements(store.indices, shape)
        read = evaluators[rev_loops].flat_elements(load.indices, shape)
    except CannotEvaluate as err:
        return f"cannot evaluate its indices: {err}"
    # Sorted, a repeated element sits next to itself (np.unique, which hashes,
    # takes 60x longer on a million distinct elements).
    stored = np.sort(written[written >= 0])
    if np.any(stored[1:] == stored[:-1]):
        return "FWD writes some tape element more than once (the last write would win)"
    if written.ndim != read.ndim:
        return f"the store sits in {written.ndim} loops and the load in {read.ndim}"
    if written.ndim and (read.shape[1:] != written.shape[1:] or read.shape[0] > written.shape[0]):
        return f"FWD runs {written.shape} iterations and REV {read.shape}"
    backwards = written[(slice(None, None, -1),) * written.ndim]
    if written.ndim:
        backwards = backwards[: read.shape[0]]
    if not np.array_equal(backwards, read):
        return "REV does not read the elements in the inverse order FWD wrote them"
    return None


def check_mirrors(
    stores: Sequence[region.StoreOp], loads: Sequence[region.LoadOp], state: LayeringState
) -> str | None:
    by_id = {(s.region, s.id.value.data): s for s in stores}
    evaluators: dict[tuple[scf.ForOp, ...], IndexEvaluator] = {}
    for load in loads:
        store = by_id.get((load.region, load.store.value.data))
        if store is None or store.region in state.proven:
            continue
        reason = _mirror_error(store, load, state.op, evaluators)
        if reason is not None:
            return reason
    return None


def stores_in(op: Operation) -> list[region.StoreOp]:
    return [o for o in walk_ops(op) if isinstance(o, region.StoreOp)]


def under_branch(op: Operation, function: func.FuncOp) -> bool:
    """`op` runs under an `scf.if` (within `function`)."""
    parent = op.parent_op()
    while parent is not None and parent is not function:
        if isinstance(parent, scf.IfOp):
            return True
        parent = parent.parent_op()
    return False


def outer_instances(op: Operation, function: func.FuncOp) -> int:
    return prod(trip_count(each) or 1 for each in enclosing_loops(op, function))
