"""
`tapeflow-regions`: TapeFlow's Pass 1, region formation (Section IV.A, Algorithm 1
of Hakimi & Shriraman, CGO 2024).

Enzyme keeps one array per cached value (struct-of-arrays), so the values one
reverse-sweep iteration needs are spread over as many arrays as there are tapes.
This pass merges the tapes that one forward loop nest writes over the same
iteration space into a single array-of-structs region: element `e` of the region
is a struct with one slot per merged tape, and `tape.store %v, %t[e]` becomes
`region.store %v, %r[e] slot s`. Slots follow the order in which the reverse sweep
first reads the tapes, so values consumed together sit next to each other (the
paper's "temporal order"); the region's base for an iteration is common to all its
slots, as in Algorithm 1's FWDBase/REVBase.

Tapes are grouped by (the loop nest that stores them, the branch that stores them,
the loop nest that loads them, their shape and ragged extents, see
`lowering.ir.ragged`); tapes stored outside any loop form one region of shape `[]`.
A tape stored under a branch (`scf.if`) gets a region of its own branch, so that
a region's stores in one iteration are all in one block: FWD fills its entries
when (and only when) the branch runs, and REV reads them under the condition
Enzyme cached, so its tiles (Pass 2, 3) form a stack pushed and popped under the
same condition.
Each store keeps a unique `id` within its region and each load keeps naming its
store (the FWD-to-REV map), renumbered in the region's FWD store order.

Grouping is a whole-function decision; once it is made (a region per group, a
slot and a new id per tape store), each tape op is rewritten on its own by a
rewrite pattern. The pass takes a module at the tape stage.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import builtin, func, scf
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.gradients import require_gradients
from lowering.ir.locations import located
from lowering.ir.loops import enclosing_loops
from lowering.ir.ragged import RAGGED, RAGGED_CLIP
from lowering.ir.stages import Stage, require_stages
from lowering.ir.walk import walk_ops
from tapeflow_dialects import region, tape

PASS = "tapeflow-regions"


@dataclass
class RegionRecord:
    """One region: the tapes (by name) in slot order, and its type."""

    region_type: region.RegionType
    tapes: list[str]

    def describe(self) -> str:
        return f"{self.region_type}: {', '.join(self.tapes)}"


@dataclass
class RegionsReport:
    function: str
    tapes: int = 0
    regions: list[RegionRecord] = field(default_factory=list)

    def table(self) -> str:
        lines = [f"@{self.function}: {self.tapes} tapes -> {len(self.regions)} regions"]
        lines += [f"  region {r.describe()}" for r in self.regions]
        return "\n".join(lines)


@dataclass
class _TapeUses:
    alloc: tape.AllocOp
    stores: list[tape.StoreOp]
    loads: list[tape.LoadOp]
    frees: list[tape.FreeOp]


@dataclass
class _Slot:
    """Where one tape goes: a slot of a region, and its stores' new ids."""

    region: SSAValue
    slot: int
    ids: dict[int, int]
    """The tape's store id -> the id of that store in the region."""


@dataclass
class RegionPlan:
    """The grouping of a function's tapes, for the patterns to apply op by op."""

    slots: dict[SSAValue, _Slot] = field(default_factory=dict)
    """Each tape (the `tape.alloc` result) -> its slot."""
    region_frees: set[tape.FreeOp] = field(default_factory=set)
    """The last free of each region's tapes, which frees the region; the others go."""


class TapeStoreToRegion(RewritePattern):
    """`tape.store %v, %t[...] id n` -> `region.store %v, %r[...] slot s id m`."""

    def __init__(self, plan: RegionPlan):
        self.plan = plan

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tape.StoreOp, rewriter: PatternRewriter) -> None:
        where = self.plan.slots.get(op.tape)
        if where is None:
            return
        new = region.StoreOp(op.value, where.region, op.indices, where.slot, where.ids[op.store_id])
        rewriter.replace(op, located(new, op))


class TapeLoadToRegion(RewritePattern):
    """`tape.load %t[...] from n` -> `region.load %r[...] slot s from m`."""

    def __init__(self, plan: RegionPlan):
        self.plan = plan

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tape.LoadOp, rewriter: PatternRewriter) -> None:
        where = self.plan.slots.get(op.tape)
        if where is None:
            return
        new = region.LoadOp(where.region, op.indices, where.slot, where.ids[op.loaded_id])
        rewriter.replace(op, located(new, op))


class TapeFreeToRegion(RewritePattern):
    """The region lives until its last tape is freed: that free frees the region,
    the others disappear."""

    def __init__(self, plan: RegionPlan):
        self.plan = plan

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tape.FreeOp, rewriter: PatternRewriter) -> None:
        where = self.plan.slots.get(op.tape)
        if where is None:
            return
        if op in self.plan.region_frees:
            rewriter.replace(op, located(region.FreeOp(where.region), op))
        else:
            rewriter.erase(op)


class EraseMergedTape(RewritePattern):
    """A `tape.alloc` whose accesses all moved to its region."""

    def __init__(self, plan: RegionPlan):
        self.plan = plan

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tape.AllocOp, rewriter: PatternRewriter) -> None:
        if op.tape in self.plan.slots:
            rewriter.erase(op)


def form_regions(module: builtin.ModuleOp) -> list[RegionsReport]:
    """Merge the tapes of every gradient function into regions, in place."""
    gradients = require_gradients(module, PASS)
    require_stages(gradients, PASS, {Stage.TAPE})
    return [_form(f) for f in gradients]


def _uses(alloc: tape.AllocOp) -> _TapeUses:
    uses = _TapeUses(alloc, [], [], [])
    for use in alloc.tape.uses:
        user = use.operation
        if isinstance(user, tape.StoreOp):
            uses.stores.append(user)
        elif isinstance(user, tape.LoadOp):
            uses.loads.append(user)
        elif isinstance(user, tape.FreeOp):
            uses.frees.append(user)
        else:
            raise PassFailedException(
                f"{PASS}: a tape is used by '{user.name}'; only tape.store, "
                "tape.load and tape.free can be rewritten into a region"
            )
    return uses


def _form(function: func.FuncOp) -> RegionsReport:
    report = RegionsReport(function.sym_name.data)
    position = {op: i for i, op in enumerate(walk_ops(function))}
    tapes = [_uses(op) for op in walk_ops(function) if isinstance(op, tape.AllocOp)]
    report.tapes = len(tapes)
    groups: dict[tuple[object, ...], list[_TapeUses]] = {}
    for t in tapes:
        groups.setdefault(_group_key(t, function), []).append(t)
    plan = RegionPlan()
    for members in groups.values():
        # Slot order: the order in which REV first reads each tape.
        members.sort(key=lambda t: min((position[load] for load in t.loads), default=len(position)))
        report.regions.append(_plan_region(members, position, plan))
    patterns = [
        TapeStoreToRegion(plan),
        TapeLoadToRegion(plan),
        TapeFreeToRegion(plan),
        EraseMergedTape(plan),
    ]
    # In reverse, so that every access of a tape is rewritten before its alloc goes.
    PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns, dce_enabled=False),
        apply_recursively=False,
        walk_reverse=True,
    ).rewrite_region(function.body)
    return report


def _group_key(t: _TapeUses, function: func.FuncOp) -> tuple[object, ...]:
    """Tapes with equal keys share a region (same FWD nest, REV nest and shape)."""
    fwd = {enclosing_loops(s, function) for s in t.stores}
    rev = {enclosing_loops(load, function) for load in t.loads}
    branches = {branch_path(s, function) for s in t.stores}
    if len(fwd) != 1 or len(rev) > 1 or len(branches) != 1:
        return (id(t),)  # stores or loads spread over several nests or branches: alone
    shape_type = t.alloc.tape.type
    assert isinstance(shape_type, tape.TapeType)
    fwd_nest = fwd.pop()
    rev_nest = rev.pop() if rev else ()
    return (
        tuple(id(loop) for loop in fwd_nest),
        branches.pop(),
        tuple(id(loop) for loop in rev_nest),
        shape_type.get_shape(),
        # Extents known only at run time: the same values, or not the same shape.
        tuple(id(v) for v in t.alloc.dynamic_sizes),
        # Ragged extents (a triangular tape): the same, or not the same layout.
        t.alloc.attributes.get(RAGGED),
        t.alloc.attributes.get(RAGGED_CLIP),
    )


def branch_path(op: Operation, function: func.FuncOp) -> tuple[tuple[int, int], ...]:
    """The branches between `op` and its innermost loop (or the function): for each
    enclosing non-loop op with regions (`scf.if`), its identity and which of its
    regions holds `op`. Empty for an op in a loop body (or the function body)."""
    path: list[tuple[int, int]] = []
    current: Operation = op
    parent = op.parent_op()
    while parent is not None and parent is not function and not isinstance(parent, scf.ForOp):
        block = current.parent_block()
        assert block is not None
        branch = next(i for i, r in enumerate(parent.regions) if block.parent is r)
        path.append((id(parent), branch))
        current, parent = parent, parent.parent_op()
    return tuple(reversed(path))


def _plan_region(
    members: list[_TapeUses], position: dict[Operation, int], plan: RegionPlan
) -> RegionRecord:
    """Allocate the region of one group of tapes and plan where each goes."""
    first = members[0].alloc.tape.type
    assert isinstance(first, tape.TapeType)
    slot_types = []
    for t in members:
        tape_type = t.alloc.tape.type
        assert isinstance(tape_type, tape.TapeType)
        slot_types.append(tape_type.element_type)
    region_type = region.RegionType(first.get_shape(), slot_types)
    allocs = sorted((t.alloc for t in members), key=position.__getitem__)
    # The members share their run-time extents (the group key says so); the
    # first alloc's operands dominate it.
    new_alloc = located(region.AllocOp(region_type, allocs[0].dynamic_sizes), allocs[0])
    for packing in (RAGGED, RAGGED_CLIP):  # the region packs like its tapes (`lowering.ir.ragged`)
        if packing in allocs[0].attributes:
            new_alloc.attributes[packing] = allocs[0].attributes[packing]
    Rewriter.insert_op(new_alloc, InsertPoint.before(allocs[0]))
    handle = new_alloc.region

    slots = [_Slot(handle, slot, {}) for slot in range(len(members))]
    for t, where in zip(members, slots, strict=True):
        plan.slots[t.alloc.tape] = where
    # Renumber the stores in FWD program order; loads follow their store.
    stores = sorted(
        ((s, slot) for slot, t in enumerate(members) for s in t.stores),
        key=lambda pair: position[pair[0]],
    )
    for ident, (store, slot) in enumerate(stores):
        slots[slot].ids[store.store_id] = ident
    frees = sorted((f for t in members for f in t.frees), key=position.__getitem__)
    if frees:
        plan.region_frees.add(frees[-1])
    names = [
        t.alloc.value_name.data if t.alloc.value_name else f"tape{i}" for i, t in enumerate(members)
    ]
    return RegionRecord(region_type, names)


@dataclass(frozen=True)
class TapeflowRegionsPass(ModulePass):
    """Merge struct-of-arrays tapes into array-of-structs regions (Pass 1)."""

    name = "tapeflow-regions"

    stats: bool = False
    """Print, per gradient function, the regions formed and their slots to stderr."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        reports = form_regions(op)
        if self.stats:
            for report in reports:
                print(f"tapeflow-regions: {report.table()}", file=sys.stderr)
