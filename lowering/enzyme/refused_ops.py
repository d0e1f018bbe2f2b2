"""
Ops users write that Enzyme-MLIR 0.0.16 cannot differentiate, rewritten before it.

Each rewrite keeps every value the function computes (bit for bit, in the
reference executor's and MLIR's semantics), so the gradient is Enzyme's of the
same function:

- `math.rsqrt(x)` (RMSNorm, LLaMA) becomes `1.0 / math.sqrt(x)`, which is how it
  is defined and lowered (Enzyme has no adjoint for rsqrt).
- `math.erf(x)` (GELU) has no elementary form; Enzyme has no adjoint for it, so it
  is handed `erf(s) + (x - s) * (2 / sqrt(pi)) * exp(-s * s)` with
  `s = enzyme.ignore_derivatives(x)`: the derivative Enzyme takes is erf's
  own, `2 / sqrt(pi) * exp(-x^2)`. After Enzyme, `restore_erf` replaces each sum
  by its `erf(s)` (the two differ for x = -0 and x = +-inf), so every function
  computes `erf(x)` again.
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
from collections.abc import Iterable

from xdsl.dialects import affine, arith, builtin, func, memref
from xdsl.dialects.builtin import AnyFloat, FloatAttr
from xdsl.dialects.math import ErfOp, ExpOp, RsqrtOp, SqrtOp
from xdsl.ir import Operation, OpResult, SSAValue

from tapeflow_dialects.enzyme import IgnoreDerivativesOp

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
"""erf'(x) = 2 / sqrt(pi) * exp(-x^2)."""

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
    return [op for op in function.walk() if isinstance(op, func.CallOp)]


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
        for op in current.walk():
            if op.name.startswith("memref.") or isinstance(op, affine.LoadOp | affine.StoreOp):
                return True
            if isinstance(op, func.CallOp):
                callee = functions.get(op.callee.root_reference.data)
                if callee is None:
                    return True  # a declaration: nothing says it leaves memory alone
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
    """rsqrt, erf and the deallocation of a function's own buffers, in the
    functions `names`, as the module docstring says."""
    functions = _functions(module)
    for name in names:
        function = functions.get(name)
        if function is None:
            continue
        for op in list(function.walk()):
            if isinstance(op, RsqrtOp):
                _rsqrt(op)
            elif isinstance(op, ErfOp):
                _erf(op)
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


def _erf(op: ErfOp) -> None:
    """`erf(x)` -> `erf(s) + (x - s) * (2 / sqrt(pi) * exp(-(s * s)))`,
    `s = enzyme.ignore_derivatives(x)`."""
    kind = op.result.type
    assert isinstance(kind, AnyFloat)
    x = op.operand
    s = IgnoreDerivativesOp(x)
    scale = _constant(TWO_OVER_SQRT_PI, kind)
    square = arith.MulfOp(s.result, s.result)
    negated = arith.NegfOp(square.result)
    gauss = ExpOp(negated.result)
    slope = arith.MulfOp(scale.result, gauss.result)
    offset = arith.SubfOp(x, s.result)
    linear = arith.MulfOp(offset.result, slope.result)
    _before(op, [s, scale, square, negated, gauss, slope, offset, linear])
    op.operands[0] = s.result
    total = arith.AddfOp(op.result, linear.result)
    block = op.parent_block()
    assert block is not None
    total.location = op.location
    block.insert_op_after(total, op)
    for use in list(op.result.uses):
        if use.operation is not total:
            use.operation.operands[use.index] = total.result


def restore_erf(function: func.FuncOp) -> None:
    """Each `erf(a) + (a - a) * d` of `_erf` in `function` (as Enzyme returns it,
    `s` replaced by `x`) becomes `erf(a)`; the ops only it used go."""
    for erf in [op for op in function.walk() if isinstance(op, ErfOp)]:
        a = erf.operand
        for use in list(erf.result.uses):
            add = use.operation
            if not isinstance(add, arith.AddfOp):
                continue
            other = add.operands[1 - use.index]
            if not (isinstance(other, OpResult) and isinstance(other.op, arith.MulfOp)):
                continue
            if not any(_zero_of(v, a) for v in other.op.operands):
                continue
            add.result.replace_all_uses_with(erf.result)
            _erase_dead(add)


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
