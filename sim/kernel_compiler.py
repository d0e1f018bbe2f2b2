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

A kernel loop of many placed ops (a fully unrolled body) runs its first
iterations from a table of steps (`sim.kernel_table`), and its source is
generated only if it runs on.

Why it pays, how the generated code locates buffers and hoists invariants, and
how it defers the trace: docs/research/executor.md, "Kernel loops as generated
Python".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, MemRefType
from xdsl.ir import Operation, SSAValue

from sim.bounds import Bound, Bounds, constant_bits, is_integer, positive_constant
from sim.compile_context import CompileContext, Frame, Lazy, Step, compiled_code, slot_values
from sim.errors import ExecutionError, nonpositive_step, undefined
from sim.kernel_loops import kernel_parts
from sim.layouts import (
    prepare_memref,
    prepare_region,
    prepare_tile,
)
from sim.storage import python_scalar_name
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
TABLE = True
"""Large kernels start from a table of steps (`sim.kernel_table`)."""
_AFFINE_OPCODES = ("arith.addi", "arith.subi", "arith.muli")
"""The integer ops an affine or computed index is made of (without wrap-around)."""
_INT_CAST = ("{t} = int({a})",)
"""The template of an integer cast that keeps the value (`affine`, `computed`)."""
_COMPUTED_OPCODES = ("arith.cmpi", "arith.select")
"""The ops `computed` follows besides the affine ones and the casts."""
Slope = dict[tuple[str, ...], int]
"""An affine value's change per unit of the induction variable: a sum of
products of loop-invariant names (the generated code's) by integers, as
{sorted names: coefficient}; {} for an invariant."""


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


def _fallback(step: Step, ins: tuple[int, ...], outs: tuple[int, ...]) -> Callable[..., Any]:
    """An op's closure `step` as the generated code calls it, in one statement:
    the locals it reads (`ins`'s slots, in order) go to their frame slots, and
    its results come back from `outs`' (one value for one result, else a
    tuple). A fully unrolled kernel has thousands of these, and the statements
    the generated code would otherwise spend on each are most of what there is
    to compile."""
    if len(outs) == 1:
        (out,) = outs

        def one(fr: Frame, *values: Any) -> Any:
            for slot, value in zip(ins, values, strict=True):
                fr[slot] = value
            step(fr)
            return fr[out]

        return one

    def many(fr: Frame, *values: Any) -> tuple[Any, ...]:
        for slot, value in zip(ins, values, strict=True):
            fr[slot] = value
        step(fr)
        return tuple(fr[o] for o in outs)

    return many


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
        self.offsets: dict[Operation, str] = {}
        """Each access's `offset`."""
        self.hoisted_as: dict[str, str] = {}
        """The name of each hoisted address line (`hoist`), by its text."""
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

        def make() -> Step:
            with ctx.kernel_scope():
                return ctx.step(op)

        local = [v for v in dict.fromkeys(op.operands) if v in self.local]
        call = self.constant(
            _fallback(
                Lazy(make, ctx) if lazy else make(),
                tuple(ctx.slot(v) for v in local),
                tuple(ctx.slot(r) for r in op.results),
            ),
            "R",
        )
        args = "".join(f", {self.names[v]}" for v in local)
        results = "".join(f"{self.define(r)}, " for r in op.results)
        if len(op.results) == 1:
            results = results[:-2]
        return [f"{indent}{results}{' = ' * bool(results)}{call}(fr{args})"]

    # ---------------------------------------------------------------- ops
    def compute(self, op: cgra.ComputeOp) -> None:
        """A placed scalar op: the semantics table's statements for it, inline."""
        properties = op.properties
        opcode = properties["opcode"].data  # type: ignore[attr-defined]
        attrs = properties.get("attrs")
        props = attrs.data if attrs is not None else {}  # type: ignore[attr-defined]
        # A compute op's operands and results are its args and res (xDSL's
        # named accessors take time: a fully unrolled kernel has tens of thousands).
        operands, results = op.operands, op.results
        entry = scalar(opcode, [a.type for a in operands], [r.type for r in results], props)
        if entry is None:
            self.body += [self.progress("    "), *self.closure(op, "    ")]  # counts its ops
            return
        res = results[0]
        names, name = self.names, self.name
        args = [names[a] if a in names else name(a) for a in operands]
        bits: list[int | None] = []
        if entry.growth is not None:  # an integer result: use what bounds show
            bits, result = self.bounds.lines_of(entry, [self.bound(a) for a in operands])
            self.bounds.set(res, result)
        lines = entry.render(self.define(res), args, self.constant, bits)
        if self.tracing:
            # `affine` and `computed` find nothing in an op of another kind, a
            # float op's above all (checked here first: most ops are).
            cast = entry.lines == _INT_CAST
            exact = bool(bits)
            if cast or (exact and opcode in _AFFINE_OPCODES):
                slope = self.affine(opcode, operands, entry, exact)
                if slope is not None:
                    self.slopes[res] = slope
            if cast or opcode in _COMPUTED_OPCODES or (exact and opcode in _AFFINE_OPCODES):
                expr = self.computed(op, operands, res, entry, exact)
                if expr is not None:
                    self.exprs[res] = expr
        if entry.counted:
            self.float_ops += 1  # the closure executor's ops_executed
        if not entry.total:
            # Undefined behaviour (division by zero...) is reported at the op,
            # as its closure reports it.
            fault = self.constant(lambda err: undefined(op, opcode, err), "U")
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

    def hoist(self, name: str, expression: str) -> str:
        """`name = expression` computed once before the loop; the name of an
        earlier hoisted line of the same text if there is one. Every name the
        text reads is bound once before the loop, so equal texts are equal
        values (a fully unrolled body repeats the invariant part of its
        accesses' indices thousands of times)."""
        known = self.hoisted_as.get(expression)
        if known is None:
            known = self.hoisted_as[expression] = name
            self.hoisted.append(f"{name} = {expression}")
        return known

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
        ok: list[str] = []
        if fixed:
            terms = " + ".join(f"{self.name(v)} * {stride(d)}" for d, v in fixed)
            base = self.hoist(f"h{n}", f"{offset} + {terms}")
            ok = [self.hoist(f"ok{n}", " and ".join(checks))]
        cond = (
            " and ".join(ok + [f"0 <= {self.name(v)} < {extent(d)}" for d, v in moving]) or "True"
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
        memory = op.memory
        key = buffers[memory]
        mtype = memory.type
        if isinstance(mtype, SpadType):
            return f"{key}_base"
        if isinstance(mtype, region.RegionType):
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
            cond, w, lines = self.address(key, self.offsets[op], list(op.indices), row=True)
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
        cond, k, lines = self.address(key, self.offsets[op], indices)
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
        if entry.lines == _INT_CAST:
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
        if entry.lines == _INT_CAST:
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
        trace = self.ctx.trace
        assert trace is not None
        runs, entries = trace.defer(record)
        r, e, d = self.constant(runs, "T"), self.constant(entries, "V"), self.constant(record, "D")
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
        once = isinstance(loop, cgra.KernelOp)  # a kernel run once: a loop of one trip
        kernel, loop_yield, block_args, placed, kernel_yield = kernel_parts(loop)
        # Every value of the loop gets its frame slot now, so that compiling a
        # closure later (Lazy) does not need new ones.
        slot_values(ctx.slot, loop.walk())
        iv = "_once" if once else self.define(block_args[0])
        carried = [self.define(a) for a in block_args[1:]]

        # Buffers, in the order the body first touches them.
        buffers: dict[SSAValue, str] = {}
        prepares: list[str] = []
        accesses: dict[SSAValue, list[cgra.LoadOp | cgra.StoreOp]] = {}
        # The body's accesses (and whether each op is one), told apart once.
        is_access = [isinstance(op, cgra.LoadOp | cgra.StoreOp) for op in placed]
        memory_ops = [op for op, access in zip(placed, is_access, strict=True) if access]
        for op in memory_ops:
            accesses.setdefault(op.memory, []).append(op)
        for op in memory_ops:
            if op.memory in buffers:
                continue
            memory = op.memory
            key = buffers[memory] = f"b{len(buffers)}"
            uses = accesses[memory]
            source = self.frame(ctx.slot(memory))
            rank = len(op.indices)
            cache: list[Any] = [None, None]  # the last object seen here, prepared
            c = self.constant(cache, "C")
            if isinstance(memory.type, SpadType):
                top = max(o.slot.value.data for o in uses)  # type: ignore[union-attr]

                def prepare_cached(tile: Any, top: int = top, cache: list[Any] = cache) -> Any:
                    cache[1] = prepare_tile(tile, top)
                    cache[0] = tile
                    return cache[1]

                p = self.constant(prepare_cached, "P")
                prepares += [
                    f"a = {source}",
                    f"t = {c}[1] if a is {c}[0] else {p}(a)",
                    "if t is None:",
                    "    return REFERENCE(fr)",
                    f"{key}_rows, {key}_base, {key}_slots, {key}_spad, {key}_data, {key}_full = t",
                ]
            elif isinstance(memory.type, region.RegionType):
                used_slots = sorted({o.slot.value.data for o in uses})  # type: ignore[union-attr]
                strides = ", ".join(f"{key}_s{d}" for d in range(rank + 1))
                extents = "".join(f"{key}_e{d}, " for d in range(rank))
                prepares += [
                    f"t = prepare_region(LAYOUTS, TRACE, {source}, {rank}, {used_slots[-1]})",
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

                def prepare(
                    arr: Any, rank: int = rank, write: bool = write, cache: list[Any] = cache
                ) -> Any:
                    cache[1] = prepare_memref(ctx.layouts, ctx.trace, arr, rank, write)
                    cache[0] = arr
                    return cache[1]

                p = self.constant(prepare, "P")
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
        for o in memory_ops:
            offset = self.offsets[o] = self.offset(o, buffers)
            share = (buffers[o.memory], offset, tuple(o.indices))
            self.uses[share] = self.uses.get(share, 0) + 1
        for op, access in zip(placed, is_access, strict=True):
            if access:
                self.memory(op, buffers)  # type: ignore[arg-type]
            else:
                assert isinstance(op, cgra.ComputeOp)
                self.compute(op)
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
        self.env.update(
            prepare_region=prepare_region,
            prepare_tile=prepare_tile,
            LAYOUTS=ctx.layouts,
            TRACE=ctx.trace,
            STATE=ctx.state,
            NONPOSITIVE=lambda step: nonpositive_step(loop, step),
        )
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
        namespace = dict(self.env)
        filename = "<kernel>" if once else "<kernel loop>"  # no id: alike kernels share it
        exec(compiled_code(source, filename), namespace)  # noqa: S102 - our own generated code
        step = namespace.pop("_bind")(*self.frame_slots)  # not in its globals: no cycle
        step.source = source  # for debugging: print(step.source)
        return step  # type: ignore[no-any-return]


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
    return _table_first(ctx, kernel, [], outs, reference)


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
    return _table_first(ctx, loop, ins, outs, reference)


def _table_first(
    ctx: CompileContext,
    loop: scf.ForOp | cgra.KernelOp,
    ins: list[int],
    outs: list[int],
    reference: Step,
) -> Step:
    """The generated function of `loop`; for a kernel of at least
    `kernel_table.TABLE_OPS` placed ops (every kernel), a step that runs its
    first iterations from a table and makes the function only if the loop runs
    on (`sim.kernel_table`), unless the constant bounds around it say it will
    (`kernel_table.iterations_per_call`)."""
    from sim import kernel_table  # it builds on this module

    def generate() -> Step:
        return _KernelLoopSource(ctx, loop, ins, outs, reference).build()

    if TABLE and kernel_table.placed_count(loop) >= kernel_table.TABLE_OPS:
        foreseen = kernel_table.iterations_per_call(loop) if kernel_table.FORESEEN else None
        if foreseen is None or foreseen < kernel_table.TABLE_ITERATIONS:
            return kernel_table.TableKernel(ctx, loop, ins, outs, reference, generate)
    return generate()


__all__ = ["Lazy", "compile_kernel_loop", "compile_straight_kernel", "is_kernel_loop"]
