"""
Where the program of Enzyme for LLVM, the AD tool of the authors' runs (their fork
`sfu-arch/Enzyme`), differs from the Enzyme-MLIR program this project simulates,
in what the `salam` model's issue order (`sim.models.salam.lockstep`) depends on:

- **Cache stores** (`authors_order`): `CacheUtility::storeInstructionInCache`
  (`enzyme/Enzyme/CacheUtility.cpp`, commit `3baaf47f`) puts each store that
  fills Enzyme's cache after the stores already in its block, so the stores of an
  unrolled body gather behind its last cached value, where Enzyme-MLIR's sit right
  after each value. A load waits for the older stores not yet issued, so the
  order matters.
- **Adjoint additions** (`adjoint_additions`): `DiffeGradientUtils` (`enzyme/
  Enzyme/GradientUtils.h`, commit `1dc51dbc`) keeps each active value's adjoint
  in a shadow stored with zero (`getDifferential`) and adds every contribution
  into it with an `fadd` (`addToDiffe`); the authors' build (`opt -enzyme
  -loop-unroll -mem2reg -always-inline`) leaves `fadd 0.0, c` in place (it is
  not `c` for c = -0.0, and nothing simplifies it). Enzyme-MLIR forwards a lone
  contribution as the adjoint itself, and forwards an adjoint through a chain of
  additions unchanged, so that its reverse loop reads it from outside the body.
  The authors' reverse has one more `fadd` after each contribution, and an
  adjoint carried through a body's additions passes one `fadd` per addition.

Only the order and those additions change: the values, the addresses and the
trace are the program's own. Sources and the limits of the emulation:
docs/research/salam-memory-ordering.md (section 8).
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import ArrayAttr, Float32Type, Float64Type
from xdsl.ir import Operation, OpResult, SSAValue

from tapeflow_dialects import cgra, enzyme
from tapeflow_dialects.cgra import MemPath
from tapeflow_dialects.enzyme import (
    GRADIENT_ACTIVITY,
    GRADIENT_RET_ACTIVITY,
    REV_START,
    TAPE_BUFFER,
    ArgumentRole,
    gradient_argument_roles,
)


def _root(value: SSAValue) -> SSAValue:
    """The buffer `value` views (through subviews and casts)."""
    while isinstance(value, OpResult) and isinstance(
        value.op, memref.SubviewOp | memref.CastOp | memref.ReinterpretCastOp
    ):
        value = value.op.source
    return value


def _tape_buffer(value: SSAValue) -> bool:
    """`value` is (a view of) a buffer Enzyme caches values in (`TAPE_BUFFER`)."""
    owner = _root(value).owner
    return isinstance(owner, memref.AllocOp) and TAPE_BUFFER in owner.attributes


def is_cache_tape_store(op: Operation) -> bool:
    """A placed store of a value into Enzyme's cache, through the cache (the
    Enzyme baseline's tape store; TapeFlow's go to the scratchpad)."""
    return (
        isinstance(op, cgra.StoreOp) and op.path.data == MemPath.CACHE and _tape_buffer(op.memory)
    )


def authors_order(ops: Sequence[Operation]) -> list[Operation]:
    """`ops` (one loop body, in program order) with Enzyme's cache stores where
    Enzyme for LLVM would have put them: taken in reverse order of the values
    they store, each goes right after its value (at the body's start for a
    value from outside it: a phi, a loop-carried value), then after the first
    store that follows that point, if any (the op right at the point excluded,
    as `storeInstructionInCache`'s scan stops on it)."""
    tape = [op for op in ops if is_cache_tape_store(op)]
    if not tape:
        return list(ops)
    position = {op: i for i, op in enumerate(ops)}

    def defined_at(store: Operation) -> int:
        owner = store.value.owner  # type: ignore[attr-defined]
        return position.get(owner, -1) if isinstance(owner, Operation) else -1

    # The order as it grows, kept as sort keys rather than a list to insert into
    # (a fully unrolled body has thousands of cache stores): an op of the body
    # but the cache stores has key (its place,); a store put right after an op
    # gets that op's key extended by a number that falls with every insertion,
    # so it sorts after the op and before whatever was put after the op earlier.
    # Placing a store then takes two binary searches: the op after its value,
    # and the first store after that op.
    placed = set(tape)
    key: dict[Operation, tuple[int, ...]] = {}
    for op in ops:
        if op not in placed:
            key[op] = (len(key),)
    at_key = {k: op for op, k in key.items()}
    keys = sorted(at_key)
    store_keys = sorted(k for k, op in at_key.items() if isinstance(op, cgra.StoreOp))
    stamp = 0
    for store in sorted(tape, key=lambda s: (defined_at(s), position[s]), reverse=True):
        stamp -= 1
        owner = store.value.owner  # type: ignore[attr-defined]
        after = key.get(owner) if isinstance(owner, Operation) else None
        # The op right after the value (the body's first for a value from outside).
        i = 0 if after is None else bisect_right(keys, after)
        new = (-1, stamp) if after is None else (*after, stamp)
        if i < len(keys):
            j = bisect_right(store_keys, keys[i])  # the first store past that op
            if j < len(store_keys):
                new = (*store_keys[j], stamp)
        key[store] = new
        at_key[new] = store
        insort(keys, new)
        insort(store_keys, new)
    return [at_key[k] for k in keys]


ACCUMULATING = frozenset({"arith.addf", "arith.subf"})
"""The ops that add two adjoints (Enzyme-MLIR's sum of contributions, or a
contribution into a shadow element loaded from memory)."""


@dataclass(frozen=True)
class AdjointAdditions:
    """A kernel loop's body as the authors' reverse has it: the body's ops with
    the `fadd`s Enzyme for LLVM adds (detached ops, never inserted in the IR),
    and the dependences those `fadd`s add."""

    ops: tuple[Operation, ...]
    """The body's placed ops and the added `fadd`s, each before its users."""
    inputs: dict[Operation, tuple[Operation, ...]]
    """Ops of the same iteration an op waits for, beside its operands' producers."""
    carried: dict[Operation, tuple[Operation, ...]]
    """Ops of the previous iteration an op waits for, beside its carried operands'."""


class _Adjoints:
    """Which values of a gradient function are adjoints: its seeds, the loads of
    its shadow buffers (shadow arguments, and the buffers Enzyme zero-fills), and
    whatever is computed from one (through loops' carried values and kernels'
    results)."""

    def __init__(self, function: func.FuncOp):
        activity = function.attributes.get(GRADIENT_ACTIVITY)
        ret_activity = function.attributes.get(GRADIENT_RET_ACTIVITY)
        assert isinstance(activity, ArrayAttr) and isinstance(ret_activity, ArrayAttr)
        roles = gradient_argument_roles(
            [a.data for a in activity.data if isinstance(a, enzyme.ActivityAttr)],
            [a.data for a in ret_activity.data if isinstance(a, enzyme.ActivityAttr)],
        )
        args = list(zip(function.args, roles, strict=False))
        self.seeds = {a for a, r in args if r is ArgumentRole.SEED}
        # The function's zero fills and loads, in one walk (a fully unrolled
        # function has tens of thousands of ops), each op's class asked once.
        fills: list[enzyme.FillZeroOp] = []
        loads: list[cgra.LoadOp | memref.LoadOp] = []
        kinds: dict[type, int] = {}
        for op in function.walk():
            kind = kinds.get(type(op))
            if kind is None:
                kind = kinds[type(op)] = (
                    1
                    if isinstance(op, enzyme.FillZeroOp)
                    else 2
                    if isinstance(op, cgra.LoadOp | memref.LoadOp)
                    else 0
                )
            if kind == 1:
                fills.append(op)  # type: ignore[arg-type]
            elif kind == 2:
                loads.append(op)  # type: ignore[arg-type]
        self.shadows = {a for a, r in args if r is ArgumentRole.SHADOW} | {
            _root(op.buffer) for op in fills
        }
        self.found: set[SSAValue] = set()
        self._spread(loads)

    def __call__(self, value: SSAValue) -> bool:
        return value in self.found

    def _spread(self, loads: list[cgra.LoadOp | memref.LoadOp]) -> None:
        """From the seeds and the shadow loads (of the function's `loads`, in
        walk order) to every value computed from one, use by use (a worklist: a
        fully unrolled body chains thousands of ops)."""
        work: list[SSAValue] = []

        def found(value: SSAValue) -> None:
            if value not in self.found and (
                value in self.seeds or isinstance(value.type, Float32Type | Float64Type)
            ):
                self.found.add(value)
                work.append(value)

        for value in self.seeds:
            found(value)
        for op in loads:
            if self.shadow_load(op):
                found(op.results[0])
        while work:
            for use in work.pop().uses:
                for value in self._computed_from(use.operation, use.index):
                    found(value)

    @staticmethod
    def _computed_from(user: Operation, index: int) -> list[SSAValue]:
        """The values computed from operand `index` of `user`: a loop's carried
        value and result from its initial value or what its body yields, a
        region's op's result from what its last block yields, an op's results
        from its operands (a load's and a constant's from none)."""
        if isinstance(user, scf.ForOp):
            carried = index - 3  # after the bounds and the step
            if carried < 0:
                return []
            return [user.body.block.args[carried + 1], user.results[carried]]
        values: list[SSAValue] = []
        block = user.parent_block()
        owner = block.parent_op() if block is not None else None
        if owner is not None and block is not None and user is block.last_op:
            if isinstance(owner, scf.ForOp) and block is owner.body.block:
                values.append(block.args[index + 1])
            if owner.regions and block is owner.regions[0].blocks.last:
                values.extend(owner.results[index : index + 1])
        if not user.regions and not isinstance(
            user, cgra.LoadOp | memref.LoadOp | arith.ConstantOp
        ):
            values.extend(user.results)
        return values

    def shadow_load(self, op: cgra.LoadOp | memref.LoadOp) -> bool:
        """`op` reads a shadow buffer."""
        memory = op.memref if isinstance(op, memref.LoadOp) else op.memory
        return _root(memory) in self.shadows


def _reverse_function(kernel: cgra.KernelOp) -> func.FuncOp | None:
    """The gradient function whose reverse sweep `kernel` is in, or None."""
    top: Operation = kernel
    while not isinstance(parent := top.parent_op(), func.FuncOp):
        if parent is None:
            return None
        top = parent
    if GRADIENT_ACTIVITY not in parent.attributes:
        return None
    ops = list(parent.body.block.ops)
    start = next((i for i, op in enumerate(ops) if REV_START in op.attributes), len(ops))
    return parent if ops.index(top) >= start else None


_FADD = cgra.ComputeOp("arith.addf", [], [Float64Type()], (0, 0), 0)
"""What every added `fadd` is: no operands, one f64 result, at PE (0, 0) and cycle 0."""


def _fadd() -> cgra.ComputeOp:
    """A new `fadd` like `_FADD` (`create` with its properties: a fully unrolled
    reverse adds thousands, and the full constructor takes four times as long)."""
    return cgra.ComputeOp.create(
        result_types=[_FADD.res[0].type], properties=dict(_FADD.properties)
    )


class FunctionAdjoints:
    """The adjoints of each gradient function asked for (`_Adjoints`), found once
    per function: one run's kernels share them (its module does not change while
    it runs), where each kernel of a fully unrolled reverse would otherwise walk
    the whole function again."""

    def __init__(self) -> None:
        self._found: dict[func.FuncOp, _Adjoints] = {}

    def __call__(self, function: func.FuncOp) -> _Adjoints:
        found = self._found.get(function)
        if found is None:
            found = self._found[function] = _Adjoints(function)
        return found


def adjoint_additions(
    kernel: cgra.KernelOp,
    carried_by: dict[SSAValue, Operation],
    adjoints: FunctionAdjoints | None = None,
) -> AdjointAdditions | None:
    """The body of `kernel` (a loop body of a gradient's reverse sweep; None for
    any other kernel; `carried_by`: the op of the body that yields each carried
    value it reads) with the `fadd`s of Enzyme for LLVM's `addToDiffe`:

    - one after each contribution (an op of the body whose result is an adjoint
      and that does not add two adjoints: `fadd 0.0, c` starts that adjoint), read
      by every user of the contribution in place of it, in this iteration or the
      next;
    - for each adjoint read from outside the body (forwarded unchanged through the
      additions of a loop-carried sum), a chain of one `fadd` per op of the body
      that reads it, in body order (the authors' reverse order of the copies):
      the i-th reader waits for its own `fadd` after link i - 1, and the first
      link and reader for the previous iteration's last link, which carries the
      adjoint on.

    `adjoints`: the functions' adjoints found so far (found anew without it).
    """
    function = _reverse_function(kernel)
    if function is None:
        return None
    adjoint = _Adjoints(function) if adjoints is None else adjoints(function)
    body = [op for op in kernel.body.block.ops if isinstance(op, cgra.PlacedOp)]
    inside = set(body)
    inputs: dict[Operation, list[Operation]] = {}
    carried: dict[Operation, list[Operation]] = {}
    after: dict[Operation, cgra.ComputeOp] = {}
    for op in body:
        if isinstance(op, cgra.ComputeOp) and op.results and adjoint(op.results[0]):
            if not (op.opcode.data in ACCUMULATING and sum(map(adjoint, op.operands)) >= 2):
                after[op] = _fadd()
                inputs[after[op]] = [op]
    readers: dict[SSAValue, list[Operation]] = {}
    for op in body:
        for value in op.operands:
            source = carried_by.get(value)
            if source is not None:
                if source in after:
                    carried.setdefault(op, []).append(after[source])  # type: ignore[index]
            elif value.owner in after:
                inputs.setdefault(op, []).append(after[value.owner])  # type: ignore[index]
            elif value.owner not in inside and adjoint(value):
                users = readers.setdefault(value, [])
                if op not in users:
                    users.append(op)
    head: list[Operation] = []
    for users in readers.values():
        links = [_fadd() for _ in users]
        for i, (user, link) in enumerate(zip(users, links, strict=True)):
            own = _fadd()
            if i == 0:
                carried[link] = [links[-1]]
                carried[own] = [links[-1]]
            else:
                inputs[link] = [links[i - 1]]
                inputs[own] = [links[i - 1]]
            head += [link, own]
            inputs.setdefault(user, []).append(own)
    ops: list[Operation] = list(head)
    for op in body:
        ops.append(op)
        if op in after:
            ops.append(after[op])
    return AdjointAdditions(
        tuple(ops),
        {op: tuple(v) for op, v in inputs.items()},
        {op: tuple(v) for op, v in carried.items()},
    )


__all__ = [
    "AdjointAdditions",
    "FunctionAdjoints",
    "adjoint_additions",
    "authors_order",
    "is_cache_tape_store",
]
