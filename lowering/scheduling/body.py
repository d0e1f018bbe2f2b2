"""
A loop body as the modulo scheduler reads it: which ops it places, the memory each
access goes through and the buffer it touches, each op's latency
(`targets.costs.op_latency`), the operands it waits for, and the stores through
which one iteration may feed the next's loads.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from xdsl.dialects import memref, scf
from xdsl.ir import Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation

from lowering.ir.index_offsets import LinearForms
from tapeflow_dialects import cgra, region, stream
from tapeflow_dialects.container_ops import SlotAccess
from targets.costs import op_latency
from targets.hardware import Hardware

_PLACEABLE: dict[type[Operation], bool] = {}
"""Per IRDL op class (whose name is the class's), whether a region-free op of it
is placeable: the passes ask of every op of fully unrolled bodies, tens of
thousands of ops of a few classes."""


def placeable(op: Operation) -> bool:
    """An op the scheduler places on a PE: a region-free access, arith or math op."""
    if op.regions:
        return False
    known = _PLACEABLE.get(type(op))
    if known is None:
        known = _placeable_kind(op)
        if isinstance(op, IRDLOperation):
            _PLACEABLE[type(op)] = known
    return known


def _placeable_kind(op: Operation) -> bool:
    """`placeable` of a region-free op."""
    if isinstance(op, memref.LoadOp | memref.StoreOp | region.LoadOp | region.StoreOp):
        return True
    if isinstance(op, stream.LoadOp | stream.StoreOp | scf.YieldOp):
        return True
    return op.dialect_name() in ("arith", "math")


_MEMORY_KINDS: dict[type[Operation], str | None] = {}
"""Per op class, `memory_kind` (its class alone decides it)."""


def memory_kind(op: Operation) -> str | None:
    """The memory an access goes through ('cache', 'spad'), None for compute."""
    cls = type(op)
    if cls in _MEMORY_KINDS:
        return _MEMORY_KINDS[cls]
    kind: str | None = None
    if isinstance(op, stream.LoadOp | stream.StoreOp):
        kind = "spad"
    elif isinstance(op, memref.LoadOp | memref.StoreOp | region.LoadOp | region.StoreOp):
        kind = "cache"
    _MEMORY_KINDS[cls] = kind
    return kind


def accessed_buffer(op: Operation) -> SSAValue | None:
    """The buffer, region or tile a memory op accesses."""
    if isinstance(op, memref.LoadOp | region.LoadOp | stream.LoadOp):
        return op.operands[0]
    if isinstance(op, memref.StoreOp | region.StoreOp | stream.StoreOp):
        return op.operands[1]
    return None


def is_store(op: Operation) -> bool:
    """A store to a buffer, region or tile."""
    return isinstance(op, memref.StoreOp | region.StoreOp | stream.StoreOp)


@dataclass
class CarriedMemory:
    """The stores through which one iteration may feed the next's loads: for each
    load of a buffer the body also stores to, that buffer's stores (in body order)
    but those at the load's own element (`excluded`)."""

    stores: dict[SSAValue, list[Operation]]
    """Buffer -> the stores to it, in body order."""
    loads: dict[Operation, tuple[SSAValue, frozenset[Operation]]]
    """Load -> (its buffer, the buffer's stores it does not depend on across iterations)."""


def carried_memory(ops: list[Operation]) -> CarriedMemory:
    """The loads of `ops` that a store of an earlier iteration may feed: a store
    to the buffer a load reads, not at the load's own element. Computed once per
    body, with the body (`LoopBody.of`): the scheduler reads it at every ii and
    fixed-point step."""
    by_buffer: dict[int, tuple[SSAValue, list[Operation]]] = {}
    """Per buffer stored to, by its id (a value's hash is a Python call of its
    own), the buffer and its stores in body order."""
    at: dict[tuple[int, ...], list[Operation]] = {}
    """Per (buffer, indices), by the values' ids, the stores there."""
    loaded: list[Operation] = []  # the loads through the cache, in body order
    for op in ops:
        cls = type(op)
        role = _CACHE_ROLES.get(cls, _UNKNOWN)
        if role is _UNKNOWN:
            role = _CACHE_ROLES[cls] = _cache_role(op)
        if role == "store":
            operands = op._operands  # pyright: ignore[reportPrivateUsage]
            buffer = operands[1]
            found = by_buffer.get(id(buffer))
            if found is None:
                by_buffer[id(buffer)] = (buffer, [op])
            else:
                found[1].append(op)
            at.setdefault(tuple([id(v) for v in operands])[1:], []).append(op)
        elif role == "load":
            loaded.append(op)
    stores = dict(by_buffer.values())
    loads: dict[Operation, tuple[SSAValue, frozenset[Operation]]] = {}
    iteration: Iteration | None = None  # read once, for the first load at a stored element
    for op in loaded:
        operands = op._operands  # pyright: ignore[reportPrivateUsage]
        if id(operands[0]) in by_buffer:
            buffer = operands[0]
            same = at.get(tuple([id(v) for v in operands]), ())
            if same and iteration is None:
                iteration = Iteration.of(op)
            loads[op] = (
                buffer,
                frozenset(s for s in same if _same_iteration_element(op, s, iteration)),
            )
    return CarriedMemory(stores, loads)


class Iteration:
    """How the values of a loop body change from one iteration to the next: the
    body of an `scf.for` (the block `ops` live in), read on request, each index
    once.

    A value defined outside the loop is the same in every iteration. The
    induction variable grows by the loop's step (a constant, or a value known
    only to be positive: `scf.for` iterates only with a positive step); a
    carried value the body yields as itself plus a non-zero constant grows by
    that constant (a counter kept beside the induction variable). An index is a
    linear form over such values (`LinearForms`); its change per iteration is
    the sum of its terms' changes, each times its coefficient. Any other value
    of the body (a load, a carried value yielded otherwise, the result of
    arithmetic the form does not follow) may take any value, the one it had in
    an earlier iteration among them: an index holding one is data-dependent.
    """

    def __init__(self, block: Block | None, loop: Operation | None) -> None:
        self.block = block
        self.loop = loop
        self.forms = LinearForms()
        self.steps: dict[SSAValue, int | None] = {}
        """Per induction value, its change per iteration (None: positive, unknown)."""
        self._verdicts: dict[tuple[SSAValue, ...], bool] = {}
        if not isinstance(loop, scf.ForOp) or block is None:
            return
        step = self.forms.form(loop.step)
        self.steps[block.args[0]] = None if step[0] else step[1]
        terminator = block.last_op
        if isinstance(terminator, scf.YieldOp):
            for arg, yielded in zip(block.args[1:], terminator.operands, strict=False):
                terms, constant = self.forms.form(yielded)
                if terms == ((arg, 1),) and constant:
                    self.steps[arg] = constant

    @staticmethod
    def of(op: Operation) -> Iteration:
        """The iterations of the loop whose body holds `op`."""
        block = op.parent_block()
        return Iteration(block, None if block is None else block.parent_op())

    def invariant(self, value: SSAValue) -> bool:
        """Whether `value` is defined outside the loop (the same in every iteration)."""
        if self.loop is None:
            return False
        owner = value.owner
        op = owner if isinstance(owner, Operation) else owner.parent_op()
        return op is not None and op is not self.loop and not self.loop.is_ancestor(op)

    def moves(self, indices: tuple[SSAValue, ...]) -> bool:
        """Whether the element at `indices` provably differs from one iteration to
        every other: no index is data-dependent, and one changes by a non-zero
        amount per iteration (a multiple, below wrap-around, of that amount is
        then non-zero too)."""
        verdict = self._verdicts.get(indices)
        if verdict is None:
            verdict = self._verdicts[indices] = self._moves(indices)
        return verdict

    def _moves(self, indices: tuple[SSAValue, ...]) -> bool:
        moving = False
        for index in indices:
            change = self._change(index)
            if change is None:
                return False  # data-dependent: may repeat an earlier iteration's
            moving = moving or change
        return moving

    def _change(self, index: SSAValue) -> bool | None:
        """Whether `index` changes with the iteration (a non-zero change per
        iteration), None if it is data-dependent."""
        terms, _ = self.forms.form(index)
        total = 0
        scaled = 0  # the coefficient of an induction variable of unknown step
        for value, coefficient in terms:
            if value in self.steps:
                step = self.steps[value]
                if step is None:
                    scaled = coefficient
                else:
                    total += coefficient * step
            elif not self.invariant(value):
                return None
        if scaled:  # scaled * step + total, the step positive
            return total == 0 or (total > 0) == (scaled > 0)
        return total != 0


_CACHE_ROLES: dict[type[Operation], str | None] = {}
"""Per op type, `_cache_role`: a body holds tens of thousands of ops of a few types."""

_UNKNOWN = "unknown"
"""A type `_CACHE_ROLES` does not know yet."""


def _cache_role(op: Operation) -> str | None:
    """'store' or 'load' for a store or load of a buffer or region (the accesses
    `carried_memory` reads), else None."""
    if isinstance(op, memref.StoreOp | region.StoreOp):
        return "store"
    if isinstance(op, memref.LoadOp | region.LoadOp):
        return "load"
    return None


def _same_iteration_element(
    load: Operation, store: Operation, iteration: Iteration | None = None
) -> bool:
    """Both touch the same element, one the iteration chooses anew (or never the
    same element): no carried dependence. A region's struct is the iteration's
    own by construction (its indices are the iteration's). A buffer's element
    at identical indices is another in each iteration only if the indices
    provably move (`Iteration.moves`): at a loop-invariant index
    (`a[c] += x[i]`) or one loaded from memory (`a[idx[i]] += x[i]`, a
    scatter whose indices may repeat) a store feeds a later iteration's load."""
    load_idx = tuple(load.operands[1:])
    store_idx = tuple(store.operands[2:])
    if load_idx != store_idx:
        return False
    if isinstance(load, region.LoadOp) and isinstance(store, region.StoreOp):
        return load.slot != store.slot or bool(load_idx)
    if not load_idx:
        return False
    return (iteration or Iteration.of(load)).moves(load_idx)


@dataclass
class LoopBody:
    """A loop body as the scheduler reads it, op by op (by position in `ops`)."""

    ops: list[Operation]
    kinds: list[str | None]
    """The memory an access goes through ('cache', 'spad'), None for compute."""
    buffers: list[SSAValue | None]
    stores: list[bool]
    latencies: list[int]
    inputs: list[list[int]]
    """The positions of the ops in the body whose results the op reads."""
    memory: CarriedMemory
    """The stores through which one iteration may feed the next's loads."""
    keys: list[AccessKey | None]
    """Per access, what decides which other accesses it may meet (`access_keys`)."""

    def shape(self, carried: list[tuple[SSAValue, SSAValue]]) -> tuple[object, ...]:
        """Everything of the body and its `carried` values the scheduler reads, by
        position: two bodies of equal shape get the same schedule on one machine
        (`lowering.scheduling.scheduler.ScheduleMemo`). Buffers, partitions,
        symbolic indices and an access's constant offsets are read only by
        equality (`Conflicts`), so each is numbered by its first appearance: a
        body whose offsets all moved by one (a run of index ops sunk into it,
        an index computed one step earlier) has the shape it had; ops by their
        position. Of the carried memory, the
        stores of the buffers the body loads: no other store reaches a carried
        bound (a FWD body's tape stores, to Enzyme's buffers or to a region, are
        one shape)."""
        index = {id(op): n for n, op in enumerate(self.ops)}
        """By the ops' ids: an op's hash is a Python call of its own."""
        numbers: dict[object, int] = {}
        offsets: dict[object, int] = {}

        def number(thing: object) -> int:
            return numbers.setdefault(thing, len(numbers))

        keys = tuple(
            None
            if key is None
            else (number(key[0]), number(key[1]), offsets.setdefault(key[2], len(offsets)))
            for key in self.keys
        )
        loaded = {buffer for buffer, _ in self.memory.loads.values()}
        stores = tuple(
            (number(buffer), tuple(index[id(s)] for s in ops))
            for buffer, ops in self.memory.stores.items()
            if buffer in loaded
        )
        loads = tuple(
            (index[id(load)], number(buffer), tuple(sorted(index[id(s)] for s in excluded)))
            for load, (buffer, excluded) in self.memory.loads.items()
        )
        edges = tuple(
            (
                index.get(id(yielded.owner)),
                tuple(
                    sorted({index[id(u.operation)] for u in arg.uses if id(u.operation) in index})
                ),
            )
            for arg, yielded in carried
        )
        return (
            tuple(self.kinds),
            tuple(self.stores),
            tuple(self.latencies),
            tuple(map(tuple, self.inputs)),
            keys,
            stores,
            loads,
            edges,
        )

    @staticmethod
    def of(ops: list[Operation], hardware: Hardware, spad: Collection[Operation] = ()) -> LoopBody:
        """`ops` as the scheduler reads them; the accesses in `spad` (tape
        accesses a layering would stream) taken through the scratchpad: its
        memory kind, and its latency for a load."""
        kinds: list[str | None] = []
        buffers: list[SSAValue | None] = []
        stores: list[bool] = []
        latencies: list[int] = []
        by_type: dict[type[Operation], tuple[str | None, int | None, bool, int | None]] = {}
        """What `_op_facts` finds of an op, by its type: a fully unrolled body holds
        tens of thousands of ops of a few types."""
        streamed = {id(op) for op in spad}
        """By the ops' ids: an op's hash is a Python call of its own."""
        for op in ops:
            facts = by_type.get(type(op))
            if facts is None:
                facts = by_type[type(op)] = _op_facts(op, hardware)
            kind, buffer, store, latency = facts
            if latency is None:
                latency = op_latency(op, hardware)
            if streamed and id(op) in streamed:
                kind = "spad"
                latency = latency if store else hardware.scratchpad.latency
            kinds.append(kind)
            buffers.append(
                None if buffer is None else op._operands[buffer]  # pyright: ignore[reportPrivateUsage]
            )
            stores.append(store)
            latencies.append(latency)
        # By the ops' ids: an op's hash is a call of its own.
        position = {id(op): n for n, op in enumerate(ops)}
        inputs = [
            [
                n
                for v in op._operands  # pyright: ignore[reportPrivateUsage]
                if (n := position.get(id(v.owner))) is not None
            ]
            for op in ops
        ]
        return LoopBody(
            ops,
            kinds,
            buffers,
            stores,
            latencies,
            inputs,
            carried_memory(ops),
            access_keys(ops, buffers, hardware.mapping.disambiguate, stores),
        )


_LOADS = (memref.LoadOp, region.LoadOp, stream.LoadOp)
_STORES = (memref.StoreOp, region.StoreOp, stream.StoreOp)


def _op_facts(op: Operation, hardware: Hardware) -> tuple[str | None, int | None, bool, int | None]:
    """What `LoopBody.of` reads of `op` that its type alone decides: `memory_kind`,
    the operand `accessed_buffer` takes (by position), `is_store`, and
    `op_latency` (None where the op's own attributes decide it: a placed op's
    opcode or path, an op of no registered type)."""
    buffer = 0 if isinstance(op, _LOADS) else 1 if isinstance(op, _STORES) else None
    fixed = isinstance(op, IRDLOperation) and not isinstance(op, cgra.ComputeOp | cgra.LoadOp)
    latency = op_latency(op, hardware) if fixed else None
    return memory_kind(op), buffer, is_store(op), latency


class OpLatencies:
    """`op_latency(op, hardware)` of ops, found once per op type where the type
    alone decides it (`_op_facts`): a straight run of a fully unrolled body is
    thousands of ops of a few types."""

    def __init__(self, hardware: Hardware) -> None:
        self.hardware = hardware
        self.by_type: dict[type[Operation], int | None] = {}

    def __call__(self, op: Operation) -> int:
        cls = type(op)
        if cls in self.by_type:
            latency = self.by_type[cls]
        else:
            latency = self.by_type[cls] = _op_facts(op, self.hardware)[3]
        return op_latency(op, self.hardware) if latency is None else latency


AccessKey = tuple[object, object, object]
"""(partition, symbolic index, constant offsets) of an access: two accesses may
touch one element only in one partition (a buffer and slot), and there only if
their symbolic indices differ or their offsets are equal
(`lowering.ir.index_offsets`)."""


def access_keys(
    ops: list[Operation],
    buffers: list[SSAValue | None],
    disambiguate: bool,
    stores: list[bool] | None = None,
) -> list[AccessKey | None]:
    """Each access's key; without `disambiguate`, one key per buffer (every
    access of a buffer may meet every other). `stores`: per op, `is_store` (if
    known)."""
    form = LinearForms().form
    keys: list[AccessKey | None] = []
    for n, (op, buffer) in enumerate(zip(ops, buffers, strict=True)):
        if buffer is None:
            keys.append(None)
        elif not disambiguate:
            keys.append((buffer, (), ()))
        else:
            store = is_store(op) if stores is None else stores[n]
            operands = tuple(op._operands)  # pyright: ignore[reportPrivateUsage]
            indices = operands[2:] if store else operands[1:]
            slot = op.slot_index if isinstance(op, SlotAccess) else None
            # `forms.key(indices, slot)`, without the `AccessKey` between
            found = [form(v) for v in indices]
            keys.append(
                ((buffer, slot), tuple([t for t, _ in found]), tuple([c for _, c in found]))
            )
    return keys


class Conflicts:
    """The latest cycle (or position) of the accesses seen so far that may touch
    the element a new access touches: per exact key, and the two latest of
    different symbolic indices per partition (an access may meet every access
    of its partition whose symbolic index differs from its own)."""

    def __init__(self) -> None:
        self.exact: dict[AccessKey, int] = {}
        self.top: dict[object, list[tuple[int, object]]] = {}

    def latest(self, key: AccessKey) -> int:
        """The latest of the accesses noted that `key`'s may meet (-1: none)."""
        part, symbolic, _ = key
        t = self.exact.get(key, -1)
        for seen, other in self.top.get(part, ()):
            if other != symbolic:
                return max(t, seen)
        return t

    def note(self, key: AccessKey, t: int) -> None:
        part, symbolic, _ = key
        exact = self.exact
        if exact.get(key, -1) < t:
            exact[key] = t
        top = self.top.get(part)
        if top is None:
            self.top[part] = [(t, symbolic)]
            return
        # At most two entries of different symbolic indices, the later first (at
        # a tie, the one noted first): what a stable sort by cycle, cut to two,
        # keeps, without sorting.
        entry = (t, symbolic)
        first = top[0]
        if first[1] == symbolic:
            if first[0] < t:
                top[0] = entry  # later than the first, so than the second
            return
        if len(top) == 1:
            if t > first[0]:
                top.insert(0, entry)
            else:
                top.append(entry)
            return
        second = top[1]
        if second[1] == symbolic and second[0] >= t:
            return
        if t > first[0]:
            top[0], top[1] = entry, first
        elif second[1] == symbolic or t > second[0]:
            top[1] = entry
