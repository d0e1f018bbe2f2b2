"""
The executor's fast path for kernel loops: each `scf.for` whose body is one
`cgra.kernel` (and the `scf.yield`) is turned into the source of one Python
function, exec'd once when the executor compiles the function around it. It sees the
executor only as a `sim.compile_context.CompileContext`.

The generated function computes every value the closure executor computes, bit
for bit (a placed op is the statements of its semantics-table entry,
`tapeflow_dialects.semantics.Scalar.render`), records the same trace (one packed
entry per access, `MemoryTrace.packed`; a loop whose indices are affine in its
induction variable, or computed from it through comparisons and selects, records
each run as one block, `sim.trace.DeferredLoop`) and
keeps every check on scratchpad tiles and regions, in the same order. Anything
unusual falls back to the closure executor, which stays the reference: a buffer
that cannot be located sends the whole loop run to the closure step; an access
out of range or to an unwritten entry sends that one op to its closure step,
which raises the same error. `Executor(fast=False)` never uses this module;
test/sim/test_fast_path.py and test/sim/test_semantics.py check that both paths
give identical outputs, traces and reports.

Why it pays, how the generated code locates buffers and hoists invariants, and
how it defers the trace: docs/research/executor.md, "Kernel loops as generated
Python".
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, MemRefType
from xdsl.ir import Operation, OpResult, SSAValue

from sim.bounds import Bound, Bounds, constant_bits, is_integer, positive_constant
from sim.compile_context import CompileContext, Frame, Step, compiled_code
from sim.errors import ExecutionError, nonpositive_step, undefined
from sim.layouts import (
    FLAT,
    OFFSET,
    OWNER,
    STRIDES,
    Layouts,
    packed_base,
    prepare_memref,
)
from sim.storage import Region, Tile, python_scalar_name
from sim.trace import DeferredLoop, Expr
from tapeflow_dialects import cgra, region
from tapeflow_dialects.layer import SpadType
from tapeflow_dialects.semantics import (
    CMPI_PREDICATES,
    Scalar,
    UndefinedBehavior,
    int_width,
    scalar,
)

DEFER = True
_AFFINE_OPCODES = ("arith.addi", "arith.subi", "arith.muli")
"""The integer ops an affine or computed index is made of (without wrap-around)."""
Slope = dict[tuple[str, ...], int]
"""An affine value's change per unit of the induction variable: a sum of
products of loop-invariant names (the generated code's) by integers, as
{sorted names: coefficient}; {} for an invariant."""

# ------------------------------------------------------- run-time preparation
# Called when a compiled loop starts (and runs at least once), in the order the
# loop body first touches each buffer, so simulated bases are handed out in the
# same order as the closure executor's trace records them. None: use the
# closure step for this run of the loop. (Memrefs: `sim.layouts.prepare_memref`.)


def _prepare_region(
    layouts: Layouts, trace: Any, store: Any, rank: int, top_slot: int
) -> tuple[Any, ...] | None:
    if not isinstance(store, Region) or store.freed:
        return None
    data, written = store.data, store.written
    if data.ndim != rank + 1 or not top_slot < data.shape[-1]:
        return None
    lay = layouts.of(data)
    if (
        lay is None
        or lay[OFFSET] != 0
        or data.shape != written.shape
        or not written.flags.c_contiguous
    ):
        return None
    # A region's data is C-contiguous and its own owner: its written mask has
    # the same flat indices. Region accesses are tape accesses (| 1).
    owner = lay[OWNER]
    written_flat = memoryview(written.reshape(-1))
    packed = packed_base(owner, trace) | 1
    return (owner[FLAT], written_flat, *lay[STRIDES], *data.shape[:-1], packed)


def _prepare_tile(tile: Any, top_slot: int) -> tuple[Any, ...] | None:
    if not isinstance(tile, Tile) or not top_slot < tile.slots:
        return None
    spad = tile.spad
    return (tile.rows, tile.base, tile.slots, spad, spad.data, memoryview(spad.full))


def is_kernel_loop(op: Operation) -> bool:
    """An `scf.for` whose body is one `cgra.kernel` of placed ops, and the yield."""
    if not isinstance(op, scf.ForOp):
        return False
    body = list(op.body.block.ops)
    if len(body) != 2 or not isinstance(body[0], cgra.KernelOp):
        return False
    inner = list(body[0].body.block.ops)
    return isinstance(inner[-1], cgra.YieldOp) and all(
        isinstance(o, cgra.ComputeOp | cgra.LoadOp | cgra.StoreOp) for o in inner[:-1]
    )


class Lazy:
    """A closure step compiled the first time it runs: the fallbacks of the
    generated code rarely do, and compiling them all would double the time it
    takes to compile a kernel. Compiling one may add entries to the function's
    slots, so the frame grows to match."""

    __slots__ = ("_make", "_step", "_ctx")

    def __init__(self, make: Callable[[], Step], ctx: CompileContext):
        self._make = make
        self._step: Step | None = None
        self._ctx = ctx

    def __call__(self, fr: Frame) -> None:
        if self._step is None:
            self._step = self._make()
        size = self._ctx.frame_size()
        if len(fr) < size:
            fr.extend([None] * (size - len(fr)))
        self._step(fr)


# ------------------------------------------------- alike loops share their code
# Generating a fully unrolled kernel's code takes seconds (thousands of placed
# ops, each looked up in the semantics table, bounded, traced); the evaluation
# runs such a module lowered once per timing model, whose kernels differ only in
# where and when each op issues, and a fully unrolled body repeats its loops.
# The source and how its constants are made are kept by the loop's shape
# (`_Shape.key`: everything the generator reads), and an alike loop's function
# is made from them by making its constants anew on its own ops (`_Template`).

_Maker = Callable[..., tuple[Any, ...]]
"""Makes constants of the generated code: (ctx, loop, op or None, *args) -> values."""
_Recipe = tuple[tuple[str, ...], _Maker, int, tuple[Any, ...]]
"""(the constants' names, their maker, the position of its op in the loop's
walk or -1, its other arguments)."""


def _make_step(ctx: CompileContext, loop: Operation, op: Operation, lazy: bool) -> tuple[Step]:
    """`op`'s closure step (`lazy`: compiled the first time it runs, `Lazy`)."""

    def make() -> Step:
        with ctx.kernel_scope():
            return ctx.step(op)

    return (Lazy(make, ctx) if lazy else make(),)


def _make_fault(
    ctx: CompileContext, loop: Operation, op: Operation, opcode: str
) -> tuple[Callable[[Exception], ExecutionError]]:
    """The error of undefined behaviour at `op` (as its closure reports it)."""
    return (lambda err: undefined(op, opcode, err),)


def _make_cache(ctx: CompileContext, loop: Operation, op: None) -> tuple[list[Any]]:
    """A buffer's cache: the last object seen there, and it prepared."""
    return ([None, None],)


def _make_tile_preparer(
    ctx: CompileContext, loop: Operation, op: None, top: int
) -> tuple[list[Any], Callable[[Any], Any]]:
    """A tile's cache and the function that prepares a tile into it."""
    cache: list[Any] = [None, None]

    def prepare_tile(tile: Any) -> Any:
        cache[1] = _prepare_tile(tile, top)
        cache[0] = tile
        return cache[1]

    return cache, prepare_tile


def _make_memref_preparer(
    ctx: CompileContext, loop: Operation, op: None, rank: int, write: bool
) -> tuple[list[Any], Callable[[Any], Any]]:
    """A memref's cache and the function that prepares an array into it."""
    cache: list[Any] = [None, None]

    def prepare(arr: Any) -> Any:
        cache[1] = prepare_memref(ctx.layouts, ctx.trace, arr, rank, write)
        cache[0] = arr
        return cache[1]

    return cache, prepare


def _make_deferred(
    ctx: CompileContext, loop: Operation, op: None, record: DeferredLoop
) -> tuple[Any, Any, DeferredLoop]:
    """The arrays the loop records its runs in, on this run's trace, and its record."""
    assert ctx.trace is not None
    runs, entries = ctx.trace.defer(record)
    return runs, entries, record


def _run_env(ctx: CompileContext, loop: Operation, reference: Step) -> dict[str, Any]:
    """The generated code's names for the executor's services and the loop."""
    return {
        "REFERENCE": reference,
        "_prepare_region": _prepare_region,
        "_prepare_tile": _prepare_tile,
        "LAYOUTS": ctx.layouts,
        "TRACE": ctx.trace,
        "STATE": ctx.state,
        "NONPOSITIVE": lambda step: nonpositive_step(loop, step),
    }


def _made_step(source: str, filename: str, env: dict[str, Any], slots: list[int]) -> Step:
    """The loop's function: `source` run in `env`, its `_bind` given the slots."""
    exec(compiled_code(source, filename), env)  # noqa: S102 - our own generated code
    step = env["_bind"](*slots)
    step.source = source  # for debugging: print(step.source)
    return step  # type: ignore[no-any-return]


_UNREAD: dict[type[Operation], frozenset[str]] = {
    cgra.ComputeOp: frozenset({"row", "col", "cycle"}),
    cgra.LoadOp: frozenset({"row", "col", "cycle"}),
    cgra.StoreOp: frozenset({"row", "col", "cycle"}),
    cgra.KernelOp: frozenset({"id", "rows", "cols", "ii"}),
}
"""Properties the generator never reads (where and when an op issues, the
kernel's grid and schedule): what the timing models read of them comes from the
ops themselves, not from the generated code (its closure steps are made anew
for each loop, `_Template`)."""


_SIGNATURES: dict[tuple[Any, ...], int] = {}
"""A number per signature of an op (its class, its result and block argument
types, the properties the generator reads) and per outside value (its type, its
constant value if any): a loop's shape is a string of these numbers and of its
operands' positions (`_Shape`), held by the templates' keys in a few bytes an op.
Signatures are few (opcodes by types by properties) and kept for the process."""


def _is_constant(value: SSAValue) -> bool:
    return isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp)


class _Shape:
    """A loop as the generator sees it. `values`: every value its ops use,
    define or take as block arguments, in the order they get their frame slots;
    `ops`: its ops in walk order."""

    def __init__(self, loop: Operation):
        # By the values' and ops' ids: an SSA value's own hash is a Python call,
        # and a fully unrolled kernel has tens of thousands of them.
        # Where each op stands follows from the walk's order and the ops' classes:
        # a kernel loop is the loop, its kernel, the placed ops (which have no
        # regions), the kernel's yield and the loop's; a kernel run once, the
        # kernel, its placed ops and its yield (`is_kernel_loop`, `build`).
        self.ops = ops = list(loop.walk())
        self.op_refs = {id(o): n for n, o in enumerate(ops)}
        refs: dict[int, int] = {}
        values: list[SSAValue] = []
        defined: list[bool] = []
        words = array("q")  # per op: its signature's number, its operands' count and positions
        signature = _SIGNATURES.setdefault
        for o in ops:
            operands = [len(o.operands)]
            for v in o.operands:
                n = refs.setdefault(id(v), len(values))
                if n == len(values):
                    values.append(v)
                    defined.append(False)
                operands.append(n)
            results = o.results
            inner = [a for body in o.regions for block in body.blocks for a in block.args]
            for v in (*results, *inner):  # defined here (SSA: not used before)
                refs[id(v)] = len(values)
                values.append(v)
                defined.append(True)
            blocks = tuple(
                tuple([a.type for a in block.args]) for body in o.regions for block in body.blocks
            )
            unread = _UNREAD.get(type(o))
            properties = o.properties
            if unread is not None:
                properties = {k: v for k, v in properties.items() if k not in unread}
            mine = (type(o), tuple([r.type for r in results]), blocks, tuple(properties.items()))
            words.append(signature(mine, len(_SIGNATURES)))
            words.extend(operands)
        self.values = values
        for n, v in enumerate(values):
            if not defined[n]:
                value = v.op.value if _is_constant(v) else None  # type: ignore[attr-defined]
                words.extend((-1, n, signature((v.type, value), len(_SIGNATURES))))
        self._items = words.tobytes()

    def key(
        self, once: bool, ctx: CompileContext, ins: list[int], outs: list[int]
    ) -> tuple[Any, ...] | None:
        """What the generated code depends on: the ops (their classes in walk
        order, their operands by position, their types and the properties it reads;
        not their discardable attributes, which it never reads, such as the
        REV sweep's start on a loop),
        the types of the values from outside the loop and the values of those that
        are constants, the loop's frame slots as the loop's own operands and
        results, and what the context records. None (nothing kept) if the loop's
        slots `ins` and `outs` are not its operands' and results'."""
        loop = self.ops[0]
        if ins and ins != [ctx.slot(v) for v in loop.operands]:
            return None
        if outs and outs != [ctx.slot(v) for v in loop.results]:
            return None
        return (
            once,
            bool(ins),
            bool(outs),
            ctx.trace is not None,
            ctx.timing is not None,
            DEFER,
            self._items,
        )


class _Template:
    """A loop's generated source and how its constants are made: the recipes of
    what `_KernelLoopSource.made` made (in order), the rest of its constants
    (values of the semantics table and of no op), and its frame slots as
    positions in `_Shape.values`."""

    def __init__(
        self,
        source: str,
        filename: str,
        recipes: list[_Recipe],
        constants: dict[str, Any],
        slots: list[int],
    ):
        self.source = source
        self.filename = filename
        self.recipes = recipes
        self.constants = constants
        self.slots = slots

    @classmethod
    def of(cls, made: _KernelLoopSource, source: str, filename: str) -> _Template | None:
        """The template of the loop `made` generated `source` for (None if one
        of its frame slots is no value of the loop's)."""
        ctx, shape = made.ctx, made.shape
        position = {ctx.slot(v): n for n, v in enumerate(shape.values)}
        if any(slot not in position for slot in made.frame_slots):
            return None
        recipe_names = {name for names, *_ in made.recipes for name in names}
        run_names = set(_run_env(ctx, shape.ops[0], made.env["REFERENCE"]))
        constants = {
            k: v for k, v in made.env.items() if k not in recipe_names and k not in run_names
        }
        slots = [position[slot] for slot in made.frame_slots]
        return cls(source, filename, list(made.recipes), constants, slots)

    def step(self, ctx: CompileContext, loop: Operation, shape: _Shape, reference: Step) -> Step:
        """The function of `loop` (of this template's key, `shape` its shape):
        its constants made in the order the generator made them, its slots bound."""
        env = dict(self.constants)
        ops = shape.ops
        for names, maker, ref, args in self.recipes:
            made = maker(ctx, loop, ops[ref] if ref >= 0 else None, *args)
            env.update(zip(names, made, strict=True))
        env.update(_run_env(ctx, loop, reference))
        slots = [ctx.slot(shape.values[n]) for n in self.slots]
        return _made_step(self.source, self.filename, env, slots)


_TEMPLATES_KEPT = 64
_TEMPLATES: OrderedDict[tuple[Any, ...], _Template] = OrderedDict()
"""The templates of the last loops generated, by their key (`_Shape.key`)."""


class _KernelLoopSource:
    """Builds the source of one kernel loop's function; see the module docstring."""

    def __init__(
        self,
        ctx: CompileContext,
        loop: scf.ForOp | cgra.KernelOp,
        ins: list[int],
        outs: list[int],
        reference: Step,
    ):
        self.ctx = ctx
        self.loop = loop
        self.ins = ins
        self.outs = outs
        self.env: dict[str, Any] = {"REFERENCE": reference}
        self.prologue: list[str] = []
        self.body: list[str] = []
        self.names: dict[SSAValue, str] = {}
        self.local: set[SSAValue] = set()
        """Values defined inside the loop (their frame slots are stale)."""
        self.float_ops = 0
        self.tracing = ctx.trace is not None
        self.invariant: set[SSAValue] = set()
        """Values with one value for the whole loop run: defined outside it, or
        computed from such values by ops hoisted before the loop."""
        self.hoisted: list[str] = []
        self.addresses: dict[tuple[Any, ...], tuple[str, str]] = {}
        self.uses: dict[tuple[Any, ...], int] = {}
        self.bounds = Bounds()
        self.inside: set[SSAValue] = set()
        """Values defined in the loop body (and its block arguments)."""
        self.slopes: dict[SSAValue, Slope] = {}
        """Loop values affine in the induction variable (`slope`)."""
        self.exprs: dict[SSAValue, tuple[Expr, frozenset[str]]] = {}
        """Loop values the induction variable and invariants compute (`computed`),
        with the generated code's names where a `DeferredLoop` has columns, and
        the guards their bounds rest on (checked only if an access uses them)."""
        self.index_exprs: dict[str, tuple[Expr, frozenset[str]] | None] = {}
        """Per flat index computed in the loop, its `computed` expression if any."""
        self.traced: list[tuple[str, str, bool, Slope | None, Expr | None]] = []
        """Per traced access: its flat index, buffer, whether it writes, its
        slope, and (if it is not affine) its `computed` expression."""
        self.records: list[int] = []
        """The positions in `body` of the accesses' trace appends."""
        self.moving: list[str] = []
        """The flat indices computed in the loop."""
        self.frame_slots: dict[int, str] = {}
        """The frame slots the code reads or writes, by the name it binds each to."""
        self.recipes: list[_Recipe] = []
        """What `made` made, in order."""
        self.shape: _Shape

    # ------------------------------------------------------------- helpers
    def frame(self, slot: int) -> str:
        """Frame slot `slot` in the generated code: `fr[_sN]`, its number bound to
        `_sN` when the code is made (`build`), so that kernels alike but for their
        slots (one module lowered per timing model, a fully unrolled body's
        repeated loops) have one source, compiled once (`compiled_code`)."""
        name = self.frame_slots.get(slot)
        if name is None:
            name = self.frame_slots[slot] = f"_s{len(self.frame_slots)}"
        return f"fr[{name}]"

    def constant(self, value: Any, hint: str) -> str:
        name = f"{hint}{len(self.env)}"
        self.env[name] = value
        return name

    def made(
        self, hints: tuple[str, ...], maker: _Maker, op: Operation | None, *args: Any
    ) -> list[str]:
        """Names for what `maker(ctx, loop, op, *args)` makes (one value per
        hint): what the generated code reads of this executor or of `op` itself
        (its closure step, its fault, a buffer's cache, the trace's arrays).
        Recorded, so that an alike loop's code is made by calling the makers
        again on its own ops (`_Template`)."""
        made = maker(self.ctx, self.loop, op, *args)
        names = [self.constant(v, h) for h, v in zip(hints, made, strict=True)]
        ref = -1 if op is None else self.shape.op_refs[id(op)]
        self.recipes.append((tuple(names), maker, ref, args))
        return names

    def name(self, value: SSAValue) -> str:
        if value not in self.names:
            # Defined outside the loop: read from the frame when the loop starts.
            name = f"x{len(self.names)}"
            self.names[value] = name
            self.invariant.add(value)
            self.prologue.append(f"{name} = {self.frame(self.ctx.slot(value))}")
        return self.names[value]

    def define(self, value: SSAValue) -> str:
        name = f"v{len(self.names)}"
        self.names[value] = name
        self.local.add(value)
        return name

    def closure(self, op: Operation, indent: str, lazy: bool = False) -> list[str]:
        """Run `op` by its closure step: locals it reads go to their frame slots
        first, and its results come back from theirs. `lazy`: compile the step
        the first time it runs (for fallbacks, which rarely do; only ops whose
        compilation cannot fail)."""
        ctx = self.ctx
        (step_name,) = self.made(("R",), _make_step, op, lazy)
        lines = [
            f"{indent}{self.frame(ctx.slot(v))} = {self.names[v]}"
            for v in dict.fromkeys(op.operands)
            if v in self.local
        ]
        lines.append(f"{indent}{step_name}(fr)")
        lines += [f"{indent}{self.define(r)} = {self.frame(ctx.slot(r))}" for r in op.results]
        return lines

    # ---------------------------------------------------------------- ops
    def compute(self, op: cgra.ComputeOp) -> None:
        """A placed scalar op: the semantics table's statements for it, inline."""
        opcode = op.opcode.data
        props = op.attrs.data if op.attrs is not None else {}
        operands, results = op.args, op.res  # (xDSL's accessors take time: read once)
        entry = scalar(opcode, [a.type for a in operands], [r.type for r in results], props)
        if entry is None:
            self.body += [self.progress("    "), *self.closure(op, "    ")]  # counts its ops
            return
        res = results[0]
        args = [self.name(a) for a in operands]
        bits: list[int | None] = []
        if entry.growth is not None:  # an integer result: use what bounds show
            bits, result = self.bounds.lines_of(entry, [self.bound(a) for a in operands])
            self.bounds.set(res, result)
        lines = entry.render(self.define(res), args, self.constant, bits)
        slope = self.affine(opcode, operands, entry, bool(bits)) if self.tracing else None
        if slope is not None:
            self.slopes[res] = slope
        expr = self.computed(op, operands, res, entry, bool(bits)) if self.tracing else None
        if expr is not None:
            self.exprs[res] = expr
        if entry.counted:
            self.float_ops += 1  # the closure executor's ops_executed
        if not entry.total:
            # Undefined behaviour (division by zero...) is reported at the op,
            # as its closure reports it.
            (fault,) = self.made(("U",), _make_fault, op, opcode)
            lines = [
                "try:",
                *("    " + line for line in lines),
                f"except {self.constant(UndefinedBehavior, 'E')} as err:",
                self.progress("    "),
                f"    raise {fault}(err) from None",
            ]
        elif all(a in self.invariant for a in operands):
            # The same value in every iteration, and it cannot raise: once.
            self.hoisted += lines
            self.invariant.add(res)
            return
        self.body += ["    " + line for line in lines]

    def bound(self, value: SSAValue) -> Bound | None:
        """The bound of an operand (`sim.bounds`): a constant's, the induction
        variable's and outside values' once guarded, a result's as computed."""
        known = self.bounds.get(value)
        if known is not None or not is_integer(value.type):
            return known
        bits = constant_bits(value)
        if bits is not None:
            return bits, frozenset()
        if isinstance(self.loop, scf.ForOp) and value is self.loop.body.block.args[0]:
            return Bounds.guarded("trips.start", "trips.stop")
        if value not in self.inside:
            return Bounds.guarded(self.frame(self.ctx.slot(value)))
        return None  # loaded or carried

    def address(
        self, key: str, offset: str, indices: list[SSAValue], row: bool = False
    ) -> tuple[str, str, list[str]]:
        """(condition, flat index, lines that compute the index) of an access
        to buffer `key` at `indices`. What depends only on loop-invariant values
        is computed once before the loop; accesses with the same buffer, offset
        and index values share one condition and index (the first computes
        them), since they are pure functions of those values."""
        share = (key, offset, tuple(indices))
        if share in self.addresses:
            cond, k = self.addresses[share]
            return cond, k, []
        n = len(self.addresses)
        extent = (lambda d: f"{key}_rows") if row else (lambda d: f"{key}_e{d}")  # noqa: E731
        stride = (lambda d: f"{key}_slots") if row else (lambda d: f"{key}_s{d}")  # noqa: E731
        fixed = [(d, v) for d, v in enumerate(indices) if v in self.invariant]
        moving = [(d, v) for d, v in enumerate(indices) if v not in self.invariant]
        checks = [f"0 <= {self.name(v)} < {extent(d)}" for d, v in fixed]
        base = offset
        if fixed:
            base = f"h{n}"
            terms = " + ".join(f"{self.name(v)} * {stride(d)}" for d, v in fixed)
            self.hoisted.append(f"{base} = {offset} + {terms}")
            self.hoisted.append(f"ok{n} = {' and '.join(checks)}")
        cond = (
            " and ".join(
                [f"ok{n}"] * bool(fixed) + [f"0 <= {self.name(v)} < {extent(d)}" for d, v in moving]
            )
            or "True"
        )
        if not moving:  # the same element in every iteration
            self.addresses[share] = (cond, base)
            return cond, base, []
        k = f"k{n}"
        self.moving.append(k)
        line = f"{k} = {base} + " + " + ".join(f"{self.name(v)} * {stride(d)}" for d, v in moving)
        if self.tracing:
            terms = [self.expr(v) for _, v in moving]
            self.index_exprs[k] = None
            if all(t is not None for t in terms):
                total: Expr = ("col", base)
                guards: frozenset[str] = frozenset()
                for (d, _), (term, rests) in zip(moving, terms, strict=True):  # type: ignore[misc]
                    total = ("add", total, ("mul", term, ("col", stride(d))))
                    guards |= rests
                self.index_exprs[k] = total, guards
        if self.uses[share] > 1:
            self.body.append(f"    c{n} = {cond}")
            cond = f"c{n}"
        self.addresses[share] = (cond, k)
        return cond, k, [line]

    @staticmethod
    def offset(op: cgra.LoadOp | cgra.StoreOp, buffers: dict[SSAValue, str]) -> str:
        """The name of the flat index an access adds its indices to: the view's
        offset, plus the slot for a region; a tile's first entry."""
        key = buffers[op.memory]
        if isinstance(op.memory.type, SpadType):
            return f"{key}_base"
        if isinstance(op.memory.type, region.RegionType):
            return f"{key}_o{op.slot.value.data}"  # type: ignore[union-attr]
        return f"{key}_o"

    def memory(self, op: cgra.LoadOp | cgra.StoreOp, buffers: dict[SSAValue, str]) -> None:
        memory = op.memory
        key = buffers[memory]
        is_load = isinstance(op, cgra.LoadOp)
        mtype = memory.type
        fallback = self.closure(op, "        ", lazy=True)
        failed = self.progress("        ")  # the traced accesses before this one
        if isinstance(mtype, SpadType):
            slot = op.slot.value.data  # type: ignore[union-attr]
            cond, w, lines = self.address(key, self.offset(op, buffers), list(op.indices), row=True)
            self.body += [f"    if {cond}:", *("        " + line for line in lines)]
            entry = f"{w} + {slot}" if slot else w
            if is_load:
                conv = python_scalar_name(op.result.type)
                out = self.names[op.result]  # defined by the fallback
                self.body += [
                    f"        if {key}_full[{entry}]:",
                    f"            {out} = {conv}({key}_data[{entry}])",
                    "        else:",
                    "    " + failed,
                    *["    " + line for line in fallback],
                ]
            else:
                value = self.name(op.value)
                self.body += [
                    f"        {key}_data[{entry}] = {value}",
                    f"        if not {key}_full[{entry}]:",
                    f"            {key}_full[{entry}] = True",
                    f"            {key}_spad.entries_full += 1",
                    f"            if {key}_spad.entries_full > STATS['spad_peak_entries_full']:",
                    f"                STATS['spad_peak_entries_full'] = {key}_spad.entries_full",
                ]
            self.body += ["    else:", failed, *fallback]
            return
        indices = list(op.indices)
        cond, k, lines = self.address(key, self.offset(op, buffers), indices)
        self.body += [f"    if {cond}:", *("        " + line for line in lines)]
        packed = f"{key}_pw" if not is_load else f"{key}_p"
        if self.tracing:
            slope = self.index_slope(key, indices)
            computed = self.index_exprs.get(k) if slope is None else None
            if computed is not None:  # its bounds must hold: the loop checks their guards
                self.bounds.guards.update(dict.fromkeys(sorted(computed[1])))
            self.traced.append((k, key, not is_load, slope, computed and computed[0]))

        def record(indent: str) -> None:
            if self.tracing:
                self.records.append(len(self.body))
                self.body.append(f"{indent}app(({k} << 5) + {packed})")

        if isinstance(mtype, region.RegionType):
            if is_load:
                read = f"{key}_flat[{k}]"
                conv = python_scalar_name(op.result.type)
                if conv != "float" or any(
                    isinstance(t, IndexType | IntegerType) for t in mtype.slot_types()
                ):
                    read = f"{conv}({read})"  # else a float64 memoryview gives floats
                self.body.append(f"        if {key}_written[{k}]:")
                record("            ")
                self.body += [
                    f"            {self.names[op.result]} = {read}",
                    "        else:",
                    "    " + failed + " True",
                    *["    " + line for line in fallback],
                ]
            else:
                record("        ")
                self.body += [
                    f"        {key}_flat[{k}] = {self.name(op.value)}",
                    f"        {key}_written[{k}] = True",
                ]
        elif is_load:
            record("        ")
            self.body.append(f"        {self.names[op.result]} = {key}_flat[{k}]")
        else:
            record("        ")
            self.body.append(f"        {key}_flat[{k}] = {self.name(op.value)}")
        self.body += ["    else:", failed, *fallback]

    # ------------------------------------------------------ deferred trace
    def progress(self, indent: str) -> str:
        """Where an op that may fail stands: the traced accesses before it (for
        a deferred run that fails, `DeferredLoop.cut`); a traced access that
        fails after computing its `k` adds `, True`."""
        return f"{indent}_j = {len(self.traced)},"

    def slope(self, value: SSAValue) -> Slope | None:
        """How `value` changes per unit of the induction variable, if it is an
        affine function of it with loop-invariant coefficients (see `Slope`)."""
        if value in self.invariant:
            return {}
        if isinstance(self.loop, scf.ForOp) and value is self.loop.body.block.args[0]:
            return {(): 1}
        return self.slopes.get(value)

    def affine(
        self, opcode: str, operands: Sequence[SSAValue], entry: Scalar, exact: bool
    ) -> Slope | None:
        """The slope of the result of op `opcode` on `operands`: sums, differences
        and products by an invariant of affine values computed without wrap-around
        (`exact`), and integer casts that keep the value."""
        if entry.lines == ("{t} = int({a})",):
            return self.slope(operands[0])
        if not exact or opcode not in _AFFINE_OPCODES:
            return None
        a, b = operands
        if opcode == "arith.muli":
            if b not in self.invariant:
                a, b = b, a
            slope = self.slope(a)
            if slope is None or b not in self.invariant:
                return None
            name = self.name(b)
            return {tuple(sorted((*term, name))): c for term, c in slope.items()}
        left, right = self.slope(a), self.slope(b)
        if left is None or right is None:
            return None
        sign = 1 if opcode == "arith.addi" else -1
        total = dict(left)
        for term, c in right.items():
            total[term] = total.get(term, 0) + sign * c
        return {term: c for term, c in total.items() if c}

    def expr(self, value: SSAValue) -> tuple[Expr, frozenset[str]] | None:
        """`value` as a `computed` expression, if it is one (an invariant by its
        name, the induction variable, or a result `computed` found), and the
        guards its bounds rest on."""
        if value in self.invariant:
            return ("col", self.name(value)), frozenset()
        if isinstance(self.loop, scf.ForOp) and value is self.loop.body.block.args[0]:
            return ("iv",), frozenset()
        return self.exprs.get(value)

    def computed(
        self,
        op: cgra.ComputeOp,
        args: Sequence[SSAValue],
        result: SSAValue,
        entry: Scalar,
        exact: bool,
    ) -> tuple[Expr, frozenset[str]] | None:
        """The expression (`sim.trace.Expr`) of `op`'s `result` (of `args`, its
        operands), if the induction variable and invariants compute it: sums,
        differences and products without wrap-around (`exact`), integer casts that
        keep the value,
        `arith.cmpi` of integers of at most 64 bits and `arith.select`; and the
        guards it rests on. Every integer in it has a bound far inside 64 bits
        (`sim.bounds`), so that numpy computes it exactly."""
        opcode = op.opcode.data
        if entry.lines == ("{t} = int({a})",):
            return self.expr(args[0])
        width = int_width(args[0].type)
        if opcode == "arith.cmpi":
            if width is None or not 1 < width <= 64:
                return None
        elif opcode != "arith.select" and not (exact and opcode in _AFFINE_OPCODES):
            return None
        operands = [self.expr(a) for a in args]
        if any(e is None for e in operands):
            return None
        bounds = [self.bounded(v) for v in (*args, result)]
        if any(b is None for b in bounds):
            return None
        exprs = [e for e, _ in operands]  # type: ignore[misc]
        guards = frozenset().union(*(g for _, g in operands), *bounds)  # type: ignore[misc]
        if opcode == "arith.select":
            return ("select", *exprs), guards
        if opcode == "arith.cmpi":
            predicate = op.attrs.data.get("predicate") if op.attrs is not None else None
            assert isinstance(predicate, IntegerAttr)
            return ("cmp", CMPI_PREDICATES[predicate.value.data], width, *exprs), guards
        return (opcode[6:9], *exprs), guards

    def bounded(self, value: SSAValue) -> frozenset[str] | None:
        """The guards of `value`'s bound if it is far inside 64 bits (`bound`);
        none for an i1; None if it has no such bound."""
        if int_width(value.type) == 1:
            return frozenset()
        bound = self.bound(value)
        if bound is None or bound[0] > 62:
            return None
        return bound[1]

    def index_slope(self, key: str, indices: list[SSAValue]) -> Slope | None:
        """The slope of the flat index of an access to buffer `key` at `indices`
        (`address`'s `k`), None if one of its indices is not affine."""
        total: Slope = {}
        for d, v in enumerate(indices):
            slope = self.slope(v)
            if slope is None:
                return None
            for term, c in slope.items():
                scaled = tuple(sorted((*term, f"{key}_s{d}")))
                total[scaled] = total.get(scaled, 0) + c
        return {term: c for term, c in total.items() if c}

    def deferred(self, iv: str, loop: list[str]) -> list[str]:
        """`loop` (the `for` and its body, whose accesses are traced), its
        affine accesses recorded after it as one block (`sim.trace.DeferredLoop`):
        their `k` after it are their values in the last iteration; the others
        append their entries to an array of their own. A run that fails records
        what it did (`DeferredLoop.cut`) and raises."""
        columns: dict[str, int] = {}  # the record's: k, then bases, then names
        for k, _, _, slope, _ in self.traced:
            if slope is not None:
                columns.setdefault(k, len(columns))
        for _, key, _, slope, expr in self.traced:
            if slope is not None or expr is not None:
                columns.setdefault(f"{key}_p", len(columns))
        for *_, slope, _ in self.traced:
            for names in slope or {}:
                columns.update((name, len(columns)) for name in names if name not in columns)
        exprs = [_columns_of(t[4], columns) for t in self.traced]
        record = DeferredLoop(
            k=tuple(columns[t[0]] if t[3] is not None else -1 for t in self.traced),
            base=tuple(
                columns[f"{t[1]}_p"] if t[3] is not None or t[4] is not None else -1
                for t in self.traced
            ),
            static=tuple(2 if t[2] else 0 for t in self.traced),
            slope=tuple(
                tuple((c, tuple(columns[n] for n in names)) for names, c in (t[3] or {}).items())
                for t in self.traced
            ),
            columns=len(columns),
            computed=tuple(exprs),
            start=columns.get("trips.start", -1),
        )
        assert self.ctx.trace is not None
        r, e, d = self.made(("T", "V", "D"), _make_deferred, None, record)
        self.env["ExecutionError"] = ExecutionError
        values = "".join(f", {v}" for v in columns)
        assigned = [k for k in self.moving if k in columns]
        return [
            "_pk = TRACE.packed",
            *([f"_va = {e}.append"] if any(t[3] is None and not t[4] for t in self.traced) else []),
            "_p0 = len(_pk)",
            *([f"{' = '.join(assigned)} = 0"] if assigned else []),  # bound if a run fails
            "try:",
            *("    " + line for line in loop),
            "except ExecutionError:",
            f"    {d}.cut(_pk, {e}, (_p0, trips.step, 0, len({e}){values}), "
            f"({iv} - trips.start) // trips.step, *_j)",
            "    raise",
            "_n = len(trips)",
            f"{r}.fromlist([_p0, trips.step, _n, len({e}){values}])",
            "_pk.append(0)",  # the run's marker (`sim.trace.MemoryTrace.resolved`)
        ]

    # ---------------------------------------------------------------- all
    def build(self) -> Step:
        ctx, loop = self.ctx, self.loop
        once = isinstance(loop, cgra.KernelOp)
        if once:  # a kernel run once where it stands: a loop of one trip
            kernel, loop_yield, block_args = loop, None, []
        else:
            kernel, loop_yield = list(loop.body.block.ops)
            block_args = list(loop.body.block.args)
        assert isinstance(kernel, cgra.KernelOp)
        placed = list(kernel.body.block.ops)
        kernel_yield = placed.pop()
        # Every value of the loop gets its frame slot now, so that compiling a
        # closure later (Lazy) does not need new ones.
        shape = _Shape(loop)
        for v in shape.values:
            ctx.slot(v)
        kept = shape.key(once, ctx, self.ins, self.outs)
        template = _TEMPLATES.get(kept) if kept is not None else None
        if template is not None:
            _TEMPLATES.move_to_end(kept)
            return template.step(ctx, loop, shape, self.env["REFERENCE"])
        self.shape = shape
        iv = "_once" if once else self.define(block_args[0])
        carried = [self.define(a) for a in block_args[1:]]

        # Buffers, in the order the body first touches them.
        buffers: dict[SSAValue, str] = {}
        prepares: list[str] = []
        accesses: dict[SSAValue, list[cgra.LoadOp | cgra.StoreOp]] = {}
        for op in placed:
            if isinstance(op, cgra.LoadOp | cgra.StoreOp):
                accesses.setdefault(op.memory, []).append(op)
        for op in placed:
            if not isinstance(op, cgra.LoadOp | cgra.StoreOp) or op.memory in buffers:
                continue
            memory = op.memory
            key = buffers[memory] = f"b{len(buffers)}"
            uses = accesses[memory]
            source = self.frame(ctx.slot(memory))
            rank = len(op.indices)
            if isinstance(memory.type, SpadType):
                top = max(o.slot.value.data for o in uses)  # type: ignore[union-attr]
                c, p = self.made(("C", "P"), _make_tile_preparer, None, top)
                prepares += [
                    f"a = {source}",
                    f"t = {c}[1] if a is {c}[0] else {p}(a)",
                    "if t is None:",
                    "    return REFERENCE(fr)",
                    f"{key}_rows, {key}_base, {key}_slots, {key}_spad, {key}_data, {key}_full = t",
                ]
            elif isinstance(memory.type, region.RegionType):
                used_slots = sorted({o.slot.value.data for o in uses})  # type: ignore[union-attr]
                self.made(("C",), _make_cache, None)  # unused: kept for the names that follow
                strides = ", ".join(f"{key}_s{d}" for d in range(rank + 1))
                extents = "".join(f"{key}_e{d}, " for d in range(rank))
                prepares += [
                    f"t = _prepare_region(LAYOUTS, TRACE, {source}, {rank}, {used_slots[-1]})",
                    "if t is None:",
                    "    return REFERENCE(fr)",
                    f"{key}_flat, {key}_written, {strides}, {extents}{key}_p = t",
                    f"{key}_pw = {key}_p + 2",
                    *(f"{key}_o{s} = {s} * {key}_s{rank}" for s in used_slots),
                ]
            else:
                assert isinstance(memory.type, MemRefType)
                write = any(isinstance(o, cgra.StoreOp) for o in uses)
                strides = "".join(f"{key}_s{d}, " for d in range(rank))
                extents = "".join(f"{key}_e{d}, " for d in range(rank))
                c, p = self.made(("C", "P"), _make_memref_preparer, None, rank, write)
                prepares += [
                    f"a = {source}",
                    f"t = {c}[1] if a is {c}[0] else {p}(a)",
                    "if t is None:",
                    "    return REFERENCE(fr)",
                    f"{key}_flat, {key}_o, {strides}{extents}{key}_p = t",
                    f"{key}_pw = {key}_p + 2",
                ]

        # Outside values are invariant before they are named; accesses that
        # may share their index.
        inside = self.inside = {v for o in placed for v in o.results} | set(block_args)
        self.invariant |= {v for o in placed for v in o.operands if v not in inside}
        for o in placed:
            if isinstance(o, cgra.LoadOp | cgra.StoreOp):
                share = (buffers[o.memory], self.offset(o, buffers), tuple(o.indices))
                self.uses[share] = self.uses.get(share, 0) + 1
        for op in placed:
            if isinstance(op, cgra.ComputeOp):
                self.compute(op)
            else:
                assert isinstance(op, cgra.LoadOp | cgra.StoreOp)
                self.memory(op, buffers)
        # Kernel results are what its yield yields; the loop carries what the
        # scf.yield yields.
        for result, value in zip(kernel.results, kernel_yield.operands, strict=True):
            self.names[result] = self.name(value)
        if loop_yield is not None:
            yielded = [self.name(v) for v in loop_yield.operands]
            if carried:
                self.body.append(f"    {', '.join(carried)}, = {', '.join(yielded)},")
        if once:
            lb = ub = st = -1
            inits: list[int] = []
            results = [self.names[r] for r in kernel.results]
        else:
            lb, ub, st, *inits = self.ins
            results = carried
        loop_lines = [f"for {iv} in trips:", *(self.body or ["    pass"])]
        deferred = DEFER and not once and any(t[3] is not None or t[4] for t in self.traced)
        if deferred:
            # Affine or computed addresses: the run is recorded after the loop, as one block.
            affine = {
                n
                for n, t in zip(self.records, self.traced, strict=True)
                if t[3] is not None or t[4] is not None
            }
            records = set(self.records)
            loop_lines = self.deferred(
                iv,
                [
                    line.replace("app(", "_va(", 1) if n - 1 in records else line
                    for n, line in enumerate(loop_lines)
                    if n - 1 not in affine
                ],
            )
        else:
            loop_lines = [line for line in loop_lines if not line.lstrip().startswith("_j = ")]
        self.env.update(_run_env(ctx, loop, self.env["REFERENCE"]))
        head = (
            ["def kernel_loop(fr):", "    return _run(fr, (0,))"]
            if once
            else [
                "def kernel_loop(fr):",
                *(
                    [
                        f"    if {self.frame(st)} <= 0:",
                        f"        raise NONPOSITIVE({self.frame(st)})",
                    ]
                    if not positive_constant(loop.step)  # type: ignore[union-attr]
                    else []
                ),
                f"    trips = range({self.frame(lb)}, {self.frame(ub)}, {self.frame(st)})",
                "    if trips:",
                "        return _run(fr, trips)",
                *(
                    f"    {self.frame(o)} = {self.frame(i)}"
                    for o, i in zip(self.outs, inits, strict=False)
                ),
            ]
        )
        lines = [
            *head,
            "",
            "def _run(fr, trips):",
            *(
                [f"    if not ({guard}):", "        return REFERENCE(fr)"]
                if (guard := self.bounds.condition()) is not None
                else []
            ),
            *("    " + line for line in prepares),
            "    STATS = STATE.stats",
            *(["    app = TRACE.packed.append"] if self.records and not deferred else []),
            *("    " + line for line in self.prologue),
            *("    " + line for line in self.hoisted),
            *(f"    {c} = {self.frame(i)}" for c, i in zip(carried, inits, strict=False)),
            *("    " + line for line in loop_lines),
            *(f"    {self.frame(o)} = {c}" for o, c in zip(self.outs, results, strict=False)),
        ]
        if self.float_ops:
            lines.append(f"    STATE.ops_executed += {self.float_ops} * len(trips)")
        # The functions are made by `_bind`, which binds the slots' names (the
        # closure's cells read as fast as constants).
        bound = ", ".join(self.frame_slots.values())
        lines = [f"def _bind({bound}):", *("    " + line for line in lines)]
        lines.append("    return kernel_loop")
        source = "\n".join(lines) + "\n"
        filename = "<kernel>" if once else "<kernel loop>"  # no id: alike kernels share it
        if kept is not None:
            template = _Template.of(self, source, filename)
            if template is not None:
                _TEMPLATES[kept] = template
                while len(_TEMPLATES) > _TEMPLATES_KEPT:
                    _TEMPLATES.popitem(last=False)
        return _made_step(source, filename, dict(self.env), list(self.frame_slots))


def _columns_of(expr: Expr | None, columns: dict[str, int]) -> Expr | None:
    """`expr` with its names (and the induction variable's first value,
    `trips.start`) given record columns, added to `columns` as needed."""
    if expr is None:
        return None
    if expr[0] == "col":
        return ("col", columns.setdefault(expr[1], len(columns)))
    if expr[0] == "iv":
        columns.setdefault("trips.start", len(columns))
        return expr
    return tuple(_columns_of(e, columns) if isinstance(e, tuple) else e for e in expr)


def compile_straight_kernel(
    ctx: CompileContext, kernel: cgra.KernelOp, outs: list[int], reference: Step
) -> Step:
    """The fast step of a kernel run once where it stands (not `is_kernel_loop`'s
    body): its body as a kernel loop of one trip; `reference` as for
    `compile_kernel_loop`."""
    return _KernelLoopSource(ctx, kernel, [], outs, reference).build()


def compile_kernel_loop(
    ctx: CompileContext,
    loop: scf.ForOp,
    ins: list[int],
    outs: list[int],
    reference: Step,
) -> Step:
    """The fast step of a kernel loop (`is_kernel_loop`); `reference` is its
    closure step (typically `Lazy`), used when a run of the loop cannot take
    the fast path."""
    return _KernelLoopSource(ctx, loop, ins, outs, reference).build()


__all__ = ["Lazy", "compile_kernel_loop", "compile_straight_kernel", "is_kernel_loop"]
