"""
`tapeflow-recompute-loads`: rebuild in the reverse sweep, instead of caching, a
value made of loads from memory that no longer changes.

Enzyme for LLVM re-loads in the reverse sweep (REV) a load whose memory is not
written again, and rebuilds arithmetic over such loads; the authors' kernels were
differentiated that way. Enzyme-MLIR caches every value REV needs. This pass, run
on the Enzyme gradient (after `tapeflow-enzyme`), turns each cache
(`lowering.enzyme.caches`, `lowering.enzyme.nested_caches`) whose value can be
rebuilt back into the computation, so that the baseline's program is theirs.

A value can be rebuilt from the indices it is stored at, values defined at the
top of the function before REV, constants, pure `arith` ops, subviews and loads
of memory no op writes at or after the load (`written_roots`); `math` ops,
loop-carried values and other indices stay cached. Each recomputed REV load
becomes a clone of the value's ops ahead of it, and the cache's buffers, views,
stores and deallocs go. The values REV computes are the same, bit for bit: the
same ops on the same operands.

With `stats`, the pass prints per gradient function how many caches it turned
into recomputation and how many it kept. The rules in full (indices solved
through `addi`/`subi`, aliasing of primal arguments and shadows, nested caches),
with the Enzyme sources and the authors' caches they follow:
docs/research/recompute.md.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import partial

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.enzyme.cache_accesses import (
    Access,
    Cache,
    NotACache,
    buffer_root,
    top_level_index,
    written_roots,
)
from lowering.enzyme.caches import (
    argument_roles,
    classify_cache,
    reverse_sweep_head,
    shadow_buffers,
    sweep_position,
)
from lowering.enzyme.nested_caches import (
    NestedCache,
    NotANestedCache,
    classify_nested_cache,
    erase_unused,
)
from lowering.ir.effects import is_effect_free
from lowering.ir.gradients import require_gradients
from lowering.ir.index_builder import compose_view_indices
from lowering.ir.later_writes import LaterWrites
from lowering.ir.stages import Stage, require_stages
from lowering.ir.walk import walk_ops
from tapeflow_dialects import enzyme
from tapeflow_dialects.enzyme import ArgumentRole
from tapeflow_dialects.memref_views import subview_geometry

PASS = "tapeflow-recompute-loads"

_EVERY_BUFFER = None
"""The key under which `_Writes.last` keeps ops that may write any memory."""


class _NotRecomputable(Exception):
    """A cached value that REV cannot rebuild; the message says why."""


@dataclass
class _Writes:
    """Where the gradient function writes memory, by top-level op."""

    body: Block
    ops: list[Operation]
    """The body's ops (but the return) when the positions below were read."""
    index: dict[Operation, int]
    last: dict[SSAValue | None, int]
    """Buffer (its root) -> the last top-level position that writes it; key
    `_EVERY_BUFFER` for ops that may write any memory."""
    stores: dict[SSAValue, list[tuple[int, memref.StoreOp]]]
    """Buffer -> its `memref.store`s, with their top-level positions."""
    otherwise: dict[SSAValue, int]
    """Buffer -> the last top-level position that writes it other than by a
    `memref.store` (a cache store)."""
    primal_args: set[SSAValue]
    shadows: set[SSAValue]
    later: LaterWrites

    @classmethod
    def of(cls, function: func.FuncOp) -> _Writes:
        body = function.body.block
        roles = argument_roles(function, PASS)
        primal = {a for a, r in zip(function.args, roles, strict=True) if r is ArgumentRole.PRIMAL}
        last: dict[SSAValue | None, int] = {}
        stores: dict[SSAValue, list[tuple[int, memref.StoreOp]]] = {}
        otherwise: dict[SSAValue, int] = {}
        ops = list(body.ops)[:-1]  # but the return
        for at, op in enumerate(ops):
            roots = written_roots(op, itself=True)
            for root in (_EVERY_BUFFER,) if roots is None else roots:
                last[root] = at
            for each in walk_ops(op):
                if isinstance(each, memref.StoreOp):
                    stores.setdefault(buffer_root(each.memref), []).append((at, each))
                elif isinstance(each, enzyme.CacheStoreOp):
                    otherwise[buffer_root(each.buffer)] = at
        return cls(
            body,
            ops,
            {op: i for i, op in enumerate(body.ops)},
            last,
            stores,
            otherwise,
            primal,
            shadow_buffers(function, roles),
            LaterWrites(function),
        )

    def renumber(self) -> None:
        """Read the positions again after a cache was recomputed. The rewrite
        inserts loads, views and index arithmetic (no writes) and erases the
        cache's ops, whose buffers nothing reads any more: every other buffer
        keeps its writers, which only moved."""
        self.index = {op: i for i, op in enumerate(self.body.ops)}
        now = [self.index.get(op) for op in self.ops]
        self.ops = list(self.body.ops)[:-1]
        self.last = {k: n for k, p in self.last.items() if (n := now[p]) is not None}
        self.otherwise = {k: n for k, p in self.otherwise.items() if (n := now[p]) is not None}
        self.stores = {
            k: [(n, store) for p, store in v if (n := now[p]) is not None]
            for k, v in self.stores.items()
        }

    def unchanged_after(self, load: memref.LoadOp) -> bool:
        """No op that runs after the load may write what it reads: none at or
        after its top-level op writes a buffer it may alias, or each that does is
        a `memref.store` that never meets it (`_apart`)."""
        root = buffer_root(load.memref)
        at = top_level_index(load, self.body, self.index)
        if root in self.shadows:
            return False  # REV accumulates into shadows
        if self.last.get(_EVERY_BUFFER, -1) >= at:
            return False
        may_alias = {root} | (self.primal_args if root in self.primal_args else set())
        for buffer in may_alias:
            if self.last.get(buffer, -1) < at:
                continue
            if self.otherwise.get(buffer, -1) >= at:
                return False
            for position, store in self.stores.get(buffer, []):
                if position >= at and not self._apart(load, store):
                    return False
        return True

    def _apart(self, load: memref.LoadOp, store: memref.StoreOp) -> bool:
        """The store never writes the element the load read. Both must index
        their buffers directly; two primal arguments are taken to be one buffer
        or disjoint (not partly overlapping), so their indices are compared when
        they have one type."""
        if load.memref is not buffer_root(load.memref):
            return False
        if store.memref is not buffer_root(store.memref):
            return False
        if store.memref is not load.memref and store.memref.type != load.memref.type:
            return False
        return not self.later.may_write_after(load, store)


def _stored_indices(access: Access) -> list[SSAValue | None]:
    """The FWD store's index into the buffer per dimension, as the SSA value it
    is (None where it is a constant); `_NotRecomputable` if a view scales or
    shifts an index (Enzyme's views select a slice: offsets on the dimensions
    they drop)."""
    current: list[SSAValue | None] = list(access.op.indices)
    for view in reversed(access.views):
        geometry = subview_geometry(view)
        inner = iter(current)
        outer: list[SSAValue | None] = []
        for dim, (offset, stride) in enumerate(
            zip(geometry.offsets, geometry.strides, strict=False)
        ):
            if dim not in geometry.kept:
                outer.append(offset if isinstance(offset, SSAValue) else None)
            elif offset == 0 and stride == 1:
                outer.append(next(inner))
            else:
                raise _NotRecomputable("a view of the cache shifts or scales its index")
        current = outer
    return current


class _Rebuild:
    """Rebuilds a cached value ahead of a REV load (`check` first, then `at`).

    The FWD store's indices are known at a REV read (its own indices). So is an
    operand of an `addi`/`subi` among them whose other operand can be rebuilt:
    Enzyme stores a triangular nest's values at `j - (i + 1)`, and `j` is the
    read index plus `i + 1`."""

    def __init__(self, writes: _Writes, stored: list[SSAValue | None], rev_start: int):
        self.writes = writes
        self.rev_start = rev_start
        self.known = {v for v in stored if v is not None}
        self.solved: dict[SSAValue, tuple[type[Operation], SSAValue, SSAValue]] = {}
        """An index solved from a known one: (the op that gives it, its operands)."""
        pending = list(self.known)
        while pending:
            value = pending.pop()
            if not isinstance(value, OpResult) or not isinstance(
                value.op, arith.AddiOp | arith.SubiOp
            ):
                continue
            lhs, rhs = value.op.operands
            if isinstance(value.op, arith.AddiOp):  # lhs = value - rhs, rhs = value - lhs
                options = ((lhs, (arith.SubiOp, value, rhs)), (rhs, (arith.SubiOp, value, lhs)))
            else:  # lhs = value + rhs, rhs = lhs - value
                options = ((lhs, (arith.AddiOp, value, rhs)), (rhs, (arith.SubiOp, lhs, value)))
            for unknown, recipe in options:
                other = recipe[2] if recipe[1] is value else recipe[1]
                if unknown not in self.known and not self._rebuildable(unknown):
                    if self._rebuildable(other):
                        self.known.add(unknown)
                        self.solved[unknown] = recipe
                        pending.append(unknown)

    def _dominates_rev(self, value: SSAValue) -> bool:
        """Defined at the top of the function before REV (so before every REV op)."""
        if isinstance(value, BlockArgument):
            return value.block is self.writes.body
        op = value.op
        return op.parent_block() is self.writes.body and self.writes.index[op] < self.rev_start

    def _rebuildable(self, value: SSAValue) -> bool:
        try:
            self.check(value)
        except _NotRecomputable:
            return False
        return True

    def check(self, value: SSAValue) -> None:
        if value in self.known or self._dominates_rev(value):
            return
        if isinstance(value, BlockArgument):
            raise _NotRecomputable("it depends on a loop's index or carried value")
        op = value.op
        if isinstance(op, memref.LoadOp):
            if not self.writes.unchanged_after(op):
                raise _NotRecomputable("the memory it loads may change before REV reads it")
        elif isinstance(op, memref.SubviewOp | memref.CastOp):
            pass
        elif not (op.dialect_name() == "arith" and not op.regions and is_effect_free(op)):
            raise _NotRecomputable(f"'{op.name}' is cached, not recomputed")
        for operand in op.operands:
            self.check(operand)

    def at(
        self, value: SSAValue, indices: dict[SSAValue, SSAValue], where: InsertPoint
    ) -> SSAValue:
        """The value rebuilt before `where`, the stored indices replaced by
        `indices` (which also keeps what is rebuilt, so that each op is cloned
        once)."""
        if value in indices:
            return indices[value]
        if value in self.solved:
            kind, lhs, rhs = self.solved[value]
            new = kind(self.at(lhs, indices, where), self.at(rhs, indices, where))
            Rewriter.insert_op(new, where)
            indices[value] = new.result
            return new.result
        if self._dominates_rev(value):
            return value
        assert isinstance(value, OpResult)
        op = value.op
        mapper = {o: self.at(o, indices, where) for o in op.operands}
        new = op.clone(value_mapper=mapper)
        Rewriter.insert_op(new, where)
        indices.update(zip(op.results, new.results, strict=True))
        return new.results[value.index]


def _read_indices(access: Access, where: InsertPoint) -> list[SSAValue]:
    """A REV access's indices into the buffer itself, composed before `where`."""
    views = [subview_geometry(view) for view in access.views]
    return compose_view_indices(list(access.op.indices), views, where)


def _rebuild_reads(
    store: Access,
    stored: list[SSAValue | None],
    reads: list[tuple[Access, list[Access]]],
    writes: _Writes,
    rev_start: int,
) -> None:
    """Replace each REV read (the value's load, after the handle loads that lead
    to it) by the stored value rebuilt at its indices; `_NotRecomputable`, before
    any change, if it cannot be."""
    # A `math` op of REV that the value also feeds in FWD is the primal's call
    # made again; one only REV makes (`math.copysign` in the derivative of
    # `arith.minimumf`) is the derivative's own arithmetic.
    called = {
        use.operation.name for use in store.op.value.uses if use.operation.dialect_name() == "math"
    }
    if any(use.operation.name in called for load, _ in reads for use in load.op.results[0].uses):
        # Enzyme-MLIR caches a call's operand to call it again in REV where
        # Enzyme for LLVM caches the call's result: one tape value a call either way.
        raise _NotRecomputable("it is the operand of a call REV makes again")
    rebuild = _Rebuild(writes, stored, rev_start)
    rebuild.check(store.op.value)
    for load, handle_loads in reads:
        where = InsertPoint.before(load.op)
        read = [i for handle in handle_loads for i in _read_indices(handle, where)]
        read += _read_indices(load, where)
        indices = {s: r for s, r in zip(stored, read, strict=True) if s is not None}
        Rewriter.replace_op(load.op, [], [rebuild.at(store.op.value, indices, where)])


def _recompute(cache: Cache, writes: _Writes, rev_start: int) -> None:
    (store,) = cache.stores
    reads = [(load, []) for load in cache.loads]
    _rebuild_reads(store, _stored_indices(store), reads, writes, rev_start)
    Rewriter.erase_op(store.op)
    for dealloc in cache.deallocs:
        Rewriter.erase_op(dealloc)
    for view in reversed(cache.subviews):  # innermost views first
        Rewriter.erase_op(view)
    for dim in cache.dims:
        Rewriter.erase_op(dim)
    Rewriter.erase_op(cache.alloc)


def _recompute_nested(nested: NestedCache, writes: _Writes, rev_start: int) -> None:
    """A chain of per-iteration caches (`lowering.enzyme.nested_caches`): the
    value is stored at each level's handle index, then its index in the values'
    buffer; a REV read names them by its handle loads and its own indices."""
    (store,) = nested.leaf.views.stores
    stored = [i for link in nested.chain for i in _stored_indices(link.store)]
    stored += _stored_indices(store)
    reads = [(path.leaf, path.handle_loads) for path in nested.rev]
    _rebuild_reads(store, stored, reads, writes, rev_start)
    Rewriter.erase_op(store.op)
    trash: list[Operation] = list(nested.trash)
    for link in nested.chain:
        trash += [link.store.op, *link.views.subviews, *link.views.dims, link.alloc]
    erase_unused(trash)
    for dealloc in nested.handle_deallocs:
        Rewriter.erase_op(dealloc)
    Rewriter.erase_op(nested.handles)


def recompute_loads(function: func.FuncOp) -> tuple[int, int]:
    """Recompute the caches of one gradient function that REV can rebuild;
    returns (recomputed, kept)."""
    body = function.body.block
    recomputed = kept = 0
    # A rewrite inserts loads and index arithmetic and erases a cache's ops, so
    # REV's first op stays the same op; the positions move, and are read afresh.
    head = reverse_sweep_head(function, PASS)
    writes: _Writes | None = None
    for op in [op for op in body.ops if isinstance(op, memref.AllocOp)]:
        rev_start = sweep_position(function, head)
        try:
            rewrite = partial(_recompute, classify_cache(op, body, rev_start))
        except NotACache:
            try:
                rewrite = partial(_recompute_nested, classify_nested_cache(op, body, rev_start))
            except NotANestedCache:
                continue
        if writes is None:
            writes = _Writes.of(function)
        try:
            rewrite(writes, rev_start)
        except _NotRecomputable:  # raised before any change
            kept += 1
            continue
        writes.renumber()
        recomputed += 1
    return recomputed, kept


@dataclass(frozen=True)
class TapeflowRecomputeLoadsPass(ModulePass):
    """Recompute in REV, as Enzyme for LLVM does, the cached values built from
    loads of memory that no longer changes."""

    name = PASS

    stats: bool = False
    """Print, per gradient function, the caches recomputed and kept to stderr."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        gradients = require_gradients(op, PASS)
        require_stages(gradients, PASS, {Stage.GRADIENT})
        for function in gradients:
            recomputed, kept = recompute_loads(function)
            if self.stats:
                print(
                    f"{PASS}: @{function.sym_name.data}: {recomputed} caches recomputed, "
                    f"{kept} kept",
                    file=sys.stderr,
                )
