"""
What reaches an Enzyme cache buffer: the loads, stores, subviews, deallocs and
`memref.dim`s of a buffer, collected through its views, and where an op sits among
the gradient function's top-level ops. Plain caches (`lowering.enzyme.caches`) and
caches nested per outer iteration (`lowering.enzyme.nested_caches`) are both read
with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import memref
from xdsl.ir import Block, Operation, OpResult, SSAValue

from lowering.ir.effects import is_effect_free
from lowering.ir.walk import walk_ops
from tapeflow_dialects import enzyme
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


def top_level_index(op: Operation, body: Block, index: dict[Operation, int]) -> int:
    """Position in `body` of the top-level op that contains `op`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not body:
        current = current.parent_op()
    assert current is not None, "op outside the gradient function"
    return index[current]


def collect_accesses(
    value: SSAValue, views: list[memref.SubviewOp], cache: Cache, skip: Operation | None = None
) -> None:
    """Collect the loads, stores, subviews and deallocs reaching the buffer
    (leaving out its use by `skip`)."""
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
            collect_accesses(user.result, [*views, user], cache)
        elif isinstance(user, memref.DeallocOp) and not views:
            cache.deallocs.append(user)
        elif isinstance(user, memref.DimOp) and use.index == 0 and sizes_views_only(user):
            cache.dims.append(user)  # a view's size: goes with the views
        else:
            raise NotACache(f"used by '{user.name}', which a tape cannot express")


def buffer_root(value: SSAValue) -> SSAValue:
    """The buffer a memref value views (through subviews and casts)."""
    while isinstance(value, OpResult) and isinstance(value.op, memref.SubviewOp | memref.CastOp):
        value = value.op.source
    return value


def written_roots(op: Operation, itself: bool = False) -> set[SSAValue] | None:
    """The buffers (by `buffer_root`) the ops nested in `op` (and `op` itself, if
    `itself`) store into; None if one of them may write memory another way (a
    call, a copy, ...)."""
    roots: set[SSAValue] = set()
    for each in walk_ops(op):
        if each is op and not itself:
            continue
        if isinstance(each, memref.StoreOp):
            roots.add(buffer_root(each.memref))
        elif isinstance(each, enzyme.CacheStoreOp):
            roots.add(buffer_root(each.buffer))
        elif (
            not each.regions
            and not is_effect_free(each)
            and not isinstance(
                each,
                memref.LoadOp
                | enzyme.CacheLoadOp
                | memref.AllocaOp
                | memref.AllocOp
                | memref.DeallocOp,
            )
        ):
            return None
    return roots


def sizes_views_only(dim: memref.DimOp) -> bool:
    """`dim`'s result is used only as a size of subviews of the buffer it measures."""
    return all(
        isinstance(use.operation, memref.SubviewOp)
        and use.operation.source is dim.source
        and any(size is dim.result for size in use.operation.sizes)
        for use in dim.result.uses
    )
