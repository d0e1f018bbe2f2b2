"""
Where Enzyme for LLVM, the AD tool of the authors' runs, puts the stores that
fill its cache (the Enzyme baseline's tape): the order of a loop body the `salam`
model issues in (`sim.models.salam.lockstep`), since a load on the authors' datapath waits
for every older store not yet issued and so depends on where those stores sit.

Enzyme-MLIR, this project's Enzyme, stores each cached value right after it is
computed. Enzyme for LLVM (the authors' fork `sfu-arch/Enzyme`, stored at commit
`3baaf47f`, and upstream alike) does not: `CacheUtility::storeInstructionInCache`
(`enzyme/Enzyme/CacheUtility.cpp`) starts right after the value (after the
block's phis for a phi) and then, "to ensure we always store after a potential
realloc occurs in this loop, we put our store after any existing stores in the
loop": it scans the block back from its end to that point and lands after the
earliest store it meets. Enzyme caches a value when the reverse sweep it is
building first needs it, and it builds that sweep from each block's last
instruction back (as Enzyme-MLIR's `visitChildren` walks `rbegin()..rend()`): a
later value's cache store is placed first, and each earlier value's store then
joins it. An unrolled body's cache stores therefore gather behind its last cached
value, after the loads before it, where Enzyme-MLIR's sit between them. The
authors' tape numbering agrees: in `benchmarks/AD/nn/hw/live_vars.txt` the
reverse sweep's loads of `div.7` ... `div` are `%103` ... `%257`, the last copy's
first (`benchmarks/AD/nn/hw/live_vars.txt` of `sfu-arch/gem5-SALAM` at `a5e40f4be`).

Only the order changes: the values, the addresses and the trace are the
program's own.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.ir import Operation, SSAValue

from tapeflow_dialects import cgra
from tapeflow_dialects.cgra import MemPath
from tapeflow_dialects.enzyme import TAPE_BUFFER


def _tape_buffer(value: SSAValue) -> bool:
    """`value` is (a view of) a buffer Enzyme caches values in (`TAPE_BUFFER`)."""
    owner = value.owner
    while isinstance(owner, memref.SubviewOp | memref.CastOp | memref.ReinterpretCastOp):
        owner = owner.source.owner
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


__all__ = ["authors_order", "is_cache_tape_store"]
