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

from dataclasses import dataclass, field

from xdsl.dialects import builtin, func, memref
from xdsl.dialects.builtin import ArrayAttr, MemRefType
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.traits import is_side_effect_free
from xdsl.utils.exceptions import PassFailedException

from tapeflow_dialects import enzyme
from tapeflow_dialects.enzyme import (
    GRADIENT_ACTIVITY,
    GRADIENT_RET_ACTIVITY,
    ArgumentRole,
    gradient_argument_roles,
)
from tapeflow_dialects.memref_views import UnsupportedSubview, subview_geometry


class NotACache(Exception):
    """A buffer that is not an Enzyme cache; the message says why."""


@dataclass
class Access:
    op: memref.LoadOp | memref.StoreOp | enzyme.CacheLoadOp | enzyme.CacheStoreOp
    """A plain access, or Enzyme's `enzyme.load/store` of a cache of run-time extent."""
    views: list[memref.SubviewOp]
    """Subviews from the buffer to the accessed memref, outermost first."""


@dataclass
class Cache:
    """One Enzyme cache buffer and everything that reaches it."""

    alloc: memref.AllocOp
    stores: list[Access]
    loads: list[Access]
    subviews: list[memref.SubviewOp]
    deallocs: list[memref.DeallocOp]
    dims: list[memref.DimOp] = field(default_factory=list)
    """`memref.dim` of the buffer used only as the sizes of its views (Enzyme views
    a row of a cache of run-time extent with the extent it asks the buffer for)."""


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


def buffer_root(value: SSAValue) -> SSAValue:
    """The buffer a memref value views (through subviews and casts)."""
    while isinstance(value, OpResult) and isinstance(
        value.op, memref.SubviewOp | memref.CastOp
    ):
        value = value.op.source
    return value


def written_roots(op: Operation) -> set[SSAValue] | None:
    """The buffers (by `buffer_root`) the ops nested in `op` store into; None if
    one of them may write memory another way (a call, a copy, ...)."""
    roots: set[SSAValue] = set()
    for each in op.walk():
        if each is op:
            continue
        if isinstance(each, memref.StoreOp):
            roots.add(buffer_root(each.memref))
        elif isinstance(each, enzyme.CacheStoreOp):
            roots.add(buffer_root(each.buffer))
        elif not each.regions and not is_side_effect_free(each) and not isinstance(
            each, memref.LoadOp | enzyme.CacheLoadOp | memref.AllocaOp | memref.AllocOp | memref.DeallocOp
        ):
            return None
    return roots


def top_level_index(op: Operation, body: Block, index: dict[Operation, int]) -> int:
    """Position in `body` of the top-level op that contains `op`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not body:
        current = current.parent_op()
    assert current is not None, "op outside the gradient function"
    return index[current]


def reverse_sweep_start(function: func.FuncOp, pass_name: str = "tapeflow-raise-tape") -> int:
    """Index, in the gradient's body, of the first top-level op of the reverse
    sweep (the body's length if there is none)."""
    body = function.body.block
    roles = argument_roles(function, pass_name)
    seeds = {a for a, r in zip(function.args, roles) if r is ArgumentRole.SEED}
    shadows: set[SSAValue] = {a for a, r in zip(function.args, roles) if r is ArgumentRole.SHADOW}
    shadows |= {buffer_root(op.buffer) for op in function.walk() if isinstance(op, enzyme.FillZeroOp)}
    index = {op: i for i, op in enumerate(body.ops)}
    start = len(index)
    for op in function.walk():
        if isinstance(op, enzyme.FillZeroOp | func.FuncOp):
            continue
        if any(
            v in seeds
            or (isinstance(v.type, MemRefType) and buffer_root(v) in shadows and not _handle_cached(op, i))
            for i, v in enumerate(op.operands)
        ):
            start = min(start, top_level_index(op, body, index))
    return start


def _handle_cached(op: Operation, operand: int) -> bool:
    """`op` stores its operand `operand` (a memref handle) into a buffer: Enzyme
    caching which buffer an iteration wrote through (`memref<10xmemref<10xf64>>`),
    which does not touch that buffer's contents."""
    return isinstance(op, memref.StoreOp) and operand == 0


def accesses_of(
    value: SSAValue, views: list[memref.SubviewOp], cache: Cache, skip: Operation | None = None
) -> None:
    """Collect the loads, stores, subviews and deallocs reaching the buffer
    (leaving out its use by `skip`); `NotACache` names a use a tape cannot express."""
    for use in value.uses:
        user = use.operation
        if user is skip:
            continue
        if isinstance(user, memref.LoadOp | enzyme.CacheLoadOp) and use.index == 0:
            cache.loads.append(Access(user, views))
        elif isinstance(user, memref.StoreOp | enzyme.CacheStoreOp) and use.index == 1:
            cache.stores.append(Access(user, views))
        elif isinstance(user, memref.SubviewOp) and use.index == 0:
            try:
                subview_geometry(user)
            except UnsupportedSubview as err:
                raise NotACache(str(err)) from None
            cache.subviews.append(user)
            accesses_of(user.result, [*views, user], cache)
        elif isinstance(user, memref.DeallocOp) and not views:
            cache.deallocs.append(user)
        elif isinstance(user, memref.DimOp) and use.index == 0 and _sizes_views_only(user):
            cache.dims.append(user)  # a view's size: goes with the views
        else:
            raise NotACache(f"used by '{user.name}', which a tape cannot express")


def _sizes_views_only(dim: memref.DimOp) -> bool:
    """`dim`'s result is used only as a size of subviews of the buffer it measures."""
    return all(
        isinstance(use.operation, memref.SubviewOp)
        and use.operation.source is dim.source
        and any(size is dim.result for size in use.operation.sizes)
        for use in dim.result.uses
    )


def classify_cache(alloc: memref.AllocOp, body: Block, rev_start: int) -> Cache:
    """`alloc` as an Enzyme cache, with its accesses; `NotACache` says why not."""
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    # Extents known only at run time are the alloc's operands, which dominate it:
    # the tape takes them the same way.
    if isinstance(memref_type.element_type, MemRefType):
        raise NotACache("a buffer of buffers (see lowering.nested_caches)")
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
    accesses_of(alloc.memref, [], cache)
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
    from lowering.nested_caches import NotANestedCache, classify_nested_cache

    for op in body.ops:
        if isinstance(op, memref.AllocOp):
            try:
                nested = classify_nested_cache(op, body, rev_start)
            except NotANestedCache:
                continue
            found += nested.buffers()
    return found
