"""
A kernel loop's first runs, executed from a table of steps: one small
Python closure per placed op, made straight from the op's semantics-table entry
and its frame slots, in place of the generated function of
`sim.kernel_compiler` (whose source, one statement per op, takes far longer to
generate and compile than a few runs of the body take to execute). Once the
loop has run enough iterations that generating its code pays, the generated
function is made and runs the rest.

The table computes every value, trace entry and check that the generated code
(and so the closure executor) does, in the same order: a placed op calls its
entry's `function` (the function made from the statements the generated code
inlines); an access computes the same flat index of the same located buffer
(`sim.layouts.prepare_memref`, the region and tile preparations of
`sim.kernel_compiler`), appends its packed trace entry as the generated code
does when it does not defer the trace, and falls back to the op's closure
step where the generated code does (an index out of range, an unwritten
entry); a buffer that cannot be located sends the whole run to the loop's
closure step. Its values live in the frame slots the closure steps use, so a
fallback needs no copying. A run of consecutive compute ops that cannot raise
and memref accesses of rank 1 or 2 (most of a fully unrolled body) is one step
that loops over the ops' items (`_fused`), each doing what its own step would.
test/sim/test_kernel_table.py runs random and fully unrolled kernels both ways
and compares values, traces, reports and errors.

Why and how much: docs/research/executor.md, "Large kernels from a table".
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, MemRefType
from xdsl.ir import Operation, SSAValue

from sim.compile_context import CompileContext, Frame, Lazy, Step, slot_values
from sim.errors import nonpositive_step, undefined
from sim.kernel_loops import kernel_parts
from sim.layouts import prepare_memref, prepare_region, prepare_tile
from sim.storage import python_scalar_name
from tapeflow_dialects import cgra, layer, region
from tapeflow_dialects.layer import SpadType
from tapeflow_dialects.semantics import Scalar, UndefinedBehavior, scalar

TABLE_OPS = 1
"""Kernels of at least this many placed ops start from the table: every kernel
that places an op. A table costs some 10 us a placed op to build where the
generated code costs some 57 us to generate and compile, besides its function's
own making, so a small kernel's few runs (a test's, the quick evaluation's) are
cheaper from it too (docs/research/executor.md, "Every kernel from a table")."""
TABLE_ITERATIONS = 100
"""Iterations (over all runs) the table executes before the loop's code is
generated: about what generating and compiling a placed op's statements costs,
in executions of its step (docs/research/executor.md, "Large kernels from a
table")."""
FORESEEN = True
"""A kernel loop that runs at least `TABLE_ITERATIONS` iterations each time its
function is called, by the constant bounds of the loops around it
(`iterations_per_call`), is generated at once, without a table."""


class _Run:
    """What one run of the table reads besides the frame: the located buffers
    (in the order the body first touches them) and the trace's append."""

    __slots__ = ("buffers", "append", "stats")

    def __init__(self, count: int):
        self.buffers: list[Any] = [None] * count
        self.append: Callable[[int], None] | None = None
        self.stats: dict[str, int] = {}


def _compute_step(
    ctx: CompileContext,
    op: cgra.ComputeOp,
    operands: Any,
    results: Any,
    ins: list[int],
    outs: list[int],
    entries: dict[tuple[Any, ...], Scalar | None],
) -> tuple[Step | None, bool, tuple[Any, ...] | None]:
    """(the step of a placed scalar op, whether it counts in `ops_executed`),
    or for an op that cannot raise of one to three operands (None, that, its
    `_fused` item); `ins` and `outs` its operands' and results' slots,
    `entries` the semantics entries found so far, by the identities of what
    `scalar` reads (the ops of the kernel keep those objects alive while it is
    built)."""
    properties = op.properties
    opcode = properties["opcode"].data  # type: ignore[attr-defined]
    attrs = properties.get("attrs")
    key = (opcode, id(attrs), *[id(a.type) for a in operands], *[id(r.type) for r in results])
    if key in entries:
        entry = entries[key]
    else:
        props = attrs.data if attrs is not None else {}  # type: ignore[attr-defined]
        entry = entries[key] = scalar(
            opcode, [a.type for a in operands], [r.type for r in results], props
        )
    if entry is None:  # the closure step (it counts its ops)
        with ctx.kernel_scope():
            return ctx.step(op), False, None
    f = entry.function
    o = outs[0]
    if not entry.total:
        fault = undefined

        def guarded(fr: Frame) -> None:
            try:
                fr[o] = f(*[fr[i] for i in ins])
            except UndefinedBehavior as err:
                raise fault(op, opcode, err) from None

        return guarded, entry.counted, None
    if len(ins) == 2:
        return None, entry.counted, (_BIN, f, ins[0], ins[1], 0, o)
    if len(ins) == 1:
        return None, entry.counted, (_UN, f, ins[0], 0, 0, o)
    if len(ins) == 3:
        return None, entry.counted, (_TER, f, *ins, o)

    def nary(fr: Frame) -> None:
        fr[o] = f(*[fr[i] for i in ins])

    return nary, entry.counted, None


_UN, _BIN, _TER, _LD1, _LD2, _ST1, _ST2 = range(7)
"""The kinds of `_fused` items: compute ops that cannot raise, of one to three
operands, `(kind, function, *operand slots (0 for none), result slot)`; memref
loads and stores of rank 1 and 2, `(kind, buffer, *index slots (0 for none),
fallback step, result or stored value's slot)`."""


def _fused(items: list[tuple[Any, ...]], run: _Run) -> Step:
    """One step for consecutive placed ops (`_UN`...`_ST2` items), each run as
    the generated code runs it (an op's entry's function on its slots; an
    access's flat index, range checks, trace entry and fallback step), in the
    body's order: one Python call for the run, where a step per op made one
    each (a fully unrolled body is mostly such ops)."""
    ops = tuple(items)
    buffers = run.buffers
    tracing = run.append is not None

    def fused(fr: Frame) -> None:
        for k, f, a, b, c, o in ops:
            if k == _BIN:
                fr[o] = f(fr[a], fr[b])
            elif k == _LD2:
                t = buffers[f]
                i = fr[a]
                j = fr[b]
                if 0 <= i < t[4] and 0 <= j < t[5]:
                    x = t[1] + i * t[2] + j * t[3]
                    if tracing:
                        run.append((x << 5) + t[6])  # type: ignore[misc]
                    fr[o] = t[0][x]
                else:
                    c(fr)
            elif k == _ST2:
                t = buffers[f]
                i = fr[a]
                j = fr[b]
                if 0 <= i < t[4] and 0 <= j < t[5]:
                    x = t[1] + i * t[2] + j * t[3]
                    if tracing:
                        run.append((x << 5) + t[6] + 2)  # type: ignore[misc]
                    t[0][x] = fr[o]
                else:
                    c(fr)
            elif k == _TER:
                fr[o] = f(fr[a], fr[b], fr[c])
            elif k == _UN:
                fr[o] = f(fr[a])
            elif k == _LD1:
                t = buffers[f]
                i = fr[a]
                if 0 <= i < t[3]:
                    x = t[1] + i * t[2]
                    if tracing:
                        run.append((x << 5) + t[4])  # type: ignore[misc]
                    fr[o] = t[0][x]
                else:
                    c(fr)
            else:  # _ST1
                t = buffers[f]
                i = fr[a]
                if 0 <= i < t[3]:
                    x = t[1] + i * t[2]
                    if tracing:
                        run.append((x << 5) + t[4] + 2)  # type: ignore[misc]
                    t[0][x] = fr[o]
                else:
                    c(fr)

    fused.ops = ops  # type: ignore[attr-defined]  # what it runs, for tests
    return fused


def _flat_index(
    fr: Frame, t: tuple[Any, ...], start: int, idx: tuple[tuple[int, int, int], ...]
) -> int | None:
    """`start` plus the indices at their strides, None if one is out of range:
    `idx` holds (index slot, its stride's and its extent's positions in `t`)."""
    k = start
    for s, stride, extent in idx:
        v = fr[s]
        if not 0 <= v < t[extent]:
            return None
        k += v * t[stride]
    return k


class _Access:
    """A placed load or store, read once from the op (xDSL's named accessors
    take time: a fully unrolled kernel has thousands of accesses)."""

    __slots__ = ("op", "load", "memory", "indices", "value", "result", "result_type", "at")

    def __init__(self, op: cgra.LoadOp | cgra.StoreOp, load: bool, ins: list[int], outs: list[int]):
        self.op = op
        operands = op.operands  # load: memory, indices; store: value, memory, indices
        self.load = load
        self.memory: SSAValue = operands[0] if load else operands[1]
        # The slots of the value stored, the indices and the value loaded.
        self.value = -1 if load else ins[0]
        self.indices = ins[1:] if load else ins[2:]
        self.result = outs[0] if load else -1
        self.result_type = op.results[0].type if load else None
        at = op.properties.get("slot")
        self.at: int = at.value.data if at is not None else 0  # type: ignore[attr-defined]


def _memref_step(acc: _Access, b: int, run: _Run, fb: Step) -> Step:
    """An access to a memref view: `(flat, offset, *strides, *shape, packed)`
    (of rank 0 or above 2: the others are `_fused` items)."""
    buffers = run.buffers
    indices = acc.indices
    rank = len(indices)
    packed = 2 + 2 * rank
    tracing = run.append is not None
    if acc.load:
        o = acc.result
        idx = tuple((s, 2 + d, 2 + rank + d) for d, s in enumerate(indices))

        def load(fr: Frame) -> None:
            t = buffers[b]
            k = _flat_index(fr, t, t[1], idx)
            if k is None:
                fb(fr)
                return
            if tracing:
                run.append((k << 5) + t[packed])  # type: ignore[misc]
            fr[o] = t[0][k]

        return load
    value = acc.value
    idx = tuple((s, 2 + d, 2 + rank + d) for d, s in enumerate(indices))

    def store(fr: Frame) -> None:
        t = buffers[b]
        k = _flat_index(fr, t, t[1], idx)
        if k is None:
            fb(fr)
            return
        if tracing:
            run.append((k << 5) + t[packed] + 2)  # type: ignore[misc]
        t[0][k] = fr[value]

    return store


def _region_step(acc: _Access, b: int, run: _Run, fb: Step) -> Step:
    """An access to a region: `(flat, written, *strides, *shape, packed)`, its
    slot the last stride's multiple."""
    buffers = run.buffers
    mtype = acc.memory.type
    assert isinstance(mtype, region.RegionType)
    indices = acc.indices
    rank = len(indices)
    at = acc.at
    top = 2 + rank  # the slot's stride
    packed = 3 + 2 * rank
    idx = tuple((s, 2 + d, 3 + rank + d) for d, s in enumerate(indices))
    tracing = run.append is not None
    if acc.load:
        o = acc.result
        conv_name = python_scalar_name(acc.result_type)
        conv: Callable[[Any], Any] | None = None
        if conv_name != "float" or any(
            isinstance(t, IndexType | IntegerType) for t in mtype.slot_types()
        ):
            conv = getattr(builtins, conv_name)  # else a float64 memoryview gives floats

        def load(fr: Frame) -> None:
            t = buffers[b]
            k = _flat_index(fr, t, at * t[top], idx)
            if k is None or not t[1][k]:
                fb(fr)
                return
            if tracing:
                run.append((k << 5) + t[packed])  # type: ignore[misc]
            fr[o] = t[0][k] if conv is None else conv(t[0][k])

        return load
    value = acc.value

    def store(fr: Frame) -> None:
        t = buffers[b]
        k = _flat_index(fr, t, at * t[top], idx)
        if k is None:
            fb(fr)
            return
        if tracing:
            run.append((k << 5) + t[packed] + 2)  # type: ignore[misc]
        t[0][k] = fr[value]
        t[1][k] = True

    return store


def _tile_step(acc: _Access, b: int, run: _Run, fb: Step) -> Step:
    """An access to a scratchpad tile: `(rows, base, slots, spad, data, full)`,
    every index a row (not traced, as the generated code's)."""
    buffers = run.buffers
    indices = acc.indices
    at = acc.at
    idx = tuple((s, 2, 0) for s in indices)
    if acc.load:
        o = acc.result
        conv = getattr(builtins, python_scalar_name(acc.result_type))

        def load(fr: Frame) -> None:
            t = buffers[b]
            w = _flat_index(fr, t, t[1], idx)
            if w is None or not t[5][w + at]:
                fb(fr)
                return
            fr[o] = conv(t[4][w + at])

        return load
    value = acc.value

    def store(fr: Frame) -> None:
        t = buffers[b]
        w = _flat_index(fr, t, t[1], idx)
        if w is None:
            fb(fr)
            return
        entry = w + at
        t[4][entry] = fr[value]
        full = t[5]
        if not full[entry]:
            full[entry] = True
            spad = t[3]
            spad.entries_full += 1
            stats = run.stats
            if spad.entries_full > stats["spad_peak_entries_full"]:
                stats["spad_peak_entries_full"] = spad.entries_full

    return store


_COMPUTE, _LOAD, _STORE = range(3)
_KINDS = {cgra.ComputeOp: _COMPUTE, cgra.LoadOp: _LOAD, cgra.StoreOp: _STORE}
"""The placed ops' kinds by class (`sim.kernel_compiler.is_kernel_loop`
admits these alone)."""


def _kind(op: Operation) -> int:
    if isinstance(op, cgra.LoadOp):
        return _LOAD
    return _STORE if isinstance(op, cgra.StoreOp) else _COMPUTE


class TableKernel:
    """The step of a kernel loop (or of a kernel run once where it stands, a
    loop of one trip) run from its table until `TABLE_ITERATIONS`, then by the
    generated function `generate()` makes."""

    def __init__(
        self,
        ctx: CompileContext,
        loop: scf.ForOp | cgra.KernelOp,
        ins: list[int],
        outs: list[int],
        reference: Step,
        generate: Callable[[], Step],
    ):
        self.ctx = ctx
        self.loop = loop
        self.outs = outs
        self.reference = reference
        self.generate = generate
        self.code: Step | None = None
        """The generated function, once made."""
        self.left = TABLE_ITERATIONS
        self.once = once = isinstance(loop, cgra.KernelOp)
        kernel, loop_yield, block_args, placed, kernel_yield = kernel_parts(loop)
        slot = ctx.slot
        # Every value's slot now (the generated code, made later if the loop
        # runs on, must find them all in the frames of the runs under way).
        slot_values(
            slot, (loop, kernel, kernel_yield) if once else (loop, kernel, kernel_yield, loop_yield)
        )
        kinds = [_KINDS[type(op)] if type(op) in _KINDS else _kind(op) for op in placed]
        operands = [op.operands for op in placed]
        results = [op.results for op in placed]
        in_slots = [[slot(v) for v in values] for values in operands]
        out_slots = [[slot(v) for v in values] for values in results]
        if once:
            self.bounds: tuple[int, int, int] | None = None
            self.iv = -1
            self.carried: list[int] = []
            self.inits: list[int] = []
            self.yielded: list[int] = []
            self.results = [slot(v) for v in kernel_yield.operands]
        else:
            lb, ub, st, *inits = ins
            self.bounds = (lb, ub, st)
            self.iv = slot(block_args[0])
            self.carried = [slot(a) for a in block_args[1:]]
            self.inits = inits
            # The loop carries what its yield yields; a kernel result is what
            # the kernel's yield yields.
            of_kernel = {
                r: slot(v) for r, v in zip(kernel.results, kernel_yield.operands, strict=True)
            }
            assert loop_yield is not None
            self.yielded = [
                of_kernel[v] if v in of_kernel else slot(v) for v in loop_yield.operands
            ]
            self.results = self.carried
        self.run = run = _Run(0)
        self.tracing = ctx.trace is not None
        if self.tracing:
            run.append = _UNSET  # set per run: the trace's current append
        # Buffers, in the order the body first touches them, each with the
        # preparation the generated code makes of it.
        buffers: dict[SSAValue, int] = {}
        self.prepares: list[tuple[int, Callable[[Any], Any], list[Any]]] = []
        by_memory: dict[SSAValue, list[_Access]] = {}
        access: list[_Access | None] = [
            _Access(op, kind == _LOAD, ins, outs) if kind is not _COMPUTE else None
            for op, kind, ins, outs in zip(placed, kinds, in_slots, out_slots, strict=True)
        ]
        for a in access:
            if a is not None:
                by_memory.setdefault(a.memory, []).append(a)
        for a in access:
            if a is None or a.memory in buffers:
                continue
            memory = a.memory
            buffers[memory] = len(buffers)
            uses = by_memory[memory]
            rank = len(a.indices)
            mtype = memory.type
            if isinstance(mtype, SpadType):
                top = max(u.at for u in uses)
                prepare: Callable[[Any], Any] = lambda x, top=top: prepare_tile(x, top)  # noqa: E731
            elif isinstance(mtype, region.RegionType):
                top = max(u.at for u in uses)
                prepare = lambda x, rank=rank, top=top: prepare_region(  # noqa: E731
                    ctx.layouts, ctx.trace, x, rank, top
                )
            else:
                assert isinstance(mtype, MemRefType)
                write = any(not u.load for u in uses)
                prepare = lambda x, rank=rank, write=write: prepare_memref(  # noqa: E731
                    ctx.layouts, ctx.trace, x, rank, write
                )
            self.prepares.append((slot(memory), prepare, [None, None]))
        run.buffers = [None] * len(buffers)
        steps: list[Step] = []
        float_ops = 0
        entries: dict[tuple[Any, ...], Scalar | None] = {}
        pending: list[tuple[Any, ...]] = []  # a run of `_fused` items

        def flush() -> None:
            if pending:
                steps.append(_fused(pending, run))
                pending.clear()

        for op, a, op_operands, op_results, op_ins, op_outs in zip(
            placed, access, operands, results, in_slots, out_slots, strict=True
        ):
            if a is not None:
                step, item = self._access(a, buffers[a.memory])
            else:
                step, counted, item = _compute_step(
                    ctx,
                    op,  # type: ignore[arg-type]
                    op_operands,
                    op_results,
                    op_ins,
                    op_outs,
                    entries,
                )
                float_ops += counted
            if item is None:
                assert step is not None
                flush()
                steps.append(step)
            else:
                pending.append(item)
        flush()
        self.steps = steps
        self.float_ops = float_ops

    def _access(self, a: _Access, b: int) -> tuple[Step | None, tuple[Any, ...] | None]:
        """(the step of an access, None), or for a memref access of rank 1 or 2
        (None, its `_fused` item)."""
        ctx, op = self.ctx, a.op

        def make() -> Step:
            with ctx.kernel_scope():
                return ctx.step(op)

        fb = Lazy(make, ctx)
        mtype = a.memory.type
        if isinstance(mtype, SpadType):
            return _tile_step(a, b, self.run, fb), None
        if isinstance(mtype, region.RegionType):
            return _region_step(a, b, self.run, fb), None
        rank = len(a.indices)
        if rank == 1:
            kind = _LD1 if a.load else _ST1
            x, y = a.indices[0], 0
        elif rank == 2:
            kind = _LD2 if a.load else _ST2
            x, y = a.indices
        else:
            return _memref_step(a, b, self.run, fb), None
        return None, (kind, b, x, y, fb, a.result if a.load else a.value)

    def __call__(self, fr: Frame) -> None:
        code = self.code
        if code is not None:
            code(fr)
            return
        if self.once:
            trips: range = range(1)
        else:
            lb, ub, st = self.bounds  # type: ignore[misc]
            if fr[st] <= 0:
                raise nonpositive_step(self.loop, fr[st])
            trips = range(fr[lb], fr[ub], fr[st])
            if not trips:
                for o, i in zip(self.outs, self.inits, strict=False):
                    fr[o] = fr[i]
                return
        if len(trips) > self.left:
            self.code = code = self.generate()
            code(fr)
            return
        self.left -= len(trips)
        self._run(fr, trips)

    def _run(self, fr: Frame, trips: range) -> None:
        run, ctx = self.run, self.ctx
        buffers = run.buffers
        for n, (source, prepare, cache) in enumerate(self.prepares):
            a = fr[source]
            if a is cache[0]:  # the last object seen here, prepared (or not)
                t = cache[1]
            else:
                t = cache[1] = prepare(a)
                cache[0] = a
            if t is None:
                self.reference(fr)
                return
            buffers[n] = t
        state = ctx.state
        run.stats = state.stats
        if self.tracing:
            run.append = ctx.trace.packed.append  # type: ignore[union-attr]
        size = ctx.frame_size()
        if len(fr) < size:
            fr.extend([None] * (size - len(fr)))
        steps, iv, carried, yielded = self.steps, self.iv, self.carried, self.yielded
        for c, i in zip(carried, self.inits, strict=False):
            fr[c] = fr[i]
        for value in trips:
            if iv >= 0:
                fr[iv] = value
            for step in steps:
                step(fr)
            if carried:
                new = [fr[y] for y in yielded]
                for c, v in zip(carried, new, strict=True):
                    fr[c] = v
        for o, r in zip(self.outs, self.results, strict=False):
            fr[o] = fr[r]
        if self.float_ops:
            state.ops_executed += self.float_ops * len(trips)


def _unset(entry: int) -> None:  # pragma: no cover - replaced before a run
    raise AssertionError("trace append used before the run set it")


_UNSET = _unset


def iterations_per_call(loop: scf.ForOp | cgra.KernelOp) -> int | None:
    """The iterations `loop` (a kernel loop, or a kernel run once where it
    stands: one) runs each time the function around it is called, where its
    bounds and those of every `scf.for` around it are constants and nothing
    else stands between it and the function but layers (each runs its body
    once every time it is reached); None where that is not known before the
    run (a branch, a `while`, a bound computed at run time)."""
    total = 1 if isinstance(loop, cgra.KernelOp) else _constant_trips(loop)
    op = loop.parent_op()
    while total is not None and op is not None:
        if isinstance(op, func.FuncOp):
            return total
        if isinstance(op, scf.ForOp):
            trips = _constant_trips(op)
            total = None if trips is None else total * trips
        elif not isinstance(op, layer.LayerOp):
            return None
        op = op.parent_op()
    return None


def _constant_trips(loop: scf.ForOp) -> int | None:
    """`loop`'s trip count if its bounds and step are integer constants and its
    step is positive (a step that is not is the run's error to report)."""
    values = []
    for bound in (loop.lb, loop.ub, loop.step):
        owner = bound.owner
        if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, IntegerAttr):
            return None
        values.append(owner.value.value.data)
    lb, ub, step = values
    return len(range(lb, ub, step)) if step > 0 else None


def placed_count(loop: Operation) -> int:
    """The placed ops of a kernel loop's (or a standing kernel's) body."""
    kernel = loop if isinstance(loop, cgra.KernelOp) else next(iter(loop.body.block.ops))
    return len(kernel.body.block.ops) - 1  # type: ignore[union-attr]


__all__ = [
    "FORESEEN",
    "TABLE_ITERATIONS",
    "TABLE_OPS",
    "TableKernel",
    "iterations_per_call",
    "placed_count",
]
