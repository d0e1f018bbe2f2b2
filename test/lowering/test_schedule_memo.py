"""
`lowering.scheduling.scheduler.ScheduleMemo`, the schedules `tapeflow-to-cgra`'s
scheduler keeps: a body of the same shape on a machine of the same scheduling
numbers is served the schedule found before, anything the scheduler reads that
differs (an op's latency class, an access's index or buffer, a loop-carried
value, any hardware option of the pass) misses it; a served schedule is the one
a scheduler without the memo finds, op by op (hand-written bodies and the
scheduler tests' random ones); and a module lowered with a warm memo prints as
one lowered with none.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_cgra_scheduler import HARDWARE, _body
from xdsl.dialects import arith, scf
from xdsl.ir import Operation, SSAValue

from lowering.scheduling.scheduler import (
    SCHEDULES,
    Schedule,
    ScheduleMemo,
    Scheduler,
    scheduling_key,
)
from sim.simulator import prepare
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_tools.context import make_context
from tapeflow_tools.frontend import parse_module_text
from targets.hardware import configure
from targets.scheduling import HARDWARE_OPTIONS, MAPPING_OPTIONS, _with

HW = configure("Enzyme32k")

BODY = """
      %x = memref.load %a[%i] : memref<64xf64>
      %ip = arith.addi %i, %c1 : index
      %y = memref.load %a[%ip] : memref<64xf64>
      %p = arith.mulf %x, %y : f64
      %q = arith.addf %p, %acc : f64
      %r = arith.divf %q, %x : f64
      memref.store %r, %b[%i] : memref<64xf64>
      scf.yield %q : f64
"""


def _loop(body: str) -> tuple[list[Operation], list[tuple[SSAValue, SSAValue]]]:
    """The ops (constants hoisted, as the pass does) and carried values of a
    loop with `body`, in a module of its own."""
    text = f"""
func.func @f(%a: memref<64xf64>, %b: memref<64xf64>, %x0: f64) -> f64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 63 : index
  %r = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %x0) -> (f64) {{
{body}
  }}
  func.return %r : f64
}}
"""
    module = parse_module_text(make_context(), text, "body.mlir")
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    for op in list(loop.body.block.ops):
        if isinstance(op, arith.ConstantOp):
            op.detach()
    ops = list(loop.body.block.ops)
    terminator = ops.pop()
    return ops, list(zip(loop.body.block.args[1:], terminator.operands, strict=True))


def _by_position(schedule: Schedule, ops: list[Operation]) -> tuple[object, ...]:
    return schedule.ii, schedule.length, tuple(schedule.place[op] for op in ops)


def _fresh(body: str, hw=HW) -> tuple[object, ...]:  # type: ignore[no-untyped-def]
    """The schedule of a new copy of `body`, found without any memo."""
    ops, carried = _loop(body)
    return _by_position(Scheduler(hw, None).schedule(ops, carried), ops)


def test_a_copy_of_a_body_is_served_its_schedule() -> None:
    memo = ScheduleMemo()
    ops, carried = _loop(BODY)
    first = Scheduler(HW, memo).schedule(ops, carried)
    assert len(memo.kept) == 1
    copy, copy_carried = _loop(BODY)  # other ops, other values: the same shape
    served = Scheduler(HW, memo).find_kept(copy, copy_carried)
    assert served is not None
    assert set(served.place) == set(copy)
    assert _by_position(served, copy) == _by_position(first, ops) == _fresh(BODY)


@pytest.mark.parametrize(
    "changed",
    [
        BODY.replace("arith.mulf %x, %y", "arith.addf %x, %y"),  # a latency class
        BODY.replace("%a[%ip]", "%b[%ip]"),  # the buffer an access reads
        BODY.replace("%a[%ip]", "%a[%i]"),  # an index: now the element of %x
        BODY.replace("%b[%i]", "%a[%ip]"),  # a store the next iteration's load reads
        BODY.replace("scf.yield %q", "scf.yield %r"),  # the carried value
        BODY.replace("arith.addf %p, %acc", "arith.addf %p, %x"),  # the carried use
    ],
)
def test_a_body_that_differs_misses(changed: str) -> None:
    """Each change is one the scheduler reads; the schedule found is then the
    changed body's own (as found with no memo)."""
    memo = ScheduleMemo()
    ops, carried = _loop(BODY)
    Scheduler(HW, memo).schedule(ops, carried)
    other, other_carried = _loop(changed)
    scheduler = Scheduler(HW, memo)
    assert scheduler.find_kept(other, other_carried) is None
    schedule = scheduler.schedule(other, other_carried)
    assert _by_position(schedule, other) == _fresh(changed)
    assert len(memo.kept) == 2


def _changed(option: str, mapping: bool) -> object:
    """`HW` with one scheduling option's field changed."""
    path = (MAPPING_OPTIONS if mapping else HARDWARE_OPTIONS)[option]
    value = HW
    for name in path:
        value = getattr(value, name)
    new = (not value) if mapping else value + 1
    return _with(HW, path, new)


@pytest.mark.parametrize(
    ("option", "mapping"),
    [(o, False) for o in HARDWARE_OPTIONS] + [(o, True) for o in MAPPING_OPTIONS],
)
def test_a_machine_that_differs_in_what_the_scheduler_reads_misses(
    option: str, mapping: bool
) -> None:
    hw = _changed(option, mapping)
    assert scheduling_key(hw) != scheduling_key(HW)  # type: ignore[arg-type]
    memo = ScheduleMemo()
    ops, carried = _loop(BODY)
    Scheduler(HW, memo).schedule(ops, carried)
    copy, copy_carried = _loop(BODY)
    assert Scheduler(hw, memo).find_kept(copy, copy_carried) is None  # type: ignore[arg-type]


def test_a_machine_that_differs_elsewhere_is_served() -> None:
    """The cache's size, the DRAM and the scratchpad's size reach no schedule."""
    hw = replace(
        HW,
        cache=replace(HW.cache, size_bytes=HW.cache.size_bytes * 2),
        dram=replace(HW.dram, latency_cycles=HW.dram.latency_cycles + 50),
        scratchpad=replace(HW.scratchpad, size_bytes=4096),
    )
    memo = ScheduleMemo()
    ops, carried = _loop(BODY)
    Scheduler(HW, memo).schedule(ops, carried)
    copy, copy_carried = _loop(BODY)
    assert Scheduler(hw, memo).find_kept(copy, copy_carried) is not None


@pytest.mark.parametrize("seed", range(8))
def test_random_bodies_are_served_their_own_schedules(seed: int) -> None:
    """The scheduler's random bodies (loads and stores at neighbouring elements,
    accumulators): a copy of each is served the schedule its own search finds, on
    both machines, and the next seed's body, of another shape, is not."""
    hw = HARDWARE[seed % 2]
    memo = ScheduleMemo()
    ops, carried = _body(300 + seed, 12 + 3 * seed)
    Scheduler(hw, memo).schedule(ops, carried)
    copy, copy_carried = _body(300 + seed, 12 + 3 * seed)
    served = Scheduler(hw, memo).find_kept(copy, copy_carried)
    assert served is not None
    fresh = Scheduler(hw, None).schedule(copy, copy_carried)
    assert _by_position(served, copy) == _by_position(fresh, copy)
    other, other_carried = _body(301 + seed, 12 + 3 * seed)
    assert Scheduler(hw, memo).find_kept(other, other_carried) is None


def test_the_memo_keeps_at_most_its_limit_of_ops() -> None:
    ops, carried = _loop(BODY)
    memo = ScheduleMemo(limit=len(ops))
    Scheduler(HW, memo).schedule(ops, carried)
    other, other_carried = _loop(BODY.replace("arith.divf", "arith.mulf"))
    Scheduler(HW, memo).schedule(other, other_carried)
    assert memo.ops == len(other) and len(memo.kept) == 1  # the first made room
    assert Scheduler(HW, memo).find_kept(*_loop(BODY)) is None


@pytest.mark.parametrize(("kernel", "variant"), [("pathfinder", "tapeflow"), ("nn", "enzyme")])
def test_a_warm_memo_lowers_a_module_as_none_does(kernel: str, variant: str) -> None:
    """Lowered twice with the process's memo (the second served every schedule)
    and once with it emptied before each schedule: the same module."""
    hw = configure("Tflow32k" if variant == "tapeflow" else "Enzyme32k")
    printed = []
    for warm in (True, True, False):
        ctx = make_context()
        module = parse_kernel(ctx, kernel, "small")
        limit = SCHEDULES.limit
        if not warm:
            SCHEDULES.kept.clear()
            SCHEDULES.ops = 0
            SCHEDULES.limit = 0
        try:
            prepare(ctx, module, variant, hw, unroll=4)
        finally:
            SCHEDULES.limit = limit
        printed.append(str(module))
    assert printed[0] == printed[1] == printed[2]


TAPE_BODY = """
      %x = memref.load %a[%i] : memref<64xf64>
      %p = arith.mulf %x, %x : f64
      %q = arith.addf %p, %acc : f64
      STORES
      scf.yield %q : f64
"""

ENZYME_TAPE = """memref.store %x, %t0[%i] : memref<64xf64>
      memref.store %p, %t1[%i] : memref<64xf64>"""

REGION_TAPE = """region.store %x, %r[%i] slot 0 id 0 : f64, !region.region<64, [f64, f64]>
      region.store %p, %r[%i] slot 1 id 1 : f64, !region.region<64, [f64, f64]>"""


def _tape_loop(stores: str) -> tuple[list[Operation], list[tuple[SSAValue, SSAValue]]]:
    """A FWD body whose tape (nothing in it loads) goes to two buffers of
    Enzyme's or to one region's two slots."""
    text = f"""
func.func @f(%a: memref<64xf64>, %t0: memref<64xf64>, %t1: memref<64xf64>, %x0: f64) -> f64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 64 : index
  %r = region.alloc : !region.region<64, [f64, f64]>
  %s = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %x0) -> (f64) {{
{TAPE_BODY.replace("STORES", stores)}
  }}
  func.return %s : f64
}}
"""
    module = parse_module_text(make_context(), text, "tape.mlir")
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    ops = list(loop.body.block.ops)
    terminator = ops.pop()
    return ops, list(zip(loop.body.block.args[1:], terminator.operands, strict=True))


def test_stores_no_load_reads_are_one_shape_to_buffers_or_slots() -> None:
    """Stores to buffers the body never loads reach no carried bound: Enzyme's
    tape buffers and a region's slots (each a partition of its own, as each
    buffer is) give one shape, served the schedule the other finds fresh."""
    memo = ScheduleMemo()
    ops, carried = _tape_loop(ENZYME_TAPE)
    first = Scheduler(HW, memo).schedule(ops, carried)
    other, other_carried = _tape_loop(REGION_TAPE)
    served = Scheduler(HW, memo).find_kept(other, other_carried)
    assert served is not None
    fresh = Scheduler(HW, None).schedule(other, other_carried)
    assert _by_position(served, other) == _by_position(fresh, other) == _by_position(first, ops)
