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
    carried = _carried(kernel)
    weight = {
        op: 0 if _is_bin(op) or (isinstance(op, cgra.ComputeOp) and latency[op] == 0) else 1
        for op in ops
    }
    if enclosing == 0:
        # A latching loop: the next iteration starts once this one has drained.
        group = _groups(ops, carried, weight, _DRAINED)
        assert group is not None
        depth = max(group.values(), default=0) + 1
        return LockstepSchedule(depth, *_issued(ops, group, latency), depth, latching=True)
    # The least period whose groups are consistent: a period past the deepest
    # group leaves every cross-iteration constraint slack, and a longer period
    # never breaks one a shorter period met, so bisect between the two.
    low, high = INDUCTION_PERIOD, INDUCTION_PERIOD
    while (group := _groups(ops, carried, weight, high)) is None:
        low, high = high + 1, 2 * high
    while low < high:
        middle = (low + high) // 2
        if _groups(ops, carried, weight, middle) is None:
            low = middle + 1
        else:
            high = middle
    group = _groups(ops, carried, weight, high)
    assert group is not None
    return LockstepSchedule(
        high,
        *_issued(ops, group, latency),
        max(group.values(), default=0) + 1,
        continued=enclosing >= 2,
    )


_DRAINED = 1 << 30
"""A period no group reaches: every cross-iteration constraint slack."""


def _issued(
    ops: list[Operation], group: dict[Operation, int], latency: dict[Operation, int]
) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, bool], ...]]:
    """(group, cycles) of the compute ops that take a cycle or more, and (group,
    is a write) of the cache accesses in body order."""
    compute = tuple(
        (group[op], latency[op]) for op in ops if isinstance(op, cgra.ComputeOp) and latency[op] > 0
    )
    accesses = tuple(
        (group[op], isinstance(op, cgra.StoreOp))
        for op in ops
        if _is_cache(op, cgra.LoadOp) or _is_cache(op, cgra.StoreOp)
    )
    return compute, accesses


def _groups(
    ops: list[Operation],
    carried: dict[SSAValue, Operation],
    weight: dict[Operation, int],
    period: int,
) -> dict[Operation, int] | None:
    """Each op's group at `period`, or None if no groups satisfy the constraints
    (a cross-iteration dependence longer than the period allows). One pass in body
    order settles every constraint within the iteration (operands come before
    their uses); the cross-iteration ones (loop-carried values, the previous
    iteration's late stores) are settled by repeating it, at most once per such
    constraint on a path, unless they form a cycle that grows without end."""
    group = dict.fromkeys(ops, 0)
    for _ in range(len(carried) + 3):
        changed = False
        latest_store = max((group[s] for s in ops if _is_cache(s, cgra.StoreOp)), default=-1)
        before = -1  # the latest group of a cache store earlier in the iteration
        for op in ops:
            g = 0
            if not _is_bin(op):
                for value in op.operands:
                    producer = value.owner
                    if producer in group:
                        g = max(g, group[producer] + weight[producer])  # type: ignore[index]
                    elif value in carried:
                        p = carried[value]
                        g = max(g, group[p] + weight[p] - period)
                if _is_cache(op, cgra.LoadOp):
                    g = max(g, before + 1)
                    pending = latest_store > INDUCTION_PERIOD or period > INDUCTION_PERIOD
                    if pending and period < _DRAINED:
                        g = max(g, latest_store + 1 - period)
            if _is_cache(op, cgra.StoreOp):
                before = max(before, g)
            if g != group[op]:
                changed = True
                group[op] = g
        if not changed:
            return group
    return None


__all__ = ["INDUCTION_PERIOD", "LockstepSchedule", "lockstep_schedule"]
