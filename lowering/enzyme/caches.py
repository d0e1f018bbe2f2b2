"""
Reading an Enzyme gradient function: where its reverse sweep begins, and which of
its buffers are Enzyme's caches (the tape).

Enzyme saves every value its reverse sweep (REV) needs in a cache. After its
`remove-unnecessary-enzyme-ops` pass, each cache is a `memref.alloc` in the gradient
function, shaped by the loop nest that produces the value (struct-of-arrays: one
buffer per cached value), written by the forward sweep (FWD) -- often through a
`memref.subview` that selects one outer iteration's slice -- read back by REV, and
deallocated once REV is done with it.

The sweeps are told apart by position in the gradient function's body: REV begins
at the first top-level op that reads a seed (the incoming adjoint of an active
result) or touches a shadow buffer (a shadow argument, or a buffer Enzyme
zero-fills with `enzyme.fill_zero`); `tapeflow-enzyme` records which arguments are
shadows and seeds on every gradient function (`tapeflow.activity`,
`tapeflow.ret_activity`). A `memref.alloc` of the gradient function is a cache when
it is written only before REV begins, read only after, and used only by loads,
stores, subviews and its dealloc.

`tapeflow-raise-tape` rewrites the caches into tape ops, `tapeflow-mark-tape-buffers`
marks them for the Enzyme baseline, and `tapeflow-mark-rev-start` marks where REV
begins.
"""

from __future__ import annotations

from xdsl.dialects import builtin, func, memref
from xdsl.dialects.builtin import ArrayAttr, MemRefType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from lowering.enzyme.cache_accesses import (
    Cache,
    NotACache,
    buffer_root,
    collect_accesses,
    top_level_index,
)
from lowering.enzyme.nested_caches import NotANestedCache, classify_nested_cache
from lowering.ir.walk import walk_ops
from tapeflow_dialects import enzyme
from tapeflow_dialects.enzyme import (
    GRADIENT_ACTIVITY,
    GRADIENT_RET_ACTIVITY,
    ArgumentRole,
    gradient_argument_roles,
)


def argument_roles(function: func.FuncOp, pass_name: str) -> list[ArgumentRole]:
    """What each argument of a gradient function is (primal, shadow, seed)."""
    name = function.sym_name.data
    activity = function.attributes.get(GRADIENT_ACTIVITY)
    ret_activity = function.attributes.get(GRADIENT_RET_ACTIVITY)
    if not isinstance(activity, ArrayAttr) or not isinstance(ret_activity, ArrayAttr):
        raise PassFailedException(
            f"{pass_name}: gradient function @{name} lacks the "
            f"'{GRADIENT_ACTIVITY}' and '{GRADIENT_RET_ACTIVITY}' arrays of "
            "#enzyme.activity that tapeflow-enzyme records"
        )
    roles = gradient_argument_roles(
        [a.data for a in activity.data if isinstance(a, enzyme.ActivityAttr)],
        [a.data for a in ret_activity.data if isinstance(a, enzyme.ActivityAttr)],
    )
    if len(roles) != len(function.args):
        raise PassFailedException(
            f"{pass_name}: gradient function @{name} has {len(function.args)} "
            f"arguments, but its activities call for {len(roles)} (primal arguments, "
            "shadows of duplicated ones, seeds of active results)"
        )
    return roles


def shadow_buffers(function: func.FuncOp, roles: list[ArgumentRole]) -> set[SSAValue]:
    """The gradient's shadow buffers: its shadow arguments and the buffers Enzyme
    zero-fills (`enzyme.fill_zero`: the shadows of the function's own buffers)."""
    shadows: set[SSAValue] = {
        a for a, r in zip(function.args, roles, strict=True) if r is ArgumentRole.SHADOW
    }
    shadows |= {
        buffer_root(op.buffer) for op in walk_ops(function) if isinstance(op, enzyme.FillZeroOp)
    }
    return shadows


def reverse_sweep_start(function: func.FuncOp, pass_name: str = "tapeflow-raise-tape") -> int:
    """Index, in the gradient's body, of the first top-level op of the reverse
    sweep (the body's length if there is none)."""
    return sweep_position(function, reverse_sweep_head(function, pass_name))


def sweep_position(function: func.FuncOp, head: Operation | None) -> int:
    """Index in the gradient's body of `head`, its first REV op (the body's
    length for None: no REV). A pass that inserts or erases ops of neither sweep's
    boundary keeps the head and reads its position again here, which is cheaper
    than finding the head anew."""
    body = function.body.block
    if head is None:
        return len(body.ops)
    return next(i for i, op in enumerate(body.ops) if op is head)


def reverse_sweep_head(
    function: func.FuncOp, pass_name: str = "tapeflow-raise-tape"
) -> Operation | None:
    """The first top-level op of the gradient's reverse sweep (None if there is
    none)."""
    body = function.body.block
    roles = argument_roles(function, pass_name)
    seeds = {a for a, r in zip(function.args, roles, strict=True) if r is ArgumentRole.SEED}
    shadows = shadow_buffers(function, roles)
    for top in body.ops:  # in order: the first top-level op that holds one is the head
        for op in walk_ops(top):
            if isinstance(op, enzyme.FillZeroOp):
                continue
            if any(
                v in seeds
                or (
                    isinstance(v.type, MemRefType)
                    and buffer_root(v) in shadows
                    and not _handle_cached(op, i)
                )
                for i, v in enumerate(op.operands)
            ):
                return top
    return None


def _handle_cached(op: Operation, operand: int) -> bool:
    """`op` stores its operand `operand` (a memref handle) into a buffer: Enzyme
    caching which buffer an iteration wrote through (`memref<10xmemref<10xf64>>`),
    which does not touch that buffer's contents."""
    return isinstance(op, memref.StoreOp) and operand == 0


def classify_cache(alloc: memref.AllocOp, body: Block, rev_start: int) -> Cache:
    """`alloc` as an Enzyme cache, with its accesses; `NotACache` says why not."""
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    # Extents known only at run time are the alloc's operands, which dominate it:
    # the tape takes them the same way.
    if isinstance(memref_type.element_type, MemRefType):
        raise NotACache("a buffer of buffers (see lowering.enzyme.nested_caches)")
    if not isinstance(memref_type.layout, builtin.NoneAttr):
        raise NotACache("non-identity layout")
    if not isinstance(
        memref_type.element_type, builtin.IndexType | builtin.IntegerType | builtin.AnyFloat
    ):
        # Enzyme caches which buffer an iteration wrote through
        # (memref<10xmemref<10xf64>>) when that buffer may change between
        # iterations; the REV loop stores and loads through the handle it reads.
        raise NotACache(
            f"caches {memref_type.element_type} handles (which buffer each iteration "
            "used); a tape holds values"
        )
    cache = Cache(alloc, [], [], [], [])
    collect_accesses(alloc.memref, [], cache)
    index = {op: i for i, op in enumerate(body.ops)}
    if not cache.stores:
        raise NotACache("never written")
    if not cache.loads:
        raise NotACache("never read")
    if any(top_level_index(a.op, body, index) >= rev_start for a in cache.stores):
        raise NotACache("written in the reverse sweep")
    if any(top_level_index(a.op, body, index) < rev_start for a in cache.loads):
        raise NotACache("read in the forward sweep")
    if len(cache.deallocs) > 1:
        raise NotACache("deallocated more than once")
    if len(cache.stores) > 1:
        # Each tape load names the one store it reads; with several stores into
        # one buffer that needs an analysis Enzyme's caches have never needed.
        raise NotACache(f"written by {len(cache.stores)} stores")
    return cache


def cache_buffers(function: func.FuncOp, pass_name: str) -> list[memref.AllocOp]:
    """The top-level `memref.alloc` ops of a gradient function that are caches."""
    body = function.body.block
    rev_start = reverse_sweep_start(function, pass_name)
    found = []
    for op in body.ops:
        if isinstance(op, memref.AllocOp):
            try:
                classify_cache(op, body, rev_start)
            except NotACache:
                continue
            found.append(op)
    # Caches nested per outer iteration (triangular nests): the buffer of
    # handles and every per-iteration buffer are tape.
    for op in body.ops:
        if isinstance(op, memref.AllocOp):
            try:
                nested = classify_nested_cache(op, body, rev_start)
            except NotANestedCache:
                continue
            found += nested.buffers()
    return found
