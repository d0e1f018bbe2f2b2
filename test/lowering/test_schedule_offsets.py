"""
A body's shape (`LoopBody.shape`, the key of the schedules `ScheduleMemo` keeps)
numbers its accesses' constant offsets by first appearance, as it numbers their
buffers and symbolic indices: the scheduler reads offsets only by equality (an
access may meet another of its partition and symbolic index only where their
offsets are equal, `Conflicts`), so a body whose offsets all moved keeps its
schedule. Checked here: a moved body is served the schedule its own search finds
without a memo (hand-written and random bodies); a body whose offsets moved so
that two that differed are now equal (or the reverse) misses; and on real
kernels' lowerings every schedule the memo serves, those served across moved
offsets included, is the one a search without the memo finds, op by op.
"""

from __future__ import annotations

import random

import pytest
from test_schedule_memo import _by_position
from xdsl.dialects import arith, scf
from xdsl.ir import Operation, SSAValue

from lowering.scheduling.body import LoopBody
from lowering.scheduling.scheduler import SCHEDULES, ScheduleMemo, Scheduler
from sim.simulator import prepare
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_tools.context import make_context
from tapeflow_tools.frontend import parse_module_text
from targets.hardware import configure

HW = configure("Enzyme32k")
N = 256


def _loop(
    accesses: list[tuple[str, str, int]], seed: int
) -> tuple[list[Operation], list[tuple[SSAValue, SSAValue]]]:
    """A loop whose body makes `%i + k` for each offset `k` of `accesses` (each
    (kind, buffer, k): a load or a store) and does them in order, with
    arithmetic between drawn from `seed`; the ops (constants hoisted, as the
    pass does) and its carried values."""
    rng = random.Random(seed)
    offsets = sorted({k for _, _, k in accesses})
    consts = "\n".join(f"  %k{k} = arith.constant {k} : index" for k in offsets)
    lines = [f"      %i{k} = arith.addi %i, %k{k} : index" for k in offsets]
    values = ["%acc"]
    for n, (kind, buffer, k) in enumerate(accesses):
        if kind == "load":
            lines.append(f"      %l{n} = memref.load {buffer}[%i{k}] : memref<{N}xf64>")
            values.append(f"%l{n}")
        else:
            stored = rng.choice(values)
            lines.append(f"      memref.store {stored}, {buffer}[%i{k}] : memref<{N}xf64>")
        if rng.random() < 0.5:
            op = rng.choice(["arith.addf", "arith.mulf", "arith.divf"])
            lines.append(f"      %f{n} = {op} {rng.choice(values)}, {values[-1]} : f64")
            values.append(f"%f{n}")
    lines.append(f"      scf.yield {values[-1]} : f64")
    body = "\n".join(lines)
    text = f"""
func.func @f(%a: memref<{N}xf64>, %b: memref<{N}xf64>, %x0: f64) -> f64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 64 : index
{consts}
  %r = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %x0) -> (f64) {{
{body}
  }}
  func.return %r : f64
}}
"""
    module = parse_module_text(make_context(), text, "offsets.mlir")
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    ops = [op for op in loop.body.block.ops if not isinstance(op, arith.ConstantOp)]
    terminator = ops.pop()
    return ops, list(zip(loop.body.block.args[1:], terminator.operands, strict=True))


ACCESSES = [
    ("load", "%a", 0),
    ("load", "%a", 1),
    ("store", "%a", 1),
    ("load", "%b", 2),
    ("store", "%b", 0),
    ("load", "%a", 2),
    ("store", "%a", 0),
]


def _moved(accesses: list[tuple[str, str, int]], by: int) -> list[tuple[str, str, int]]:
    return [(kind, buffer, k + by) for kind, buffer, k in accesses]


def _fresh(ops: list[Operation], carried: list[tuple[SSAValue, SSAValue]]) -> tuple[object, ...]:
    return _by_position(Scheduler(HW, None).schedule(ops, carried), ops)


def test_moved_offsets_are_one_shape_served_the_schedule_of_their_own_search() -> None:
    memo = ScheduleMemo()
    ops, carried = _loop(ACCESSES, 0)
    first = Scheduler(HW, memo).schedule(ops, carried)
    moved, moved_carried = _loop(_moved(ACCESSES, 5), 0)
    keys = LoopBody.of(moved, HW).keys
    assert [k[2] for k in keys if k is not None] != [
        k[2] for k in LoopBody.of(ops, HW).keys if k is not None
    ]  # the offsets the keys carry did move
    served = Scheduler(HW, memo).find_kept(moved, moved_carried)
    assert served is not None
    assert _by_position(served, moved) == _fresh(moved, moved_carried)
    assert _by_position(served, moved) == _by_position(first, ops)


@pytest.mark.parametrize(
    "changed",
    [
        # two offsets that differed now equal: the load of %a[i+1] meets the store at i
        [(kind, buffer, 0 if k == 1 else k) for kind, buffer, k in ACCESSES],
        # two that were equal now differ
        [(kind, buffer, 3 if (kind, k) == ("store", 0) else k) for kind, buffer, k in ACCESSES],
    ],
)
def test_offsets_whose_equalities_change_miss(changed: list[tuple[str, str, int]]) -> None:
    memo = ScheduleMemo()
    Scheduler(HW, memo).schedule(*_loop(ACCESSES, 0))
    other, other_carried = _loop(changed, 0)
    scheduler = Scheduler(HW, memo)
    assert scheduler.find_kept(other, other_carried) is None
    schedule = scheduler.schedule(other, other_carried)
    assert _by_position(schedule, other) == _fresh(other, other_carried)


@pytest.mark.parametrize("seed", range(12))
def test_random_bodies_with_moved_offsets_are_served_their_own_schedules(seed: int) -> None:
    """Random accesses of two buffers at `%i + k`, every offset then moved by
    one amount (served, the moved body's own schedule) and one offset moved onto
    another's value (its own search, whether or not it was served)."""
    rng = random.Random(seed)
    accesses = [
        (rng.choice(["load", "load", "store"]), rng.choice(["%a", "%b"]), rng.randrange(4))
        for _ in range(8 + 2 * seed)
    ]
    memo = ScheduleMemo()
    ops, carried = _loop(accesses, seed)
    Scheduler(HW, memo).schedule(ops, carried)
    moved, moved_carried = _loop(_moved(accesses, 1 + seed % 7), seed)
    served = Scheduler(HW, memo).find_kept(moved, moved_carried)
    assert served is not None
    assert _by_position(served, moved) == _fresh(moved, moved_carried)
    used = sorted({k for _, _, k in accesses})
    if len(used) > 1:
        merged = [(kind, buffer, used[0] if k == used[1] else k) for kind, buffer, k in accesses]
        other, other_carried = _loop(merged, seed)
        assert Scheduler(HW, memo).find_kept(other, other_carried) is None
        schedule = Scheduler(HW, memo).schedule(other, other_carried)
        assert _by_position(schedule, other) == _fresh(other, other_carried)


def _raw_offsets(ops: list[Operation], hw: object) -> tuple[object, ...]:
    return tuple(None if k is None else k[2] for k in LoopBody.of(ops, hw).keys)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kernel", "variant", "unroll"), [("pathfinder", "enzyme", 1024), ("pathfinder", "tapeflow", 4)]
)
def test_every_served_schedule_of_a_lowering_is_its_own_search(
    kernel: str, variant: str, unroll: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each schedule a kernel's lowering asks for, from an empty memo, is
    compared with a search of the same ops without one; the fully unrolled
    lowering is served schedules across moved offsets (a body searched with other
    offsets), which the shape before numbering them missed."""
    monkeypatch.setattr(SCHEDULES, "kept", {})  # the process's memo, emptied for this test
    monkeypatch.setattr(SCHEDULES, "ops", 0)
    original = Scheduler._schedule
    first_offsets: dict[object, tuple[object, ...]] = {}
    across = 0
    compared = 0

    def checked(self, ops, carried, iterated, spad=()):  # type: ignore[no-untyped-def]
        nonlocal across, compared
        found = original(self, ops, carried, iterated, spad)
        key = self._memo_key(LoopBody.of(ops, self.hw, spad), carried, iterated)
        offsets = _raw_offsets(ops, self.hw)
        if first_offsets.setdefault(key, offsets) != offsets:
            across += 1
        fresh = original(Scheduler(self.hw, None), ops, carried, iterated, spad)
        assert _by_position(found, ops) == _by_position(fresh, ops)
        compared += 1
        return found

    monkeypatch.setattr(Scheduler, "_schedule", checked)
    hw = configure("Tflow32k" if variant == "tapeflow" else "Enzyme32k")
    ctx = make_context()
    prepare(ctx, parse_kernel(ctx, kernel, "small"), variant, hw, unroll=unroll)
    assert compared > 0
    if unroll == 1024:
        assert across > 0
