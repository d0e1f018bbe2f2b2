"""
`tapeflow-raise-tape`: Enzyme's cache buffers become the `tape` dialect.

Each Enzyme cache buffer (see `lowering.enzyme.caches` for how caches and the
reverse sweep are told apart) is rewritten into `tape.alloc`/`tape.store`/
`tape.load`/`tape.free` with the same shape, so that the tape is explicit for the
TapeFlow passes (the starting point of the paper's Section IV). Each store gets an
`id` and each load names the store it reads (`from`): the FWD-to-REV map.
Everything else -- the user's buffers, the primal's temporaries (allocated with
`memref.alloca` by the benchmark kernels), shadows -- stays a memref. Buffers that
look like caches but break a rule are reported (with `stats=true`) with the reason
they were kept.

The pass takes a module at the Enzyme-gradient stage (`lowering.ir.stages`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, AffineMapAttr, MemRefType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.enzyme.cache_accesses import Access, Cache, NotACache, buffer_root, top_level_index
from lowering.enzyme.caches import classify_cache, reverse_sweep_start
from lowering.enzyme.nested_caches import (
    NestedCache,
    NotANestedCache,
    check_extents_computable,
    classify_nested_cache,
    erase_unused,
    max_extents,
    tape_shape,
)
from lowering.enzyme.ragged_extents import NotAffineExtents, ragged_extents
from lowering.enzyme.tensor_caches import bufferize_tensor_caches
from lowering.ir.gradients import require_gradients
from lowering.ir.index_builder import compose_view_indices
from lowering.ir.locations import located
from lowering.ir.ragged import RAGGED, RAGGED_CLIP, count, is_triangular
from lowering.ir.stages import Stage, require_stages
from lowering.ir.walk import walk_ops
from tapeflow_dialects import enzyme, tape
from tapeflow_dialects.memref_views import subview_geometry

PASS = "tapeflow-raise-tape"


@dataclass(frozen=True)
class TapeRecord:
    """One raised tape: a value Enzyme cached for every point of a loop nest."""

    name: str
    tape_type: tape.TapeType
    stores: int
    loads: int
    ragged: AffineMap | None = None
    """A triangular tape's extents (`lowering.ir.ragged`), packed by
    `tapeflow-pack-tapes`."""
    not_packed: str | None = None
    """Why a chain of per-iteration caches stays the bounding box."""
    clip: AffineMap | None = None
    """Where a ragged tape's entries end in dimension 0 (`lowering.ir.ragged`)."""

    @property
    def values(self) -> int | None:
        """Entries of the tape (packed, if ragged), None if they are known only
        at run time."""
        if self.ragged is not None:
            entries = count(self.ragged, self.clip).constant()
            return None if entries is None else int(entries)
        return self.tape_type.entries() if self.tape_type.is_static() else None

    @property
    def bytes(self) -> int | None:
        values = self.values
        return None if values is None else values * tape.element_bytes(self.tape_type.element_type)


@dataclass
class GradientReport:
    """What the pass found in one gradient function."""

    function: str
    tapes: list[TapeRecord] = field(default_factory=list)
    kept: list[tuple[str, str]] = field(default_factory=list)
    """Buffers allocated in the gradient but left as memrefs, with the reason."""

    @property
    def values(self) -> int:
        """Entries of the tapes of static shape."""
        return sum(t.values or 0 for t in self.tapes)

    @property
    def bytes(self) -> int:
        return sum(t.bytes or 0 for t in self.tapes)

    @property
    def dynamic(self) -> int:
        """Tapes whose extents are known only at run time."""
        return sum(1 for t in self.tapes if t.values is None)

    def no_tape_reason(self) -> str:
        """Why there is no tape, for the warning: Enzyme saved nothing, or what
        it saved is not tape-shaped."""
        if not self.kept:
            return (
                f"@{self.function} has no Enzyme cache buffer (Enzyme saved no values "
                "for the reverse sweep); there is no tape to raise"
            )
        kept = "; ".join(f"{buffer}: {reason}" for buffer, reason in self.kept)
        return (
            f"@{self.function}: no buffer of the gradient is raised to a tape; kept as "
            f"they are (and run as they are): {kept}"
        )

    def summary(self) -> str:
        text = (
            f"@{self.function}: {len(self.tapes)} tapes, {self.values} values, {self.bytes} bytes"
        )
        if self.dynamic:
            text += f" (+ {self.dynamic} tapes sized at run time)"
        return text

    def table(self) -> str:
        lines = [self.summary()]
        for t in self.tapes:
            values = "?" if t.values is None else str(t.values)
            size = "?" if t.bytes is None else str(t.bytes)
            lines.append(
                f"  tape {t.name:<12} {str(t.tape_type):<28} {values:>9} values "
                f"{size:>10} bytes  {t.stores} store(s), {t.loads} load(s)"
            )
            if t.ragged is not None:
                clip = ""
                if t.clip is not None:
                    r, c = t.clip.results
                    clip = f", entries only where d0 < ceil(max({r}, 0) / {c})"
                lines.append(
                    f"    triangular, ragged extents {t.ragged}{clip} (values counted "
                    "packed, as tapeflow-pack-tapes lays it out)"
                )
            elif t.not_packed is not None:
                lines.append(f"    bounding box, not packed: {t.not_packed}")
        for buffer, reason in self.kept:
            kind = "tensors" if buffer.startswith("tensor cache") else "memref"
            lines.append(f"  kept as {kind}: {buffer}: {reason}")
        return "\n".join(lines)


def raise_module(module: builtin.ModuleOp) -> list[GradientReport]:
    """Raise the caches of every gradient function of `module`, in place."""
    gradients = require_gradients(module, PASS)
    require_stages(gradients, PASS, {Stage.GRADIENT})
    return [raise_function(f) for f in gradients]


def raise_function(function: func.FuncOp) -> GradientReport:
    """Rewrite the cache buffers of one gradient function into tapes."""
    name = function.sym_name.data
    report = GradientReport(name)
    _bufferize_tensor_caches(function, report)
    body = function.body.block
    rev_start = reverse_sweep_start(function, PASS)
    caches: list[Cache] = []
    nested: list[NestedCache] = []
    for op in body.ops:
        if not isinstance(op, memref.AllocOp):
            continue
        if isinstance(op.memref.type, MemRefType) and isinstance(
            op.memref.type.element_type, MemRefType
        ):
            try:
                found = classify_nested_cache(op, body, rev_start)
                check_extents_computable(found, body)
                nested.append(found)
            except NotANestedCache as reason:
                report.kept.append((_describe(op), str(reason)))
            continue
        try:
            caches.append(classify_cache(op, body, rev_start))
        except NotACache as reason:
            report.kept.append((_describe(op), str(reason)))
    next_id = 0
    taken: dict[str, int] = {}
    for cache in caches:
        record, next_id = _rewrite(cache, body, next_id, taken)
        report.tapes.append(record)
    extents: dict[tuple[SSAValue, ...], list[SSAValue]] = {}
    for each in nested:
        record, next_id = _rewrite_nested(each, body, next_id, extents, taken)
        report.tapes.append(record)
    _report_nested_buffers(function, report)  # what the nested caches left
    return report


def _bufferize_tensor_caches(function: func.FuncOp, report: GradientReport) -> None:
    """Enzyme's tensor caches (`enzyme.cache_use_tensor`) become cache buffers
    first (`lowering.enzyme.tensor_caches`), so that they are raised like the others;
    those that are not in Enzyme's cache shape stay tensors, reported as kept."""
    _, kept = bufferize_tensor_caches(function)
    for cache, reason in kept:
        report.kept.append((f"tensor cache {cache}", reason))


def _report_nested_buffers(function: func.FuncOp, report: GradientReport) -> None:
    """Buffers allocated inside loops (the caches of a recomputed loop in
    Enzyme's checkpointing, allocated and freed in each reverse iteration) stay
    memrefs: a tape is one buffer for the whole sweep."""
    body = function.body.block
    for op in walk_ops(function):
        if isinstance(op, memref.AllocOp) and op.parent_block() is not body:
            report.kept.append(
                (
                    _describe(op),
                    "allocated inside a loop (a per-iteration buffer, "
                    "e.g. Enzyme's checkpointing recomputation cache)",
                )
            )


def _producer_name(value: SSAValue) -> str:
    """A readable name for the tape that caches `value`: what computed it."""
    if isinstance(value, OpResult):
        if isinstance(value.op, memref.LoadOp):
            source = buffer_root(value.op.memref)
            if isinstance(source, BlockArgument) and isinstance(
                source.block.parent_op(), func.FuncOp
            ):
                return f"load_arg{source.index}"
        return value.op.name.split(".", 1)[-1]
    assert isinstance(value, BlockArgument)
    owner = value.block.parent_op()
    if isinstance(owner, func.FuncOp):
        return f"arg{value.index}"
    if isinstance(owner, scf.ForOp):
        return "iv" if value.index == 0 else "iter_arg"
    return "block_arg"


def _distinct(name: str, taken: dict[str, int]) -> str:
    """`name`, or `name_2`, `name_3`... if tapes of this gradient already have it:
    each tape of a report is named once (three caches of loads from one argument
    are `load_arg0`, `load_arg0_2`, `load_arg0_3`)."""
    taken[name] = taken.get(name, 0) + 1
    return name if taken[name] == 1 else f"{name}_{taken[name]}"


def _describe(alloc: memref.AllocOp) -> str:
    hint = alloc.memref.name_hint
    return f"%{hint} ({alloc.memref.type})" if hint else f"memref.alloc : {alloc.memref.type}"


def _buffer_indices(access: Access) -> list[SSAValue]:
    """The access's indices into the buffer itself, composing its subviews."""
    views = [subview_geometry(view) for view in access.views]
    return compose_view_indices(list(access.op.indices), views, InsertPoint.before(access.op))


def _rewrite(
    cache: Cache, body: Block, next_id: int, taken: dict[str, int]
) -> tuple[TapeRecord, int]:
    memref_type = cache.alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    store_value = cache.stores[0].op.value
    tape_type = tape.TapeType(memref_type.get_shape(), memref_type.element_type)
    name = _distinct(_producer_name(store_value), taken)
    # Extents known only at run time: the buffer's own size operands.
    alloc = located(tape.AllocOp(tape_type, name, cache.alloc.dynamic_sizes), cache.alloc)
    Rewriter.insert_op(alloc, InsertPoint.before(cache.alloc))

    store_id = next_id
    for access in cache.stores:
        op = access.op
        assert isinstance(op, memref.StoreOp | enzyme.CacheStoreOp)
        indices = _buffer_indices(access)
        new = tape.StoreOp(op.value, alloc.tape, indices, store_id)
        Rewriter.replace_op(op, located(new, op))
    for access in cache.loads:
        indices = _buffer_indices(access)
        new = tape.LoadOp(alloc.tape, indices, store_id)
        Rewriter.replace_op(access.op, located(new, access.op))
    if cache.deallocs:
        Rewriter.replace_op(cache.deallocs[0], located(tape.FreeOp(alloc.tape), cache.deallocs[0]))
    else:
        # Enzyme sometimes never frees a cache; the tape is released at the end.
        terminator = body.last_op
        assert terminator is not None
        Rewriter.insert_op(tape.FreeOp(alloc.tape), InsertPoint.before(terminator))
    for view in reversed(cache.subviews):  # innermost views first
        Rewriter.erase_op(view)
    for dim in cache.dims:  # the sizes of those views
        Rewriter.erase_op(dim)
    Rewriter.erase_op(cache.alloc)
    record = TapeRecord(name, tape_type, len(cache.stores), len(cache.loads))
    return record, next_id + len(cache.stores)


def _rewrite_nested(
    nested: NestedCache,
    body: Block,
    next_id: int,
    extents: dict[tuple[SSAValue, ...], list[SSAValue]],
    taken: dict[str, int],
) -> tuple[TapeRecord, int]:
    """One value tape for a chain of per-iteration caches, at any depth (see
    `lowering.enzyme.nested_caches`): indexed by the handle's index at each level, then
    the values' buffer's; sized by the top-level buffer's extents and, for each
    `?` extent below it, the largest over the loops around that buffer."""
    leaf = nested.leaf
    leaf_type = leaf.alloc.memref.type
    assert isinstance(leaf_type, MemRefType)
    (fwd_store,) = leaf.views.stores
    tape_type = tape.TapeType(tape_shape(nested), leaf_type.element_type)
    name = _distinct(_producer_name(fwd_store.op.value), taken)
    # Before the FWD nest around the per-iteration allocs: the largest extents,
    # then the tape.
    index = {op: i for i, op in enumerate(body.ops)}
    fwd_top = list(body.ops)[top_level_index(nested.chain[0].alloc, body, index)]
    at = InsertPoint.before(fwd_top)
    sizes = list(nested.handles.dynamic_sizes)
    for link in nested.chain:
        if link.alloc.dynamic_sizes:
            # Per-iteration buffers of the same extents (Enzyme allocates one per
            # cached value, all with the same size operands) share one
            # computation, so that their tapes have the same run-time shape and
            # share a region.
            key = tuple(link.alloc.dynamic_sizes)
            if key not in extents:
                extents[key] = max_extents(link.alloc, body, at)
            sizes += extents[key]
    alloc = located(tape.AllocOp(tape_type, name, sizes), nested.handles)
    Rewriter.insert_op(alloc, at)

    store_id = next_id
    indices = [i for link in nested.chain for i in _buffer_indices(link.store)]
    indices += _buffer_indices(fwd_store)
    ragged, clip, not_packed = _ragged(nested, indices, sizes)
    if ragged is not None:
        alloc.attributes[RAGGED] = AffineMapAttr(ragged)
        if clip is not None:
            alloc.attributes[RAGGED_CLIP] = AffineMapAttr(clip)
    Rewriter.replace_op(
        fwd_store.op,
        located(tape.StoreOp(fwd_store.op.value, alloc.tape, indices, store_id), fwd_store.op),
    )
    for path in nested.rev:
        indices = [i for load in path.handle_loads for i in _buffer_indices(load)]
        indices += _buffer_indices(path.leaf)
        Rewriter.replace_op(
            path.leaf.op, located(tape.LoadOp(alloc.tape, indices, store_id), path.leaf.op)
        )
    # What reached the buffers goes, users before what they use.
    trash: list[Operation] = list(nested.trash)
    for link in nested.chain:
        trash += [link.store.op, *link.views.subviews, *link.views.dims, link.alloc]
    erase_unused(trash)
    if nested.handle_deallocs:
        (dealloc,) = nested.handle_deallocs
        Rewriter.replace_op(dealloc, located(tape.FreeOp(alloc.tape), dealloc))
    else:
        terminator = body.last_op
        assert terminator is not None
        Rewriter.insert_op(tape.FreeOp(alloc.tape), InsertPoint.before(terminator))
    Rewriter.erase_op(nested.handles)
    record = TapeRecord(name, tape_type, 1, len(nested.rev), ragged, not_packed, clip)
    return record, next_id + 1


def _ragged(
    nested: NestedCache, indices: list[SSAValue], sizes: list[SSAValue]
) -> tuple[AffineMap | None, AffineMap | None, str | None]:
    """The tape's ragged extents and their clip if its index space is
    triangular (None, None, None if it is a box), or why they are not affine
    (None, None, the reason)."""
    extents: list[int | SSAValue] = []
    for buffer in nested.buffers():
        buffer_type = buffer.memref.type
        assert isinstance(buffer_type, MemRefType)
        dynamic = iter(buffer.dynamic_sizes)
        extents += [next(dynamic) if d == DYNAMIC_INDEX else d for d in buffer_type.get_shape()]
    try:
        ragged, clip = ragged_extents(indices, extents, sizes)
    except NotAffineExtents as reason:
        return None, None, str(reason)
    return (ragged, clip, None) if is_triangular(ragged) else (None, None, None)


def format_reports(reports: list[GradientReport]) -> Iterator[str]:
    for report in reports:
        yield f"tapeflow-raise-tape: {report.table()}"


@dataclass(frozen=True)
class TapeflowRaiseTapePass(ModulePass):
    """Rewrite Enzyme's cache buffers into struct-of-arrays `tape` ops."""

    name = "tapeflow-raise-tape"

    stats: bool = False
    """Print, per gradient function, the tapes found (values, bytes) to stderr."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        reports = raise_module(op)
        if self.stats:
            for line in format_reports(reports):
                print(line, file=sys.stderr)
        for report in reports:
            if not report.tapes:
                print(f"tapeflow-raise-tape: warning: {report.no_tape_reason()}", file=sys.stderr)
