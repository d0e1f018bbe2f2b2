"""
Ops users write that Enzyme-MLIR 0.0.16 cannot differentiate, rewritten before it.

Each rewrite keeps every value the function computes (bit for bit, in the
reference executor's and MLIR's semantics), so the gradient is Enzyme's of the
same function:

- `math.rsqrt(x)` (RMSNorm, LLaMA) becomes `1.0 / math.sqrt(x)`, which is how it
  is defined and lowered (Enzyme has no adjoint for rsqrt).
- `math.erf(x)` (GELU) has no elementary form, nor do tan, sinh, cosh, their
  inverses, expm1, log10 and atan2, which Enzyme has no adjoint for either. Such an
  op `f(x)` reaches Enzyme as `f(s) + (x - s) * f'(s)` with `s =
  enzyme.ignore_derivatives(x)` (a term per operand for atan2): Enzyme takes the
  derivative `f'`. After it, `restore_derivative_ops` replaces each sum by its
  `f(s)` (they differ for x = -0 and infinities), so every function computes
  `f(x)` again. trunc, round and roundeven (derivative 0) get `s` as operand;
  minnumf becomes the selects that define it.
- `memref.dealloc` of a buffer the function allocates itself (Enzyme has no
  adjoint for a dealloc) is dropped: the buffer lives until the function returns
  (Enzyme's reverse sweep may read it there anyway).
- `func.call` of a function of the module that touches memory: Enzyme-MLIR
  differentiates a call in reverse mode only where the callee reads and writes no
  memory (it cannot cache what the callee overwrites), so such calls are inlined
  into the functions Enzyme differentiates; the callee stays for other callers.
  A call of a recursive function, or of a declaration, is left for Enzyme to refuse.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from xdsl.dialects import affine, arith, builtin, func, memref
from xdsl.dialects.builtin import AnyFloat, FloatAttr
from xdsl.dialects.math import (
    AcoshOp,
    AcosOp,
    AsinhOp,
    AsinOp,
    Atan2Op,
    AtanhOp,
    CoshOp,
    ErfOp,
    ExpM1Op,
    ExpOp,
    Log10Op,
    RoundEvenOp,
    RoundOp,
    RsqrtOp,
    SinhOp,
    SqrtOp,
    TanOp,
    TruncOp,
)
from xdsl.ir import Operation, OpResult, SSAValue

from lowering.ir.walk import walk_ops
from tapeflow_dialects.enzyme import IgnoreDerivativesOp

MEMORY_REFUSAL = "cannot differentiate a call in reverse mode whose callee touches memory"
"""What Enzyme-MLIR 0.0.16 says at a call whose callee reads or writes memory."""


def differentiated_functions(module: builtin.ModuleOp, roots: Iterable[str]) -> list[str]:
    """`roots` and every function of the module they call, transitively."""
    functions = _functions(module)
    found: list[str] = []
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in found or name not in functions:
            continue
        found.append(name)
        pending += [c.callee.root_reference.data for c in _calls(functions[name])]
    return found


def inline_memory_calls(module: builtin.ModuleOp, roots: Iterable[str]) -> None:
    """In `roots` (the functions Enzyme differentiates), inline every call of a
    function of the module that touches memory, until none is left but those of
    recursive functions and declarations."""
    functions = _functions(module)
    recursive = {
        name
        for name in functions
        if name in differentiated_functions(module, _callees(functions[name]))
    }
    pending = [functions[name] for name in roots if name in functions]
    while pending:
        caller = pending.pop()
        for call in _calls(caller):
            callee = functions.get(call.callee.root_reference.data)
            if callee is None or callee.sym_name.data in recursive or not _inlinable(callee):
                continue
            if _touches_memory(callee, functions):
                _inline(call, callee)
                pending.append(caller)  # what was inlined may call in turn
                break


def _functions(module: builtin.ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp)}


def _calls(function: func.FuncOp) -> list[func.CallOp]:
    return [op for op in walk_ops(function) if isinstance(op, func.CallOp)]


def _callees(function: func.FuncOp) -> list[str]:
    return [c.callee.root_reference.data for c in _calls(function)]


def _inlinable(callee: func.FuncOp) -> bool:
    return len(callee.body.blocks) == 1 and isinstance(callee.body.block.last_op, func.ReturnOp)


def _touches_memory(function: func.FuncOp, functions: dict[str, func.FuncOp]) -> bool:
    """Whether `function` or a function it calls has a memref or affine memory op."""
    seen: set[str] = set()
    pending = [function]
    while pending:
        current = pending.pop()
        if current.sym_name.data in seen:
            continue
        seen.add(current.sym_name.data)
        for op in walk_ops(current):
            if op.name.startswith("memref.") or isinstance(op, affine.LoadOp | affine.StoreOp):
                return True
            if isinstance(op, func.CallOp):
                callee = functions.get(op.callee.root_reference.data)
                if callee is None:
                    return True  # an unknown symbol: nothing says it leaves memory alone
                pending.append(callee)
    return False


def _inline(call: func.CallOp, callee: func.FuncOp) -> None:
    body = callee.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, call.arguments, strict=True))
    block = call.parent_block()
    assert block is not None
    returned: list[SSAValue] = []
    for op in body.ops:
        if isinstance(op, func.ReturnOp):
            returned = [mapping.get(v, v) for v in op.arguments]
            break
        block.insert_op_before(op.clone(mapping), call)
    for result, value in zip(call.results, returned, strict=True):
        result.replace_all_uses_with(value)
    call.detach()
    call.erase()


def rewrite_refused_ops(module: builtin.ModuleOp, names: Iterable[str]) -> None:
    """The ops of the module docstring, in the functions `names`."""
    functions = _functions(module)
    for name in names:
        function = functions.get(name)
        if function is None:
            continue
        for op in list(walk_ops(function)):
            if op.results and not isinstance(op.results[0].type, AnyFloat):
                continue  # vectors and tensors: left for Enzyme to take or refuse
            if isinstance(op, RsqrtOp):
                _rsqrt(op)
            elif type(op) in _DERIVATIVES or isinstance(op, Atan2Op):
                _with_derivative(op)
            elif isinstance(op, _FLAT):
                op.operands[0] = _ignored(op, op.operands[0])
            elif isinstance(op, arith.MinnumfOp):
                _minnumf(op)
            elif isinstance(op, memref.DeallocOp) and _allocated_here(op.memref):
                op.detach()
                op.erase()


def _before(op: Operation, new: list[Operation]) -> None:
    for each in new:
        each.location = op.location
    block = op.parent_block()
    assert block is not None
    block.insert_ops_before(new, op)


def _constant(value: float, kind: AnyFloat) -> arith.ConstantOp:
    return arith.ConstantOp(FloatAttr(value, kind))


def _rsqrt(op: RsqrtOp) -> None:
    kind = op.result.type
    assert isinstance(kind, AnyFloat)
    one = _constant(1.0, kind)
    sqrt = SqrtOp(op.operand, op.fastmath)
    quotient = arith.DivfOp(one.result, sqrt.result, flags=op.fastmath)
    _before(op, [one, sqrt, quotient])
    op.result.replace_all_uses_with(quotient.result)
    op.detach()
    op.erase()


class _Emit:
    """Float ops of one type, collected in order."""

    def __init__(self, kind: AnyFloat):
        self.kind = kind
        self.ops: list[Operation] = []

    def __call__(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, value: float) -> SSAValue:
        return self(_constant(value, self.kind))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(arith.MulfOp(a, b))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(arith.AddfOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(arith.SubfOp(a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(arith.DivfOp(a, b))

    def inverse_root(self, a: SSAValue) -> SSAValue:
        """1 / sqrt(a)."""
        return self.div(self.const(1.0), self(SqrtOp(a)))


Derivative = Callable[[_Emit, SSAValue, SSAValue], SSAValue]
"""f'(s), given s and f(s)."""

_DERIVATIVES: dict[type[Operation], Derivative] = {
    ErfOp: lambda e, s, f: e.mul(
        e.const(2.0 / math.sqrt(math.pi)), e(ExpOp(e(arith.NegfOp(e.mul(s, s)))))
    ),
    ExpM1Op: lambda e, s, f: e(ExpOp(s)),
    Log10Op: lambda e, s, f: e.div(e.const(1.0), e.mul(s, e.const(math.log(10.0)))),
    TanOp: lambda e, s, f: e.add(e.const(1.0), e.mul(f, f)),
    SinhOp: lambda e, s, f: e(CoshOp(s)),
    CoshOp: lambda e, s, f: e(SinhOp(s)),
    AsinhOp: lambda e, s, f: e.inverse_root(e.add(e.mul(s, s), e.const(1.0))),
    AcoshOp: lambda e, s, f: e.inverse_root(e.sub(e.mul(s, s), e.const(1.0))),
    AtanhOp: lambda e, s, f: e.div(e.const(1.0), e.sub(e.const(1.0), e.mul(s, s))),
    AsinOp: lambda e, s, f: e.inverse_root(e.sub(e.const(1.0), e.mul(s, s))),
    AcosOp: lambda e, s, f: e(arith.NegfOp(e.inverse_root(e.sub(e.const(1.0), e.mul(s, s))))),
}
"""The unary ops Enzyme-MLIR 0.0.16 has no adjoint for, and their derivatives (in
ops it differentiates, or of the inactive `s`)."""

_FLAT = (TruncOp, RoundOp, RoundEvenOp)
"""Piecewise constant: derivative 0 wherever it exists."""

_RESTORED = (*_DERIVATIVES, Atan2Op)


def _ignored(op: Operation, value: SSAValue) -> SSAValue:
    ignore = IgnoreDerivativesOp(value)
    _before(op, [ignore])
    return ignore.result


def _with_derivative(op: Operation) -> None:
    """`f(x..)` -> `f(s..) + sum_k (x_k - s_k) * d_k f(s..)`, `s_k` ignoring
    derivatives."""
    kind = op.results[0].type
    assert isinstance(kind, AnyFloat)
    xs = list(op.operands)
    ss = [_ignored(op, x) for x in xs]
    for k, s in enumerate(ss):
        op.operands[k] = s
    emit = _Emit(kind)
    f = op.results[0]
    if isinstance(op, Atan2Op):  # atan2(y, x): (x, -y) / (x^2 + y^2)
        y, x = ss
        norm = emit.add(emit.mul(x, x), emit.mul(y, y))
        slopes = [emit.div(x, norm), emit.div(emit(arith.NegfOp(y)), norm)]
    else:
        slopes = [_DERIVATIVES[type(op)](emit, ss[0], f)]
    terms = [emit.mul(emit.sub(x, s), d) for x, s, d in zip(xs, ss, slopes, strict=True)]
    derivative = list(emit.ops)
    total = f
    for term in terms:
        total = emit.add(total, term)
    block = op.parent_block()
    assert block is not None
    anchor: Operation = op
    for new in emit.ops:  # after f: the derivative may use it (tan' = 1 + tan^2)
        new.location = op.location
        block.insert_op_after(new, anchor)
        anchor = new
    _redirect(f, total, derivative)


def _redirect(f: SSAValue, total: SSAValue, derivative_ops: list[Operation]) -> None:
    """Every use of `f` outside its own sum and derivative takes the sum."""
    chain: set[Operation] = set(derivative_ops)
    value = total
    while isinstance(value, OpResult) and isinstance(value.op, arith.AddfOp):
        chain.add(value.op)
        value = value.op.lhs
    for use in list(f.uses):
        if use.operation not in chain:
            use.operation.operands[use.index] = total


def _minnumf(op: arith.MinnumfOp) -> None:
    """minnumf(a, b) = isnan(a) ? b : (b < a ? b : a) (a NaN b gives a)."""
    a, b = op.lhs, op.rhs
    nan_a = arith.CmpfOp(a, a, "uno")
    less = arith.CmpfOp(b, a, "olt")
    smaller = arith.SelectOp(less.result, b, a)
    pick = arith.SelectOp(nan_a.result, b, smaller.result)
    _before(op, [nan_a, less, smaller, pick])
    op.results[0].replace_all_uses_with(pick.result)
    op.detach()
    op.erase()


def restore_derivative_ops(function: func.FuncOp) -> None:
    """Each `f(a..) + (a - a) * d ..` of `_with_derivative` in `function` (as
    Enzyme returns it, `s` replaced by `x`) becomes `f(a..)`; the ops only the
    sum used go."""
    for op in [op for op in walk_ops(function) if isinstance(op, _RESTORED)]:
        f = op.results[0]
        found = True
        while found:
            found = False
            for use in list(f.uses):
                add = use.operation
                if not isinstance(add, arith.AddfOp):
                    continue
                other = add.operands[1 - use.index]
                if not (isinstance(other, OpResult) and isinstance(other.op, arith.MulfOp)):
                    continue
                if not any(_zero_of(v, a) for v in other.op.operands for a in op.operands):
                    continue
                add.result.replace_all_uses_with(f)
                _erase_dead(add)
                found = True
                break


def _zero_of(value: SSAValue, a: SSAValue) -> bool:
    """`value` is `a - a`."""
    return (
        isinstance(value, OpResult)
        and isinstance(value.op, arith.SubfOp)
        and value.op.lhs is a
        and value.op.rhs is a
    )


def _erase_dead(op: Operation) -> None:
    """Erase `op` (unused, free of effects) and, in turn, the arith and math ops
    that only it used."""
    pending = [op]
    while pending:
        current = pending.pop()
        if any(r.uses for r in current.results) or current.parent is None:
            continue
        operands = list(current.operands)
        current.detach()
        current.erase()
        for value in operands:
            if (
                isinstance(value, OpResult)
                and value.op.name.startswith(("arith.", "math."))
                and not value.uses
            ):
                pending.append(value.op)


def _allocated_here(buffer: SSAValue) -> bool:
    return isinstance(buffer, OpResult) and isinstance(buffer.op, memref.AllocOp | memref.AllocaOp)
