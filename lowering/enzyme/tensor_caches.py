"""
Enzyme's tensor caches, rewritten into the memref cache buffers its default mode
writes (so that `tapeflow-raise-tape` raises them, and the Enzyme baseline keeps
its tape in memory).

With `enzyme.cache_use_tensor` on a loop, Enzyme-MLIR (0.0.16) caches a loop's
values in immutable tensors instead of `memref.alloc` buffers: a `tensor.empty`
enters the forward loop as an `iter_args` value, each iteration yields it with its
value inserted (`tensor.insert ... into %t[%iv]`), the loop's result holds them all,
and the reverse sweep reads it back (`tensor.extract`). In a loop nest, the inner
loop's cache (its own `tensor.empty` chain) is put into the outer one with
`tensor.insert_slice` at the outer iteration's row, and the reverse sweep takes
that row out again with `tensor.extract_slice`.

Such a chain is the same buffer throughout: every version of the tensor is used
once, by the op that makes the next version, and only the final version (the
forward loop's result) is read. `bufferize_tensor_caches` rewrites each chain into
one `memref.alloc` at the top of the gradient function: an insert becomes a
`memref.store` (an inner chain's insert at its row's indices, composed through the
`insert_slice` offsets), a read a `memref.load` (composed through the
`extract_slice` offsets), and the tensor `iter_args` are dropped from the loops. A
chain that does not keep to that shape (a version used twice, read before it is
complete, a slice of dynamic size...) is left as tensors, which the executor runs
with their value semantics, and reported with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func, memref, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.ir.index_builder import compose_view_indices
from lowering.ir.locations import located
from lowering.ir.walk import walk_ops


class NotATensorCache(Exception):
    """A tensor chain that is not Enzyme's cache shape; the message says why."""


@dataclass(frozen=True)
class _Slice:
    """A slice (of `insert_slice` or `extract_slice`) of a big tensor: per big
    dimension, the offset (int or SSA value) and stride, and which it keeps."""

    offsets: tuple[int | SSAValue, ...]
    strides: tuple[int, ...]
    kept: tuple[int, ...]


def _slice(op: tensor.InsertSliceOp | tensor.ExtractSliceOp) -> _Slice:
    if op.sizes or op.strides:
        raise NotATensorCache(f"'{op.name}' with dynamic sizes or strides")
    dynamic = iter(op.offsets)
    offsets = tuple(
        next(dynamic) if off == DYNAMIC_INDEX else off for off in op.static_offsets.get_values()
    )
    sizes = tuple(op.static_sizes.get_values())
    small = op.result.type if isinstance(op, tensor.ExtractSliceOp) else op.source.type
    assert isinstance(small, TensorType)
    to_drop = len(sizes) - len(small.get_shape())
    dropped = [d for d, s in enumerate(sizes) if s == 1][:to_drop] if to_drop else []
    kept = tuple(d for d in range(len(sizes)) if d not in dropped)
    return _Slice(offsets, tuple(op.static_strides.get_values()), kept)


def _compose(indices: list[SSAValue], slices: list[_Slice], at: InsertPoint) -> list[SSAValue]:
    """`indices` into the innermost slice as indices into the buffer (slices
    outermost first)."""
    return compose_view_indices(indices, slices, at)


@dataclass
class _Chain:
    """One tensor cache: its versions in the forward loops, and its reads."""

    empty: tensor.EmptyOp
    loop: scf.ForOp
    position: int
    """The loop's operand index among its iter_args."""
    slices: list[_Slice] = field(default_factory=list)
    """For an inner chain: the slices of the outer chains it is inserted into."""
    inserts: list[tuple[tensor.InsertOp, list[_Slice]]] = field(default_factory=list)
    reads: list[tuple[tensor.ExtractOp, list[_Slice]]] = field(default_factory=list)
    dead: list[Operation] = field(default_factory=list)
    """Ops that go once the chain is a buffer (insert_slice, extract_slice)."""
    drops: list[tuple[scf.ForOp, int]] = field(default_factory=list)
    """(loop, iter_arg index) pairs to remove."""
    empties: list[tensor.EmptyOp] = field(default_factory=list)
    """The inner chains' `tensor.empty` ops."""
    holder: memref.AllocOp | None = None
    """A memref of tensors (memref<4xtensor<2xf64>>) that an outer loop in Enzyme's
    memref mode caches the complete tensor in, one per outer iteration: the
    buffer is then that memref's shape followed by the tensor's."""
    holder_ops: list[Operation] = field(default_factory=list)
    """The holder's store, loads and deallocs, which go with it."""


def _single_use(value: SSAValue, what: str) -> Operation:
    uses = list(value.uses)
    if len(uses) != 1:
        raise NotATensorCache(f"{what} is used {len(uses)} times, not once")
    return uses[0].operation


def _follow(chain: _Chain, loop: scf.ForOp, k: int, slices: list[_Slice]) -> None:
    """Follow the chain entering `loop` as iter_arg `k` through its body."""
    chain.drops.append((loop, k))
    version: SSAValue = loop.body.block.args[k + 1]
    while True:
        user = _single_use(version, "a version of the tensor cache")
        if isinstance(user, tensor.InsertOp) and user.dest is version:
            chain.inserts.append((user, slices))
            version = user.result
        elif isinstance(user, tensor.InsertSliceOp) and user.dest is version:
            source = user.source
            if not (isinstance(source, OpResult) and isinstance(source.op, scf.ForOp)):
                raise NotATensorCache("'tensor.insert_slice' of something else than a loop's cache")
            inner = source.op
            if _single_use(source, "an inner loop's cache") is not user:
                raise NotATensorCache("an inner loop's cache is read before it is inserted")
            piece = _slice(user)
            for offset in piece.offsets:
                if isinstance(offset, OpResult) and not offset.op.is_before_in_block(inner):
                    if offset.op.parent_block() is inner.parent_block():
                        raise NotATensorCache("a slice offset computed after the inner loop")
            init = inner.iter_args[source.index]
            if not (isinstance(init, OpResult) and isinstance(init.op, tensor.EmptyOp)):
                raise NotATensorCache("an inner loop's cache does not start from tensor.empty")
            chain.empties.append(init.op)
            _follow(chain, inner, source.index, [*slices, piece])
            chain.dead.append(user)
            version = user.result
        elif isinstance(user, scf.YieldOp) and user.parent_op() is loop:
            if user.operands[k] is not version or list(user.operands).count(version) != 1:
                raise NotATensorCache("the loop yields the tensor cache in another position")
            return
        else:
            raise NotATensorCache(f"a version of the tensor cache is used by '{user.name}'")


def _dominates(value: SSAValue, op: Operation) -> bool:
    """`value` is available where `op` is (a block argument of an enclosing block,
    or the result of an op before `op`'s ancestor in its block)."""
    if isinstance(value, BlockArgument):
        return value.block.is_ancestor(op)
    assert isinstance(value, OpResult)
    block = value.op.parent_block()
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current is not None and value.op.is_before_in_block(current)


def _prefix(indices: list[SSAValue], rank: int) -> _Slice:
    """The tensor stored at `indices` of a memref of tensors, as a slice of the
    buffer that has the memref's dimensions then the tensor's."""
    n = len(indices)
    return _Slice((*indices, *([0] * rank)), (1,) * (n + rank), tuple(range(n, n + rank)))


def _held(chain: _Chain, store: memref.StoreOp) -> None:
    """The complete tensor cache is stored into a memref of tensors (an outer
    loop's cache in Enzyme's memref mode): the chain's writes move to the
    buffer's row at the store's indices, and every load of the holder reads it."""
    holder = store.memref
    if chain.holder is not None:
        raise NotATensorCache("the tensor cache is stored twice")
    if not (
        isinstance(holder, OpResult)
        and isinstance(holder.op, memref.AllocOp)
        and isinstance(holder.op.parent_op(), func.FuncOp)
        and not holder.op.dynamic_sizes
    ):
        raise NotATensorCache("the tensor cache is stored into something else than a cache")
    if not all(_dominates(i, chain.loop) for i in store.indices):
        raise NotATensorCache("the tensor cache is stored at an index computed after its loop")
    ttype = chain.empty.tensor.type
    assert isinstance(ttype, TensorType)
    rank = len(ttype.get_shape())
    chain.holder = holder.op
    chain.holder_ops.append(store)
    row = _prefix(list(store.indices), rank)
    chain.inserts = [(op, [row, *slices]) for op, slices in chain.inserts]
    for use in list(holder.uses):
        user = use.operation
        if user is store:
            continue
        if isinstance(user, memref.LoadOp):
            chain.holder_ops.append(user)
            _reads(chain, user.res, [_prefix(list(user.indices), rank)])
        elif isinstance(user, memref.DeallocOp):
            chain.holder_ops.append(user)
        else:
            raise NotATensorCache(f"the cache of tensors is used by '{user.name}'")


def _reads(chain: _Chain, value: SSAValue, slices: list[_Slice]) -> None:
    for use in list(value.uses):
        user = use.operation
        if isinstance(user, memref.StoreOp) and use.index == 0 and not slices:
            _held(chain, user)
        elif isinstance(user, tensor.ExtractOp):
            chain.reads.append((user, slices))
        elif isinstance(user, tensor.ExtractSliceOp) and use.index == 0:
            chain.dead.append(user)
            _reads(chain, user.result, [*slices, _slice(user)])
        else:
            raise NotATensorCache(f"the complete tensor cache is used by '{user.name}'")


def _chains(function: func.FuncOp) -> tuple[list[_Chain], list[tuple[str, str]]]:
    """The tensor caches of `function` (outermost loops only start a chain)."""
    chains: list[_Chain] = []
    kept: list[tuple[str, str]] = []
    body = function.body.block
    for empty in [op for op in walk_ops(function) if isinstance(op, tensor.EmptyOp)]:
        for use in list(empty.tensor.uses):
            loop = use.operation
            if not isinstance(loop, scf.ForOp) or use.index < 3:
                continue  # an inner chain, reached from its outer one (or not a cache)
            if loop.parent_block() is not body:
                # inner loops' chains are found from the insert_slice of the outer loop
                parent = loop.parent_op()
                if isinstance(parent, scf.ForOp) and any(
                    isinstance(o, tensor.InsertSliceOp) for o in parent.body.block.ops
                ):
                    continue
            chain = _Chain(empty, loop, use.index - 3)
            try:
                if empty.dynamic_sizes:
                    raise NotATensorCache("a tensor.empty of dynamic size")
                _follow(chain, loop, chain.position, [])
                _reads(chain, loop.results[chain.position], [])
                if not chain.reads:
                    raise NotATensorCache("never read")
            except NotATensorCache as reason:
                kept.append((f"{empty.tensor.type} (loop iter_arg {chain.position})", str(reason)))
                continue
            chains.append(chain)
    return chains, kept


def _drop_iter_args(loop: scf.ForOp, positions: set[int]) -> scf.ForOp:
    """`loop` without the iter_args at `positions` (no longer used)."""
    block = loop.body.block
    yield_op = block.last_op
    assert isinstance(yield_op, scf.YieldOp)
    keep = [k for k in range(len(loop.iter_args)) if k not in positions]
    new_yield = scf.YieldOp(*[yield_op.operands[k] for k in keep])
    Rewriter.replace_op(yield_op, located(new_yield, yield_op))
    for k in sorted(positions, reverse=True):
        arg = block.args[k + 1]
        assert not arg.uses, "a dropped iter_arg is still used"
        block.erase_arg(arg)
    region = loop.detach_region(loop.body)
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [loop.iter_args[k] for k in keep], region)
    new.attributes.update(loop.attributes)
    located(new, loop)
    Rewriter.insert_op(new, InsertPoint.before(loop))
    for new_k, k in enumerate(keep):
        loop.results[k].replace_all_uses_with(new.results[new_k])
    for k in positions:
        assert not loop.results[k].uses, "a dropped loop result is still used"
    Rewriter.erase_op(loop)
    return new


def bufferize_tensor_caches(function: func.FuncOp) -> tuple[int, list[tuple[str, str]]]:
    """Rewrite the tensor caches of `function` into memref buffers, in place:
    (how many, [(cache, why it was kept as tensors)])."""
    chains, kept = _chains(function)
    if not chains:
        return 0, kept
    body: Block = function.body.block
    drops: dict[scf.ForOp, set[int]] = {}
    for chain in chains:
        ttype = chain.empty.tensor.type
        assert isinstance(ttype, TensorType)
        shape = list(ttype.get_shape())
        if chain.holder is not None:
            holder_type = chain.holder.memref.type
            assert isinstance(holder_type, MemRefType)
            shape = [*holder_type.get_shape(), *shape]
        buffer_type = MemRefType(ttype.element_type, shape)
        alloc = located(memref.AllocOp([], [], buffer_type), chain.empty)
        first = body.first_op
        assert first is not None
        Rewriter.insert_op(alloc, InsertPoint.before(first))
        for insert, slices in chain.inserts:
            at = InsertPoint.before(insert)
            indices = _compose(list(insert.indices), slices, at)
            store = located(memref.StoreOp.get(insert.scalar, alloc.memref, indices), insert)
            Rewriter.insert_op(store, at)
            insert.result.replace_all_uses_with(insert.dest)
            Rewriter.erase_op(insert)
        for extract, slices in chain.reads:
            at = InsertPoint.before(extract)
            indices = _compose(list(extract.indices), slices, at)
            load = located(memref.LoadOp.get(alloc.memref, indices), extract)
            Rewriter.replace_op(extract, load)
        for op in chain.dead:
            if isinstance(op, tensor.InsertSliceOp):
                op.result.replace_all_uses_with(op.dest)
        for op in reversed(chain.dead):  # extract_slices: readers first
            if isinstance(op, tensor.ExtractSliceOp):
                Rewriter.erase_op(op)
        for op in chain.dead:
            if isinstance(op, tensor.InsertSliceOp):
                Rewriter.erase_op(op)
        for op in chain.holder_ops:  # the loads have no readers left
            if isinstance(op, memref.LoadOp):
                Rewriter.erase_op(op)
        for op in chain.holder_ops:
            if not isinstance(op, memref.LoadOp):
                Rewriter.erase_op(op)
        if chain.holder is not None:
            Rewriter.erase_op(chain.holder)
        for loop, k in chain.drops:
            drops.setdefault(loop, set()).add(k)

    # Inner loops first: an outer loop's body holds them.
    def depth(op: Operation) -> int:
        d = 0
        while (op := op.parent_op()) is not None:  # type: ignore[assignment]
            d += 1
        return d

    for loop in sorted(drops, key=depth, reverse=True):
        # The yielded versions are the iter_args themselves now; free them first.
        block = loop.body.block
        for k in drops[loop]:
            arg: BlockArgument = block.args[k + 1]
            yield_op = block.last_op
            assert isinstance(yield_op, scf.YieldOp)
            if yield_op.operands[k] is not arg:
                raise AssertionError("a bufferized chain yields another value")
        _drop_iter_args(loop, drops[loop])
    empties = {c.empty: None for c in chains}
    empties.update({e: None for c in chains for e in c.empties})
    for empty in empties:
        if not empty.tensor.uses and empty.parent is not None:
            Rewriter.erase_op(empty)
    return len(chains), kept
