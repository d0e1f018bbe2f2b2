"""
The modulo scheduler's list scheduling step (`Scheduler._try`) against the rule
its docstring states, written out the plain way: in program order, each op at
the earliest cycle any PE can issue it -- its operands computed and routed (one
hop per mesh step), its floor (`earliest`, and program order with the accesses
before it that may touch its element), its PE's modulo slot free and, for an
access, a port left in that slot -- on the first PE (by index) that issues it
then, every PE and cycle tried in turn. The scheduler tries PEs by their
distance from the operand computed last and looks up free slots by skipping
taken ones; both must give this schedule, op for op, on random bodies (the
scheduler tests' own), at tight and loose `ii`, with and without floors (never negative: the fixed
point raises them from 0).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from test_cgra_scheduler import HARDWARE, _body
from xdsl.ir import Operation

from lowering.scheduling.body import Conflicts, LoopBody
from lowering.scheduling.scheduler import Schedule, Scheduler, _CarriedEdges
from targets.costs import op_latency
from targets.hardware import Hardware


def _may_meet(a: tuple[object, object, object], b: tuple[object, object, object]) -> bool:
    """Two accesses' keys (partition, symbolic index, offsets): in one partition,
    their symbolic indices differ or their offsets are equal."""
    return a[0] == b[0] and (a[1] != b[1] or a[2] == b[2])


def _scan(body: LoopBody, hw: Hardware, ii: int, earliest: dict[Operation, int]) -> Schedule | None:
    pes = [(r, c) for r in range(hw.rows) for c in range(hw.cols)]
    hop = hw.latencies.hop
    limits = {"cache": hw.cache.ports, "spad": max(hw.scratchpad.banks, 1)}
    used: set[tuple[int, int]] = set()
    ports: Counter[tuple[str, int]] = Counter()
    place: dict[Operation, tuple[int, int, int]] = {}
    finish: list[int] = []
    where: list[int] = []
    length = 0
    for n, op in enumerate(body.ops):
        floor = earliest.get(op, 0)
        key = body.keys[n]
        for m in range(n):
            other = body.keys[m]
            if key is None or other is None or not _may_meet(key, other):
                continue
            if body.stores[m]:
                floor = max(floor, place[body.ops[m]][2] + 1)
            elif body.stores[n]:
                floor = max(floor, place[body.ops[m]][2])
        kind = body.kinds[n]
        found: tuple[int, int] | None = None
        for pe, (r, c) in enumerate(pes):
            ready = floor
            for m in body.inputs[n]:
                r2, c2 = pes[where[m]]
                ready = max(ready, finish[m] + hop * (abs(r - r2) + abs(c - c2)))
            for t in range(ready, ready + ii):
                if (pe, t % ii) in used:
                    continue
                if kind is not None and ports[(kind, t % ii)] >= limits[kind]:
                    continue
                if found is None or (t, pe) < found:
                    found = (t, pe)
                break
        if found is None:
            return None
        t, pe = found
        used.add((pe, t % ii))
        if kind is not None:
            ports[(kind, t % ii)] += 1
        place[op] = (*pes[pe], t)
        where.append(pe)
        finish.append(t + body.latencies[n])
        length = max(length, finish[-1])
    return Schedule(ii, place, length)


@pytest.mark.parametrize("seed", range(16))
def test_the_list_schedule_is_the_plain_scan_s(seed: int) -> None:
    rng = random.Random(seed)
    ops, _ = _body(500 + seed, 20 + 6 * seed)
    hw = HARDWARE[seed % 2]
    body = LoopBody.of(ops, hw)
    scheduler = Scheduler(hw, None)
    accesses = sum(kind is not None for kind in body.kinds)
    tight = max(1, -(-len(ops) // len(scheduler.pes)), -(-accesses // hw.cache.ports))
    floors = [
        {},
        {op: rng.randrange(0, 40) for op in rng.sample(ops, len(ops) // 4)},
        {op: rng.randrange(0, 400) for op in rng.sample(ops, len(ops) // 2)},
    ]
    for ii in (tight, tight + 1, 2 * tight + 3, 5 * tight + 17):
        for earliest in floors:
            found = scheduler._try(body, ii, earliest)
            expected = _scan(body, hw, ii, earliest)
            assert (found is None) == (expected is None)
            if found is not None and expected is not None:
                assert [found.place[op] for op in ops] == [expected.place[op] for op in ops]
                assert found.length == expected.length


@pytest.mark.parametrize("seed", range(8))
def test_conflicts_keep_the_latest_access_each_key_may_meet(seed: int) -> None:
    """`Conflicts.latest(key)` is the latest cycle noted for an access that
    `key`'s may meet: in its partition, at another symbolic index or at the
    same key. Random keys from a few partitions, symbolic indices and offsets,
    at random cycles (ties among them), against that rule over every access
    noted so far."""
    rng = random.Random(seed)
    conflicts = Conflicts()
    noted: list[tuple[tuple[object, object, object], int]] = []
    for _ in range(400):
        key = (rng.randrange(3), rng.randrange(1 + seed % 4), rng.randrange(3))
        meets = [t for other, t in noted if other[0] == key[0] and other[1] != key[1]]
        expected = max([t for other, t in noted if other == key] + meets, default=-1)
        assert conflicts.latest(key) == expected
        t = rng.randrange(60)
        conflicts.note(key, t)
        noted.append((key, t))


def _plain_bounds(
    body: LoopBody, s: Schedule, carried: list[tuple[object, object]], hw: Hardware
) -> dict[Operation, int]:
    """The fixed point's bounds after schedule `s`, read off the rule op by op: a
    consumer of a carried value issues no earlier than its producer's finish
    less `ii`; a load a store of an earlier iteration may feed, no earlier than
    the latest such store of its buffer (the first in body order at a tie) plus
    one, less `ii`; the largest of each op's."""
    bounds: dict[Operation, int] = {}

    def need(op: Operation, cycle: int) -> None:
        bounds[op] = max(bounds.get(op, 0), cycle)

    for block_arg, yielded in carried:
        producer = yielded.owner  # type: ignore[attr-defined]
        if producer not in s.place:
            continue
        done = s.place[producer][2] + op_latency(producer, hw)
        for use in block_arg.uses:  # type: ignore[attr-defined]
            if use.operation in s.place:
                need(use.operation, done - s.ii)
    for load, (buffer, excluded) in body.memory.loads.items():
        feeding = [st for st in body.memory.stores[buffer] if st not in excluded]
        if feeding:
            latest = max(s.place[st][2] for st in feeding)
            need(load, latest + 1 - s.ii)
    return bounds


def test_carried_bounds_are_the_rule() -> None:
    """`_CarriedEdges.bounds` (the fixed point's, by position) against the rule
    read op by op, after each round of a fixed point on random bodies with
    carried values and carried memory; and the fixed point by position reaches
    the schedule of one raising its floors by op."""
    raised = 0  # rounds after which a bound moved
    for seed in range(12):
        ops, carried = _body(700 + seed, 30 + 8 * seed)
        hw = HARDWARE[seed % 2]
        body = LoopBody.of(ops, hw)
        scheduler = Scheduler(hw, None)
        edges = _CarriedEdges(body, carried, hw)
        for ii in (max(1, len(ops) // 16), len(ops) // 4 + 1, len(ops)):
            earliest: dict[Operation, int] = {}
            for _ in range(8):
                found = scheduler._try(body, ii, earliest)
                if found is None:
                    break
                expected = _plain_bounds(body, found, carried, hw)
                by_position = edges.bounds(found)
                assert {ops[n]: bound for n, bound in by_position.items()} == expected
                moved = {op: b for op, b in expected.items() if b > earliest.get(op, 0)}
                if not moved:
                    assert scheduler._fixed_point(body, ii, carried) == found
                    break
                raised += 1
                earliest.update(moved)
    assert raised >= 3
