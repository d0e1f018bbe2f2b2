"""The release ordering's pass over an iteration (`_Runs._pass`) keeps each op's
ready group and, for a body whose loads follow their earlier stores, the running
bound of those stores: it must place every iteration as the plain statement of
its rules does (`_reference_pass`, each constraint taken as a list and every
earlier store visited per load)."""

from __future__ import annotations

import heapq
from collections import Counter

import numpy as np
import pytest

from sim.models import get_model
from sim.models.salam.lockstep import INDUCTION_ENTRIES, _Runs, kernel_schedule
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


def _reference_place(self: _Runs) -> None:
    """`_Runs._place` with every reservation-table entry its own heap item (an
    op's, then the induction's) and the steady check op by op."""
    it = self.iteration
    start = self._schedule_group()
    previous = self.rows[-1] if self.rows else None
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
    for cls, g in zip(it.unit, row, strict=True):
        if cls is not None:
            self.used[cls, g] += 1
    for rank, n in enumerate(it.stores_in_order):
        self.unissued[rank].append(row[n])
    for g, entries in zip(row, it.entries, strict=True):
        heapq.heappush(self.entries, (g, entries))
        self.pending_entries += entries
    for offset in INDUCTION_ENTRIES:
        heapq.heappush(self.entries, (start + offset, 1))
        self.pending_entries += 1
    if len(self.rows) >= 2:
        assert previous is not None
        same = row[0] - previous[0] == previous[0] - self.rows[-2][0] and all(
            a - row[0] == b - previous[0] for a, b in zip(row, previous, strict=True)
        )
        self.steady = self.steady + 1 if same else 0
    self.rows.append(row)
    self.scheduled.append(start)


@pytest.mark.parametrize("unroll", [4, 1 << 30])
@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
@pytest.mark.parametrize("key", ["logsum", "pathfinder", "lenet"])
def test_entries_by_group_place_as_entries_one_by_one(
    key: str, variant: str, unroll: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_place` puts one heap item per group (the entries of its ops and of the
    induction summed), which `_schedule_group` takes all at once: every
    iteration, and how long the placement runs before it is steady, as with one
    item per entry."""
    ctx = make_context()
    module = parse_kernel(ctx, key, "small")
    preset = "Enzyme32k" if variant == "enzyme" else "Tflow2k"
    hardware = get_model("salam").hardware(configure(preset))
    prepare(ctx, module, variant, hardware, unroll=unroll, model="salam")
    kernels = [op for op in module.walk() if isinstance(op, cgra.KernelOp)]
    assert kernels
    mine = [kernel_schedule(k, hardware, SALAM) for k in kernels]
    mine_rows = [s.groups(200) for s in mine]
    monkeypatch.setattr(_Runs, "_place", _reference_place)
    monkeypatch.setattr(_Runs, "_pass", _reference_pass)
    theirs = [kernel_schedule(k, hardware, SALAM) for k in kernels]
    theirs_rows = [s.groups(200) for s in theirs]
    for a, b, sa, sb in zip(mine_rows, theirs_rows, mine, theirs, strict=True):
        assert np.array_equal(a, b)
        if isinstance(sa.placement, _Runs):
            assert isinstance(sb.placement, _Runs)
            assert sa.placement.rows == sb.placement.rows
            assert sa.placement.pending_entries == sb.placement.pending_entries
