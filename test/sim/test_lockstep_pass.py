"""The release ordering's pass over an iteration (`_Runs._pass`) keeps each op's
ready group and, for a body whose loads follow their earlier stores, the running
bound of those stores: it must place every iteration as the plain statement of
its rules does (`_reference_pass`, each constraint taken as a list and every
earlier store visited per load)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sim.models import get_model
from sim.models.salam.lockstep import _Runs, kernel_schedule
from sim.models.salam.machine import SALAM
from sim.simulator import prepare
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import cgra
from tapeflow_tools.context import make_context
from targets.hardware import configure


def _reference_pass(
    self: _Runs,
    row: list[int],
    start: int,
    previous: list[int] | None,
    held: list[int | None],
    older: int,
) -> tuple[list[int], bool]:
    """`lockstep_schedule`'s rules, one op at a time, as its docstring lists them."""
    it = self.iteration
    placed = list(row)
    used: Counter[tuple[str, int]] = Counter()
    for n in range(len(placed)):
        if it.bin[n]:
            placed[n] = start
            continue
        g = max(
            [start, older if it.load[n] else start]
            + [placed[p] + it.weight[p] for p in it.inputs[n]]
        )
        if previous is not None:
            g = max([g] + [previous[p] + it.weight[p] for p in it.carried[n]])
            if it.weight[n]:
                g = max(g, previous[n] + 1)
        if it.load[n]:
            for rank in range(it.stores_before[n]):
                if held[rank] is None:
                    g = max(g, placed[it.stores_in_order[rank]] + 1)
        cls = it.unit[n]
        if cls is not None:
            while self.used[cls, g] + used[cls, g] >= it.units[cls]:
                g += 1
            used[cls, g] += 1
        placed[n] = g
    return placed, placed != row


@pytest.mark.parametrize("unroll", [1, 4, 1 << 30])
@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
@pytest.mark.parametrize("key", ["logsum", "pathfinder", "massspring"])
def test_the_pass_places_as_the_rules_do(
    key: str, variant: str, unroll: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = make_context()
    module = parse_kernel(ctx, key, "small")
    preset = "Enzyme32k" if variant == "enzyme" else "Tflow2k"
    hardware = get_model("salam").hardware(configure(preset))
    assert hardware.datapath.ordering == "release"
    prepare(ctx, module, variant, hardware, unroll=unroll, model="salam")
    kernels = [op for op in module.walk() if isinstance(op, cgra.KernelOp)]
    assert kernels
    mine = [kernel_schedule(k, hardware, SALAM).groups(40) for k in kernels]
    monkeypatch.setattr(_Runs, "_pass", _reference_pass)
    theirs = [kernel_schedule(k, hardware, SALAM).groups(40) for k in kernels]
    for a, b in zip(mine, theirs, strict=True):
        assert a.shape == b.shape
        assert np.array_equal(a, b)


def test_a_load_before_its_stores_in_the_body_takes_the_general_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A body whose loads do not all follow their earlier stores (not
    `in_body_order`) is placed by the pass repeated to a fixed point, each load
    visiting its stores: the same groups as the reference."""
    ctx = make_context()
    module = parse_kernel(ctx, "logsum", "small")
    hardware = get_model("salam").hardware(configure("Enzyme32k"))
    prepare(ctx, module, "enzyme", hardware, unroll=4, model="salam")
    kernel = next(op for op in module.walk() if isinstance(op, cgra.KernelOp))
    schedule = kernel_schedule(kernel, hardware, SALAM)
    runs = schedule.placement
    assert isinstance(runs, _Runs)
    # The same iteration, its body order declared out of the authors' order.
    from dataclasses import replace

    general = replace(runs.iteration, in_body_order=False)
    rows = _Runs(general, runs.latching).groups(40)
    monkeypatch.setattr(_Runs, "_pass", _reference_pass)
    expected = _Runs(general, runs.latching).groups(40)
    assert np.array_equal(rows, expected)
