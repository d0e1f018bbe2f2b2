"""
The executor's fast path for kernel loops: each `scf.for` whose body is one
`cgra.kernel` (and the `scf.yield`) is turned into the source of one Python
function, exec'd once when the executor compiles the function around it.

Why: nearly all the dynamic ops of a gradient run inside kernel loops, and the
closure executor spends most of its time there on interpretation (one closure
call per op, frame-list indexing, rebuilding index tuples, numpy scalar boxing,
and a trace record per access that looks up the buffer every time). The
generated function does the same work with Python locals:

- the loop is a plain `for iv in range(lb, ub, step)`; SSA values are local
  variables; values defined outside the loop are read from the frame once;
- a placed op is its arithmetic inline (`a + b`, `a * b`, a comparison) or one
  call of the executor's own scalar helper (`_div`, `_maximumf`, ...), so every
  value is the one the closure executor computes, bit for bit;
- a buffer (memref view or region) is located once per run of the loop: its
  owner's elements as a flat memoryview, the view's offset and strides in
  elements, its shape and its simulated base address. An access is then one
  flat index `k = offset + i*s0 + j*s1`, one element read or write, and one
  trace append of `(k << 5) + packed_base` (address `base + 8k`, see
  `MemoryTrace.packed`);
- scratchpad tiles and regions keep every check of the closure executor (tile
  bounds, full/empty bits, written masks), in the same order.

Anything unusual falls back to the closure executor, which stays the
reference: if a buffer cannot be located (an unexpected dtype, a read-only
array, a freed region, a slot outside a tile...) the whole loop run is done by
the closure step; if one access is out of range or reads an entry nobody wrote,
that single op is done by its closure step, which raises the same error (a
negative memref index included) and records the same trace entry. `Executor(fast=False)` never uses this module;
test/sim/test_fast_path.py checks that both paths give identical outputs,
traces and reports.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType
from xdsl.ir import Operation, SSAValue

from sim.layouts import (
    FLAT,
    OFFSET,
    OWNER,
    STRIDES,
    Layouts,
    packed_base,
    prepare_memref,
)
from tapeflow_dialects import cgra, region
from tapeflow_dialects.layer import SpadType

if TYPE_CHECKING:
    from sim.executor import Executor

Frame = list[Any]
Step = Callable[[Frame], None]


# ------------------------------------------------------- run-time preparation
# Called when a compiled loop starts (and runs at least once), in the order the
# loop body first touches each buffer, so simulated bases are handed out in the
# same order as the closure executor's trace records them. None: use the
# closure step for this run of the loop. (Memrefs: `sim.layouts.prepare_memref`.)


def _prepare_region(
    layouts: Layouts, trace: Any, store: Any, rank: int, top_slot: int
) -> tuple[Any, ...] | None:
    from sim.executor import _Region

    if not isinstance(store, _Region) or store.freed:
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
    from sim.executor import _Tile

    if not isinstance(tile, _Tile) or not top_slot < tile.slots:
        return None
    spad = tile.spad
    return (tile.rows, tile.base, tile.slots, spad, spad.data, memoryview(spad.full))


# ----------------------------------------------------------- code generation
_INLINE_BINARY = {
    "arith.addf": "{a} + {b}",
    "arith.subf": "{a} - {b}",
    "arith.mulf": "{a} * {b}",
    "arith.addi": "{a} + {b}",
    "arith.subi": "{a} - {b}",
    "arith.muli": "{a} * {b}",
    "arith.andi": "{a} & {b}",
    "arith.ori": "{a} | {b}",
    "arith.xori": "{a} ^ {b}",
    "arith.shli": "{a} << {b}",
    "arith.shrsi": "{a} >> {b}",
    # max(a, b) and min(a, b) of two: the first unless the second is larger
    # (smaller).
    "arith.maxsi": "{b} if {b} > {a} else {a}",
    "arith.maxui": "{b} if {b} > {a} else {a}",
    "arith.minsi": "{b} if {b} < {a} else {a}",
    "arith.minui": "{b} if {b} < {a} else {a}",
}
"""Ops whose closure applies `operator.add` (etc.) or `max`/`min` to two operands."""

_INLINE_CMPF = {
    1: "{a} == {b}", 2: "{a} > {b}", 3: "{a} >= {b}", 4: "{a} < {b}", 5: "{a} <= {b}",
    9: "not ({a} <= {b})", 10: "not ({a} < {b})", 11: "not ({a} >= {b})",
    12: "not ({a} > {b})", 13: "{a} != {b}",
}
"""`_CMPF` predicates that are one comparison (the same expression as its lambda)."""

_INLINE_CMPI = {
    0: "{a} == {b}", 1: "{a} != {b}", 2: "{a} < {b}", 3: "{a} <= {b}", 4: "{a} > {b}",
    5: "{a} >= {b}", 6: "{a} < {b}", 7: "{a} <= {b}", 8: "{a} > {b}", 9: "{a} >= {b}",
}
"""`_CMPI`: the closure executor compares unsigned predicates as signed, so do we."""


_TO_INT = ("arith.index_cast", "arith.fptosi", "arith.fptoui")
_TO_FLOAT = ("arith.sitofp", "arith.uitofp", "arith.extf", "arith.truncf")
"""Casts: the closure executor's int() and float()."""


def scalar_lines(
    opcode: str,
    props: dict[str, Any],
    args: list[str],
    target: str,
    constant: Callable[[Any, str], str],
) -> list[str] | None:
    """
    Python statements computing the scalar op `opcode` (with properties `props`)
    of the operand expressions `args` into `target`, with exactly the semantics of
    the closure executor: the same Python operator, or a call of the same helper
    (`constant(value, hint)` names a value the generated code can use). None if
    the op is not one of these (the caller then runs its closure).
    """
    from sim.executor import _CMPF, _FLOAT_BINARY, _FLOAT_UNARY, _INT_BINARY

    a = args[0] if args else ""
    b = args[1] if len(args) > 1 else ""
    if opcode == "arith.divf" and len(args) == 2:
        # _div: a / b, or its IEEE result when Python raises.
        div = constant(_FLOAT_BINARY[opcode], "F")
        return [
            "try:",
            f"    {target} = {a} / {b}",
            "except ZeroDivisionError:",
            f"    {target} = {div}({a}, {b})",
        ]
    if opcode == "math.exp" and len(args) == 1:
        # _exp: math.exp, or inf when it overflows.
        exp, inf = constant(math.exp, "F"), constant(math.inf, "C")
        return [
            "try:",
            f"    {target} = {exp}({a})",
            "except OverflowError:",
            f"    {target} = {inf}",
        ]
    expr: str | None = None
    if opcode in _INLINE_BINARY and len(args) == 2:
        expr = _INLINE_BINARY[opcode].format(a=a, b=b)
    elif opcode == "arith.negf" and len(args) == 1:
        expr = f"-{a}"
    elif opcode in _FLOAT_BINARY and len(args) == 2:
        expr = f"{constant(_FLOAT_BINARY[opcode], 'F')}({a}, {b})"
    elif opcode in _FLOAT_UNARY and len(args) == 1:
        expr = f"{constant(_FLOAT_UNARY[opcode], 'F')}({a})"
    elif opcode in _INT_BINARY and len(args) == 2:
        expr = f"{constant(_INT_BINARY[opcode], 'F')}({a}, {b})"
    elif opcode == "arith.cmpf" and "predicate" in props and len(args) == 2:
        predicate = props["predicate"].value.data
        if predicate in _INLINE_CMPF:
            expr = _INLINE_CMPF[predicate].format(a=a, b=b)
        elif predicate in _CMPF:
            expr = f"{constant(_CMPF[predicate], 'F')}({a}, {b})"
    elif opcode == "arith.cmpi" and "predicate" in props and len(args) == 2:
        template = _INLINE_CMPI.get(props["predicate"].value.data)
        expr = template.format(a=a, b=b) if template else None
    elif opcode == "arith.select" and len(args) == 3:
        expr = f"{b} if {a} else {args[2]}"
    elif opcode in _TO_INT and len(args) == 1:
        expr = f"int({a})"
    elif opcode in _TO_FLOAT and len(args) == 1:
        expr = f"float({a})"
    return None if expr is None else [f"{target} = {expr}"]


_HOISTABLE = {
    "arith.addf", "arith.subf", "arith.mulf", "arith.negf", "arith.addi", "arith.subi",
    "arith.muli", "arith.andi", "arith.ori", "arith.xori", "arith.maxsi", "arith.maxui",
    "arith.minsi", "arith.minui", "arith.select", "arith.cmpi",
}
"""Ops that `scalar_lines` makes into one operator expression that cannot raise
(on the ints and floats they get), so computing them once before a loop is the
same as in every iteration."""


def _hoistable(opcode: str, props: dict[str, Any]) -> bool:
    if opcode == "arith.cmpf":
        return "predicate" in props and props["predicate"].value.data in _INLINE_CMPF
    return opcode in _HOISTABLE


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

    __slots__ = ("_make", "_step", "_slots")

    def __init__(self, make: Callable[[], Step], slots: dict[SSAValue, int]):
        self._make = make
        self._step: Step | None = None
        self._slots = slots

    def __call__(self, fr: Frame) -> None:
        if self._step is None:
            self._step = self._make()
        if len(fr) < len(self._slots):
            fr.extend([None] * (len(self._slots) - len(fr)))
        self._step(fr)


class _KernelLoopSource:
    """Builds the source of one kernel loop's function; see the module docstring."""

    def __init__(
        self,
        executor: Executor,
        loop: scf.ForOp,
        slots: dict[SSAValue, int],
        ins: list[int],
        outs: list[int],
        reference: Step,
    ):
        self.executor = executor
        self.loop = loop
        self.slots = slots
        self.ins = ins
        self.outs = outs
        self.env: dict[str, Any] = {"REFERENCE": reference}
        self.prologue: list[str] = []
        self.body: list[str] = []
        self.names: dict[SSAValue, str] = {}
        self.local: set[SSAValue] = set()
        """Values defined inside the loop (their frame slots are stale)."""
        self.float_ops = 0
        self.tracing = executor.trace is not None
        self.invariant: set[SSAValue] = set()
        """Values with one value for the whole loop run: defined outside it, or
        computed from such values by ops hoisted before the loop."""
        self.hoisted: list[str] = []
        self.addresses: dict[tuple[Any, ...], tuple[str, str]] = {}
        self.uses: dict[tuple[Any, ...], int] = {}

    # ------------------------------------------------------------- helpers
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
            self.prologue.append(f"{name} = fr[{self.executor._slot(self.slots, value)}]")
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
        executor, slots = self.executor, self.slots

        def make() -> Step:
            executor._in_kernel += 1
            try:
                return executor._op(op, slots)
            finally:
                executor._in_kernel -= 1

        step_name = self.constant(Lazy(make, slots) if lazy else make(), "R")
        lines = [
            f"{indent}fr[{executor._slot(self.slots, v)}] = {self.names[v]}"
            for v in dict.fromkeys(op.operands)
            if v in self.local
        ]
        lines.append(f"{indent}{step_name}(fr)")
        lines += [
            f"{indent}{self.define(r)} = fr[{executor._slot(self.slots, r)}]" for r in op.results
        ]
        return lines

    # ---------------------------------------------------------------- ops
    def compute(self, op: cgra.ComputeOp) -> None:
        from sim.executor import _FLOAT_BINARY, _FLOAT_UNARY

        opcode = op.opcode.data
        args = [self.name(a) for a in op.args]
        props = op.attrs.data if op.attrs is not None else {}
        lines = None
        if len(op.res) == 1:
            target = f"v{len(self.names)}"  # what define() names it
            lines = scalar_lines(opcode, props, args, target, self.constant)
        if lines is None:
            self.body += self.closure(op, "    ")  # counts itself in ops_executed
            return
        self.define(op.res[0])
        if opcode in _FLOAT_BINARY or opcode in _FLOAT_UNARY:
            self.float_ops += 1  # the closure executor's ops_executed
        if _hoistable(opcode, props) and all(a in self.invariant for a in op.args):
            # The same value in every iteration, and it cannot raise: once.
            self.hoisted += lines
            self.invariant.add(op.res[0])
            return
        self.body += ["    " + line for line in lines]

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
        cond = " and ".join(
            [f"ok{n}"] * bool(fixed) + [f"0 <= {self.name(v)} < {extent(d)}" for d, v in moving]
        ) or "True"
        if not moving:  # the same element in every iteration
            self.addresses[share] = (cond, base)
            return cond, base, []
        k = f"k{n}"
        line = f"{k} = {base} + " + " + ".join(f"{self.name(v)} * {stride(d)}" for d, v in moving)
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
        if isinstance(mtype, SpadType):
            slot = op.slot.value.data  # type: ignore[union-attr]
            cond, w, lines = self.address(key, self.offset(op, buffers), list(op.indices), row=True)
            self.body += [f"    if {cond}:", *("        " + line for line in lines)]
            entry = f"{w} + {slot}" if slot else w
            if is_load:
                conv = self._scalar(op.result.type)
                out = self.names[op.result]  # defined by the fallback
                self.body += [
                    f"        if {key}_full[{entry}]:",
                    f"            {out} = {conv}({key}_data[{entry}])",
                    "        else:",
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
            self.body += ["    else:", *fallback]
            return
        cond, k, lines = self.address(key, self.offset(op, buffers), list(op.indices))
        self.body += [f"    if {cond}:", *("        " + line for line in lines)]
        packed = f"{key}_pw" if not is_load else f"{key}_p"
        record = [f"        app(({k} << 5) + {packed})"] if self.tracing else []
        if isinstance(mtype, region.RegionType):
            if is_load:
                read = f"{key}_flat[{k}]"
                conv = self._scalar(op.result.type)
                if conv != "float" or any(
                    isinstance(t, IndexType | IntegerType) for t in mtype.slot_types()
                ):
                    read = f"{conv}({read})"  # else a float64 memoryview gives floats
                out = self.names[op.result]
                self.body += [
                    f"        if {key}_written[{k}]:",
                    *["    " + line for line in record],
                    f"            {out} = {read}",
                    "        else:",
                    *["    " + line for line in fallback],
                ]
            else:
                self.body += [
                    *record,
                    f"        {key}_flat[{k}] = {self.name(op.value)}",
                    f"        {key}_written[{k}] = True",
                ]
        elif is_load:
            self.body += [*record, f"        {self.names[op.result]} = {key}_flat[{k}]"]
        else:
            self.body += [*record, f"        {key}_flat[{k}] = {self.name(op.value)}"]
        self.body += ["    else:", *fallback]

    def _scalar(self, value_type: object) -> str:
        """The closure executor's `_python_scalar` for a loaded value, by name."""
        if isinstance(value_type, IntegerType) and value_type.width.data == 1:
            return "bool"
        if isinstance(value_type, IndexType | IntegerType):
            return "int"
        return "float"

    # ---------------------------------------------------------------- all
    def build(self) -> Step:
        executor, loop = self.executor, self.loop
        kernel, loop_yield = list(loop.body.block.ops)
        assert isinstance(kernel, cgra.KernelOp)
        placed = list(kernel.body.block.ops)
        kernel_yield = placed.pop()
        block = loop.body.block
        # Every value of the loop gets its frame slot now, so that compiling a
        # closure later (Lazy) does not need new ones.
        for o in loop.walk():
            args = [a for r in o.regions for b in r.blocks for a in b.args]
            for v in (*o.operands, *o.results, *args):
                executor._slot(self.slots, v)
        iv = self.define(block.args[0])
        carried = [self.define(a) for a in block.args[1:]]

        # Buffers, in the order the body first touches them.
        buffers: dict[SSAValue, str] = {}
        prepares: list[str] = []
        for op in placed:
            if not isinstance(op, cgra.LoadOp | cgra.StoreOp) or op.memory in buffers:
                continue
            memory = op.memory
            key = buffers[memory] = f"b{len(buffers)}"
            uses = [
                o for o in placed
                if isinstance(o, cgra.LoadOp | cgra.StoreOp) and o.memory is memory
            ]
            source = f"fr[{executor._slot(self.slots, memory)}]"
            rank = len(op.indices)
            cache: list[Any] = [None, None]  # the last object seen here, prepared
            c = self.constant(cache, "C")
            if isinstance(memory.type, SpadType):
                top = max(o.slot.value.data for o in uses)  # type: ignore[union-attr]

                def prepare_tile(tile: Any, top: int = top, cache: list[Any] = cache) -> Any:
                    cache[1] = _prepare_tile(tile, top)
                    cache[0] = tile
                    return cache[1]

                p = self.constant(prepare_tile, "P")
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

                def prepare(
                    arr: Any, rank: int = rank, write: bool = write, cache: list[Any] = cache
                ) -> Any:
                    cache[1] = prepare_memref(executor._layouts, executor.trace, arr, rank, write)
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
        inside = {v for o in placed for v in o.results} | set(block.args)
        self.invariant |= {
            v for o in placed for v in o.operands if v not in inside
        }
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
        yielded = [self.name(v) for v in loop_yield.operands]
        if carried:
            self.body.append(f"    {', '.join(carried)}, = {', '.join(yielded)},")

        lb, ub, st, *inits = self.ins
        self.env.update(
            _prepare_region=_prepare_region,
            _prepare_tile=_prepare_tile,
            LAYOUTS=executor._layouts,
            TRACE=executor.trace,
            EXECUTOR=executor,
        )
        lines = [
            "def kernel_loop(fr):",
            f"    trips = range(fr[{lb}], fr[{ub}], fr[{st}])",
            "    if trips:",
            "        return _run(fr, trips)",
            *(f"    fr[{o}] = fr[{i}]" for o, i in zip(self.outs, inits)),
            "",
            "def _run(fr, trips):",
            *("    " + line for line in prepares),
            "    STATS = EXECUTOR.stats",
            *(["    app = TRACE.packed.append"] if self.tracing else []),
            *("    " + line for line in self.prologue),
            *("    " + line for line in self.hoisted),
            *(f"    {c} = fr[{i}]" for c, i in zip(carried, inits)),
            f"    for {iv} in trips:",
            *("    " + line for line in self.body),
            *(f"    fr[{o}] = {c}" for o, c in zip(self.outs, carried)),
        ]
        if self.float_ops:
            lines.append(f"    EXECUTOR.ops_executed += {self.float_ops} * len(trips)")
        source = "\n".join(lines) + "\n"
        namespace = dict(self.env)
        filename = f"<kernel loop {kernel.id.value.data}>"
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own generated code
        step = namespace["kernel_loop"]
        step.source = source  # for debugging: print(step.source)
        return step  # type: ignore[no-any-return]


def compile_kernel_loop(
    executor: Executor,
    loop: scf.ForOp,
    slots: dict[SSAValue, int],
    ins: list[int],
    outs: list[int],
    reference: Step,
) -> Step:
    """The fast step of a kernel loop (`is_kernel_loop`); `reference` is its
    closure step (typically `Lazy`), used when a run of the loop cannot take
    the fast path."""
    return _KernelLoopSource(executor, loop, slots, ins, outs, reference).build()


__all__ = ["Lazy", "compile_kernel_loop", "is_kernel_loop", "scalar_lines"]
