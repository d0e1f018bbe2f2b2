"""
Enzyme's caches nested per outer iteration, and the one tape each becomes.

In a triangular nest (`for i < n; for j = i+1 .. n`) Enzyme-MLIR allocates, in each
FWD iteration of the outer loop, a buffer of that iteration's extent and keeps its
handle in a top-level buffer of handles (`memref<?xmemref<?x4xf64>>`); REV loads
the handle back, reads the values and deallocates it. A nest triangular at several
levels nests the buffers as deep. `classify_nested_cache` follows such a chain, at
any depth, from the top-level buffer down to the buffers of values.

`tapeflow-raise-tape` makes one value tape of a chain (`!tape.tape<?x?x4xf64>`),
indexed by each level's handle index then the values' buffer's, whose extents are
the top-level buffer's and each per-iteration extent's maximum, computed at run
time by a loop nest cloned from the FWD loops around it (pure arithmetic, or ops
that read no buffer the FWD nest writes; anything else keeps the buffers, with the
reason). The tape is the triangle's bounding box; affine extents are recorded for
`tapeflow-pack-tapes`. The IR shapes and the rules in full:
docs/research/enzyme-output.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import RecursiveMemoryEffect

from lowering.enzyme.cache_accesses import (
    Access,
    Cache,
    NotACache,
    buffer_root,
    collect_accesses,
    top_level_index,
    written_roots,
)
from lowering.ir.effects import INTEGER_DIVISIONS, is_effect_free
from lowering.ir.loops import loop_type, top_level_op
from lowering.ir.walk import walk_ops


class NotANestedCache(Exception):
    """A buffer of handles that is not Enzyme's nested cache; the message says why."""


@dataclass
class Link:
    """One level of the chain: a per-iteration buffer allocated in FWD and the
    store that keeps its handle in the buffer one level up."""

    store: Access
    """FWD: stores the handle (through the views of the buffer one level up)."""
    alloc: memref.AllocOp
    """FWD: the per-iteration buffer."""
    views: Cache
    """Its FWD uses other than `store`: the stores into it (the next level's
    handle stores, or at the leaf the cached values), subviews and dims."""


@dataclass
class RevPath:
    """REV: the handle loads, one per level, that lead to one load of a value."""

    handle_loads: list[Access]
    leaf: Access


@dataclass
class NestedCache:
    """A chain of per-iteration cache buffers, from the top-level buffer of
    handles down to the buffers that hold the values, and everything that
    reaches them."""

    handles: memref.AllocOp
    """The top-level buffer of handles."""
    chain: list[Link]
    """The per-iteration buffers, outermost first; the last holds the values."""
    rev: list[RevPath] = field(default_factory=list)
    handle_deallocs: list[memref.DeallocOp] = field(default_factory=list)
    trash: list[Operation] = field(default_factory=list)
    """REV ops that only reach the buffers (handle loads, views, dims, deallocs),
    erased once the values are read from the tape."""

    @property
    def leaf(self) -> Link:
        return self.chain[-1]

    def buffers(self) -> list[memref.AllocOp]:
        """Every buffer of the chain, the top-level one first."""
        return [self.handles, *(link.alloc for link in self.chain)]


def _uses(value: SSAValue, cache: Cache, skip: Operation | None = None) -> None:
    """Loads, stores, subviews, dims and deallocs of a buffer of the chain
    (leaving out its use by `skip`, the store of its own handle)."""
    try:
        collect_accesses(value, [], cache, skip)
    except NotACache as err:
        raise NotANestedCache(f"a per-iteration buffer is {err}") from None


def classify_nested_cache(alloc: memref.AllocOp, body: Block, rev_start: int) -> NestedCache:
    """`alloc` as the top of a chain of Enzyme's per-iteration caches, at any
    depth; `NotANestedCache` says why it is not one."""
    handles_type = alloc.memref.type
    assert isinstance(handles_type, MemRefType)
    if not isinstance(handles_type.element_type, MemRefType):
        raise NotANestedCache("not a buffer of buffers")
    index = {op: i for i, op in enumerate(body.ops)}

    def in_fwd(op: Operation) -> bool:
        return top_level_index(op, body, index) < rev_start

    top = Cache(alloc, [], [], [], [])
    try:
        collect_accesses(alloc.memref, [], top)
    except NotACache as err:
        raise NotANestedCache(str(err)) from None
    if len(top.deallocs) > 1:
        raise NotANestedCache("deallocated more than once")
    # FWD: follow the single handle store of each level down to the values.
    chain: list[Link] = []
    level = top
    level_type = handles_type
    while True:
        if chain and (level.loads or level.deallocs):
            raise NotANestedCache("a per-iteration buffer is read or freed in the forward sweep")
        if len(level.stores) != 1:
            raise NotANestedCache(f"a buffer of the chain is written by {len(level.stores)} stores")
        (store,) = level.stores
        if not in_fwd(store.op):
            raise NotANestedCache("written in the reverse sweep")
        element = level_type.element_type
        if not isinstance(element, MemRefType):
            break  # `level` holds the values
        inner = store.op.value
        if not isinstance(inner, OpResult) or not isinstance(inner.op, memref.AllocOp):
            raise NotANestedCache("holds buffers that are not allocated in the forward sweep")
        if inner.type != element:
            raise NotANestedCache("holds buffers of another type")
        views = Cache(inner.op, [], [], [], [])
        _uses(inner, views, skip=store.op)
        chain.append(Link(store, inner.op, views))
        level, level_type = views, element
    nested = NestedCache(alloc, chain, [], top.deallocs)
    # REV: every load of a handle, followed down to the loads of values.
    if not top.loads or any(in_fwd(a.op) for a in top.loads):
        raise NotANestedCache("never read" if not top.loads else "read in the forward sweep")
    nested.trash += top.subviews + top.dims

    def follow(loads: list[Access], depth: int, path: list[Access]) -> None:
        for load in loads:
            if depth == len(chain):
                nested.rev.append(RevPath(path, load))
                continue
            nested.trash.append(load.op)
            reached = Cache(chain[depth].alloc, [], [], [], [])
            _uses(load.op.results[0], reached)
            if reached.stores:
                raise NotANestedCache("a per-iteration buffer is written in the reverse sweep")
            nested.trash += reached.subviews + reached.dims + reached.deallocs
            follow(reached.loads, depth + 1, [*path, load])

    follow(top.loads, 0, [])
    if not nested.rev:
        raise NotANestedCache("its buffers are never read")
    return nested


def erase_unused(ops: list[Operation]) -> None:
    """Erase `ops` (what reached a chain's buffers), each once its results have no
    uses left (the list may name an op before its users)."""
    pending = list(dict.fromkeys(ops))
    while pending:
        ready = [op for op in pending if not any(r.uses for r in op.results)]
        assert ready, "an op of a nested cache is still used after its buffers went"
        for op in ready:
            Rewriter.erase_op(op)
        pending = [op for op in pending if op not in ready]


# ---------------------------------------------------------------- extents


class _NotComputable(Exception):
    pass


def enclosing_fors(op: Operation, body: Block) -> list[scf.ForOp]:
    """The `scf.for` loops around `op` up to the function body, outermost first.
    A branch (`scf.if`) on the way is looked through: the largest extent over
    every iteration of the loops, the branch taken or not, bounds the extents of
    the iterations that take it (`_check_branch_slice` keeps that computation
    free of traps). Any other region-holding op makes the extent not computable."""
    loops: list[scf.ForOp] = []
    parent = op.parent_op()
    while parent is not None and op.parent_block() is not body:
        if isinstance(parent, scf.ForOp):
            loops.append(parent)
        elif not isinstance(parent, scf.IfOp):
            raise _NotComputable(f"the per-iteration buffer is inside a '{parent.name}'")
        op = parent
        parent = op.parent_op()
    return loops[::-1]


def _check_branch_slice(value: SSAValue, outer: Operation) -> None:
    """Raise `_NotComputable` if `value` depends on an op inside a branch (within
    `outer`) that computing it on every iteration could make trap or read out of
    bounds: `max_extents` evaluates the extent where the branch is not taken
    too, so inside a branch only non-trapping `arith` and loads in bounds on
    every iteration may feed it (what the loop body computes before the branch
    runs either way is computed anyway)."""
    seen: set[SSAValue] = set()
    work = [value]
    while work:
        v = work.pop()
        if v in seen or not isinstance(v, OpResult) or not _inside(v, outer):
            continue
        seen.add(v)
        op = v.op
        guarded = any(isinstance(p, scf.IfOp) and outer.is_ancestor(p) for p in _parents(op))
        if guarded and isinstance(op, memref.LoadOp) and _in_bounds(op):
            work.extend(op.operands)  # `_check_pure` found its buffer unwritten
            continue
        if guarded and (
            op.dialect_name() != "arith"
            or op.regions
            or (isinstance(op, INTEGER_DIVISIONS) and not _safe_divisor(op.operands[1]))
        ):
            raise _NotComputable(
                f"an extent of the per-iteration buffers is computed under a branch by "
                f"'{op.name}', which may trap or read out of bounds where the branch "
                "is not taken"
            )
        work.extend(op.operands)


def _in_bounds(load: memref.LoadOp) -> bool:
    """Every index of `load` lies within its buffer's static extent on every
    iteration of the loops around it (`_index_range`): the load reads in
    bounds whether or not a branch around it is taken (a row pointer `p[i + 1]`
    of a loop `i < n` over a buffer of `n + 1`)."""
    shape = load.memref.type.get_shape() if isinstance(load.memref.type, MemRefType) else ()
    if len(shape) != len(load.indices):
        return False
    for index, extent in zip(load.indices, shape, strict=True):
        bounds = _index_range(index)
        if extent < 0 or bounds is None or bounds[0] < 0 or bounds[1] >= extent:
            return False
    return True


def _constant(value: SSAValue) -> int | None:
    if isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp):
        attr = value.op.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def _index_range(value: SSAValue, depth: int = 0) -> tuple[int, int] | None:
    """The smallest and largest value of an index, None if unknown: a constant,
    the induction variable of a loop of constant bounds and positive step, and
    sums, differences, products by constants, `max` and `min` of such."""
    if depth > 32:
        return None
    known = _constant(value)
    if known is not None:
        return known, known
    owner = value.owner
    if isinstance(owner, Block):
        loop = owner.parent_op()
        if not isinstance(loop, scf.ForOp) or value is not owner.args[0]:
            return None
        lb, ub, step = (_constant(v) for v in (loop.lb, loop.ub, loop.step))
        if lb is None or ub is None or step is None or step <= 0 or ub <= lb:
            return None
        return lb, lb + (ub - 1 - lb) // step * step
    if not isinstance(value, OpResult) or len(value.op.operands) != 2:
        return None
    op = value.op
    a, b = (_index_range(o, depth + 1) for o in op.operands)
    if a is None or b is None:
        return None
    if isinstance(op, arith.AddiOp):
        return a[0] + b[0], a[1] + b[1]
    if isinstance(op, arith.SubiOp):
        return a[0] - b[1], a[1] - b[0]
    if isinstance(op, arith.MuliOp):
        corners = [x * y for x in a for y in b]
        return min(corners), max(corners)
    if isinstance(op, arith.MaxSIOp):
        return max(a[0], b[0]), max(a[1], b[1])
    if isinstance(op, arith.MinSIOp):
        return min(a[0], b[0]), min(a[1], b[1])
    return None


def _safe_divisor(divisor: SSAValue) -> bool:
    """A constant divisor other than 0 and -1: the quotient and remainder are
    defined for every dividend (a constant step's trip count)."""
    value = _constant(divisor)
    return value is not None and value not in (0, -1)


def _parents(op: Operation) -> list[Operation]:
    """The ops around `op`, innermost first."""
    found: list[Operation] = []
    parent = op.parent_op()
    while parent is not None:
        found.append(parent)
        parent = parent.parent_op()
    return found


def _materialize(
    value: SSAValue, mapping: dict[SSAValue, SSAValue], outer: Operation, at: InsertPoint
) -> SSAValue:
    """`value` recomputed at `at`: itself if defined outside `outer`, its clone
    (through `mapping` for induction variables) if pure `arith`."""
    if value in mapping:
        return mapping[value]
    if not _inside(value, outer):
        return value
    if not isinstance(value, OpResult):
        raise _NotComputable(f"an extent depends on {value.name_hint or 'a block argument'}")
    op = value.op
    if op.dialect_name() != "arith" or op.regions:
        # A computation `_check_pure` found replayable (e.g. the counting loop of
        # a while loop rewritten by tapeflow-while-to-for): cloned whole.
        inner = dict(mapping)
        for used in _external_operands(op):
            inner[used] = _materialize(used, mapping, outer, at)
        clone = op.clone(value_mapper=inner)
        Rewriter.insert_op(clone, at)
        for old, new in zip(op.results, clone.results, strict=True):
            mapping[old] = new
        return mapping[value]
    operands = [_materialize(o, mapping, outer, at) for o in op.operands]
    clone = op.clone()
    for i, o in enumerate(operands):
        clone.operands[i] = o
    Rewriter.insert_op(clone, at)
    for old, new in zip(op.results, clone.results, strict=True):
        mapping[old] = new
    return mapping[value]


def max_extents(inner: memref.AllocOp, body: Block, at: InsertPoint) -> list[SSAValue]:
    """For each dynamic extent of `inner`, its maximum over all iterations of the
    loops around it (0 if they run none), computed by a nest inserted at `at`."""
    loops = enclosing_fors(inner, body)
    if not loops:
        raise _NotComputable("the per-iteration buffer is not inside a loop")
    outer = loops[0]
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    Rewriter.insert_op(zero, at)
    count = len(inner.dynamic_sizes)

    def level(
        k: int, mapping: dict[SSAValue, SSAValue], ip: InsertPoint, carried: list[SSAValue]
    ) -> list[SSAValue]:
        if k == len(loops):
            result = []
            for size, best in zip(inner.dynamic_sizes, carried, strict=False):
                extent = _materialize(size, mapping, outer, ip)
                bigger = arith.MaxSIOp(best, extent)
                Rewriter.insert_op(bigger, ip)
                result.append(bigger.result)
            return result
        loop = loops[k]
        if loop.iter_args and any(
            a in _slice_args(inner.dynamic_sizes, loop) for a in loop.body.block.args[1:]
        ):
            raise _NotComputable("an extent depends on a loop-carried value")
        bounds = [_materialize(v, mapping, outer, ip) for v in (loop.lb, loop.ub, loop.step)]
        # The clone counts in the loop's own type (an `i32` loop stays `i32`), so
        # the cloned extent arithmetic -- an `index_cast` of the induction
        # variable, say -- sees the operand types it was written for.
        block = Block(arg_types=[loop_type(loop), *(IndexType() for _ in carried)])
        new = scf.ForOp(bounds[0], bounds[1], bounds[2], carried, block)
        Rewriter.insert_op(new, ip)
        inner_map = {**mapping, loop.body.block.args[0]: block.args[0]}
        yielded = level(k + 1, inner_map, InsertPoint.at_end(block), list(block.args[1:]))
        block.add_op(scf.YieldOp(*yielded))
        return list(new.results)

    return level(0, {}, at, [zero.result] * count)


def _slice_args(values: tuple[SSAValue, ...] | list[SSAValue], loop: scf.ForOp) -> set[SSAValue]:
    """Block arguments of `loop` that `values` depend on through arith."""
    seen: set[SSAValue] = set()
    found: set[SSAValue] = set()
    work = list(values)
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in loop.body.block.args:
            found.add(v)
        elif isinstance(v, OpResult) and v.op.dialect_name() == "arith":
            work.extend(v.op.operands)
    return found


def tape_shape(nested: NestedCache) -> tuple[int, ...]:
    """The handle buffer's extents followed by each per-iteration buffer's,
    outermost first."""
    shape: list[int] = []
    for buffer in nested.buffers():
        buffer_type = buffer.memref.type
        assert isinstance(buffer_type, MemRefType)
        shape += buffer_type.get_shape()
    return tuple(shape)


def check_extents_computable(nested: NestedCache, body: Block) -> None:
    """Raise `NotANestedCache` if `max_extents` cannot be built for a buffer of
    the chain (checked before anything is rewritten)."""
    try:
        for link in nested.chain:
            loops = enclosing_fors(link.alloc, body)
            if not loops:
                raise _NotComputable("the per-iteration buffer is not inside a loop")
            outer = loops[0]
            written = written_roots(top_level_op(outer, body))
            for v in (
                *link.alloc.dynamic_sizes,
                *(x for loop in loops for x in (loop.lb, loop.ub, loop.step)),
            ):
                _check_pure(v, outer, {loop.body.block.args[0] for loop in loops}, written)
                _check_branch_slice(v, outer)
    except _NotComputable as err:
        raise NotANestedCache(str(err)) from None


def _inside(value: SSAValue, outer: Operation) -> bool:
    """`value` is defined inside `outer` (by an op of it, or as a block argument)."""
    owner = value.owner
    parent = owner if isinstance(owner, Operation) else owner.parent_op()
    return parent is not None and outer.is_ancestor(parent)


def _check_pure(
    value: SSAValue, outer: Operation, ivs: set[SSAValue], written: set[SSAValue] | None
) -> None:
    """`value` can be computed before the forward sweep: from induction variables
    and values defined before the loops, by pure `arith`, or by ops free of side
    effects that read only buffers the forward sweep's nest does not write (a
    while loop's trip count, counted by a first run: what they read before FWD is
    what they read in it)."""
    if value in ivs or not _inside(value, outer):
        return
    if isinstance(value, OpResult) and value.op.dialect_name() == "arith" and not value.op.regions:
        for o in value.op.operands:
            _check_pure(o, outer, ivs, written)
        return
    if isinstance(value, OpResult) and _replayable(value.op, written):
        for o in _external_operands(value.op):
            _check_pure(o, outer, ivs, written)
        return
    raise _NotComputable(
        "an extent of the per-iteration buffers is not computable before the "
        "forward sweep (it depends on a loop-carried value, or on an op with side "
        "effects or reading memory the forward sweep writes)"
    )


def _replayable(op: Operation, written: set[SSAValue] | None) -> bool:
    """`op` (and what it nests) has no side effects and reads no buffer of `written`."""
    for each in walk_ops(op):
        if isinstance(each, memref.LoadOp):
            if written is None or buffer_root(each.memref) in written:
                return False
        elif not (
            each.has_trait(RecursiveMemoryEffect) or isinstance(each, scf.YieldOp | scf.ConditionOp)
        ):
            if not is_effect_free(each):
                return False
    return True


def _external_operands(op: Operation) -> list[SSAValue]:
    """The values `op` and the ops it nests use that are defined outside it."""
    return list(
        dict.fromkeys(o for each in walk_ops(op) for o in each.operands if not _inside(o, op))
    )


__all__ = [
    "NestedCache",
    "NotANestedCache",
    "check_extents_computable",
    "classify_nested_cache",
    "max_extents",
    "tape_shape",
]
