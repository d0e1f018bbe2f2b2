"""
How the authors' gem5-SALAM datapath issues one kernel loop: the static half of
the `salam` timing model (`sim/models/salam.py` adds the memory side from the
trace). Sources are the authors' fork (`sfu-arch/gem5-SALAM`, branch `binned`,
commit `a5e40f4be`), as read in ../shared/papers/gem5-salam-mechanisms.md; file
and line numbers are that commit's.

The datapath issues in *lockstep groups* (`lockstep_mode = True` in
`benchmarks/AD/<kernel>/hw/*.ini`; `llvm_interface.hh`
`lockstepReady() { return !lockstep || queuesClear(); }`): at a tick whose
compute, read and write queues are empty, every instruction of the reservation
table whose operands are ready issues, and nothing more issues until all of them
have finished. A group therefore lasts as long as its slowest op or memory
request. Which ops share a group:

- **Inner-loop iterations overlap.** Only the outermost loops' latch branches hold
  the next iteration back until the queues drain (`src/hwacc/llvm_interface.cc`
  ~L875-883 marks the latches of `loopInfo->begin()..end()`, the outermost loops
  only; the exit barrier near L375 and `LLVMRead/src/instruction.hh` ~L224 apply
  it): an outermost kernel loop's iterations run one after another
  (`LockstepSchedule.latching`), and the runs of a loop nested two deep or more
  continue one another, their enclosing loop not latching either
  (`LockstepSchedule.continued`). An inner loop's branch launches as soon as its compare has
  committed and schedules the next iteration's block at once, so iteration k+1 starts
  `period` groups after iteration k: at least 2 (the induction `add`, then the
  `icmp` the branch waits for; `CycleCounts.py`: add and icmp 1 cycle, phi and br
  0), more when a loop-carried value or a store (below) needs longer.
- **Ready means operands committed.** An op issues in the group after its
  operands' groups, or in the same group after an op that takes 0 cycles
  (`CycleCounts.py`: `select`, `getelementptr`, `phi`, `br` are 0 and commit at
  launch, so their users issue in the same pass).
- **A load waits for every older store not yet issued** (`findDynamicDeps`,
  `llvm_interface.cc` near L544): for a store earlier in the same iteration, and
  for a store of the previous iteration that had not issued when this
  iteration's block was scheduled. The branch schedules the next block
  `INDUCTION_PERIOD` groups after its own, whatever the ops of the iteration
  still have to do: at that period a previous store is pending if its group is
  later than the branch's; when the iterations' ops need a longer period they
  fall further behind the branches with every iteration, so every store of the
  previous iteration is still pending when the next block is scheduled.
- **Tape bins commit at once.** In TapeFlow mode a load or store tagged as a tape
  access (`!read`/`!write`) commits at the first lockstep pass after its block is
  scheduled, without a memory request and without waiting for its operands
  (`llvm_interface.cc` ~L305-316, `instruction.cc` ~265): its cost is its issue
  slot, and a load's users see its value in the same group.

What is *not* here: functional-unit counts (the kernels' `.ini` files give 1 to
1000 units per class; whether a unit is pipelined is not in the notes), the
scheduling threshold (`sched_threshold`, a cap on the reservation table's size,
taken as never reached), and the ops of the middle loops between continued runs
(counted one after another, as outside kernels).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from tapeflow_dialects import cgra
from tapeflow_dialects.cgra import MemPath

INDUCTION_PERIOD = 2
"""Groups between the launches of consecutive inner-loop iterations when nothing
else holds them: the induction `add` (1 cycle), then the `icmp` (1 cycle) whose
result the branch waits for; the branch (0 cycles) then schedules the next block
in the same pass (`CycleCounts.py`; `llvm_interface.cc`, `scheduleBB`)."""


@dataclass(frozen=True)
class LockstepSchedule:
    """One iteration of a kernel loop on the lockstep datapath: the group each op
    issues in, counted from the group that launched the iteration."""

    period: int
    """Groups between consecutive iteration launches (at least `INDUCTION_PERIOD`)."""
    compute: tuple[tuple[int, int], ...]
    """(group, cycles) of every compute op that takes at least one cycle."""
    accesses: tuple[tuple[int, bool], ...]
    """(group, is a write) of every cache access, in body order: the order the
    executor records them in the trace, once per iteration."""
    groups: int
    """Groups from the iteration's launch to its last issue, plus one."""
    latching: bool = False
    """The kernel's loop is an outermost loop of its function: its latch branch
    waits until the iteration has drained, so iterations do not overlap
    (`period == groups`)."""
    continued: bool = False
    """The loop's enclosing loop is not outermost either: consecutive runs of the
    loop (one per trip of that enclosing loop) overlap like one run."""


def _is_bin(op: Operation) -> bool:
    return isinstance(op, cgra.LoadOp | cgra.StoreOp) and op.path.data == MemPath.SPAD


def _is_cache(op: Operation, kind: type) -> bool:
    return isinstance(op, kind) and op.path.data == MemPath.CACHE


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


def lockstep_schedule(
    kernel: cgra.KernelOp, latency: dict[Operation, int], enclosing: int = 1
) -> LockstepSchedule:
    """
    The lockstep schedule of `kernel` iterated by its loop, given every placed
    op's cycles on the authors' datapath (`latency`; a cache access's entry is
    ignored: its time is its port occupancy, which the model takes from the
    trace) and the number of loops `enclosing` the kernel's loop in its function
    (0: it is an outermost loop, whose iterations do not overlap; 2 or more: its
    runs continue one another). The smallest period at which the groups below
    are consistent, found by bisection from `INDUCTION_PERIOD`; for a period,
    each op's group is the least that satisfies, in body order until nothing
    changes:

    - after each operand's group (+1 unless that operand takes 0 cycles, or is a
      tape bin load); a loop-carried operand's producer is in the previous
      iteration, `period` groups earlier;
    - a cache load after every earlier cache store of its iteration (+1), and
      after every cache store of the previous iteration still pending when its
      block was scheduled (+1 - period): at `INDUCTION_PERIOD`, those in a
      later group than the branch; at a longer period, all of them;
    - a tape bin access in group 0, whatever its operands.
    """
    ops = [op for op in kernel.body.block.ops if isinstance(op, cgra.PlacedOp)]
    body = _Body.of(ops, _carried(kernel), latency)
    if enclosing == 0:
        # A latching loop: the next iteration starts once this one has drained.
        group = body.groups(_DRAINED)
        assert group is not None
        depth = max(group, default=0) + 1
        return LockstepSchedule(depth, *body.issued(group), depth, latching=True)
    # The least period whose groups are consistent: a period past the deepest
    # group leaves every cross-iteration constraint slack, and a longer period
    # never breaks one a shorter period met, so bisect between the two.
    low, high = INDUCTION_PERIOD, INDUCTION_PERIOD
    while (group := body.groups(high)) is None:
        low, high = high + 1, 2 * high
    while low < high:
        middle = (low + high) // 2
        if body.groups(middle) is None:
            low = middle + 1
        else:
            high = middle
    group = body.groups(high)
    assert group is not None
    return LockstepSchedule(
        high,
        *body.issued(group),
        max(group, default=0) + 1,
        continued=enclosing >= 2,
    )


_DRAINED = 1 << 30
"""A period no group reaches: every cross-iteration constraint slack."""


@dataclass(frozen=True)
class _Body:
    """A kernel's placed ops by position, with what their groups depend on, read
    from the IR once: the bisection over periods then works on integers."""

    latency: tuple[int, ...]
    compute: tuple[bool, ...]
    bin: tuple[bool, ...]
    """A tape bin access (`_is_bin`)."""
    cache_load: tuple[bool, ...]
    cache_store: tuple[bool, ...]
    weight: tuple[int, ...]
    """Groups from an op's group to its users' (0: a 0-cycle op or a bin load)."""
    inputs: tuple[tuple[int, ...], ...]
    """Positions of the op's operands produced in this iteration (none for a bin)."""
    carried: tuple[tuple[int, ...], ...]
    """Positions of the producers (in the previous iteration) of its loop-carried
    operands (none for a bin)."""
    carried_count: int

    @staticmethod
    def of(
        ops: list[Operation], carried: dict[SSAValue, Operation], latency: dict[Operation, int]
    ) -> _Body:
        index = {op: n for n, op in enumerate(ops)}
        bins = tuple(_is_bin(op) for op in ops)
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
            inputs.append(tuple(mine))
            carried_in.append(tuple(previous))
        return _Body(
            tuple(latency[op] for op in ops),
            tuple(isinstance(op, cgra.ComputeOp) for op in ops),
            bins,
            tuple(_is_cache(op, cgra.LoadOp) for op in ops),
            tuple(_is_cache(op, cgra.StoreOp) for op in ops),
            tuple(
                0 if b or (isinstance(op, cgra.ComputeOp) and latency[op] == 0) else 1
                for op, b in zip(ops, bins, strict=True)
            ),
            tuple(inputs),
            tuple(carried_in),
            len(carried),
        )

    def issued(
        self, group: list[int]
    ) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, bool], ...]]:
        """(group, cycles) of the compute ops that take a cycle or more, and (group,
        is a write) of the cache accesses in body order."""
        compute = tuple(
            (g, cycles)
            for g, cycles, compute in zip(group, self.latency, self.compute, strict=True)
            if compute and cycles > 0
        )
        accesses = tuple(
            (g, store)
            for g, load, store in zip(group, self.cache_load, self.cache_store, strict=True)
            if load or store
        )
        return compute, accesses

    def groups(self, period: int) -> list[int] | None:
        """Each op's group at `period`, or None if no groups satisfy the constraints
        (a cross-iteration dependence longer than the period allows). One pass in body
        order settles every constraint within the iteration (operands come before
        their uses); the cross-iteration ones (loop-carried values, the previous
        iteration's late stores) are settled by repeating it, at most once per such
        constraint on a path, unless they form a cycle that grows without end."""
        weight, inputs, carried = self.weight, self.inputs, self.carried
        loads, stores, bins = self.cache_load, self.cache_store, self.bin
        group = [0] * len(weight)
        store_at = [n for n, store in enumerate(stores) if store]
        for _ in range(self.carried_count + 3):
            changed = False
            latest_store = max((group[n] for n in store_at), default=-1)
            pending = latest_store > INDUCTION_PERIOD or period > INDUCTION_PERIOD
            late = latest_store + 1 - period if pending and period < _DRAINED else None
            before = -1  # the latest group of a cache store earlier in the iteration
            for n in range(len(group)):
                g = 0
                if not bins[n]:
                    for m in inputs[n]:
                        if group[m] + weight[m] > g:
                            g = group[m] + weight[m]
                    for m in carried[n]:
                        if group[m] + weight[m] - period > g:
                            g = group[m] + weight[m] - period
                    if loads[n]:
                        g = max(g, before + 1)
                        if late is not None:
                            g = max(g, late)
                if stores[n]:
                    before = max(before, g)
                if g != group[n]:
                    changed = True
                    group[n] = g
            if not changed:
                return group
        return None


__all__ = ["INDUCTION_PERIOD", "LockstepSchedule", "lockstep_schedule"]
