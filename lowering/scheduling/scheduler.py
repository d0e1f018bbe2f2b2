"""
Modulo list scheduling of a loop body on the PE grid (the algorithm of
`tapeflow-to-cgra`, whose module docstring states it): each op takes the PE that
can issue it earliest, in program order (and, for a loop body with a FWD tile's
scratchpad stores, with those last: the cheaper of the two, `sinks_last`), given
its operands' latencies and routing hops, one op per PE and `ports`/`banks`
accesses per cycle modulo `ii`; `ii` starts at the resource and recurrence bounds
(`lowering.scheduling.recurrence`) and grows until the schedule fits and every
loop-carried value arrives in time. What it reads of the hardware is listed in
`targets.scheduling.HARDWARE_OPTIONS`. A schedule found is kept for the next
body of the same shape on a machine of the same such numbers (`ScheduleMemo`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from xdsl.ir import Operation, SSAValue

from lowering.scheduling.body import Conflicts, LoopBody, OpLatencies, is_store
from lowering.scheduling.recurrence import recurrence_mii
from tapeflow_dialects import stream
from targets.costs import op_latency
from targets.hardware import Hardware
from targets.scheduling import hardware_options, mapping_options


class Schedule:
    """Where and when each op of a body issues, at initiation interval `ii`."""

    __slots__ = ("ii", "length", "_place", "_ops", "_places")

    def __init__(
        self, ii: int, place: dict[Operation, tuple[int, int, int]] | None, length: int
    ) -> None:
        self.ii = ii
        self.length = length
        self._place = place
        self._ops: Sequence[Operation] = ()
        self._places: Sequence[tuple[int, int, int]] = ()

    @staticmethod
    def by_position(
        ii: int, ops: Sequence[Operation], places: Sequence[tuple[int, int, int]], length: int
    ) -> Schedule:
        """The schedule placing `ops[n]` at `places[n]`: its `place` made when
        first read (a dictionary keyed by ops hashes each op by a Python call of
        its own, and a search makes a schedule per round)."""
        schedule = Schedule(ii, None, length)
        schedule._ops, schedule._places = ops, places
        return schedule

    @property
    def place(self) -> dict[Operation, tuple[int, int, int]]:
        """op -> (row, col, cycle)."""
        if self._place is None:
            self._place = dict(zip(self._ops, self._places, strict=True))
        return self._place

    def placements(self) -> Iterable[tuple[Operation, tuple[int, int, int]]]:
        """Each (op, (row, col, cycle)), as `place.items()`."""
        if self._place is None:
            return zip(self._ops, self._places, strict=True)
        return self._place.items()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Schedule) and (self.ii, self.length, self.place) == (
            other.ii,
            other.length,
            other.place,
        )

    def __repr__(self) -> str:
        return f"Schedule(ii={self.ii}, place={self.place!r}, length={self.length})"

    def cost(self, trips: int | None) -> tuple[int, ...]:
        """What the body costs as a kernel, in the order schedules compare: for
        `trips` iterations (a constant trip count, if not zero) `(trips - 1) * ii
        + length`, else `ii`, then `length`."""
        return ((trips - 1) * self.ii + self.length,) if trips else (self.ii, self.length)


class FreeSlots:
    """The free slots of a modulo reservation table of `ii` slots. Positions run
    over two turns (position p is slot p mod ii) so that a search from any slot
    wraps around once; `find(p)` is the first free position at or after p (2*ii
    when none), by path-compressed skipping of taken ones."""

    def __init__(self, ii: int):
        self.ii = ii
        self.next = list(range(2 * ii + 1))

    def find(self, position: int) -> int:
        nxt = self.next
        root = position
        while nxt[root] != root:
            root = nxt[root]
        while nxt[position] != root:
            nxt[position], position = root, nxt[position]
        return root

    def take(self, slot: int) -> None:
        self.next[slot] = slot + 1
        self.next[slot + self.ii] = slot + self.ii + 1


def _first_free(next_free: list[int], position: int) -> int:
    """`FreeSlots.find(position)` on its `next` list."""
    root = position
    while next_free[root] != root:
        root = next_free[root]
    while next_free[position] != root:
        next_free[position], position = root, next_free[position]
    return root


class ScheduleMemo:
    """Modulo schedules already found, by the machine's numbers the scheduler
    reads (`scheduling_key`) and the body's shape (`LoopBody.shape`): each kept as
    every op's place by position, for any body of that shape (a kernel's body is
    scheduled before and after each run of index ops sunk into it by
    `tapeflow-to-cgra`, then as a kernel; a tile's body recurs across a sweep's
    scratchpad sizes). Schedules of at most `limit` ops in all are kept, the
    oldest dropped first."""

    def __init__(self, limit: int = 200_000) -> None:
        self.limit = limit
        self.ops = 0
        """The ops of the schedules kept."""
        self.kept: dict[tuple[object, ...], tuple[int, tuple[tuple[int, int, int], ...], int]] = {}

    def find(self, key: tuple[object, ...], ops: list[Operation]) -> Schedule | None:
        """The schedule kept under `key`, for `ops` (a body of that shape), or None."""
        found = self.kept.get(key)
        if found is None:
            return None
        ii, places, length = found
        if len(places) != len(ops):
            raise ValueError("a kept schedule is served to a body of its shape alone")
        return Schedule.by_position(ii, list(ops), places, length)

    def keep(self, key: tuple[object, ...], ops: list[Operation], schedule: Schedule) -> None:
        """Keep `schedule` of `ops` under `key` (if it fits the limit)."""
        if len(ops) > self.limit or key in self.kept:
            return
        while self.ops + len(ops) > self.limit:
            oldest = next(iter(self.kept))
            self.ops -= len(self.kept.pop(oldest)[1])
        where = {id(op): place for op, place in schedule.placements()}
        self.kept[key] = (schedule.ii, tuple(where[id(op)] for op in ops), schedule.length)
        self.ops += len(ops)


SCHEDULES = ScheduleMemo()
"""The schedules of this process (`Scheduler` finds and keeps them here)."""


def scheduling_key(hardware: Hardware) -> tuple[object, ...]:
    """What of `hardware` a schedule depends on: every field the scheduler and
    `op_latency` read (`targets.scheduling.HARDWARE_OPTIONS` and `MAPPING_OPTIONS`)."""
    return (
        tuple(hardware_options(hardware).items()),
        tuple(mapping_options(hardware).items()),
    )


def sinks_last(ops: list[Operation], spad: Collection[Operation] = ()) -> list[Operation]:
    """`ops` with a body's scratchpad stores (a FWD tile's tape, which nothing in
    the body reads; with the accesses `spad` takes through the scratchpad) after
    every other op, so that they take the PEs and cycles the ops of its dataflow
    and recurrences leave, rather than the other way round (`Scheduler.schedule`
    tries both orders)."""

    def spad_access(op: Operation, kind: type) -> bool:
        return isinstance(op, kind) or (op in spad and is_store(op) == (kind is stream.StoreOp))

    if any(spad_access(op, stream.LoadOp) for op in ops):
        return ops
    sinks = [op for op in ops if spad_access(op, stream.StoreOp)]
    if not sinks:
        return ops
    return [op for op in ops if not spad_access(op, stream.StoreOp)] + sinks


class Scheduler:
    """Modulo list scheduling of loop bodies on one hardware's PE grid."""

    def __init__(self, hardware: Hardware, memo: ScheduleMemo | None = SCHEDULES):
        self.hw = hardware
        self.memo = memo
        """Where schedules found are kept, and looked up first (None: nowhere)."""
        self.key = scheduling_key(hardware)
        self.pes = [(r, c) for r in range(hardware.rows) for c in range(hardware.cols)]
        hop = hardware.latencies.hop
        self.hops = [
            [hop * (abs(r - r2) + abs(c - c2)) for r2, c2 in self.pes] for r, c in self.pes
        ]
        """Routing cycles from each PE to each other (Manhattan distance times the hop)."""
        self.nearest = [
            sorted(range(len(self.pes)), key=lambda pe, row=row: (row[pe], pe)) for row in self.hops
        ]
        """Per PE, every PE by its routing cycles from it, then by index."""
        self.span = max(max(row) for row in self.hops)
        """The most routing cycles between two PEs."""

    def schedule(
        self,
        ops: list[Operation],
        carried: list[tuple[SSAValue, SSAValue]],
        iterated: bool = True,
        trips: int | None = None,
        spad: Collection[Operation] = (),
    ) -> Schedule:
        """A schedule of `ops`, a loop body whose `carried` values feed the next
        iteration, or (not `iterated`) straight-line ops run once: no iteration
        follows, so nothing is carried, through values or memory, and no
        iteration overlaps it: `ii` is then the number of ops, so that no PE's
        slot is reused modulo `ii` and the schedule is a plain list schedule.

        A loop body with a FWD tile's scratchpad stores is also scheduled with
        them placed last (`sinks_last`), and the cheaper of the two kept: for
        `trips` iterations (the loop's constant trip count, if not zero) `(trips -
        1) * ii + length`, else the smaller `ii`, then the shorter length. The
        accesses in `spad` are taken through the scratchpad (`LoopBody.of`: a
        body priced as it would be streamed)."""
        if not self.hw.mapping.modulo_schedule:
            return self.sequential(ops)
        found = self._schedule(ops, carried, iterated, spad)
        last = sinks_last(ops, spad)
        if not iterated or last == ops:
            return found
        other = self._schedule(last, carried, iterated, spad)
        return other if other.cost(trips) < found.cost(trips) else found

    def _schedule(
        self,
        ops: list[Operation],
        carried: list[tuple[SSAValue, SSAValue]],
        iterated: bool,
        spad: Collection[Operation] = (),
    ) -> Schedule:
        """`schedule` for `ops` placed in their order."""
        body = LoopBody.of(ops, self.hw, spad)
        key = self._memo_key(body, carried, iterated)
        if self.memo is not None and (found := self.memo.find(key, ops)) is not None:
            return found
        pes = len(self.pes)
        cache_ops = body.kinds.count("cache")
        spad_ops = body.kinds.count("spad")
        ii = max(
            1,
            -(-len(ops) // pes),
            -(-cache_ops // self.hw.cache.ports),
            -(-spad_ops // max(self.hw.scratchpad.banks, 1)),
            recurrence_mii(body, carried, self.hw) if iterated else len(ops),
        )
        while True:
            if iterated:
                result = self._fixed_point(body, ii, carried)
            else:
                result = self._try_at(body, ii, {})
            if result is not None:
                if self.memo is not None:
                    self.memo.keep(key, ops, result)
                return result
            ii += max(1, ii // 8)

    def _memo_key(
        self, body: LoopBody, carried: list[tuple[SSAValue, SSAValue]], iterated: bool
    ) -> tuple[object, ...]:
        return (self.key, iterated, body.shape(carried)) if self.memo is not None else ()

    def find_kept(
        self, ops: list[Operation], carried: list[tuple[SSAValue, SSAValue]], iterated: bool = True
    ) -> Schedule | None:
        """The schedule of `ops`, placed in their order, the memo holds, or None."""
        if self.memo is None:
            return None
        return self.memo.find(self._memo_key(LoopBody.of(ops, self.hw), carried, iterated), ops)

    def sequential(self, ops: list[Operation]) -> Schedule:
        """Every op on the first PE in program order, each issued a cycle after
        the one before or once its operands are computed if later; `ii` is the
        schedule's length, so no iteration overlaps the next and every carried
        value and memory order holds."""
        pe = self.pes[0]
        latency_of = OpLatencies(self.hw)
        places: list[tuple[int, int, int]] = []
        finish: dict[int, int] = {}
        """Per op (by id: an op's hash is a call of its own), the cycle its result is computed."""
        cycle = -1
        length = 0
        for op in ops:
            ready = cycle + 1
            for operand in op._operands:  # pyright: ignore[reportPrivateUsage]
                done = finish.get(id(operand.owner))
                if done is not None and done > ready:
                    ready = done
            cycle = ready
            places.append((*pe, cycle))
            done = finish[id(op)] = cycle + latency_of(op)
            if done > length:
                length = done
        # ii covers the last issue too (an op of no latency ends where it issues),
        # so every op keeps a modulo slot of its own.
        return Schedule.by_position(max(1, length, cycle + 1), list(ops), places, length)

    def _fixed_point(
        self, body: LoopBody, ii: int, carried: list[tuple[SSAValue, SSAValue]]
    ) -> Schedule | None:
        """
        A schedule at `ii` that respects the loop-carried dependences, or None.

        A consumer of a carried value in iteration i+1 issues `ii` cycles after the
        same consumer in iteration i, so it must not issue before the value's
        producer (in iteration i) finishes, minus `ii`. Those lower bounds depend
        on the schedule itself: schedule, raise the bounds, and repeat until
        nothing moves. If a bound keeps growing, a recurrence is longer than `ii`.
        """
        edges = _CarriedEdges(body, carried, self.hw)
        floors: dict[int, int] = {}
        """Per op (by position), the cycle it issues no earlier than."""
        for _ in range(8):
            result = self._try_at(body, ii, floors)
            if result is None:
                return None
            moved = False
            for n, bound in edges.bounds(result).items():
                if bound > floors.get(n, 0):
                    floors[n] = bound
                    moved = True
            if not moved:
                return result
        return None

    def _try(self, body: LoopBody, ii: int, earliest: dict[Operation, int]) -> Schedule | None:
        """The list schedule at `ii`, each op no earlier than `earliest` says
        (`_try_at`)."""
        floors: dict[int, int] = {}
        if earliest:
            position = {id(op): n for n, op in enumerate(body.ops)}
            floors = {position[id(op)]: cycle for op, cycle in earliest.items()}
        return self._try_at(body, ii, floors)

    def _try_at(self, body: LoopBody, ii: int, floors: dict[int, int]) -> Schedule | None:
        """The list schedule at `ii`, each op no earlier than `floors` says (by
        position): in program order, each op at the cycle it can issue soonest,
        on the first PE (by index) that issues it then.

        The same schedule as trying every PE in index order, found trying fewer:
        an op's ready cycle on a PE is at least the finish of its operand computed
        last plus the hops from that operand's PE, so PEs are tried by those hops
        (`nearest`) until the bound passes the best cycle found, keeping the
        smallest (cycle, PE). Where no operand reaches past its floor on any PE
        (none, or all computed `span` cycles before it), every PE is ready at the
        floor: the first slot from it where some PE is free (`full`: the slots
        every PE has taken) is the op's, on the first PE free there (`taken`:
        per slot, the PEs that have it, as bits)."""
        pes = self.pes
        hops = self.hops
        nearest = self.nearest
        span = self.span
        free = [FreeSlots(ii).next for _ in pes]
        """Per PE, the modulo slots not yet taken (`FreeSlots.next`, searched by
        `_first_free`; a slot found free at once is its own entry)."""
        full = FreeSlots(ii)
        everyone = (1 << len(pes)) - 1
        taken = [0] * ii
        port_free = {"cache": FreeSlots(ii), "spad": FreeSlots(ii)}
        """Per memory kind, the modulo slots whose ports are not all taken."""
        port_count = {"cache": [0] * ii, "spad": [0] * ii}
        """Per memory kind and slot, the accesses that take it."""
        limits = {"cache": self.hw.cache.ports, "spad": max(self.hw.scratchpad.banks, 1)}
        ops = body.ops
        kinds, keys, stores_at, inputs_of, latencies = (
            body.kinds,
            body.keys,
            body.stores,
            body.inputs,
            body.latencies,
        )
        where = [0] * len(ops)
        """Per op (by position), its PE's index in `pes`."""
        issue = [0] * len(ops)
        """Per op, its issue cycle."""
        finish = [0] * len(ops)
        """Per op, the cycle its result is computed."""
        length = 0
        # Program order between accesses that may touch one element in an iteration.
        stores, loads = Conflicts(), Conflicts()
        for n in range(len(ops)):
            kind = kinds[n]
            key = keys[n]
            floor = floors.get(n, 0)
            if key is not None:
                after = stores.latest(key) + 1
                if after > floor:
                    floor = after
                if stores_at[n]:
                    after = loads.latest(key)
                    if after > floor:
                        floor = after
            access = port_free[kind] if kind is not None else None
            ins = inputs_of[n]
            last, last_done = -1, 0
            for m in ins:
                done = finish[m]
                if last < 0 or done > last_done:
                    last, last_done = m, done
            best_pe = -1
            best = 0
            if last >= 0 and floor < last_done + span:
                inputs = [(finish[m], hops[where[m]]) for m in ins]
                bound = hops[where[last]]
                soonest = floor if floor > last_done else last_done
                for pe in nearest[where[last]]:
                    if best_pe >= 0:
                        if last_done + bound[pe] > best:
                            break  # this PE and every later one ready after the best
                        if best == soonest and pe > best_pe:
                            continue  # at best a tie, which the earlier PE keeps
                    ready = floor
                    for done, distance in inputs:
                        if done + distance[pe] > ready:
                            ready = done + distance[pe]
                    if best_pe >= 0 and ready > best:
                        continue
                    # The first cycle from `ready` whose slot is free on this PE and
                    # (for an access) has a port left, found by skipping taken
                    # slots: the same as scanning cycle by cycle, in nearly linear
                    # time on a wide body's long ii.
                    start = ready % ii
                    slots = free[pe]
                    slot = start if slots[start] == start else _first_free(slots, start)
                    if access is not None:
                        while True:
                            with_port = access.find(slot)
                            if with_port == slot:
                                break
                            slot = _first_free(slots, with_port)
                    if slot >= start + ii:
                        continue
                    t = ready + slot - start
                    if best_pe < 0 or t < best or (t == best and pe < best_pe):
                        best_pe, best = pe, t
            else:
                start = floor % ii
                slot = full.find(start)
                if access is not None:
                    while True:
                        with_port = access.find(slot)
                        if with_port == slot:
                            break
                        slot = full.find(with_port)
                if slot < start + ii:
                    mask = taken[slot % ii]
                    best_pe = (~mask & (mask + 1)).bit_length() - 1
                    best = floor + slot - start
            if best_pe < 0:
                return None
            t = best
            cycle = t % ii
            slots = free[best_pe]  # `FreeSlots.take(cycle)`
            slots[cycle] = cycle + 1
            slots[cycle + ii] = cycle + ii + 1
            mask = taken[cycle] | 1 << best_pe
            taken[cycle] = mask
            if mask == everyone:
                full.take(cycle)
            if kind is not None:
                counts = port_count[kind]
                counts[cycle] += 1
                if counts[cycle] >= limits[kind]:
                    port_free[kind].take(cycle)
            if key is not None:
                (stores if stores_at[n] else loads).note(key, t)
            where[n] = best_pe
            issue[n] = t
            done = finish[n] = t + latencies[n]
            if done > length:
                length = done
        places = [(*pes[pe], t) for pe, t in zip(where, issue, strict=True)]
        return Schedule.by_position(ii, list(ops), places, length)


class _CarriedEdges:
    """What `Scheduler._fixed_point` raises at each round, by the ops' positions
    in a body: per carried value, its producer's position and latency and its
    consumers' positions; per load a store of an earlier iteration may feed
    (`LoopBody.memory`), its buffer's stores and those it does not depend on."""

    def __init__(
        self, body: LoopBody, carried: list[tuple[SSAValue, SSAValue]], hardware: Hardware
    ) -> None:
        position = {id(op): n for n, op in enumerate(body.ops)}
        """By the ops' ids: an op's hash is a Python call of its own."""
        self.values: list[tuple[int, int, list[int]]] = []
        for block_arg, yielded in carried:
            producer = yielded.owner
            at = position.get(id(producer))
            if not isinstance(producer, Operation) or at is None:
                continue
            users = [
                n for use in block_arg.uses if (n := position.get(id(use.operation))) is not None
            ]
            self.values.append((at, op_latency(producer, hardware), users))
        memory = body.memory
        self.stores = {
            buffer: [position[id(store)] for store in stores]
            for buffer, stores in memory.stores.items()
        }
        self.loads = [
            (position[id(load)], buffer, {position[id(store)] for store in excluded})
            for load, (buffer, excluded) in memory.loads.items()
        ]

    def bounds(self, s: Schedule) -> dict[int, int]:
        """Per consumer (by position), the cycle schedule `s` says it issues no
        earlier than: a carried value's producer's finish, or a store's issue
        plus one, less `ii`, the latest of its producers'."""
        cycles = [place[2] for place in s._places]  # pyright: ignore[reportPrivateUsage]
        ii = s.ii
        bounds: dict[int, int] = {}
        for at, latency, users in self.values:
            done = cycles[at] + latency
            for n in users:
                bounds[n] = max(bounds.get(n, 0), done - ii)
        # A store to a buffer the body also loads may feed the next iteration's load.
        latest = {
            buffer: sorted(stores, key=lambda n: -cycles[n])
            for buffer, stores in self.stores.items()
        }
        for load, buffer, excluded in self.loads:
            store = next((n for n in latest[buffer] if n not in excluded), None)
            if store is not None:
                bounds[load] = max(bounds.get(load, 0), cycles[store] + 1 - ii)
        return bounds
