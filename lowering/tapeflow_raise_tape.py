"""
`tapeflow-raise-tape`: Enzyme's cache buffers become the `tape` dialect.

Enzyme saves every value its reverse sweep (REV) needs in a cache. After its
`remove-unnecessary-enzyme-ops` pass, each cache is a `memref.alloc` in the gradient
function, shaped by the loop nest that produces the value (struct-of-arrays: one
buffer per cached value), written by the forward sweep (FWD) -- often through a
`memref.subview` that selects one outer iteration's slice -- read back by REV in the
opposite order, and deallocated once REV is done with it. This pass finds those
buffers and rewrites them into `tape.alloc`/`tape.store`/`tape.load`/`tape.free`
with the same shape, so that the tape is explicit for the TapeFlow passes (the
starting point of the paper's Section IV). Each store gets an `id` and each load
names the store it reads (`from`): the FWD-to-REV map.

Which buffers are caches? The sweeps are told apart by position in the gradient
function's body: REV begins at the first top-level op that reads a seed (the
incoming adjoint of an active result) or touches a shadow buffer (a shadow argument,
or a buffer Enzyme zero-fills with `enzyme.fill_zero`); `tapeflow-enzyme` records
which arguments are shadows and seeds on every gradient function
(`tapeflow.activity`, `tapeflow.ret_activity`). A `memref.alloc` of the gradient
function is a cache when it is written only before REV begins, read only after, and
used only by loads, stores, subviews and its dealloc. Everything else -- the user's
buffers, the primal's temporaries (allocated with `memref.alloca` by the benchmark
kernels), shadows -- stays a memref. Buffers that look like caches but break a rule
are reported (with `stats=true`) with the reason they were kept.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, MemRefType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from lowering.gradient import located, require_gradients
from tapeflow_dialects import enzyme, tape
from tapeflow_dialects.enzyme import (
    GRADIENT_ACTIVITY,
    GRADIENT_RET_ACTIVITY,
    ArgumentRole,
    gradient_argument_roles,
)
from tapeflow_dialects.memref_views import UnsupportedSubview, subview_geometry


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
            lines.append(f"  kept as memref: {buffer}: {reason}")
        return "\n".join(lines)


class _Kept(Exception):
    """A buffer that is not a cache; the message says why."""


@dataclass
class _Access:
    op: memref.LoadOp | memref.StoreOp
    views: list[memref.SubviewOp]
    """Subviews from the buffer to the accessed memref, outermost first."""


@dataclass
class _Cache:
    alloc: memref.AllocOp
    stores: list[_Access]
    loads: list[_Access]
    subviews: list[memref.SubviewOp]
    deallocs: list[memref.DeallocOp]


def raise_module(module: builtin.ModuleOp) -> list[GradientReport]:
    """Raise the caches of every gradient function of `module`, in place."""
    return [raise_function(f) for f in require_gradients(module, "tapeflow-raise-tape")]


def raise_function(function: func.FuncOp) -> GradientReport:
    """Rewrite the cache buffers of one gradient function into tapes."""
    name = function.sym_name.data
    body = function.body.block
    rev_start = _reverse_sweep_start(function)
    report = GradientReport(name)
    caches: list[_Cache] = []
    for op in body.ops:
        if not isinstance(op, memref.AllocOp):
            continue
        try:
            caches.append(_classify(op, body, rev_start))
        except _Kept as reason:
            report.kept.append((_describe(op), str(reason)))
    next_id = 0
    for cache in caches:
        record, next_id = _rewrite(cache, body, next_id)
        report.tapes.append(record)
    return report


TAPE_BUFFER = "tapeflow.tape"
"""Marks a cache buffer left as a memref (the Enzyme baseline) for the simulator."""


def mark_tape_buffers(function: func.FuncOp) -> int:
    """
    Mark Enzyme's cache buffers without rewriting them (the baseline keeps its
    memrefs, but the simulator must know which traffic is tape). Returns how many.
    """
    body = function.body.block
    rev_start = _reverse_sweep_start(function)
    marked = 0
    for op in body.ops:
        if isinstance(op, memref.AllocOp):
            try:
                _classify(op, body, rev_start)
            except _Kept:
                continue
            op.attributes[TAPE_BUFFER] = builtin.UnitAttr()
            marked += 1
    return marked


def sink_tapes(module: builtin.ModuleOp) -> int:
    """
    The inverse of raising, for the Enzyme baseline after `tapeflow-unroll`: every
    tape becomes a marked `memref.alloc` of its own shape again (one buffer per
    cached value, as Enzyme lays it out), its stores and loads memref ones, its
    free a dealloc. Returns how many tapes were sunk.
    """
    sunk = 0
    for op in list(module.walk()):
        match op:
            case tape.AllocOp():
                ttype = op.tape.type
                assert isinstance(ttype, tape.TapeType)
                buffer = memref.AllocOp.get(ttype.element_type, shape=ttype.get_shape())
                buffer.attributes[TAPE_BUFFER] = builtin.UnitAttr()
                Rewriter.replace_op(op, buffer)
                sunk += 1
            case tape.StoreOp():
                Rewriter.replace_op(op, memref.StoreOp.get(op.value, op.tape, op.indices))
            case tape.LoadOp():
                Rewriter.replace_op(op, memref.LoadOp.get(op.tape, op.indices))
            case tape.FreeOp():
                Rewriter.replace_op(op, memref.DeallocOp.get(op.tape))
            case _:
                pass
    return sunk


def reverse_sweep_start(function: func.FuncOp) -> int:
    """Index, in the gradient's body, of the first top-level op of the reverse sweep."""
    return _reverse_sweep_start(function)


def _roles(function: func.FuncOp) -> list[ArgumentRole]:
    name = function.sym_name.data
    activity = function.attributes.get(GRADIENT_ACTIVITY)
    ret_activity = function.attributes.get(GRADIENT_RET_ACTIVITY)
    if not isinstance(activity, ArrayAttr) or not isinstance(ret_activity, ArrayAttr):
        raise PassFailedException(
            f"tapeflow-raise-tape: gradient function @{name} lacks the "
            f"'{GRADIENT_ACTIVITY}' and '{GRADIENT_RET_ACTIVITY}' arrays of "
            "#enzyme.activity that tapeflow-enzyme records"
        )
    roles = gradient_argument_roles(
        [a.data for a in activity.data if isinstance(a, enzyme.ActivityAttr)],
        [a.data for a in ret_activity.data if isinstance(a, enzyme.ActivityAttr)],
    )
    if len(roles) != len(function.args):
        raise PassFailedException(
            f"tapeflow-raise-tape: gradient function @{name} has {len(function.args)} "
            f"arguments, but its activities call for {len(roles)} (primal arguments, "
            "shadows of duplicated ones, seeds of active results)"
        )
    return roles


def _root(value: SSAValue) -> SSAValue:
    """The buffer a memref value views (through subviews and casts)."""
    while isinstance(value, OpResult) and isinstance(
        value.op, memref.SubviewOp | memref.CastOp
    ):
        value = value.op.source
    return value


def _top_level_index(op: Operation, body: Block, index: dict[Operation, int]) -> int:
    """Position in `body` of the top-level op that contains `op`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not body:
        current = current.parent_op()
    assert current is not None, "op outside the gradient function"
    return index[current]


def _reverse_sweep_start(function: func.FuncOp) -> int:
    """Index of the first top-level op of the reverse sweep (len(body) if none)."""
    body = function.body.block
    roles = _roles(function)
    seeds = {a for a, r in zip(function.args, roles) if r is ArgumentRole.SEED}
    shadows: set[SSAValue] = {a for a, r in zip(function.args, roles) if r is ArgumentRole.SHADOW}
    shadows |= {_root(op.buffer) for op in function.walk() if isinstance(op, enzyme.FillZeroOp)}
    index = {op: i for i, op in enumerate(body.ops)}
    start = len(index)
    for op in function.walk():
        if isinstance(op, enzyme.FillZeroOp | func.FuncOp):
            continue
        if any(v in seeds or (isinstance(v.type, MemRefType) and _root(v) in shadows) for v in op.operands):
            start = min(start, _top_level_index(op, body, index))
    return start


def _accesses(
    value: SSAValue, views: list[memref.SubviewOp], cache: _Cache
) -> None:
    """Collect the loads, stores, subviews and deallocs reaching the buffer."""
    for use in value.uses:
        user = use.operation
        if isinstance(user, memref.LoadOp) and use.index == 0:
            cache.loads.append(_Access(user, views))
        elif isinstance(user, memref.StoreOp) and use.index == 1:
            cache.stores.append(_Access(user, views))
        elif isinstance(user, memref.SubviewOp) and use.index == 0:
            try:
                subview_geometry(user)
            except UnsupportedSubview as err:
                raise _Kept(str(err)) from None
            cache.subviews.append(user)
            _accesses(user.result, [*views, user], cache)
        elif isinstance(user, memref.DeallocOp) and not views:
            cache.deallocs.append(user)
        else:
            raise _Kept(f"used by '{user.name}', which a tape cannot express")


def _classify(alloc: memref.AllocOp, body: Block, rev_start: int) -> _Cache:
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    if alloc.dynamic_sizes or any(d < 0 for d in memref_type.get_shape()):
        raise _Kept("dynamic shape")
    if not isinstance(memref_type.layout, builtin.NoneAttr):
        raise _Kept("non-identity layout")
    cache = _Cache(alloc, [], [], [], [])
    _accesses(alloc.memref, [], cache)
    index = {op: i for i, op in enumerate(body.ops)}
    if not cache.stores:
        raise _Kept("never written")
    if not cache.loads:
        raise _Kept("never read")
    if any(_top_level_index(a.op, body, index) >= rev_start for a in cache.stores):
        raise _Kept("written in the reverse sweep")
    if any(_top_level_index(a.op, body, index) < rev_start for a in cache.loads):
        raise _Kept("read in the forward sweep")
    if len(cache.deallocs) > 1:
        raise _Kept("deallocated more than once")
    if len(cache.stores) > 1:
        # Each tape load names the one store it reads; with several stores into
        # one buffer that needs an analysis Enzyme's caches have never needed.
        raise _Kept(f"written by {len(cache.stores)} stores")
    return cache


def _producer_name(value: SSAValue) -> str:
    """A readable name for the tape that caches `value`: what computed it."""
    if isinstance(value, OpResult):
        if isinstance(value.op, memref.LoadOp):
            source = _root(value.op.memref)
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
    return f"%{hint}" if hint else f"memref.alloc : {alloc.memref.type}"


def _constant(value: int, at: InsertPoint) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(value, IndexType()))
    Rewriter.insert_op(op, at)
    return op.result


def _buffer_indices(access: _Access) -> list[SSAValue]:
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


def _rewrite(cache: _Cache, body: Block, next_id: int) -> tuple[TapeRecord, int]:
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
                print(
                    f"tapeflow-raise-tape: warning: @{report.function} has no Enzyme "
                    "cache buffer (Enzyme saved no values for the reverse sweep); "
                    "there is no tape to raise",
                    file=sys.stderr,
                )
