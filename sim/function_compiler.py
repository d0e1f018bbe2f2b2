"""
The executor's fast path for whole functions: each function body becomes the
source of one Python function over the closure executor's frame (a list with
one slot per SSA value), exec'd once when the function is first called.
It sees the executor only as a `sim.compile_context.CompileContext`.

`scf.for`, `scf.if`, `layer.layer`, `func.call` and `func.return` become Python
blocks, calls and returns; scalar ops the statements of their semantics-table
entry (`tapeflow_dialects.semantics`); memref accesses use the kernel compiler's
buffer layouts; kernel loops run their compiled functions between the timing
recorder's `kernel_loop` and `end_kernel_loop` (or before its `kernel_ran`);
every other op runs its closure step on the same frame. Each op keeps the
closure executor's order of effects (trace record, REV phase, timing, then the
op); the costs of consecutive ops outside kernels reach the timing recorder in
one call (`TimingRecorder.ops`), which gives the windows the same sums. A memref
access that is out of range, or a buffer the layouts cannot describe, runs the
op's closure step instead. Functions the generator cannot handle (Python's limit
on nested blocks) keep the closures.

Why, and what each construct becomes: docs/research/executor.md, "Function
bodies as generated Python".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from sim.bounds import Bound, Bounds, constant_bits, is_integer, positive_constant
from sim.compile_context import CompileContext, Frame, compiled_code
from sim.errors import ExecutionError, nonpositive_step, undefined
from sim.impls.func import too_deep
from sim.instrument import layer_tile
from sim.kernel_compiler import is_kernel_loop
from sim.layouts import Layouts, prepare_memref
from tapeflow_dialects import cgra, layer, stream, tape
from tapeflow_dialects.enzyme import REV_START
from tapeflow_dialects.memref_views import UnsupportedSubview, subview_geometry
from tapeflow_dialects.semantics import UndefinedBehavior, constant_value, scalar
from targets.costs import kernel_profile


class _Batch:
    """Ops outside kernels whose costs one `TimingRecorder.ops` call reports."""

    def __init__(self, line: int, indent: str):
        self.line = line
        """Where the call goes: the position of the first of them."""
        self.indent = indent
        self.latency = 0
        """Of the ops other than memory accesses."""
        self.access_latency = 0
        """Of the memory accesses."""
        self.fu: dict[str, int] = {}
        self.memory = 0
        self.float_ops = 0
        self.ops = 0


class _FunctionSource:
    def __init__(
        self, ctx: CompileContext, fn: func.FuncOp, closures: Callable[[Frame], tuple[Any, ...]]
    ):
        self.ctx = ctx
        self.fn = fn
        self.bounds = Bounds()
        self.timing = ctx.timing
        self.tracing = ctx.trace is not None
        self.env: dict[str, Any] = {
            "STATE": ctx.state,
            "TRACE": ctx.trace,
            "FUNCTION": ctx.function,
            "ExecutionError": ExecutionError,
            "UndefinedBehavior": UndefinedBehavior,
            "CLOSURES": closures,
        }
        if self.timing is not None:
            self.env.update(
                T_ops=self.timing.ops,
                T_op=self.timing.op,
                T_kernel_loop=self.timing.kernel_loop,
                T_end_kernel_loop=self.timing.end_kernel_loop,
                T_kernel_ran=self.timing.kernel_ran,
                T_rows=self.timing.kernel_rows.extend,
                ACCESSES=self.timing.trace.packed,
                TIMING=self.timing,
                T_set_phase=self.timing.set_phase,
                T_layer=self.timing.layer,
                T_end_layer=self.timing.end_layer,
            )
        self.lines: list[str] = []
        self.batch: _Batch | None = None
        self.count = 0

    # ------------------------------------------------------------- helpers
    def fresh(self, hint: str) -> str:
        self.count += 1
        return f"{hint}{self.count}"

    def constant(self, value: Any, hint: str) -> str:
        name = self.fresh(hint)
        self.env[name] = value
        return name

    def slot(self, value: SSAValue) -> str:
        return f"fr[{self.ctx.slot(value)}]"

    def emit(self, indent: str, *lines: str) -> None:
        self.lines += [indent + line for line in lines]

    def closure(self, op: Operation, indent: str) -> None:
        """Run `op` by its closure step (with its own trace record and timing)."""
        self.emit(indent, f"{self.constant(self.ctx.compiled_step(op), 'S')}(fr)")

    def end_batch(self) -> None:
        batch, self.batch = self.batch, None
        if batch is None or not batch.ops:
            return
        calls = []
        if self.timing is not None:
            if batch.ops == 1 and batch.memory == 0 and len(batch.fu) <= 1:
                (cls,) = batch.fu or [None]
                calls.append(f"T_op({batch.latency}, {cls!r}, None)")
            else:
                calls.append(
                    f"T_ops({batch.latency}, {tuple(batch.fu.items())!r}, {batch.memory}, 0, "
                    f"{batch.access_latency})"
                )
        if batch.float_ops:
            calls.append(f"STATE.ops_executed += {batch.float_ops}")
        self.lines[batch.line] = batch.indent + ("; ".join(calls) or "pass")

    def join_batch(self, indent: str) -> _Batch:
        if self.batch is None:
            self.batch = _Batch(len(self.lines), indent)
            self.lines.append("")  # filled by end_batch
        return self.batch

    def set_phase(self, indent: str) -> None:
        if self.timing is not None:
            self.emit(indent, "T_set_phase('rev')")

    def nonpositive(self, op: scf.ForOp) -> str:
        """The name of what makes the error of a loop run with a step <= 0."""
        return self.constant(lambda step: nonpositive_step(op, step), "N")

    def cost(self, op: Operation) -> tuple[int, str | None, str | None] | None:
        if self.timing is None:
            return None
        cost = self.timing.op_cost(op)
        return None if cost is None else (cost.latency, cost.fu_class, cost.memory)

    # --------------------------------------------------------------- blocks
    def block(self, block: Block, indent: str, terminator: bool = False) -> None:
        """The ops of `block`; its terminator only if asked (a function's return),
        else the caller handles it (yields, barriers)."""
        start = len(self.lines)
        self.end_batch()
        ops = list(block.ops)
        for op in ops if terminator else ops[:-1]:
            self.op(op, indent)
        self.end_batch()
        if len(self.lines) == start:
            self.emit(indent, "pass")

    # ------------------------------------------------------------------ ops
    def op(self, op: Operation, indent: str) -> None:
        rev = REV_START in op.attributes
        if rev:
            # The REV sweep starts here: after the op's trace record, before its
            # timing. Ops run by their closure (memory accesses among them) do it
            # themselves; the others below call set_phase first.
            self.end_batch()
            native = isinstance(op, arith.ConstantOp | memref.DeallocOp | tape.FreeOp)
            if native or isinstance(op, func.ReturnOp | scf.ForOp):
                self.set_phase(indent)
        match op:
            case arith.ConstantOp():
                const = constant_value(op.value)
                assert const is not None  # the closure compiler has refused it already
                text = repr(const)
                if isinstance(const, float) and not math.isfinite(const):
                    text = self.constant(const, "K")  # nan and inf have no literal
                self.emit(indent, f"{self.slot(op.result)} = {text}")
                return
            case memref.DeallocOp() | tape.FreeOp():
                return  # no effect, no cost
            case memref.SubviewOp() if not rev:
                self.subview(op, indent)
                return
            case memref.LoadOp() | memref.StoreOp() if not rev:
                self.memory(op, indent)
                return
            case scf.ForOp():
                self.end_batch()
                if self.ctx.kernel_loop(op) is not None:
                    self.kernel_loop(op, indent)
                elif is_kernel_loop(op):
                    self.closure(op, indent)  # a kernel loop the compiler did not take
                else:
                    self.loop(op, indent)
                return
            case scf.IfOp() if not rev:
                self.end_batch()
                self.branch(op, indent)
                return
            case layer.LayerOp() if not rev and len(op.results) == len(
                op.body.block.last_op.operands  # type: ignore[union-attr]
            ):
                self.end_batch()
                self.layer(op, indent)
                return
            case func.CallOp() if not rev:
                self.end_batch()
                outs = tuple(self.ctx.slot(r) for r in op.results)
                args = ", ".join(self.slot(a) for a in op.operands)
                self.emit(
                    indent,
                    "try:",
                    f"    results = FUNCTION({op.callee.root_reference.data!r})([{args}])",
                    "except RecursionError:",
                    f"    raise ExecutionError({too_deep(op)!r}) from None",
                    f"for s, v in zip({outs!r}, results):",
                    "    fr[s] = v",
                )
                return
            case func.ReturnOp():
                self.end_batch()
                values = "".join(f"{self.slot(v)}, " for v in op.operands)
                self.emit(indent, f"return ({values})")
                return
        entry = None
        if len(op.results) == 1 and not op.regions:
            entry = scalar(
                op.name,
                [v.type for v in op.operands],
                [r.type for r in op.results],
                op.properties,
            )
        if entry is not None:
            bits: list[int | None] = []
            if entry.growth is not None:  # an integer result: use what bounds show
                bits, result = self.bounds.lines_of(entry, [self.bound(a) for a in op.operands])
                self.bounds.set(op.results[0], result)
            lines = entry.render(
                self.slot(op.results[0]), [self.slot(a) for a in op.operands], self.constant, bits
            )
            if not entry.total:
                # Undefined behaviour (division by zero...) is reported at the
                # op, as its closure reports it.
                fault = self.constant(lambda err, op=op: undefined(op, op.name, err), "U")
                lines = [
                    "try:",
                    *("    " + line for line in lines),
                    "except UndefinedBehavior as err:",
                    f"    raise {fault}(err) from None",
                ]
            if rev:
                self.set_phase(indent)
            batch = self.join_batch(indent)
            batch.ops += 1
            cost = self.cost(op)
            if cost is not None:
                latency, cls, _ = cost
                batch.latency += latency
                if cls is not None:
                    batch.fu[cls] = batch.fu.get(cls, 0) + 1
            if entry.counted:
                batch.float_ops += 1
            self.emit(indent, *lines)
            return
        # Anything else runs its closure. Ops that may open or close windows
        # other than through TimingRecorder.op end the batch before them.
        if rev or op.regions or isinstance(op, stream.FwdOp | stream.RevOp | func.CallOp):
            self.end_batch()
        self.closure(op, indent)
        if rev:
            self.end_batch()

    def memory(self, op: memref.LoadOp | memref.StoreOp, indent: str) -> None:
        """A memref access outside kernels; see the module docstring."""
        ctx = self.ctx
        is_load = isinstance(op, memref.LoadOp)
        rank = len(op.indices)
        cost = self.cost(op)
        plain = ctx.plain_step(op)  # no trace record, no timing
        timed_alone = cost is not None and self.batch is None
        if cost is not None and not timed_alone:
            assert self.batch is not None
            self.batch.ops += 1
            self.batch.access_latency += cost[0]
            self.batch.memory += 1
        if timed_alone:
            whole = ctx.compiled_step(op)  # record, timing, op
            timing = [f"T_op({cost[0]}, None, 'cache')"]  # type: ignore[index]
        else:
            whole = plain
            if ctx.trace is not None:
                whole = ctx.traced_step(op, plain)
            timing = []
        cache: list[Any] = [None, None]  # the last buffer this op saw, and its layout

        def prepare(arr: Any, rank: int = rank, write: bool = not is_load) -> Any:
            prepared = prepare_memref(ctx.layouts, ctx.trace, arr, rank, write)
            cache[0], cache[1] = arr, prepared
            return prepared

        c = self.constant(cache, "C")
        p = self.constant(prepare, "P")
        idx = [f"i{d}" for d in range(rank)]
        strides = "".join(f"s{d}, " for d in range(rank))
        extents = "".join(f"e{d}, " for d in range(rank))
        in_range = " and ".join(f"0 <= i{d} < e{d}" for d in range(rank)) or "True"
        flat = " + ".join(["o", *(f"i{d} * s{d}" for d in range(rank))])
        packed = "pb" if is_load else "pb + 2"
        record = [f"app((k << 5) + {packed})"] if self.tracing else []
        if is_load:
            access = f"{self.slot(op.results[0])} = flat[k]"
        else:
            access = f"flat[k] = {self.slot(op.value)}"
        self.emit(
            indent,
            f"a = {self.slot(op.memref)}",
            f"t = {c}[1] if a is {c}[0] else {p}(a)",
            "if t is not None:",
            f"    flat, o, {strides}{extents}pb = t",
            *(f"    {i} = {self.slot(v)}" for i, v in zip(idx, op.indices, strict=False)),
            f"    if {in_range}:",
            f"        k = {flat}",
            *("        " + line for line in [*record, *timing, access]),
            "    else:",
            *("        " + line for line in timing),
            f"        {self.constant(plain, 'U')}(fr)",
            "else:",
            f"    {self.constant(whole, 'S')}(fr)",
        )

    def subview(self, op: memref.SubviewOp, indent: str) -> None:
        """The numpy view the closure makes (an int index for a dropped unit
        dimension, a slice for a kept one), and its layout, from the source's."""
        try:
            geometry = subview_geometry(op)
        except UnsupportedSubview:
            self.closure(op, indent)
            return
        sizes, strides, kept = geometry.sizes, geometry.strides, geometry.kept
        if not all(isinstance(size, int) for size in sizes):  # run-time sizes: the closure
            self.closure(op, indent)
            return
        if any(size < 1 for size in sizes) or any(stride < 1 for stride in strides):
            self.closure(op, indent)
            return
        source_type = op.source.type
        static_shape = list(source_type.get_shape()) if isinstance(source_type, MemRefType) else []
        rank = len(sizes)
        starts: list[str] = []
        checks = [f"len(sh) == {rank}"]
        for d, offset in enumerate(geometry.offsets):
            start = str(offset) if isinstance(offset, int) else f"d{d}"
            starts.append(start)
            if not isinstance(offset, int):
                checks.append(f"0 <= {start}")
            elif offset < 0:
                self.closure(op, indent)
                return
            checks.append(f"{start} + {(sizes[d] - 1) * strides[d]} < sh[{d}]")
        # Index: dropped unit dimensions by position, kept ones by slice; a kept
        # dimension that is the whole source dimension is ':' (or left out at the
        # end, with its extent checked).
        index = []
        for d in range(rank):
            if d not in kept:
                index.append(starts[d])
            elif (starts[d], strides[d]) == ("0", 1) and static_shape[d : d + 1] == [sizes[d]]:
                index.append(":")
                checks.append(f"sh[{d}] == {sizes[d]}")
            else:
                stop = f"{starts[d]} + {sizes[d] * strides[d]}"
                index.append(f"{starts[d]}:{stop}" + (f":{strides[d]}" if strides[d] != 1 else ""))
        while index and index[-1] == ":":
            index.pop()
        if not kept:  # every dimension dropped: `...` keeps a 0-d view, not the value
            index.append("...")
        moved = [f"{starts[d]} * st[{d}]" for d in range(rank) if starts[d] != "0"]
        offset = " + ".join(["lay[2]", *moved])
        new_strides = "".join(
            f"st[{d}], " if strides[d] == 1 else f"st[{d}] * {strides[d]}, " for d in kept
        )
        new_shape = "".join(f"{sizes[d]}, " for d in kept)
        fallback = f"{self.constant(self.ctx.compiled_step(op), 'S')}(fr)"
        self.env.setdefault("VIEWS", self.ctx.layouts.views)
        self.emit(
            indent,
            f"s = {self.slot(op.source)}",
            "lay = VIEWS.get(id(s))",
            "if lay is not None and lay[0] is s:",
            "    st = lay[3]; sh = lay[4]",
            *(
                f"    d{d} = {self.slot(v)}"
                for d, v in enumerate(geometry.offsets)
                if not isinstance(v, int)
            ),
            f"    if {' and '.join(checks)}:",
            f"        v = s[{', '.join(index) or '...'}]",
            f"        if len(VIEWS) > {Layouts.LIMIT}:",
            "            VIEWS.clear()",
            f"        VIEWS[id(v)] = (v, lay[1], {offset}, ({new_strides}), ({new_shape}), lay[5])",
            f"        {self.slot(op.result)} = v",
            "    else:",
            f"        {fallback}",
            "else:",
            f"    {fallback}",
        )

    def kernel_loop(self, op: scf.ForOp, indent: str) -> None:
        loop = self.ctx.kernel_loop(op)
        assert loop is not None
        step = self.constant(loop, "K")
        if self.timing is None:
            self.emit(indent, f"{step}(fr)")  # it checks its step itself
            return
        kernel = next(o for o in op.body.block.ops if isinstance(o, cgra.KernelOp))
        made = kernel_profile(kernel, self.timing.hardware, self.timing.planner)
        profile = self.constant(made, "P")
        cell = self.constant(self.timing.kernel_cell(made), "I")
        lb, ub, st = (self.slot(v) for v in (op.lb, op.ub, op.step))
        if not positive_constant(op.step):
            self.emit(indent, f"if {st} <= 0:", f"    raise {self.nonpositive(op)}({st})")
        trips = self.fresh("n")
        self.emit(
            indent,
            f"{trips} = len(range({lb}, {ub}, {st}))",
            "if TIMING.idle:",  # recorded once it ran (TimingRecorder.kernel_ran)
            "    try:",
            f"        {step}(fr)",
            "    except BaseException:",
            f"        T_kernel_loop({trips}, {profile})",
            "        raise",
            f"    if {cell}[0] < 0:",
            f"        T_kernel_ran({trips}, {profile})",
            "    else:",  # what kernel_ran records
            f"        T_rows(({cell}[0], {trips}, len(ACCESSES)))",
            "else:",
            f"    T_kernel_loop({trips}, {profile})",
            f"    {step}(fr)",
            "    T_end_kernel_loop()",
        )

    def loop(self, op: scf.ForOp, indent: str) -> None:
        block = op.body.block
        carried = [self.slot(a) for a in block.args[1:]]
        inits = [self.slot(v) for v in op.iter_args]
        step = self.slot(op.step)
        if not positive_constant(op.step):
            self.emit(indent, f"if {step} <= 0:", f"    raise {self.nonpositive(op)}({step})")
        lb, ub = self.bound(op.lb), self.bound(op.ub)
        if lb is not None and ub is not None:  # the induction variable is between
            self.bounds.set(block.args[0], Bounds.joined([lb, ub], max(lb[0], ub[0])))
        for c, i in zip(carried, inits, strict=False):
            self.emit(indent, f"{c} = {i}")
        self.emit(
            indent,
            f"for {self.slot(block.args[0])} in range({self.slot(op.lb)}, {self.slot(op.ub)}, "
            f"{self.slot(op.step)}):",
        )
        self.block(block, indent + "    ")
        yielded = [self.slot(v) for v in block.last_op.operands]  # type: ignore[union-attr]
        pairs = list(zip(carried, yielded, strict=False))
        if pairs:
            self.emit(
                indent + "    ",
                f"{', '.join(c for c, _ in pairs)}, = {', '.join(y for _, y in pairs)},",
            )
        for out, c in zip(op.results, carried, strict=False):
            self.emit(indent, f"{self.slot(out)} = {c}")

    def branch(self, op: scf.IfOp, indent: str) -> None:
        outs = [self.slot(r) for r in op.results]
        self.emit(indent, f"if {self.slot(op.cond)}:")
        self.arm(op.true_region.block, outs, indent)
        if op.false_region.blocks:
            self.emit(indent, "else:")
            self.arm(op.false_region.block, outs, indent)

    def arm(self, block: Block, outs: list[str], indent: str) -> None:
        self.block(block, indent + "    ")
        yielded = block.last_op.operands  # type: ignore[union-attr]
        pairs = list(zip(outs, (self.slot(v) for v in yielded), strict=False))
        if pairs:
            self.emit(
                indent + "    ",
                f"{', '.join(o for o, _ in pairs)}, = {', '.join(v for _, v in pairs)},",
            )

    def layer(self, op: layer.LayerOp, indent: str) -> None:
        if self.timing is not None:
            entries, rev = layer_tile(op)
            self.emit(indent, f"T_layer({entries}, {rev})")
        block = op.body.block
        self.block(block, indent)
        if self.timing is not None:
            self.emit(indent, "T_end_layer()")
        outs = [self.slot(r) for r in op.results]
        if outs:
            yielded = [self.slot(v) for v in block.last_op.operands]  # type: ignore[union-attr]
            self.emit(indent, f"{', '.join(outs)}, = {', '.join(yielded)},")

    # ------------------------------------------------------------- function
    def bound(self, value: SSAValue) -> Bound | None:
        """The bound of an operand (`sim.bounds`): a constant's, an argument's
        once guarded, a result's or induction variable's as computed."""
        known = self.bounds.get(value)
        if known is not None or not is_integer(value.type):
            return known
        bits = constant_bits(value)
        if bits is not None:
            return bits, frozenset()
        if isinstance(value, BlockArgument) and value.block is self.fn.body.block:
            return Bounds.guarded(self.slot(value))
        return None

    def build(self) -> Callable[[Frame], tuple[Any, ...]]:
        body = self.fn.body.block
        self.emit("", "def body(fr):")
        if self.tracing:
            self.emit("    ", "app = TRACE.packed.append")
        self.block(body, "    ", terminator=True)
        self.emit("    ", "return ()")
        guard = self.bounds.condition()
        if guard is not None:  # arguments beyond the bounds: run the closures
            self.lines[1:1] = [f"    if not ({guard}):", "        return CLOSURES(fr)"]
        source = "\n".join(self.lines) + "\n"
        namespace = dict(self.env)
        code = compiled_code(source, f"<function @{self.fn.sym_name.data}>")
        exec(code, namespace)  # noqa: S102 - our own generated code
        step = namespace.pop("body")  # not in its own globals: no reference cycle
        step.source = source  # for debugging: print(step.source)
        return step  # type: ignore[no-any-return]


def compile_function(
    ctx: CompileContext, fn: func.FuncOp, closures: Callable[[Frame], tuple[Any, ...]]
) -> Callable[[Frame], tuple[Any, ...]] | None:
    """The body of `fn` as one Python function of the frame, returning what the
    function returns; None if it cannot be generated (the closures then run it).
    The closure steps of every op must have been compiled in `ctx`
    (`CompileContext.compiled_step`); `closures` runs them on a frame, for
    arguments the generated code does not take (`sim.bounds`)."""
    try:
        return _FunctionSource(ctx, fn, closures).build()
    except (SyntaxError, RecursionError):  # e.g. too many statically nested blocks
        return None


__all__ = ["compile_function"]
