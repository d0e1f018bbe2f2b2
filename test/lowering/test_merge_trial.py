"""
`tapeflow-to-cgra`'s trial of merging a loop body's repeated integer ops
(`_merge_where_no_slower`): scheduled in place, the repeats set aside and their
uses rewired for the trial and given back after it, rather than on a copy of the
loop. Every module lowers as with the copy (the reference below, the method the
pass used before: same printed module, hence same choice and same schedules);
and giving the uses back leaves every value's uses as they were, in order, also
where the trial raises.
"""

from __future__ import annotations

import pytest
from xdsl.ir import Operation

from lowering import tapeflow_to_cgra as to_cgra
from lowering.scheduling.scheduler import SCHEDULES, Schedule, Scheduler
from sim.models import MODELS
from sim.simulator import prepare
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_tools.context import make_context
from targets.hardware import configure


def _merge_on_a_copy(loop, scheduler) -> None:
    """The reference: the trial on a copy of the loop."""
    repeats = to_cgra._equal_index_ops(loop.body.block)
    if not repeats:
        return
    kept = to_cgra._loop_cost(loop, scheduler)
    trial = loop.clone()
    to_cgra._merge(to_cgra._equal_index_ops(trial.body.block))
    merged = to_cgra._loop_cost(trial, scheduler)
    trial.erase()
    if merged <= kept:
        to_cgra._merge(repeats)


def _lowered(kernel: str, variant: str, unroll: int) -> str:
    ctx = make_context()
    module = parse_kernel(ctx, kernel, "small")
    preset = "Tflow32k" if variant == "tapeflow" else "Enzyme32k"
    prepare(ctx, module, variant, MODELS["cgra"].hardware(configure(preset)), unroll)
    return str(module)


@pytest.mark.parametrize(
    ("kernel", "variant", "unroll"),
    [
        ("fdtd2d", "tapeflow", 1),
        ("conv2d", "tapeflow", 1),
        ("pathfinder", "tapeflow", 8),
        ("lenet", "tapeflow", 1),
        ("gravity", "enzyme", 4),
    ],
)
def test_lowers_as_the_trial_on_a_copy(kernel, variant, unroll, monkeypatch):
    tried: list[bool] = []
    in_place = to_cgra._merge_where_no_slower

    def counting(loop, scheduler):
        tried.append(bool(to_cgra._equal_index_ops(loop.body.block)))
        return in_place(loop, scheduler)  # the kernel takes the kept body's schedule

    SCHEDULES.kept.clear()
    SCHEDULES.ops = 0
    monkeypatch.setattr(to_cgra, "_merge_where_no_slower", counting)
    ours = _lowered(kernel, variant, unroll)
    SCHEDULES.kept.clear()
    SCHEDULES.ops = 0
    monkeypatch.setattr(to_cgra, "_merge_where_no_slower", _merge_on_a_copy)
    reference = _lowered(kernel, variant, unroll)
    assert ours == reference
    if kernel in ("fdtd2d", "conv2d"):  # the docstring's cases: a trial was made
        assert any(tried)


def _uses(op: Operation) -> list[list[tuple[int, int]]]:
    """Per result of each op under `op`, its uses (op by id, position) in order."""
    return [
        [(id(u.operation), u.index) for u in result.uses]
        for each in op.walk()
        for result in each.results
    ]


def _before_to_cgra(monkeypatch: pytest.MonkeyPatch):
    """conv2d lowered for `cgra` but for `tapeflow-to-cgra`: its loops still hold
    their repeats."""
    ctx = make_context()
    module = parse_kernel(ctx, "conv2d", "small")
    hardware = MODELS["cgra"].hardware(configure("Tflow32k"))
    with monkeypatch.context() as patch:
        patch.setattr(to_cgra, "lower_module", lambda module, hardware: [])
        prepare(ctx, module, "tapeflow", hardware)
    return module, hardware


def test_giving_back_restores_every_use_in_order(monkeypatch: pytest.MonkeyPatch):
    module, _ = _before_to_cgra(monkeypatch)
    tried = 0
    for op in list(module.walk()):
        if not to_cgra._innermost(op):
            continue
        repeats = to_cgra._equal_index_ops(op.body.block)
        if not repeats:
            continue
        before = _uses(module)
        moved = to_cgra._rewire(repeats)
        assert all(not r.uses for each in repeats for r in each.results)
        to_cgra._give_back(moved)
        assert _uses(module) == before
        tried += 1
    assert tried > 0


def test_a_trial_that_raises_gives_the_uses_back(monkeypatch: pytest.MonkeyPatch):
    module, hardware = _before_to_cgra(monkeypatch)
    loop = next(
        op
        for op in module.walk()
        if to_cgra._innermost(op) and to_cgra._equal_index_ops(op.body.block)
    )
    before = _uses(module)
    text = str(module)
    costs = 0

    def failing(loop, scheduler, without=()):
        nonlocal costs
        costs += 1
        if without:  # the merged trial, its uses rewired
            raise RuntimeError("the scheduler failed")
        return Schedule(1, {}, 0)

    monkeypatch.setattr(to_cgra, "_loop_schedule", failing)
    try:
        with pytest.raises(RuntimeError, match="the scheduler failed"):
            to_cgra._merge_where_no_slower(loop, Scheduler(hardware))
    finally:
        monkeypatch.undo()
    assert costs == 2
    assert _uses(module) == before
    assert str(module) == text
