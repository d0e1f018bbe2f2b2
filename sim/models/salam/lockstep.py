"""
How the authors' gem5-SALAM datapath issues one kernel loop: the static half of
the `salam` timing model (`sim.models.salam.model` adds the memory side from the
trace). `lockstep_schedule` gives each placed op of a kernel loop its lockstep
group in each iteration of a run:

- a group issues every op whose operands have committed, and the next waits
  until all of it has finished (`lockstep_mode = True`);
- a loop's iterations overlap, and the runs of a nested loop continue one
  another: only a loop's exit drains the datapath (`DatapathConfig.latch`;
  `iterations` drains at an outermost loop's every iteration);
- a cache load waits for the older stores not yet issued (in the authors'
  program order, `sim.models.salam.enzyme_llvm`), by the rule
  `DatapathConfig.ordering` names: `strict` (every one; iterations placed
  alike, `period` groups apart) or `release` (each static store's oldest
  pending instance, as their source releases it; placed iteration by iteration);
- tape bin accesses commit at once; 0-cycle ops (`select`) let their users issue
  in the same group;
- functional units per class and the scheduling threshold
  (`targets.hardware.DatapathConfig`) bound what issues together and how far the
  branches run ahead; `DatapathConfig.adjoint_additions` adds the `fadd`s of
  Enzyme for LLVM's reverse (`sim.models.salam.enzyme_llvm.adjoint_additions`).

Each rule with the authors' files and lines: docs/research/salam-model.md.
"""

from __future__ import annotations

import heapq
from collections import Counter, deque
from dataclasses import dataclass, field
from itertools import accumulate

import numpy as np
from xdsl.dialects import func, scf
from xdsl.ir import Operation, SSAValue

from sim.models.salam.enzyme_llvm import (
    AdjointAdditions,
    FunctionAdjoints,
    adjoint_additions,
    authors_order,
)
from sim.models.salam.machine import SalamMachine
from tapeflow_dialects import cgra, layer
from tapeflow_dialects.cgra import MemPath
from targets.costs import STRIP_MINED, op_class, op_latency
from targets.energy import FU_CLASSES
from targets.hardware import DatapathConfig, Hardware

INDUCTION_PERIOD = 2
"""Groups between the launches of consecutive inner-loop iterations when nothing
else holds them: the induction `add` (1 cycle), then the `icmp` (1 cycle) whose
result the branch waits for; the branch (0 cycles) then schedules the next block
in the same pass (`CycleCounts.py`; `llvm_interface.cc`, `scheduleBB`)."""


COMPUTE, LOAD, STORE, OTHER = range(4)
"""What `kind_of` tells a body's op to be: a placed compute op, load or store, or
anything else."""
_KINDS: dict[type, int] = {}


def kind_of(op: Operation) -> int:
    """`op`'s kind (`COMPUTE`, `LOAD`, `STORE` or `OTHER`), found once per op
    class: an xDSL op class is an abstract base class, whose `isinstance` costs
    ten dictionary look-ups, and a fully unrolled body asks it of thousands."""
    cls = type(op)
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = (
            COMPUTE
            if isinstance(op, cgra.ComputeOp)
            else LOAD
            if isinstance(op, cgra.LoadOp)
            else STORE
            if isinstance(op, cgra.StoreOp)
            else OTHER
        )
    return kind


def _paths(ops: list[Operation], kinds: list[int]) -> list[MemPath | None]:
    """Each access's memory path (None for any other op)."""
    return [
        op.path.data if k == LOAD or k == STORE else None for op, k in zip(ops, kinds, strict=True)
    ]  # type: ignore[attr-defined]


def _carried(kernel: cgra.KernelOp) -> dict[SSAValue, Operation]:
    """The loop-carried values the kernel reads: the enclosing `scf.for`'s
    iter_args, each with the op of the kernel that yields its next value."""
    loop = kernel.parent_op()
    if not isinstance(loop, scf.ForOp):
        return {}
    yield_ = loop.body.block.last_op
    kernel_yield = kernel.body.block.last_op
    if not isinstance(yield_, scf.YieldOp) or not isinstance(kernel_yield, cgra.YieldOp):
        return {}
    carried: dict[SSAValue, Operation] = {}
    for arg, value in zip(loop.body.block.args[1:], yield_.operands, strict=False):
        if value.owner is kernel:
            produced = kernel_yield.operands[kernel.results.index(value)]
            if isinstance(produced.owner, cgra.PlacedOp):
                carried[arg] = produced.owner
    return carried


INDUCTION_ENTRIES = (0, 1)
"""The groups, within an iteration, of the induction `add` and the `icmp`: the
reservation-table entries of an iteration besides its placed ops and their
address computations."""


@dataclass(frozen=True)
class _Iteration:
    """The constraints one iteration's ops are placed under (`_groups` under the
    strict ordering, `_Runs` under the release one), op by op by position in the
    body, read from the IR once: the placement then works on integers."""

    weight: tuple[int, ...]
    """Groups an op's users wait after it: 1, or 0 for an op that commits at launch."""
    inputs: tuple[tuple[int, ...], ...]
    """The ops of this iteration whose results it reads (none for a tape bin,
    which waits for no operand)."""
    carried: tuple[tuple[int, ...], ...]
    """The ops of the previous iteration whose loop-carried results it reads
    (none for a tape bin)."""
    carried_count: int
    """Loop-carried values the kernel reads."""
    bin: tuple[bool, ...]
    """A tape bin access: it commits in its block's group."""
    load: tuple[bool, ...]
    """A cache load."""
    store: tuple[bool, ...]
    """A cache store."""
    unit: tuple[str | None, ...]
    """The FU class of each op that holds a limited unit."""
    units: dict[str, int]
    """Units of each limited class."""
    entries: tuple[int, ...]
    """Reservation-table entries each op stands for (an access: itself and its
    address computation)."""
    threshold: int
    stores_in_order: tuple[int, ...]
    """The cache stores in the order the authors' program has them
    (`sim.models.salam.enzyme_llvm.authors_order`)."""
    stores_before: tuple[int, ...]
    """Each cache load's count of cache stores before it in that order: it
    waits for `stores_in_order[:count]`."""
    store_rank: tuple[int, ...]
    """Each cache store's place in `stores_in_order` (-1 for other ops)."""
    in_body_order: bool
    """Every load's earlier stores come before it in the body too (Enzyme for
    LLVM moves a cache store later, not earlier), so that one pass in body order
    has settled their groups by the load, and a running maximum over a prefix
    of the stores in the authors' order serves."""

    @property
    def limited(self) -> tuple[tuple[int, str], ...]:
        """(body position, class) of each op that holds a limited unit (`unit`)."""
        found = self.__dict__.get("_limited")
        if found is None:
            found = tuple((n, cls) for n, cls in enumerate(self.unit) if cls is not None)
            object.__setattr__(self, "_limited", found)
        return found

    @staticmethod
    def of(
        ops: list[Operation],
        carried: dict[SSAValue, Operation],
        latency: dict[Operation, int],
        unit_class: dict[Operation, str],
        datapath: DatapathConfig,
        additions: AdjointAdditions | None = None,
    ) -> _Iteration:
        index = {op: n for n, op in enumerate(ops)}
        more = additions.inputs if additions else {}
        more_carried = additions.carried if additions else {}
        # Each op's kind and path, read once: a tape bin access goes to the
        # scratchpad, a cache access through the cache.
        kinds = [kind_of(op) for op in ops]
        paths = _paths(ops, kinds)
        bins = [p == MemPath.SPAD for p in paths]
        loads = [k == LOAD and p == MemPath.CACHE for k, p in zip(kinds, paths, strict=True)]
        stores = [k == STORE and p == MemPath.CACHE for k, p in zip(kinds, paths, strict=True)]
        weight = tuple(
            0 if b or (k == COMPUTE and latency[op] == 0) else 1
            for op, b, k in zip(ops, bins, kinds, strict=True)
        )
        units = {name: count for name in FU_CLASSES if (count := getattr(datapath.units, name)) > 0}
        inputs: list[tuple[int, ...]] = []
        carried_in: list[tuple[int, ...]] = []
        for op, is_bin in zip(ops, bins, strict=True):
            mine: list[int] = []
            previous: list[int] = []
            if not is_bin:
                for value in op.operands:
                    if (n := index.get(value.owner)) is not None:  # type: ignore[arg-type]
                        mine.append(n)
                    elif value in carried:
                        previous.append(index[carried[value]])
            mine += (index[o] for o in more.get(op, ()))
            previous += (index[o] for o in more_carried.get(op, ()))
            inputs.append(tuple(mine))
            carried_in.append(tuple(previous))
        in_order: list[int] = []
        before = [0] * len(ops)
        for op in authors_order(ops):
            n = index[op]
            if loads[n]:
                before[n] = len(in_order)
            elif stores[n]:
                in_order.append(n)
        rank = [-1] * len(ops)
        for r, n in enumerate(in_order):
            rank[n] = r
        reach = list(accumulate(in_order, max))  # the latest body position of a prefix
        return _Iteration(
            weight,
            tuple(inputs),
            tuple(carried_in),
            len(carried) + len(more_carried),
            tuple(bins),
            tuple(loads),
            tuple(stores),
            tuple(
                cls if (cls := unit_class.get(op)) in units and weight[n] == 1 else None
                for n, op in enumerate(ops)
            ),
            units,
            tuple(2 if k == LOAD or k == STORE else 1 for k in kinds),
            datapath.sched_threshold,
            tuple(in_order),
            tuple(before),
            tuple(rank),
            all(reach[before[n] - 1] < n for n in range(len(ops)) if before[n] > 0),
        )

    def pending(self, group: list[int], period: int, lead: int) -> int:
        """Entries of earlier iterations still in the table when the branch
        schedules the next block `lead` groups before its ops need it (in
        steady state at `period`): an entry `o` groups into its iteration, m
        iterations back, is pending if m * period < o + lead."""
        back = -(-(np.asarray(group, dtype=np.int64) + lead) // period) - 1  # ceil, less one
        ops = int((np.maximum(back, 0) * np.asarray(self.entries, dtype=np.int64)).sum())
        return ops + sum(max(0, -(-(o + lead) // period) - 1) for o in INDUCTION_ENTRIES)

    def fits(self, group: list[int], period: int, lead: int) -> bool:
        """The branch may launch with that lead: the pending entries and itself
        are fewer than the threshold."""
        return self.pending(group, period, lead) + 1 < self.threshold


@dataclass(frozen=True)
class _Periodic:
    """The strict ordering's placement: every iteration of a run placed alike,
    `period` groups after the one before."""

    period: int
    """Groups between consecutive iteration launches (at least `INDUCTION_PERIOD`;
    the iteration's depth for a latching loop)."""
    first: tuple[int, ...]
    """The group of each op of the first iteration, by body position."""

    def groups(self, iterations: int) -> np.ndarray:
        k = np.arange(max(iterations, 0), dtype=np.int64)[:, None]
        return k * self.period + np.array(self.first, dtype=np.int64).reshape(1, -1)


class _Runs:
    """The release ordering's placement: the groups the iterations of one run of
    a kernel loop issue their ops in, counted from the run's first group, placed
    iteration by iteration as the datapath issues them (`lockstep_schedule`).
    Extended on demand and kept: a run of n iterations is the first n of a
    longer one (an iteration depends only on those before it)."""

    def __init__(self, iteration: _Iteration, latching: bool):
        self.iteration = iteration
        self.latching = latching
        self.rows: list[list[int]] = []
        self.scheduled: list[int] = []
        """Per iteration, the group its block was scheduled in (by the previous
        iteration's branch)."""
        self.unissued: list[deque[int]] = [deque() for _ in iteration.stores_in_order]
        """Per cache store (by its place in the authors' order), the groups of its
        instances of earlier iterations not known to have issued."""
        self.entries: list[tuple[int, int]] = []
        """A heap of (group, entries) of every reservation-table entry placed,
        issued or not; `pending` counts those past a group."""
        self.pending_entries = 0
        self.used: Counter[tuple[str, int]] = Counter()
        self.steady = 0
        """Consecutive iterations placed like their predecessor."""

    def groups(self, iterations: int) -> np.ndarray:
        """(iterations, ops) groups; past `STEADY` iterations placed alike, the
        rest repeat the last one's pattern a period apart."""
        width = len(self.iteration.weight)
        if iterations <= 0 or width == 0:
            return np.zeros((max(iterations, 0), width), dtype=np.int64)
        while len(self.rows) < iterations and self.steady < STEADY:
            self._place()
        rows = np.array(self.rows[:iterations], dtype=np.int64).reshape(-1, width)
        if iterations <= len(self.rows):
            return rows
        period = self.rows[-1][0] - self.rows[-2][0]
        extra = np.arange(1, iterations - len(self.rows) + 1, dtype=np.int64)[:, None]
        return np.concatenate([rows, np.array(self.rows[-1])[None, :] + period * extra])

    def _schedule_group(self) -> int:
        """The group in which the next iteration's block is scheduled: at once for
        the first; after the previous iteration has drained for a latching loop;
        otherwise `INDUCTION_PERIOD` groups after the previous block, or later
        while the reservation table holds the threshold's entries (the branch
        counts itself)."""
        if not self.rows:
            return 0
        if self.latching:
            return max(self.rows[-1]) + 1
        group = self.scheduled[-1] + INDUCTION_PERIOD
        while True:
            while self.entries and self.entries[0][0] <= group:
                self.pending_entries -= heapq.heappop(self.entries)[1]
            if self.pending_entries + 1 < self.iteration.threshold:
                return group
            group = self.entries[0][0]  # the next group in which an entry issues

    def _place(self) -> None:
        it = self.iteration
        start = self._schedule_group()
        previous = self.rows[-1] if self.rows else None
        # Each cache store's oldest earlier instance still unissued when this
        # block is scheduled: its write response releases every load of the block
        # (the dependence is keyed by the static store, `findDynamicDeps`).
        held: list[int | None] = []
        for waiting in self.unissued:
            while waiting and waiting[0] <= start:
                waiting.popleft()
            held.append(waiting[0] + 1 if waiting else None)
        older = max((h for h in held if h is not None), default=start)
        row = [start] * len(it.weight)
        for _ in range(1 if it.in_body_order else len(row) + 1):
            row, changed = self._pass(row, start, previous, held, older)
            if not changed:
                break
        used = self.used
        for n, cls in it.limited:
            used[cls, row[n]] += 1
        for rank, n in enumerate(it.stores_in_order):
            self.unissued[rank].append(row[n])
        # The entries go on the heap one item per group: `_schedule_group` takes
        # every item of a group at once, so the counts it sees are the same.
        by_group: dict[int, int] = {}
        for g, entries in zip(row, it.entries, strict=True):
            by_group[g] = by_group.get(g, 0) + entries
        for offset in INDUCTION_ENTRIES:
            g = start + offset
            by_group[g] = by_group.get(g, 0) + 1
        heap = self.entries
        for item in by_group.items():
            heapq.heappush(heap, item)
        self.pending_entries += sum(by_group.values())
        if len(self.rows) >= 2:
            shift = row[0] - previous[0]  # type: ignore[index]
            same = shift == previous[0] - self.rows[-2][0] and row == [  # type: ignore[index]
                b + shift
                for b in previous  # type: ignore[union-attr]
            ]
            self.steady = self.steady + 1 if same else 0
        self.rows.append(row)
        self.scheduled.append(start)

    def _pass(
        self,
        row: list[int],
        start: int,
        previous: list[int] | None,
        held: list[int | None],
        older: int,
    ) -> tuple[list[int], bool]:
        """One pass over the body placing each op at the least group its
        constraints allow (as `lockstep_schedule` lists them) given `row`'s
        groups for the ops not yet visited; whether any group changed."""
        it = self.iteration
        weight, inputs, carried, loads = it.weight, it.inputs, it.carried, it.load
        stores_before, stores_in_order, in_body_order = (
            it.stores_before,
            it.stores_in_order,
            it.in_body_order,
        )
        limits, earlier = it.units, self.used
        placed = list(row)
        # Per op, `placed + weight`: the least group of its users (kept as the
        # pass places them), and the previous iteration's.
        ready = [g + w for g, w in zip(row, weight, strict=True)]
        ready_at = ready.__getitem__
        was_ready = (
            [g + w for g, w in zip(previous, weight, strict=True)] if previous is not None else []
        ).__getitem__
        # In body order a load's earlier stores are placed before it in this
        # pass: the bound they set is a running maximum over the authors'
        # order (`_Iteration.in_body_order`), extended as loads need it.
        own = [-1 << 62]
        """own[r]: 1 + the latest group of the stores of rank < r that hold the
        load themselves (no earlier instance)."""
        used: Counter[tuple[str, int]] = Counter()
        load_floor = older if older > start else start
        for n, (is_bin, w, mine, theirs, load, cls) in enumerate(
            zip(it.bin, weight, inputs, carried, loads, it.unit, strict=True)
        ):
            if is_bin:
                placed[n] = start
                ready[n] = start + w
                continue
            g = load_floor if load else start
            if mine:
                m = max(map(ready_at, mine))
                if m > g:
                    g = m
            if previous is not None:
                if theirs:
                    m = max(map(was_ready, theirs))
                    if m > g:
                        g = m
                if w:  # one instance of a static op in flight
                    m = previous[n] + 1
                    if m > g:
                        g = m
            if load:
                count = stores_before[n]
                if in_body_order:
                    while len(own) <= count:
                        rank = len(own) - 1
                        bound = own[-1]
                        if held[rank] is None:  # no earlier instance: its own holds it
                            bound = max(bound, placed[stores_in_order[rank]] + 1)
                        own.append(bound)
                    g = max(g, own[count])
                else:
                    for rank in range(count):
                        if held[rank] is None:
                            g = max(g, placed[stores_in_order[rank]] + 1)
            if cls is not None:
                limit = limits[cls]
                while earlier[cls, g] + used[cls, g] >= limit:
                    g += 1
                used[cls, g] += 1
            placed[n] = g
            ready[n] = g + w
        return placed, placed != row


STEADY = 32
"""Iterations placed alike (the same spacing, the same groups relative to it)
after which a run's later iterations are taken to repeat the last one."""


@dataclass(frozen=True)
class LockstepSchedule:
    """A kernel loop on the lockstep datapath: the group each op of each
    iteration of a run issues in (`groups`), and which ops take time: the compute
    ops of at least one cycle and the cache accesses."""

    compute: tuple[tuple[int, int], ...]
    """(body position, cycles) of every compute op that takes at least one cycle."""
    accesses: tuple[tuple[int, bool], ...]
    """(body position, is a write) of every cache access, in body order: the
    order the executor records them in the trace, once per iteration."""
    placement: _Periodic | _Runs = field(compare=False, repr=False)
    """The strict ordering's `_Periodic`, the release ordering's `_Runs`."""
    latching: bool = False
    """The kernel's loop is an outermost loop of its function whose latch waits
    at every iteration until the datapath has drained (`datapath.latch:
    iterations`), so iterations do not overlap."""
    continued: bool = False
    """No latch between the runs of the loop drains (they are nested in a loop
    whose latch waits only at its exit, or two deep or more): consecutive runs
    (one per trip of the enclosing loop) overlap like one run."""
    laid_out: dict[bytes, object] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    """Batches of runs laid out on the groups, by their trips
    (`sim.models.salam.model.runs_cycles_each`): every evaluation of one run,
    on each cache of a sweep, lays out the same."""

    def groups(self, iterations: int) -> np.ndarray:
        """The group of every op of each of the first `iterations` iterations of
        a run, counted from the run's first group: (iterations, ops)."""
        return self.placement.groups(iterations)

    def steady(self) -> tuple[int, tuple[int, ...]]:
        """The spacing of consecutive iterations once a run has settled, and the
        groups of such an iteration's ops counted from its first op's."""
        rows = self.groups(2 * STEADY + 2)
        return int(rows[-1, 0] - rows[-2, 0]), tuple(int(g) for g in rows[-1] - rows[-1, 0])


def lockstep_schedule(
    kernel: cgra.KernelOp,
    latency: dict[Operation, int],
    enclosing: int = 1,
    unit_class: dict[Operation, str] | None = None,
    datapath: DatapathConfig | None = None,
    additions: AdjointAdditions | None = None,
    iterated: bool = True,
) -> LockstepSchedule:
    """
    The lockstep schedule of `kernel` iterated by its loop (`iterated`; else a
    single pass, which drains at its end), given every placed
    op's cycles on the authors' datapath (`latency`; a cache access's entry is
    ignored: its time is its port occupancy, which the model takes from the
    trace), the number of loops `enclosing` the kernel's loop in its function
    (what `datapath.latch` makes of it: under `exit` every loop's iterations
    overlap and the runs of a loop with one enclosing it or more continue one
    another; under `iterations` an outermost loop's iterations do not overlap,
    and only a loop nested two deep or more continues its runs), each compute
    op's FU class (`unit_class`), the datapath's limits, load ordering and
    latch rule (`datapath`: units per class, scheduling threshold, `ordering`,
    `latch`; `DatapathConfig`'s defaults when none is given) and the body as Enzyme
    for LLVM's reverse has it (`additions`: its ops, with the `fadd`s it adds, in
    place of the kernel's). Each op issues in the least group that satisfies:

    - after each operand's group (+1 unless that operand takes 0 cycles, or is a
      tape bin load), a loop-carried operand's in the previous iteration;
    - a cache load after the cache stores before it in the authors' program
      order (`sim.models.salam.enzyme_llvm.authors_order`) (+1), and after the
      previous iterations' stores still pending when its block was scheduled,
      by the ordering (`_groups`, `_Runs._pass`);
    - a tape bin access in its block's group, whatever its operands;
    - a compute op of a limited class in a group where fewer ops of its class
      issue than it has units.
    """
    ops = (
        list(additions.ops)
        if additions
        else [op for op in kernel.body.block.ops if isinstance(op, cgra.PlacedOp)]
    )
    datapath = datapath or DatapathConfig()
    iteration = _Iteration.of(ops, _carried(kernel), latency, unit_class or {}, datapath, additions)
    compute = tuple(
        (n, latency[op]) for n, op in enumerate(ops) if kind_of(op) == COMPUTE and latency[op] > 0
    )
    accesses = tuple(
        (n, iteration.store[n]) for n in range(len(ops)) if iteration.load[n] or iteration.store[n]
    )
    drains = datapath.latch == "iterations"  # else only the loop's exit drains
    latching = enclosing == 0 and (drains or not iterated)
    placement = (
        _Runs(iteration, latching)
        if datapath.ordering == "release"
        else _periodic(iteration, latching)
    )
    continued = enclosing >= (2 if drains else 1)
    return LockstepSchedule(compute, accesses, placement, latching, continued)


def _periodic(iteration: _Iteration, latching: bool) -> _Periodic:
    """The strict ordering's placement: the smallest period at which the groups
    `_groups` gives are consistent, found by bisection from `INDUCTION_PERIOD`
    (and from the periods the units need); a latching loop's iterations one
    after another."""
    if latching:
        # The next iteration starts once this one has drained.
        group = _groups(iteration, _DRAINED)
        assert group is not None
        return _Periodic(max(group, default=0) + 1, tuple(group))
    # The least period whose groups are consistent: a period past the deepest
    # group leaves every cross-iteration constraint slack, and a longer period
    # never breaks one a shorter period met, so bisect between the two. The
    # units of a class bound the period from below: its ops per iteration, over
    # its units. (That monotonicity is assumed, not proved: it held on every
    # kernel of the small evaluation on the authors' datapath, but with unit
    # limits and a scheduling threshold of a few entries feasibility can
    # alternate, and the bisection then finds a consistent period, not always
    # the least.)
    needed = Counter(c for c in iteration.unit if c is not None)
    low = max([INDUCTION_PERIOD, *(-(-n // iteration.units[c]) for c, n in needed.items())])
    high = low
    while (group := _groups(iteration, high)) is None:
        low, high = high + 1, 2 * high
    while low < high:
        middle = (low + high) // 2
        if (found := _groups(iteration, middle)) is None:
            low = middle + 1
        else:
            high, group = middle, found
    return _Periodic(high, tuple(group))


_DRAINED = 1 << 30
"""A period no group reaches: every cross-iteration constraint slack."""


def _groups(iteration: _Iteration, period: int) -> list[int] | None:
    """Under the strict ordering, each op's group at `period`, or None if no
    groups satisfy the constraints (a cross-iteration dependence longer than the
    period allows, more ops of a class than its units can issue in `period`
    groups, a reservation table the threshold cannot hold). One pass in body
    order settles every constraint within the iteration (operands come before
    their uses, and units are claimed in that order); the cross-iteration ones
    (loop-carried values, the previous iteration's late stores, units shared
    with other iterations) are settled by repeating it, a bounded number of
    times, unless they form a cycle that grows without end."""
    weight, inputs, carried = iteration.weight, iteration.inputs, iteration.carried
    loads, stores, unit, units = iteration.load, iteration.store, iteration.unit, iteration.units
    in_order, before, rank = (
        iteration.stores_in_order,
        iteration.stores_before,
        iteration.store_rank,
    )
    drained = period >= _DRAINED
    needed = Counter(c for c in unit if c is not None)
    if not drained and any(n > units[c] * period for c, n in needed.items()):
        return None
    size = len(weight)
    store_at = [n for n in range(size) if stores[n]]
    group = [0] * size
    ready = list(weight)
    """Per op, `group + weight`: the least group of its users."""
    ready_at = ready.__getitem__
    for _ in range(iteration.carried_count + 3 + sum(needed.values())):
        changed = False
        latest_store = max((group[n] for n in store_at), default=-1)
        # Whether the previous iteration's latest store is still in the table when
        # this block is scheduled: at `INDUCTION_PERIOD` the branch keeps pace with
        # the ops (no lead); at a longer one it runs ahead as far as the threshold
        # lets it, and the store is pending if that lead reaches past it.
        if period == INDUCTION_PERIOD:
            pending = latest_store > period
        else:
            lead = period - latest_store + 1  # the lead that schedules it first
            pending = bool(store_at) and (lead <= 0 or iteration.fits(group, period, lead))
        late = latest_store + 1 - period if pending and not drained else None
        used: Counter[tuple[str, int]] = Counter()
        # The cache stores' groups as this pass settles them, by their place in
        # the authors' order, and the running maximum over those before a load.
        settled = [-1] * len(store_at)
        seen, seen_max = 0, -1
        for n in range(size):
            # After each operand's group (+ its weight: `ready`), and the carried
            # operands' a period earlier.
            g = max(map(ready_at, inputs[n]), default=0)
            if carried[n]:
                g = max(g, max(map(ready_at, carried[n])) - period)
            if loads[n]:
                if iteration.in_body_order:
                    while seen < before[n]:
                        seen_max = max(seen_max, settled[seen])
                        seen += 1
                    g = max(g, seen_max + 1)
                else:
                    g = max(g, max((group[s] for s in in_order[: before[n]]), default=-1) + 1)
                if late is not None:
                    g = max(g, late)
            cls = unit[n]
            if cls is not None:
                while used[cls, g if drained else g % period] >= units[cls]:
                    g += 1
                used[cls, g if drained else g % period] += 1
            if stores[n]:
                settled[rank[n]] = g
            if g != group[n]:
                changed = True
                group[n] = g
                ready[n] = g + weight[n]
        if not changed:
            if not drained and not iteration.fits(group, period, 0):
                return None  # the next block would be scheduled after its ops are due
            return group
    return None


def lockstep_latencies(
    kernel: cgra.KernelOp, hardware: Hardware, machine: SalamMachine
) -> dict[Operation, int]:
    """Every placed op's cycles on the authors' datapath: its latency on
    `hardware`, but 0 for the ops the authors' `CycleCounts.py` gives none
    (`SalamMachine.zero_cycle_ops`) and `fcmp`'s for compares, mins and maxes
    (`SalamMachine.compare_ops`)."""

    def cycles(op: cgra.PlacedOp) -> int:
        if kind_of(op) == COMPUTE:
            opcode = op.opcode.data  # type: ignore[attr-defined]
            if opcode in machine.zero_cycle_ops:
                return 0
            if opcode in machine.compare_ops:
                return machine.fcmp
        return op_latency(op, hardware)

    return {op: cycles(op) for op in kernel.body.block.ops if isinstance(op, cgra.PlacedOp)}


def _iterated(kernel: cgra.KernelOp) -> bool:
    """A loop iterates `kernel`: it is its loop's whole body (but the yield)."""
    loop = kernel.parent_op()
    return isinstance(loop, scf.ForOp) and kernel.next_op is loop.body.block.last_op


def enclosing_loops(kernel: cgra.KernelOp) -> int:
    """How many loops of its function enclose the loop that iterates `kernel`
    (the nesting `lockstep_schedule` takes), not counting the tile loops
    `tapeflow-layers` wraps around a strip-mined loop: the authors' machine runs
    the program as Enzyme left it, without layers. A kernel no loop iterates
    counts as an outermost loop of one trip."""
    loop = kernel.parent_op()
    if not _iterated(kernel):
        return 0
    assert loop is not None
    count, child, op = 0, loop, loop.parent_op()
    while op is not None and not isinstance(op, func.FuncOp):
        tile_loop = (
            isinstance(op, scf.ForOp)
            and isinstance(child, layer.LayerOp)
            and any(STRIP_MINED in o.attributes for o in child.body.block.ops)
        )
        if isinstance(op, scf.ForOp) and not tile_loop:
            count += 1
        child, op = op, op.parent_op()
    return count


def kernel_schedule(
    kernel: cgra.KernelOp,
    hardware: Hardware,
    machine: SalamMachine,
    adjoints: FunctionAdjoints | None = None,
) -> LockstepSchedule:
    """`kernel`'s iteration on `machine`'s lockstep datapath, with `hardware`'s
    latencies, datapath limits and load ordering, and, in a reverse sweep with
    `datapath.adjoint_additions`, the `fadd`s the authors' Enzyme adds
    (`sim.models.salam.enzyme_llvm.adjoint_additions`; `adjoints`: the functions'
    adjoints found for the kernels before it)."""
    latency = lockstep_latencies(kernel, hardware, machine)
    additions = (
        adjoint_additions(kernel, _carried(kernel), adjoints)
        if hardware.datapath.adjoint_additions
        else None
    )
    ops = additions.ops if additions else kernel.body.block.ops
    computes = [op for op in ops if kind_of(op) == COMPUTE]
    latency |= {op: op_latency(op, hardware) for op in computes if op not in latency}
    return lockstep_schedule(
        kernel,
        latency,
        enclosing_loops(kernel),
        {op: op_class(op.opcode.data) for op in computes},
        hardware.datapath,
        additions,
        _iterated(kernel),
    )


__all__ = [
    "INDUCTION_PERIOD",
    "LockstepSchedule",
    "enclosing_loops",
    "kernel_schedule",
    "lockstep_latencies",
    "lockstep_schedule",
]
