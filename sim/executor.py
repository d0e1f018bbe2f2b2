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
IR on every step. Supported: func, scf (for, if, while, yield), arith, math,
memref (alloc, alloca, dealloc, load, store, subview, copy, cast), the `enzyme`
cache/gradient ops and the `tape` dialect. Anything else is an
`ExecutionError` that names the op and where it was written.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, memref, scf
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

from tapeflow_dialects import enzyme, tape
from tapeflow_dialects.locations import location_of
from tapeflow_dialects.memref_views import UnsupportedSubview, subview_geometry


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


class Executor:
    """Runs functions of one module. `run` takes and returns Python/numpy values."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.functions: dict[str, func.FuncOp] = {
            op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)
        }
        self._compiled: dict[str, Callable[[Sequence[Any]], tuple[Any, ...]]] = {}
        self.ops_executed = 0

    # ------------------------------------------------------------------ public
    def run(self, name: str, args: Sequence[Any]) -> tuple[Any, ...]:
        if name not in self.functions:
            raise ExecutionError(
                f"no function @{name} in the module (found: "
                f"{', '.join('@' + f for f in self.functions) or 'none'})"
            )
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
        ins = [self._slot(slots, v) for v in op.operands]
        outs = [self._slot(slots, r) for r in op.results]
        name = op.name
        counter = self

        def unsupported(why: str) -> ExecutionError:
            return ExecutionError(f"{location_of(op)}: cannot execute '{name}': {why}")

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

                def step(fr: Frame) -> None:
                    fr[o] = np.zeros(shape, dtype=dtype)

                return step
            case memref.DeallocOp():
                return lambda fr: None
            case memref.LoadOp():
                m, *idx = ins
                (o,) = outs

                def step(fr: Frame) -> None:
                    fr[o] = fr[m][tuple(fr[i] for i in idx)].item()

                return step
            case memref.StoreOp():
                v, m, *idx = ins

                def step(fr: Frame) -> None:
                    fr[m][tuple(fr[i] for i in idx)] = fr[v]

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
                return self._for(op, slots, ins, outs)
            case scf.IfOp():
                return self._if(op, slots, ins, outs)
            case scf.WhileOp():
                return self._while(op, slots, ins, outs)
            case scf.YieldOp() | scf.ConditionOp():
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
            case tape.FreeOp():
                return lambda fr: None
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
