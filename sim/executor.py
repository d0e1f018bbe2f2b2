"""
The reference executor: runs a function of a module at any stage of the flow,
value for value in IEEE float64.

It is the yardstick every pass is checked against (the passes move tape data,
they never change arithmetic), so it favours plain, checkable semantics over
speed: memrefs are numpy arrays (a `memref.subview` is a numpy view), scalars are
Python floats and ints, and every tape access is checked (a tape entry read
before it was written is an error, not a silent zero).

Each function is compiled once into a list of Python closures over a frame of
slots, one slot per SSA value, which runs several times faster than walking the
IR on every step. By default (`fast=True`) the executor then goes further and
runs generated Python for each function body and kernel loop
(`sim/function_compiler.py`, `sim/kernel_compiler.py`), which falls back to
these closures for anything unusual; `fast=False` runs the closures alone, the
reference that path is tested against. Supported: func, scf (for, if, while, yield), arith, math,
memref (alloc, alloca, dealloc, load, store, subview, copy, cast), the `enzyme`
cache/gradient ops, and the TapeFlow dialects `tape`, `region`, `layer` and
`stream`. Anything else is an `ExecutionError` that names the op and where it was
written.

The TapeFlow stages are run as the hardware would run them, with every misuse an
error rather than a silently right (or wrong) value:

- a `region` is an array of structs, `(*shape, slots)`, with a written mask;
- a `layer.layer` runs its body each time it is reached and yields its barrier's
  operands; its `layer.salloc` hands out a tile of the scratchpad. Each `run` has
  one scratchpad (shared by the functions it calls), sized by the first salloc it
  reaches, of 8-byte entries with a full/empty bit each;
- a `stream.alloc` tape is a stack of tiles in DRAM with a byte budget:
  `stream.fwd` spills full entries and empties them, `stream.rev` pops the tile of
  the FWD stream it names and fills its entries, `stream.store/load` fill and read
  single entries.

`Executor.stats` counts the stream traffic and the scratchpad's peak occupancy of
the last `run`.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Block, Operation, SSAValue

from tapeflow_dialects import cgra, enzyme, layer, region, stream, tape
from tapeflow_dialects.layer import SpadType
from tapeflow_dialects.layer import ENTRY_BYTES
from tapeflow_dialects.locations import location_of
from tapeflow_dialects.memref_views import UnsupportedSubview, subview_geometry
from sim.function_compiler import compile_function
from sim.kernel_compiler import Lazy, compile_kernel_loop, is_kernel_loop
from sim.layouts import Layouts
from sim.timing import TimingRecorder
from sim.trace import MemoryTrace
from lowering.tapeflow_raise_tape import TAPE_BUFFER
from lowering.tapeflow_to_cgra import op_class, op_latency


class ExecutionError(Exception):
    """The program cannot be executed (unsupported op, bad input, bad tape use)."""


Frame = list[Any]
Step = Callable[[Frame], None]


class _Return(Exception):
    def __init__(self, values: tuple[Any, ...]):
        self.values = values


# ---------------------------------------------------------------- float semantics
# Python's math raises where IEEE 754 returns inf or nan; the hardware does not.


def _div(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _exp(a: float) -> float:
    try:
        return math.exp(a)
    except OverflowError:
        return math.inf


def _log(a: float) -> float:
    if a > 0.0:
        return math.log(a)
    return -math.inf if a == 0.0 else math.nan


def _sqrt(a: float) -> float:
    return math.sqrt(a) if a >= 0.0 else math.nan


def _pow(a: float, b: float) -> float:
    try:
        return math.pow(a, b)
    except (OverflowError, ValueError):
        return float(np.power(np.float64(a), np.float64(b)))


def _maximumf(a: float, b: float) -> float:  # propagates nan, -0 < +0
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0.0:
        return a if math.copysign(1.0, a) > 0 else b
    return a if a > b else b


def _minimumf(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0.0:
        return a if math.copysign(1.0, a) < 0 else b
    return a if a < b else b


def _maxnumf(a: float, b: float) -> float:  # ignores nan
    return b if math.isnan(a) else a if math.isnan(b) else max(a, b)


def _minnumf(a: float, b: float) -> float:
    return b if math.isnan(a) else a if math.isnan(b) else min(a, b)


_FLOAT_BINARY: dict[str, Callable[[float, float], float]] = {
    "arith.addf": operator.add,
    "arith.subf": operator.sub,
    "arith.mulf": operator.mul,
    "arith.divf": _div,
    "arith.maximumf": _maximumf,
    "arith.minimumf": _minimumf,
    "arith.maxnumf": _maxnumf,
    "arith.minnumf": _minnumf,
    "math.powf": _pow,
    "math.atan2": math.atan2,
    "math.copysign": math.copysign,
}

_FLOAT_UNARY: dict[str, Callable[[float], float]] = {
    "arith.negf": operator.neg,
    "math.exp": _exp,
    "math.exp2": lambda a: _pow(2.0, a),
    "math.expm1": lambda a: math.expm1(a) if a < 709.0 else math.inf,
    "math.log": _log,
    "math.log2": lambda a: _log(a) / math.log(2.0) if a > 0 else _log(a),
    "math.log10": lambda a: math.log10(a) if a > 0 else _log(a),
    "math.log1p": lambda a: math.log1p(a) if a > -1.0 else _log(a + 1.0),
    "math.sqrt": _sqrt,
    "math.rsqrt": lambda a: _div(1.0, _sqrt(a)),
    "math.absf": abs,
    "math.sin": math.sin,
    "math.cos": math.cos,
    "math.tan": math.tan,
    "math.tanh": math.tanh,
    "math.sinh": math.sinh,
    "math.cosh": math.cosh,
    "math.atan": math.atan,
    "math.asin": math.asin,
    "math.acos": math.acos,
    "math.erf": math.erf,
    "math.floor": lambda a: float(math.floor(a)) if math.isfinite(a) else a,
    "math.ceil": lambda a: float(math.ceil(a)) if math.isfinite(a) else a,
}


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_INT_BINARY: dict[str, Callable[[int, int], int]] = {
    "arith.addi": operator.add,
    "arith.subi": operator.sub,
    "arith.muli": operator.mul,
    "arith.divsi": _trunc_div,
    "arith.divui": operator.floordiv,
    "arith.remsi": lambda a, b: a - b * _trunc_div(a, b),
    "arith.remui": operator.mod,
    "arith.floordivsi": operator.floordiv,
    "arith.ceildivsi": lambda a, b: -((-a) // b),
    "arith.andi": operator.and_,
    "arith.ori": operator.or_,
    "arith.xori": operator.xor,
    "arith.maxsi": max,
    "arith.minsi": min,
    "arith.maxui": max,
    "arith.minui": min,
    "arith.shli": operator.lshift,
    "arith.shrsi": operator.rshift,
}

_CMPF: dict[int, Callable[[float, float], bool]] = {
    0: lambda a, b: False,  # false
    1: lambda a, b: a == b,  # oeq
    2: lambda a, b: a > b,  # ogt
    3: lambda a, b: a >= b,  # oge
    4: lambda a, b: a < b,  # olt
    5: lambda a, b: a <= b,  # ole
    6: lambda a, b: a != b and not (math.isnan(a) or math.isnan(b)),  # one
    7: lambda a, b: not (math.isnan(a) or math.isnan(b)),  # ord
    8: lambda a, b: a == b or math.isnan(a) or math.isnan(b),  # ueq
    9: lambda a, b: not (a <= b),  # ugt
    10: lambda a, b: not (a < b),  # uge
    11: lambda a, b: not (a >= b),  # ult
    12: lambda a, b: not (a > b),  # ule
    13: lambda a, b: a != b,  # une
    14: lambda a, b: math.isnan(a) or math.isnan(b),  # uno
    15: lambda a, b: True,  # true
}

_CMPI: dict[int, Callable[[int, int], bool]] = {
    0: operator.eq,
    1: operator.ne,
    2: operator.lt,
    3: operator.le,
    4: operator.gt,
    5: operator.ge,
    6: operator.lt,
    7: operator.le,
    8: operator.gt,
    9: operator.ge,
}


def _numpy_dtype(element_type: object) -> Any:
    if isinstance(element_type, IndexType | IntegerType):
        return np.int64
    return np.float64


class _Tape:
    """A tape's storage plus the set of entries FWD has written."""

    def __init__(self, shape: tuple[int, ...], dtype: Any):
        self.data = np.zeros(shape, dtype=dtype)
        self.written = np.zeros(shape, dtype=bool)


def _python_scalar(value_type: object) -> Callable[[Any], Any]:
    """How a stored entry of `value_type` comes back: a Python bool, int or float."""
    if isinstance(value_type, IntegerType) and value_type.width.data == 1:
        return bool
    if isinstance(value_type, IndexType | IntegerType):
        return int
    return float


def _in_bounds(where: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    if len(where) != len(shape):
        return False
    return all(0 <= i < d for i, d in zip(where, shape, strict=True))


class _Region:
    """An array-of-structs region: `(*shape, slots)` entries plus the written mask."""

    def __init__(self, region_type: region.RegionType):
        self.type = region_type
        self.shape = region_type.get_shape()
        dtypes = {_numpy_dtype(t) for t in region_type.slot_types()}
        dtype = dtypes.pop() if len(dtypes) == 1 else object
        entries = (*self.shape, len(region_type.slot_types()))
        self.data = np.zeros(entries, dtype=dtype)
        self.written = np.zeros(entries, dtype=bool)
        self.freed = False


class _Scratchpad:
    """The scratchpad of one `run`: 8-byte entries, each with a full/empty bit."""

    def __init__(self, capacity: int, configured_at: str):
        self.capacity = capacity
        self.configured_at = configured_at
        self.data = np.zeros(capacity // ENTRY_BYTES, dtype=object)
        self.full = np.zeros(capacity // ENTRY_BYTES, dtype=bool)
        self.entries_full = 0


class _Tile:
    """What `layer.salloc` returns: `rows` x `slots` scratchpad entries from `base`."""

    __slots__ = ("spad", "base", "rows", "slots")

    def __init__(self, spad: _Scratchpad, base: int, rows: int, slots: int):
        self.spad, self.base, self.rows, self.slots = spad, base, rows, slots


class _StreamTape:
    """`!stream.tape`: a stack of tiles in DRAM within a byte budget."""

    def __init__(self, budget: int):
        self.budget = budget
        self.used = 0
        self.tiles: list[tuple[int, int, int, np.ndarray, np.ndarray]] = []
        """(FWD stream id, rows, slots, entries, their full bits), oldest first."""


_COMPUTE_OPS: dict[str, type[Operation]] = {
    op.name: op for dialect in (arith.Arith, math_dialect.Math) for op in dialect.operations
}


def _unplaced(op: cgra.ComputeOp | cgra.LoadOp | cgra.StoreOp) -> Operation | None:
    """The plain op a placed CGRA op stands for (not inserted anywhere)."""
    if isinstance(op, cgra.ComputeOp):
        cls = _COMPUTE_OPS.get(op.opcode.data)
        if cls is None:
            return None
        properties = dict(op.attrs.data) if op.attrs is not None else {}
        return cls.create(
            operands=list(op.args), result_types=[r.type for r in op.res], properties=properties
        )
    memory = op.memory
    link = IntegerAttr(0, 64)
    slot = op.slot
    if isinstance(op, cgra.LoadOp):
        result = [op.result.type]
        if isinstance(memory.type, SpadType):
            return stream.LoadOp.create(
                operands=[memory, *op.indices], result_types=result,
                properties={"slot": slot, "from": link},  # type: ignore[dict-item]
            )
        if isinstance(memory.type, region.RegionType):
            return region.LoadOp.create(
                operands=[memory, *op.indices], result_types=result,
                properties={"slot": slot, "from": link},  # type: ignore[dict-item]
            )
        return memref.LoadOp.create(operands=[memory, *op.indices], result_types=result)
    if isinstance(memory.type, SpadType):
        return stream.StoreOp.create(
            operands=[op.value, memory, *op.indices],
            properties={"slot": slot, "id": link},  # type: ignore[dict-item]
        )
    if isinstance(memory.type, region.RegionType):
        return region.StoreOp.create(
            operands=[op.value, memory, *op.indices],
            properties={"slot": slot, "id": link},  # type: ignore[dict-item]
        )
    return memref.StoreOp.create(operands=[op.value, memory, *op.indices])


REV_START = "tapeflow.rev_start"
"""Marks the first top-level op of a gradient's reverse sweep (set by the simulator)."""

_FREE_OPS = (
    arith.ConstantOp, memref.AllocOp, memref.AllocaOp, memref.DeallocOp, memref.SubviewOp,
    memref.CastOp, tape.AllocOp, tape.FreeOp, region.AllocOp, region.FreeOp, stream.AllocOp,
)


def _op_cost(op: Operation, timing: TimingRecorder) -> tuple[int, str | None, str | None] | None:
    """(latency, FU class, memory kind) of an op run outside kernels; None if free."""
    if isinstance(op, _FREE_OPS) or op.regions or op.dialect_name() not in (
        "arith", "math", "memref", "tape", "region", "stream", "enzyme"
    ):
        return None
    hardware = timing.hardware
    if isinstance(op, stream.LoadOp | stream.StoreOp):
        return hardware.scratchpad.latency, None, "spad"
    if isinstance(op, memref.LoadOp | tape.LoadOp | region.LoadOp):
        return hardware.cache.hit_latency, None, "cache"
    if isinstance(op, memref.StoreOp | tape.StoreOp | region.StoreOp):
        return 1, None, "cache"
    if op.dialect_name() == "enzyme":
        return 1, None, None
    cls = op_class(op.name)
    return getattr(hardware.latencies, cls), cls, None


def _kernel_profile(
    kernel: cgra.KernelOp, timing: TimingRecorder
) -> tuple[int, int, Counter[str], int, int]:
    """(ii, length, FU ops by class, memory ops, scratchpad ops) of one iteration."""
    hardware = timing.hardware
    length = 0
    fu: Counter[str] = Counter()
    memory_ops = spad = 0
    for placed in kernel.body.block.ops:
        if not isinstance(placed, cgra.PlacedOp):
            continue
        length = max(length, placed.cycle.value.data + op_latency(placed, hardware))
        if isinstance(placed, cgra.ComputeOp):
            fu[op_class(placed.opcode.data)] += 1
        else:
            memory_ops += 1
            spad += isinstance(placed, cgra.LoadOp | cgra.StoreOp) and placed.path.data == cgra.MemPath.SPAD
    return kernel.ii.value.data, length, fu, memory_ops, spad


def _fresh_stats() -> dict[str, int]:
    return {
        "stream_bytes_written": 0,
        "stream_bytes_read": 0,
        "stream_tiles_written": 0,
        "stream_tiles_read": 0,
        "spad_peak_entries_full": 0,
    }


class Executor:
    """Runs functions of one module. `run` takes and returns Python/numpy values."""

    def __init__(
        self,
        module: ModuleOp,
        trace: MemoryTrace | None = None,
        timing: TimingRecorder | None = None,
        fast: bool = True,
    ):
        self.module = module
        self.fast = fast
        """Run kernel loops as generated Python (`sim/kernel_compiler.py`); False
        runs everything with the closures below, the reference the fast path is
        tested against."""
        self._layouts = Layouts()
        self._steps: dict[Operation, Step] = {}
        """Fast path: every op's closure step, for the generated code to call."""
        self._kernel_loops: dict[Operation, Step] = {}
        """Fast path: the compiled kernel loops (without their timing)."""
        self.trace = trace
        """If given, every memref, tape and region access is recorded into it."""
        self.timing = timing
        """If given, the run is reported to it as kernel loops, ops and streams."""
        self._in_kernel = 0
        self.functions: dict[str, func.FuncOp] = {
            op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)
        }
        self._compiled: dict[str, Callable[[Sequence[Any]], tuple[Any, ...]]] = {}
        self.ops_executed = 0
        self.scratchpad: _Scratchpad | None = None
        """The scratchpad of the current (or last) `run`, made by its first salloc."""
        self.stats = _fresh_stats()
        """Stream traffic and peak scratchpad occupancy of the current (or last) run."""

    # ------------------------------------------------------------------ public
    def run(self, name: str, args: Sequence[Any]) -> tuple[Any, ...]:
        if name not in self.functions:
            raise ExecutionError(
                f"no function @{name} in the module (found: "
                f"{', '.join('@' + f for f in self.functions) or 'none'})"
            )
        self.scratchpad = None
        self.stats = _fresh_stats()
        return self._function(name)(args)

    # ------------------------------------------------------------ compilation
    def _function(self, name: str) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
        if name in self._compiled:
            return self._compiled[name]
        fn = self.functions[name]
        if fn.is_declaration:
            raise ExecutionError(f"@{name} is only declared, it has no body")
        slots: dict[SSAValue, int] = {}
        block = fn.body.block
        arg_slots = [self._slot(slots, a) for a in block.args]
        steps = self._block(block, slots)
        size_holder = slots  # the frame size is known once the body is compiled
        body = compile_function(self, fn, slots) if self.fast else None
        if body is not None:

            def fast_call(args: Sequence[Any]) -> tuple[Any, ...]:
                if len(args) != len(arg_slots):
                    raise ExecutionError(
                        f"@{name} takes {len(arg_slots)} arguments, got {len(args)}"
                    )
                frame: Frame = [None] * len(size_holder)
                for slot, value in zip(arg_slots, args):
                    frame[slot] = value
                return body(frame)

            self._compiled[name] = fast_call
            return fast_call

        def call(args: Sequence[Any]) -> tuple[Any, ...]:
            if len(args) != len(arg_slots):
                raise ExecutionError(
                    f"@{name} takes {len(arg_slots)} arguments, got {len(args)}"
                )
            frame: Frame = [None] * len(size_holder)
            for slot, value in zip(arg_slots, args):
                frame[slot] = value
            try:
                for step in steps:
                    step(frame)
            except _Return as ret:
                return ret.values
            return ()

        self._compiled[name] = call
        return call

    @staticmethod
    def _slot(slots: dict[SSAValue, int], value: SSAValue) -> int:
        if value not in slots:
            slots[value] = len(slots)
        return slots[value]

    def _block(self, block: Block, slots: dict[SSAValue, int]) -> list[Step]:
        return [self._op(op, slots) for op in block.ops]

    def _op(self, op: Operation, slots: dict[SSAValue, int]) -> Step:
        step = self._untraced_op(op, slots)
        if self.timing is not None:
            step = self._timed(op, step, slots)
        if self.trace is not None:
            step = self._traced(op, step, [self._slot(slots, v) for v in op.operands])
        if self.fast:
            self._steps[op] = step
        return step

    def _timed(self, op: Operation, step: Step, slots: dict[SSAValue, int]) -> Step:
        """`step`, reporting what it costs to the timing recorder."""
        timing = self.timing
        assert timing is not None
        timed = self._costed(op, step, slots)
        if REV_START not in op.attributes:
            return timed

        def rev_step(fr: Frame) -> None:
            timing.set_phase("rev")
            timed(fr)

        return rev_step

    def _costed(self, op: Operation, step: Step, slots: dict[SSAValue, int]) -> Step:
        timing = self.timing
        assert timing is not None
        if self._in_kernel:
            return step
        match op:
            case scf.ForOp() if any(isinstance(o, cgra.KernelOp) for o in op.body.block.ops):
                return self._timed_kernel_loop(op, step, slots)
            case stream.FwdOp() | stream.RevOp():
                direction = "fwd" if isinstance(op, stream.FwdOp) else "rev"
                rows_slot = self._slot(slots, op.rows)
                tile_type = op.tile.type
                assert isinstance(tile_type, SpadType)
                row_bytes = tile_type.slots.data * 8
                inner = step

                def stream_step(fr: Frame) -> None:
                    timing.stream(direction, fr[rows_slot] * row_bytes)
                    inner(fr)

                return stream_step
            case layer.LayerOp():
                inner_layer = step

                def layer_step(fr: Frame) -> None:
                    timing.layer()
                    inner_layer(fr)

                return layer_step
        cost = _op_cost(op, timing)
        if cost is None:
            return step
        latency, fu_class, memory = cost
        inner_op = step

        def op_step(fr: Frame) -> None:
            timing.op(latency, fu_class, memory)
            inner_op(fr)

        return op_step

    def _timed_kernel_loop(self, op: scf.ForOp, step: Step, slots: dict[SSAValue, int]) -> Step:
        timing = self.timing
        assert timing is not None
        kernel = next(o for o in op.body.block.ops if isinstance(o, cgra.KernelOp))
        ii, length, fu, memory_ops, spad = _kernel_profile(kernel, timing)
        lb, ub, st = (self._slot(slots, v) for v in (op.lb, op.ub, op.step))

        def loop_step(fr: Frame) -> None:
            trips = len(range(fr[lb], fr[ub], fr[st]))
            window = timing.kernel_loop(trips, ii, length, fu, memory_ops, spad)
            step(fr)
            timing.end_kernel_loop(window)

        return loop_step

    def _traced(self, op: Operation, step: Step, ins: list[int]) -> Step:
        """`step`, recording the address it touches first (memory ops only)."""
        trace = self.trace
        assert trace is not None
        match op:
            case memref.LoadOp() | tape.LoadOp():
                buffer, idx, write, is_tape, slot = ins[0], ins[1:], False, isinstance(op, tape.LoadOp), None
            case memref.StoreOp() | tape.StoreOp():
                buffer, idx, write, is_tape, slot = ins[1], ins[2:], True, isinstance(op, tape.StoreOp), None
            case region.LoadOp():
                buffer, idx, write, is_tape, slot = ins[0], ins[1:], False, True, op.slot.value.data
            case region.StoreOp():
                buffer, idx, write, is_tape, slot = ins[1], ins[2:], True, True, op.slot.value.data
            case _:
                return step
        unwrap = is_tape  # tapes and regions keep their storage in `.data`

        record = trace.record

        def traced(fr: Frame) -> None:
            target = fr[buffer]
            where = tuple(fr[i] for i in idx)
            if slot is not None:
                where = (*where, slot)
            record(target.data if unwrap else target, where, write, is_tape)
            step(fr)

        return traced

    def _untraced_op(self, op: Operation, slots: dict[SSAValue, int]) -> Step:
        ins = [self._slot(slots, v) for v in op.operands]
        outs = [self._slot(slots, r) for r in op.results]
        name = op.name
        counter = self

        def unsupported(why: str) -> ExecutionError:
            return ExecutionError(f"{location_of(op)}: cannot execute '{name}': {why}")

        def out_of_bounds(where: tuple[int, ...], shape: tuple[int, ...]) -> ExecutionError:
            return ExecutionError(
                f"{location_of(op)}: '{name}' index {list(where)} is out of bounds for a "
                f"buffer of shape {list(shape)}"
            )

        if name in _FLOAT_BINARY:
            f2 = _FLOAT_BINARY[name]
            a, b = ins
            (o,) = outs

            def step(fr: Frame) -> None:
                counter.ops_executed += 1
                fr[o] = f2(fr[a], fr[b])

            return step
        if name in _FLOAT_UNARY:
            f1 = _FLOAT_UNARY[name]
            (a,) = ins
            (o,) = outs

            def step(fr: Frame) -> None:
                counter.ops_executed += 1
                fr[o] = f1(fr[a])

            return step
        if name in _INT_BINARY:
            i2 = _INT_BINARY[name]
            a, b = ins
            (o,) = outs

            def step(fr: Frame) -> None:
                fr[o] = i2(fr[a], fr[b])

            return step

        match op:
            case arith.ConstantOp():
                value = op.value
                if isinstance(value, FloatAttr):
                    const: Any = float(value.value.data)
                elif isinstance(value, IntegerAttr):
                    const = int(value.value.data)
                    if isinstance(value.type, IntegerType) and value.type.width.data == 1:
                        const = bool(const & 1)
                elif isinstance(value, DenseIntOrFPElementsAttr):
                    raise unsupported("dense constants are not supported")
                else:
                    raise unsupported(f"constant {value}")
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = const

                return step
            case arith.CmpfOp():
                pred = _CMPF[op.predicate.value.data]
                a, b = ins
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = pred(fr[a], fr[b])

                return step
            case arith.CmpiOp():
                ipred = _CMPI[op.predicate.value.data]
                a, b = ins
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = ipred(fr[a], fr[b])

                return step
            case arith.SelectOp():
                c, a, b = ins
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = fr[a] if fr[c] else fr[b]

                return step
            case arith.IndexCastOp() | arith.FPToSIOp() | arith.FPToUIOp():
                (a,) = ins
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = int(fr[a])

                return step
            case arith.SIToFPOp() | arith.UIToFPOp() | arith.ExtFOp() | arith.TruncFOp():
                (a,) = ins
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = float(fr[a])

                return step
            case memref.AllocOp() | memref.AllocaOp():
                mtype = op.memref.type
                assert isinstance(mtype, MemRefType)
                if op.dynamic_sizes:
                    raise unsupported("dynamically sized buffers are not supported")
                shape = tuple(mtype.get_shape())
                dtype = _numpy_dtype(mtype.element_type)
                (o,) = outs
                trace = self.trace if TAPE_BUFFER in op.attributes else None

                def step(fr: Frame) -> None:
                    fr[o] = np.zeros(shape, dtype=dtype)
                    if trace is not None:
                        trace.mark_tape(fr[o])

                return step
            case memref.DeallocOp():
                return lambda fr: None
            case memref.LoadOp():
                m, *idx = ins
                (o,) = outs

                def step(fr: Frame) -> None:
                    buffer, where = fr[m], tuple(fr[i] for i in idx)
                    if not _in_bounds(where, buffer.shape):
                        raise out_of_bounds(where, buffer.shape)
                    fr[o] = buffer[where].item()

                return step
            case memref.StoreOp():
                v, m, *idx = ins

                def step(fr: Frame) -> None:
                    buffer, where = fr[m], tuple(fr[i] for i in idx)
                    if not _in_bounds(where, buffer.shape):
                        raise out_of_bounds(where, buffer.shape)
                    buffer[where] = fr[v]

                return step
            case memref.SubviewOp():
                return self._subview(op, ins, outs, unsupported)
            case memref.CopyOp():
                src, dst = ins

                def step(fr: Frame) -> None:
                    fr[dst][...] = fr[src]

                return step
            case memref.CastOp():
                (a,) = ins
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = fr[a]

                return step
            case scf.ForOp():
                if self.fast and is_kernel_loop(op):
                    # The closure step is the fallback of the compiled loop; it
                    # is compiled only if a run of the loop needs it.
                    reference = Lazy(lambda: self._for(op, slots, ins, outs), slots)
                    compiled = compile_kernel_loop(self, op, slots, ins, outs, reference)
                    self._kernel_loops[op] = compiled
                    return compiled
                return self._for(op, slots, ins, outs)
            case scf.IfOp():
                return self._if(op, slots, ins, outs)
            case scf.WhileOp():
                return self._while(op, slots, ins, outs)
            case scf.YieldOp() | scf.ConditionOp() | layer.BarrierOp():
                raise unsupported("a region terminator outside its parent")
            case func.ReturnOp():

                def step(fr: Frame) -> None:
                    raise _Return(tuple(fr[i] for i in ins))

                return step
            case func.CallOp():
                callee = op.callee.root_reference.data
                if callee not in self.functions:
                    raise unsupported(f"the callee @{callee} is not in the module")

                def step(fr: Frame) -> None:
                    results = self._function(callee)([fr[i] for i in ins])
                    for slot, value in zip(outs, results):
                        fr[slot] = value

                return step
            case tape.AllocOp():
                ttype = op.tape.type
                assert isinstance(ttype, tape.TapeType)
                tshape, tdtype = ttype.get_shape(), _numpy_dtype(ttype.element_type)
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = _Tape(tshape, tdtype)

                return step
            case tape.StoreOp():
                v, t, *idx = ins

                def step(fr: Frame) -> None:
                    where = tuple(fr[i] for i in idx)
                    store: _Tape = fr[t]
                    store.data[where] = fr[v]
                    store.written[where] = True

                return step
            case tape.LoadOp():
                t, *idx = ins
                (o,) = outs
                ident = op.store.value.data

                def step(fr: Frame) -> None:
                    where = tuple(fr[i] for i in idx)
                    store: _Tape = fr[t]
                    if not store.written[where]:
                        raise ExecutionError(
                            f"{location_of(op)}: 'tape.load' (from store {ident}) reads "
                            f"entry {list(where)} before FWD wrote it"
                        )
                    fr[o] = store.data[where].item()

                return step
            case cgra.KernelOp():
                self._in_kernel += 1
                try:
                    steps, yielded = self._region_steps(op.body.block, slots)
                finally:
                    self._in_kernel -= 1

                def step(fr: Frame) -> None:
                    for s in steps:
                        s(fr)
                    for out, value in zip(outs, [fr[y] for y in yielded]):
                        fr[out] = value

                return step
            case cgra.ComputeOp() | cgra.LoadOp() | cgra.StoreOp():
                return self._placed(op, slots, unsupported)
            case cgra.BarrierOp():
                return lambda fr: None
            case tape.FreeOp():
                return lambda fr: None
            case region.AllocOp() | region.StoreOp() | region.LoadOp():
                return self._region_op(op, ins, outs)
            case region.FreeOp():
                return self._region_op(op, ins, outs)
            case layer.LayerOp():
                return self._layer(op, slots, outs, unsupported)
            case layer.SAllocOp():
                return self._salloc(op, outs)
            case stream.AllocOp():
                budget = op.bytes.value.data
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = _StreamTape(budget)

                return step
            case stream.FwdOp():
                return self._stream_fwd(op, ins)
            case stream.RevOp():
                return self._stream_rev(op, ins)
            case stream.StoreOp() | stream.LoadOp():
                return self._scratchpad_access(op, ins, outs)
            case enzyme.FillZeroOp():
                (m,) = ins

                def step(fr: Frame) -> None:
                    fr[m][...] = 0

                return step
            case enzyme.InitOp():
                is_cache = isinstance(op.result.type, enzyme.CacheType)
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = [] if is_cache else [0.0]

                return step
            case enzyme.PushOp():
                c, v = ins
                return lambda fr: fr[c].append(fr[v])
            case enzyme.PopOp():
                (c,) = ins
                (o,) = outs

                def step(fr: Frame) -> None:
                    if not fr[c]:
                        raise ExecutionError(f"{location_of(op)}: pop from an empty cache")
                    fr[o] = fr[c].pop()

                return step
            case enzyme.GetOp():
                (g,) = ins
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = fr[g][0]

                return step
            case enzyme.SetOp():
                g, v = ins

                def step(fr: Frame) -> None:
                    fr[g][0] = fr[v]

                return step
            case _:
                raise unsupported("the reference executor has no semantics for it")

    def _placed(
        self,
        op: cgra.ComputeOp | cgra.LoadOp | cgra.StoreOp,
        slots: dict[SSAValue, int],
        unsupported: Callable[[str], ExecutionError],
    ) -> Step:
        """
        A placed CGRA op computes what the op it was lowered from computes: that op
        is rebuilt (detached from the IR) and compiled in its place, sharing slots.
        """
        proto = _unplaced(op)
        if proto is None:
            raise unsupported("no semantics known for this placed op")
        for placed_result, proto_result in zip(op.results, proto.results):
            slots[proto_result] = self._slot(slots, placed_result)
        try:
            return self._op(proto, slots)
        finally:
            proto.drop_all_references()

    def _subview(
        self,
        op: memref.SubviewOp,
        ins: list[int],
        outs: list[int],
        unsupported: Callable[[str], ExecutionError],
    ) -> Step:
        try:
            geometry = subview_geometry(op)
        except UnsupportedSubview as err:
            raise unsupported(str(err)) from None
        src = ins[0]
        (o,) = outs
        # A dynamic offset takes the next offset operand, in order.
        dynamic = iter(ins[1 : 1 + len(op.offsets)])
        offsets = [off if isinstance(off, int) else None for off in geometry.offsets]
        offset_slots = [next(dynamic) if off is None else None for off in offsets]
        sizes, strides, squeeze = geometry.sizes, geometry.strides, geometry.dropped

        if self.fast:
            layouts, kept = self._layouts, geometry.kept

            def fast_step(fr: Frame) -> None:
                # The same view, and its layout for the compiled kernel loops.
                starts = [
                    fr[slot] if slot is not None else off for off, slot in zip(offsets, offset_slots)
                ]
                source = fr[src]
                view = source[
                    tuple(
                        slice(start, start + size * stride, stride)
                        for start, size, stride in zip(starts, sizes, strides)
                    )
                ]
                view = view.squeeze(axis=squeeze) if squeeze else view
                fr[o] = view
                layouts.register_subview(view, source, starts, sizes, strides, kept)

            return fast_step

        def step(fr: Frame) -> None:
            key = tuple(
                slice(start, start + size * stride, stride)
                for start, size, stride in zip(
                    (fr[slot] if slot is not None else off for off, slot in zip(offsets, offset_slots)),
                    sizes,
                    strides,
                )
            )
            view = fr[src][key]
            fr[o] = view.squeeze(axis=squeeze) if squeeze else view

        return step

    # ------------------------------------------------------- TapeFlow stages
    def _region_op(self, op: Operation, ins: list[int], outs: list[int]) -> Step:
        """`region.alloc/store/load/free`: an array of structs with a written mask."""
        name = op.name
        if isinstance(op, region.AllocOp):
            rtype = op.region.type
            assert isinstance(rtype, region.RegionType)
            (o,) = outs

            def alloc(fr: Frame) -> None:
                fr[o] = _Region(rtype)

            return alloc
        if isinstance(op, region.FreeOp):
            (r,) = ins

            def free(fr: Frame) -> None:
                store: _Region = fr[r]
                if store.freed:
                    raise ExecutionError(
                        f"{location_of(op)}: 'region.free' frees {store.type} twice"
                    )
                store.freed = True

            return free

        assert isinstance(op, region.StoreOp | region.LoadOp)
        slot = op.slot.value.data

        def entry(fr: Frame, r: int, idx: list[int]) -> tuple[_Region, tuple[int, ...]]:
            store: _Region = fr[r]
            if store.freed:
                raise ExecutionError(
                    f"{location_of(op)}: '{name}' uses {store.type} after its "
                    "region.free"
                )
            where = tuple(fr[i] for i in idx)
            if not _in_bounds((*where, slot), store.data.shape):
                raise ExecutionError(
                    f"{location_of(op)}: '{name}' entry {list(where)} slot {slot} is "
                    f"out of range for {store.type}"
                )
            return store, (*where, slot)

        if isinstance(op, region.StoreOp):
            v, r, *idx = ins

            def store_step(fr: Frame) -> None:
                store, where = entry(fr, r, idx)
                store.data[where] = fr[v]
                store.written[where] = True

            return store_step

        r, *idx = ins
        (o,) = outs
        ident = op.store.value.data
        as_scalar = _python_scalar(op.result.type)

        def load_step(fr: Frame) -> None:
            store, where = entry(fr, r, idx)
            if not store.written[where]:
                raise ExecutionError(
                    f"{location_of(op)}: 'region.load' (slot {slot}, from store "
                    f"{ident}) reads entry {list(where[:-1])} before it was written"
                )
            fr[o] = as_scalar(store.data[where])

        return load_step

    def _layer(
        self,
        op: layer.LayerOp,
        slots: dict[SSAValue, int],
        outs: list[int],
        unsupported: Callable[[str], ExecutionError],
    ) -> Step:
        """`layer.layer`: runs its body when reached, yields the barrier's operands."""
        block = op.body.block
        if not isinstance(block.last_op, layer.BarrierOp):
            raise unsupported("a layer must end with 'layer.barrier'")
        steps, yielded = self._region_steps(block, slots)

        def step(fr: Frame) -> None:
            for s in steps:
                s(fr)
            values = [fr[y] for y in yielded]
            for out, value in zip(outs, values, strict=True):
                fr[out] = value

        return step

    def _salloc(self, op: layer.SAllocOp, outs: list[int]) -> Step:
        """`layer.salloc`: a tile of the run's scratchpad (the first one sizes it)."""
        tile_type = op.tile.type
        assert isinstance(tile_type, layer.SpadType)
        rows, slot_count = tile_type.rows.data, tile_type.slots.data
        base, capacity = op.base.value.data, op.capacity.value.data
        (o,) = outs

        def step(fr: Frame) -> None:
            spad = self.scratchpad
            if spad is None:
                if capacity <= 0 or capacity % ENTRY_BYTES:
                    raise ExecutionError(
                        f"{location_of(op)}: 'layer.salloc' scratchpad capacity must "
                        f"be a positive multiple of {ENTRY_BYTES} bytes, got {capacity}"
                    )
                spad = self.scratchpad = _Scratchpad(capacity, location_of(op))
            elif spad.capacity != capacity:
                raise ExecutionError(
                    f"{location_of(op)}: 'layer.salloc' names a scratchpad of "
                    f"{capacity} bytes, but this run's scratchpad has {spad.capacity} "
                    f"bytes (set by the 'layer.salloc' at {spad.configured_at})"
                )
            if base < 0 or (base + rows * slot_count) * ENTRY_BYTES > capacity:
                raise ExecutionError(
                    f"{location_of(op)}: 'layer.salloc' tile {tile_type} at entry "
                    f"{base} does not fit a scratchpad of {capacity} bytes"
                )
            fr[o] = _Tile(spad, base, rows, slot_count)

        return step

    def _note_occupancy(self, spad: _Scratchpad) -> None:
        if spad.entries_full > self.stats["spad_peak_entries_full"]:
            self.stats["spad_peak_entries_full"] = spad.entries_full

    @staticmethod
    def _checked_rows(op: Operation, tile: _Tile, rows: int) -> tuple[int, int]:
        """The scratchpad entries [start, end) of the first `rows` rows of `tile`."""
        if not 0 <= rows <= tile.rows:
            raise ExecutionError(
                f"{location_of(op)}: '{op.name}' moves {rows} rows of a tile of "
                f"{tile.rows} rows"
            )
        return tile.base, tile.base + rows * tile.slots

    def _stream_fwd(self, op: stream.FwdOp, ins: list[int]) -> Step:
        """`stream.fwd`: push the first rows of a tile onto the tape and empty them."""
        t, n, tp = ins
        ident = op.id.value.data

        def step(fr: Frame) -> None:
            tile: _Tile = fr[t]
            tape_: _StreamTape = fr[tp]
            start, end = self._checked_rows(op, tile, fr[n])
            spad = tile.spad
            full = spad.full[start:end]
            nbytes = (end - start) * ENTRY_BYTES
            if tape_.used + nbytes > tape_.budget:
                raise ExecutionError(
                    f"{location_of(op)}: 'stream.fwd' (id {ident}) pushes {nbytes} "
                    f"bytes onto a tape of {tape_.budget} bytes that already holds "
                    f"{tape_.used}"
                )
            # Entries travel with their full/empty bits: an entry no store wrote
            # comes back empty, and reading it in REV is an error there.
            tape_.tiles.append(
                (ident, fr[n], tile.slots, spad.data[start:end].copy(), full.copy())
            )
            tape_.used += nbytes
            spad.entries_full -= int(np.count_nonzero(full))
            full[...] = False
            self.stats["stream_bytes_written"] += nbytes
            self.stats["stream_tiles_written"] += 1

        return step

    def _stream_rev(self, op: stream.RevOp, ins: list[int]) -> Step:
        """`stream.rev`: pop the top tile, which FWD-stream `of` must have pushed."""
        tp, n, t = ins
        of = op.of.value.data

        def step(fr: Frame) -> None:
            tape_: _StreamTape = fr[tp]
            tile: _Tile = fr[t]
            rows = fr[n]
            start, end = self._checked_rows(op, tile, rows)
            if not tape_.tiles:
                raise ExecutionError(
                    f"{location_of(op)}: 'stream.rev' (of {of}) pops a tile from an "
                    "empty tape"
                )
            pushed_by, pushed_rows, pushed_slots, entries, written = tape_.tiles[-1]
            if (pushed_by, pushed_rows, pushed_slots) != (of, rows, tile.slots):
                raise ExecutionError(
                    f"{location_of(op)}: 'stream.rev' expects the tile of FWD-stream "
                    f"{of} ({rows} rows x {tile.slots} slots), but the top of the tape "
                    f"is the tile of FWD-stream {pushed_by} ({pushed_rows} rows x "
                    f"{pushed_slots} slots)"
                )
            tape_.tiles.pop()
            tape_.used -= entries.size * ENTRY_BYTES
            spad = tile.spad
            spad.data[start:end] = entries
            spad.full[start:end] = written
            spad.entries_full = int(np.count_nonzero(spad.full))
            self.stats["stream_bytes_read"] += entries.size * ENTRY_BYTES
            self.stats["stream_tiles_read"] += 1
            self._note_occupancy(spad)

        return step

    def _scratchpad_access(
        self, op: stream.StoreOp | stream.LoadOp, ins: list[int], outs: list[int]
    ) -> Step:
        """`stream.store` fills one entry of a tile, `stream.load` reads a full one."""
        name = op.name
        slot = op.slot.value.data

        def entry(fr: Frame, t: int, r: int) -> tuple[_Scratchpad, int]:
            tile: _Tile = fr[t]
            row = fr[r]
            if not (0 <= row < tile.rows and 0 <= slot < tile.slots):
                raise ExecutionError(
                    f"{location_of(op)}: '{name}' entry (row {row}, slot {slot}) is "
                    f"outside its tile of {tile.rows} rows x {tile.slots} slots"
                )
            return tile.spad, tile.base + row * tile.slots + slot

        if isinstance(op, stream.StoreOp):
            v, t, r = ins

            def store_step(fr: Frame) -> None:
                spad, where = entry(fr, t, r)
                spad.data[where] = fr[v]
                if not spad.full[where]:
                    spad.full[where] = True
                    spad.entries_full += 1
                    self._note_occupancy(spad)

            return store_step

        t, r = ins
        (o,) = outs
        ident = op.store.value.data
        as_scalar = _python_scalar(op.result.type)

        def load_step(fr: Frame) -> None:
            spad, where = entry(fr, t, r)
            if not spad.full[where]:
                raise ExecutionError(
                    f"{location_of(op)}: 'stream.load' (slot {slot}, from store "
                    f"{ident}) reads scratchpad entry {where} (row {fr[r]}) before a "
                    "REV stream or store filled it"
                )
            fr[o] = as_scalar(spad.data[where])

        return load_step

    def _region_steps(self, block: Block, slots: dict[SSAValue, int]) -> tuple[list[Step], list[int]]:
        """A region's body without its terminator, and the slots the terminator yields."""
        body = list(block.ops)
        terminator = body[-1]
        steps = [self._op(o, slots) for o in body[:-1]]
        return steps, [self._slot(slots, v) for v in terminator.operands]

    def _for(self, op: scf.ForOp, slots: dict[SSAValue, int], ins: list[int], outs: list[int]) -> Step:
        lb, ub, st, *inits = ins
        block = op.body.block
        iv = self._slot(slots, block.args[0])
        carried = [self._slot(slots, a) for a in block.args[1:]]
        steps, yielded = self._region_steps(block, slots)

        def step(fr: Frame) -> None:
            for slot, init in zip(carried, inits):
                fr[slot] = fr[init]
            for i in range(fr[lb], fr[ub], fr[st]):
                fr[iv] = i
                for s in steps:
                    s(fr)
                if carried:
                    values = [fr[y] for y in yielded]
                    for slot, value in zip(carried, values):
                        fr[slot] = value
            for out, slot in zip(outs, carried):
                fr[out] = fr[slot]

        return step

    def _if(self, op: scf.IfOp, slots: dict[SSAValue, int], ins: list[int], outs: list[int]) -> Step:
        (cond,) = ins
        then_steps, then_yield = self._region_steps(op.true_region.block, slots)
        if op.false_region.blocks:
            else_steps, else_yield = self._region_steps(op.false_region.block, slots)
        else:
            else_steps, else_yield = [], []

        def step(fr: Frame) -> None:
            steps, yielded = (then_steps, then_yield) if fr[cond] else (else_steps, else_yield)
            for s in steps:
                s(fr)
            values = [fr[y] for y in yielded]
            for out, value in zip(outs, values):
                fr[out] = value

        return step

    def _while(self, op: scf.WhileOp, slots: dict[SSAValue, int], ins: list[int], outs: list[int]) -> Step:
        before, after = op.before_region.block, op.after_region.block
        before_args = [self._slot(slots, a) for a in before.args]
        after_args = [self._slot(slots, a) for a in after.args]
        before_steps, cond_operands = self._region_steps(before, slots)
        after_steps, yielded = self._region_steps(after, slots)
        cond, *forwarded = cond_operands

        def step(fr: Frame) -> None:
            values = [fr[i] for i in ins]
            while True:
                for slot, value in zip(before_args, values):
                    fr[slot] = value
                for s in before_steps:
                    s(fr)
                values = [fr[f] for f in forwarded]
                if not fr[cond]:
                    break
                for slot, value in zip(after_args, values):
                    fr[slot] = value
                for s in after_steps:
                    s(fr)
                values = [fr[y] for y in yielded]
            for out, value in zip(outs, values):
                fr[out] = value

        return step
