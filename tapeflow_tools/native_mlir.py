"""
Run a gradient natively with MLIR's own tools: the `tapeflow-to-upstream` output,
lowered to LLVM by `mlir-opt` and run by `mlir-cpu-runner` (Debian/Ubuntu:
`apt-get install mlir-19-tools`).

`run_native(module, caller, given)` takes a module at a stage `tapeflow-to-upstream`
takes, the function to call and its arguments as `tapeflow-run` takes them
(`arg0`, `arg1`, ...: arrays for memrefs, 0-d arrays for scalars), bound as it
binds them (`arguments.bind_arguments`: a memref left out, a shadow, is
zero-filled), and returns what `tapeflow_tools.tapeflow_run.run_function` returns: every memref
argument after the call (`arg<i>`) and every result (`result<i>`), so the two can
be compared value for value. It calls functions of f64 memrefs and f64, index
or integer scalars returning f64s (`check_native_signature`); `tapeflow-run
--native` is it on the command line.

The module gets a `@main` that holds each input in a mutable `memref.global`
(its initial value), calls the function, and writes every f64 of every memref
argument and every result as the 16 hex digits of its bits, one per line,
through libc's `putchar` (which `mlir-cpu-runner` resolves in its own process):
exact values, and no need for MLIR's runner-utility libraries, which Debian ships
in another package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from io import StringIO
from typing import Any

import numpy as np
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import Float64Type, IndexType, IntegerType, MemRefType, NoneAttr
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.printer import Printer

from lowering.tapeflow_to_upstream import to_upstream
from tapeflow_tools.arguments import bind_arguments
from tapeflow_tools.context import make_context

INSTALL_HINT = (
    "MLIR 19's tools are needed (mlir-opt-19, mlir-cpu-runner-19): "
    "apt-get install mlir-19-tools (Debian 12 / Ubuntu; or LLVM's apt repository, apt.llvm.org)"
)

LOWER_TO_LLVM = (
    "convert-linalg-to-loops",
    "convert-scf-to-cf",
    "expand-strided-metadata",
    "lower-affine",
    "finalize-memref-to-llvm",
    "convert-math-to-llvm",
    "convert-math-to-libm",
    "convert-arith-to-llvm",
    "convert-index-to-llvm",
    "convert-cf-to-llvm",
    "convert-func-to-llvm",
    "reconcile-unrealized-casts",
)
"""MLIR's standard lowering of func/scf/arith/math/memref/linalg to the LLVM dialect
(`mlir-opt --<pass> ...` in this order)."""

_PRINT_BITS = """
func.func private @putchar(i32) -> i32
func.func private @tapeflow_print_bits(%v: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c60 = arith.constant 60 : i64
  %c4 = arith.constant 4 : i64
  %c15 = arith.constant 15 : i64
  %c10 = arith.constant 10 : i64
  %digit = arith.constant 48 : i64
  %letter = arith.constant 87 : i64
  %newline = arith.constant 10 : i32
  %bits = arith.bitcast %v : f64 to i64
  scf.for %k = %c0 to %c16 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %down = arith.muli %ki, %c4 : i64
    %shift = arith.subi %c60, %down : i64
    %moved = arith.shrui %bits, %shift : i64
    %nibble = arith.andi %moved, %c15 : i64
    %small = arith.cmpi ult, %nibble, %c10 : i64
    %base = arith.select %small, %digit, %letter : i64
    %code = arith.addi %base, %nibble : i64
    %char = arith.trunci %code : i64 to i32
    %r = func.call @putchar(%char) : (i32) -> i32
  }
  %r = func.call @putchar(%newline) : (i32) -> i32
  return
}
"""


AGREEMENT = 1e-12
"""How far a native value may be from the reference executor's, relative to the
largest magnitude of its array: native code may fuse `a*b + c` (Enzyme marks its
adjoint arithmetic `fastmath<fast>`) and takes exp/log from libm, numpy rounds
each operation and has its own exp/log, so the two agree to a few units in the
last place, not always bit for bit."""


def difference(got: np.ndarray, want: np.ndarray) -> float:
    """The largest difference of `got` from `want`, relative to `want`'s largest
    magnitude (0.0 for equal arrays; inf for arrays of different shapes)."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return float("inf")
    if got.tobytes() == want.tobytes():
        return 0.0
    scale = max(float(np.max(np.abs(want))), np.finfo(np.float64).tiny)
    return float(np.max(np.abs(got - want))) / scale


@dataclass(frozen=True)
class MlirTools:
    opt: str
    runner: str


def find_mlir_tools() -> MlirTools | None:
    """mlir-opt and mlir-cpu-runner of MLIR 19, on PATH or where Debian puts them."""

    def find(*names: str) -> str | None:
        for name in names:
            found = shutil.which(name) or (
                name if os.path.isabs(name) and os.access(name, os.X_OK) else None
            )
            if found:
                return found
        return None

    opt = find("mlir-opt-19", "/usr/lib/llvm-19/bin/mlir-opt")
    runner = find("mlir-cpu-runner-19", "/usr/lib/llvm-19/bin/mlir-cpu-runner")
    return MlirTools(opt, runner) if opt and runner else None


class NativeRunFailed(Exception):
    """mlir-opt or mlir-cpu-runner failed; the message holds what it said."""


def _generic(module: builtin.ModuleOp) -> str:
    text = StringIO()
    Printer(stream=text, print_generic_format=True).print_op(module)
    return text.getvalue()


def _float(value: float, what: str) -> str:
    """`value` as an MLIR float literal that reads back to exactly it (the shortest
    digits that do, always with the `.` MLIR's grammar requires: `1.e-05`)."""
    if not np.isfinite(value):
        raise NativeRunFailed(f"{what} holds {value}: the native run takes finite values only")
    return np.format_float_scientific(value, unique=True)


def _dense(values: np.ndarray, what: str) -> str:
    """A dense literal holding exactly `values`."""

    def nested(v: np.ndarray) -> str:
        if v.ndim == 0:
            return _float(float(v), what)
        return "[" + ", ".join(nested(x) for x in v) + "]"

    shape = "x".join(str(d) for d in values.shape)
    return f"dense<{nested(values)}> : tensor<{shape + 'x' if shape else ''}f64>"


class UnsupportedSignature(ValueError):
    """The caller takes or returns a type the native harness cannot pass or print."""


def check_native_signature(caller: func.FuncOp) -> None:
    """Refuse a caller the harness cannot call: its arguments must be f64 memrefs
    (identity layout, any shape) or scalars (f64, index, signless integers), its
    results f64."""
    name = caller.sym_name.data
    for i, arg in enumerate(caller.function_type.inputs.data):
        if isinstance(arg, MemRefType):
            if not isinstance(arg.element_type, Float64Type):
                raise UnsupportedSignature(
                    f"argument arg{i} of @{name} is {arg}: the native run takes memrefs of f64 only"
                )
            if not isinstance(arg.layout, NoneAttr) or not isinstance(arg.memory_space, NoneAttr):
                raise UnsupportedSignature(
                    f"argument arg{i} of @{name} is {arg}: the native run takes memrefs "
                    "without a layout or memory space only"
                )
        elif not isinstance(arg, Float64Type | IndexType | IntegerType):
            raise UnsupportedSignature(
                f"argument arg{i} of @{name} is {arg}: the native run takes f64 memrefs "
                "and f64, index or integer scalars only"
            )
    for k, result in enumerate(caller.function_type.outputs.data):
        if not isinstance(result, Float64Type):
            raise UnsupportedSignature(
                f"result {k} of @{name} is {result}: the native run returns f64 results only"
            )


def _scalar(value: float, kind: Attribute, what: str) -> str:
    if isinstance(kind, Float64Type):
        return f"{_float(float(value), what)} : f64"
    if kind == IntegerType(1):
        return "true" if value else "false"
    return f"{int(value)} : {kind}"


def _harness(caller: func.FuncOp, bound: Sequence[np.ndarray | int | float]) -> str:
    """@main (and the globals it reads) in MLIR's generic form, which xDSL parses."""
    lines: list[str] = []
    body: list[str] = []
    operands: list[str] = []
    printed: list[tuple[str, MemRefType]] = []
    for i, (arg, value) in enumerate(zip(caller.function_type.inputs.data, bound, strict=True)):
        what = f"input arg{i}"
        if not isinstance(arg, MemRefType):
            literal = _scalar(value, arg, what)
            body.append(f'%a{i} = "arith.constant"() <{{value = {literal}}}> : () -> {arg}')
            operands.append(f"%a{i}")
            continue
        array = np.asarray(value, dtype=np.float64)
        static = MemRefType(arg.element_type, list(array.shape))
        lines.append(
            f'"memref.global"() <{{sym_name = "tapeflow_in{i}", sym_visibility = "private", '
            f"type = {static}, initial_value = {_dense(array, what)}}}> : () -> ()"
        )
        body.append(f'%g{i} = "memref.get_global"() <{{name = @tapeflow_in{i}}}> : () -> {static}')
        operand = f"%g{i}"
        if static != arg:  # a buffer of dynamic shape: the global, cast
            body.append(f'%a{i} = "memref.cast"(%g{i}) : ({static}) -> {arg}')
            operand = f"%a{i}"
        operands.append(operand)
        printed.append((f"%g{i}", static))
    outputs = caller.function_type.outputs.data
    types = ", ".join(str(t) for t in caller.function_type.inputs.data)
    results = ", ".join(str(t) for t in outputs)
    call = (
        f'"func.call"({", ".join(operands)}) <{{callee = @{caller.sym_name.data}}}> '
        f": ({types}) -> ({results})"
    )
    body.append((f"%r:{len(outputs)} = " if outputs else "") + call)
    body.append('%c0 = "arith.constant"() <{value = 0 : index}> : () -> index')
    body.append('%c1 = "arith.constant"() <{value = 1 : index}> : () -> index')
    for n, (buffer, kind) in enumerate(printed):
        body += _print_all(buffer, kind, n)
    for k in range(len(outputs)):
        body.append(f'"func.call"(%r#{k}) <{{callee = @tapeflow_print_bits}}> : (f64) -> ()')
    body.append('"func.return"() : () -> ()')
    main = (
        '"func.func"() <{sym_name = "main", function_type = () -> ()}> ({\n'
        + "\n".join(body)
        + "\n}) : () -> ()"
    )
    return "\n".join([*lines, main])


def _print_all(buffer: str, kind: MemRefType, n: int) -> list[str]:
    """Nested loops over every element of `buffer`, printing each."""
    shape = kind.get_shape()
    lines: list[str] = []
    ivs: list[str] = []
    for d, extent in enumerate(shape):
        bound = f"%n{n}_{d}"
        iv = f"%i{n}_{d}"
        lines.append(f'{bound} = "arith.constant"() <{{value = {extent} : index}}> : () -> index')
        lines.append(f'"scf.for"(%c0, {bound}, %c1) ({{\n^bb0({iv}: index):')
        ivs.append(iv)
    operands = ", ".join([buffer, *ivs])
    types = ", ".join([str(kind), *("index" for _ in ivs)])
    lines.append(f'%v{n} = "memref.load"({operands}) : ({types}) -> f64')
    lines.append(f'"func.call"(%v{n}) <{{callee = @tapeflow_print_bits}}> : (f64) -> ()')
    for _ in shape:
        lines.append('"scf.yield"() : () -> ()\n}) : (index, index, index) -> ()')
    return lines


def _bound(
    module: builtin.ModuleOp, caller: str, given: dict[str, np.ndarray]
) -> tuple[func.FuncOp, list[Any]]:
    """The caller and its arguments as `tapeflow-run` binds them (missing memrefs of
    static shape zero-filled: shadows), after checking the harness can call it."""
    function = next(
        (
            f
            for f in module.body.block.ops
            if isinstance(f, func.FuncOp) and f.sym_name.data == caller
        ),
        None,
    )
    if function is None:
        raise ValueError(f"no function @{caller} in the module")
    check_native_signature(function)
    return function, bind_arguments(function, given)


def _native_text(module: builtin.ModuleOp, caller: str, bound: Sequence[Any]) -> str:
    upstream = module.clone()
    to_upstream(upstream)
    functions = {f.sym_name.data: f for f in upstream.body.block.ops if isinstance(f, func.FuncOp)}
    extra = Parser(
        make_context(), _PRINT_BITS + _harness(functions[caller], bound), "<native harness>"
    ).parse_module()
    for op in list(extra.body.block.ops):
        op.detach()
        upstream.body.block.add_op(op)
    return _generic(upstream)


def native_module(module: builtin.ModuleOp, caller: str, given: dict[str, np.ndarray]) -> str:
    """The upstream module, with @main calling `caller` on `given`, in generic form."""
    return _native_text(module, caller, _bound(module, caller, given)[1])


def run_native(
    module: builtin.ModuleOp,
    caller: str,
    given: dict[str, np.ndarray],
    tools: MlirTools,
    timeout: float = 120.0,
) -> dict[str, np.ndarray]:
    """`caller(given)` compiled by mlir-opt to LLVM and run by mlir-cpu-runner:
    the memref arguments after the call and the results, as `run_function` gives
    them. `given` is bound as `tapeflow-run` binds it: a missing memref of static
    shape is zero-filled."""
    function, bound = _bound(module, caller, given)
    text = _native_text(module, caller, bound)
    with tempfile.TemporaryDirectory() as scratch:
        source = os.path.join(scratch, "native.mlir")
        with open(source, "w") as out:
            out.write(text)
        lowered = _tool([tools.opt, source, *(f"--{p}" for p in LOWER_TO_LLVM)], timeout)
        printed = _tool([tools.runner, "-e", "main", "-entry-point-result=void"], timeout, lowered)
    words = [int(line, 16) for line in printed.split()]
    bits = np.array(words, dtype=np.uint64).view(np.float64)
    return _unpack(function, bound, bits)


def _tool(command: Sequence[str], timeout: float, stdin: str | None = None) -> str:
    try:
        done = subprocess.run(
            list(command), input=stdin, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise NativeRunFailed(
            f"{os.path.basename(command[0])} did not finish within {timeout:g} s"
        ) from None
    except OSError as err:
        raise NativeRunFailed(f"{command[0]} cannot be run: {err.strerror}") from None
    if done.returncode != 0:
        raise NativeRunFailed(
            f"{os.path.basename(command[0])} failed (exit {done.returncode}):\n"
            f"{done.stderr.strip()}"
        )
    return done.stdout


def _unpack(
    function: func.FuncOp, bound: Sequence[Any], values: np.ndarray
) -> dict[str, np.ndarray]:
    outputs: dict[str, np.ndarray] = {}
    at = 0
    for i, (arg, value) in enumerate(zip(function.function_type.inputs.data, bound, strict=True)):
        if isinstance(arg, MemRefType):
            shape = np.asarray(value).shape
            size = int(np.prod(shape, dtype=np.int64))
            outputs[f"arg{i}"] = values[at : at + size].reshape(shape).copy()
            at += size
    for k in range(len(function.function_type.outputs.data)):
        outputs[f"result{k}"] = np.asarray(values[at])
        at += 1
    if at != values.size:
        raise NativeRunFailed(f"the native run printed {values.size} values, {at} expected")
    return outputs
