"""
`tapeflow-raise-tape`: Enzyme's cache buffers become the `tape` dialect.

Each Enzyme cache buffer (see `lowering.enzyme_caches` for how caches and the
reverse sweep are told apart) is rewritten into `tape.alloc`/`tape.store`/
`tape.load`/`tape.free` with the same shape, so that the tape is explicit for the
TapeFlow passes (the starting point of the paper's Section IV). Each store gets an
`id` and each load names the store it reads (`from`): the FWD-to-REV map.
Everything else -- the user's buffers, the primal's temporaries (allocated with
`memref.alloca` by the benchmark kernels), shadows -- stays a memref. Buffers that
look like caches but break a rule are reported (with `stats=true`) with the reason
they were kept.

The pass takes a module at the Enzyme-gradient stage (`lowering.stages`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType
from xdsl.ir import Block, BlockArgument, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.enzyme_caches import (
    Access,
    Cache,
    NotACache,
    buffer_root,
    classify_cache,
    reverse_sweep_start,
)
from lowering.gradients import require_gradients
from lowering.locations import located
from lowering.stages import Stage, require_stages
from lowering.tensor_caches import bufferize_tensor_caches
from tapeflow_dialects import tape
from tapeflow_dialects.memref_views import subview_geometry

PASS = "tapeflow-raise-tape"


@dataclass(frozen=True)
class TapeRecord:
    """One raised tape: a value Enzyme cached for every point of a loop nest."""

    name: str
    tape_type: tape.TapeType
    stores: int
    loads: int

    @property
    def values(self) -> int:
        return self.tape_type.entries()

    @property
    def bytes(self) -> int:
        return self.tape_type.size_bytes()


@dataclass
class GradientReport:
    """What the pass found in one gradient function."""

    function: str
    tapes: list[TapeRecord] = field(default_factory=list)
    kept: list[tuple[str, str]] = field(default_factory=list)
    """Buffers allocated in the gradient but left as memrefs, with the reason."""

    @property
    def values(self) -> int:
        return sum(t.values for t in self.tapes)

    @property
    def bytes(self) -> int:
        return sum(t.bytes for t in self.tapes)

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
        return (
            f"@{self.function}: {len(self.tapes)} tapes, {self.values} values, "
            f"{self.bytes} bytes"
        )

    def table(self) -> str:
        lines = [self.summary()]
        for t in self.tapes:
            lines.append(
                f"  tape {t.name:<12} {str(t.tape_type):<28} {t.values:>9} values "
                f"{t.bytes:>10} bytes  {t.stores} store(s), {t.loads} load(s)"
            )
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
    for op in body.ops:
        if not isinstance(op, memref.AllocOp):
            continue
        try:
            caches.append(classify_cache(op, body, rev_start))
        except NotACache as reason:
            report.kept.append((_describe(op), str(reason)))
    _report_nested_buffers(function, report)
    next_id = 0
    for cache in caches:
        record, next_id = _rewrite(cache, body, next_id)
        report.tapes.append(record)
    return report


def _bufferize_tensor_caches(function: func.FuncOp, report: GradientReport) -> None:
    """Enzyme's tensor caches (`enzyme.cache_use_tensor`) become cache buffers
    first (`lowering.tensor_caches`), so that they are raised like the others;
    those that are not in Enzyme's cache shape stay tensors, reported as kept."""
    _, kept = bufferize_tensor_caches(function)
    for cache, reason in kept:
        report.kept.append((f"tensor cache {cache}", reason))


def _report_nested_buffers(function: func.FuncOp, report: GradientReport) -> None:
    """Buffers allocated inside loops (the caches of a recomputed loop in
    Enzyme's checkpointing, allocated and freed in each reverse iteration) stay
    memrefs: a tape is one buffer for the whole sweep."""
    body = function.body.block
    for op in function.walk():
        if isinstance(op, memref.AllocOp) and op.parent_block() is not body:
            report.kept.append(
                (_describe(op), "allocated inside a loop (a per-iteration buffer, "
                 "e.g. Enzyme's checkpointing recomputation cache)")
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


def _describe(alloc: memref.AllocOp) -> str:
    hint = alloc.memref.name_hint
    return f"%{hint} ({alloc.memref.type})" if hint else f"memref.alloc : {alloc.memref.type}"


def _constant(value: int, at: InsertPoint) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(value, IndexType()))
    Rewriter.insert_op(op, at)
    return op.result


def _buffer_indices(access: Access) -> list[SSAValue]:
    """The access's indices into the buffer itself, composing its subviews."""
    indices: list[SSAValue] = list(access.op.indices)
    at = InsertPoint.before(access.op)
    for view in reversed(access.views):
        geometry = subview_geometry(view)
        inner = iter(indices)
        outer: list[SSAValue] = []
        for dim, (offset, stride) in enumerate(zip(geometry.offsets, geometry.strides)):
            if dim not in geometry.kept:
                outer.append(offset if isinstance(offset, SSAValue) else _constant(offset, at))
                continue
            index = next(inner)
            if stride != 1:
                mul = arith.MuliOp(index, _constant(stride, at))
                Rewriter.insert_op(mul, at)
                index = mul.result
            if isinstance(offset, SSAValue) or offset != 0:
                base = offset if isinstance(offset, SSAValue) else _constant(offset, at)
                add = arith.AddiOp(base, index)
                Rewriter.insert_op(add, at)
                index = add.result
            outer.append(index)
        indices = outer
    return indices


def _rewrite(cache: Cache, body: Block, next_id: int) -> tuple[TapeRecord, int]:
    memref_type = cache.alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    store_value = cache.stores[0].op.value
    tape_type = tape.TapeType(memref_type.get_shape(), memref_type.element_type)
    name = _producer_name(store_value)
    alloc = located(tape.AllocOp(tape_type, name), cache.alloc)
    Rewriter.insert_op(alloc, InsertPoint.before(cache.alloc))

    store_id = next_id
    for access in cache.stores:
        op = access.op
        assert isinstance(op, memref.StoreOp)
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
    Rewriter.erase_op(cache.alloc)
    record = TapeRecord(name, tape_type, len(cache.stores), len(cache.loads))
    return record, next_id + len(cache.stores)


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
