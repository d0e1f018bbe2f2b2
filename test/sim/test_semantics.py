"""
MLIR `arith` semantics (`tapeflow_dialects.semantics`) on hand-computed cases,
each run by the executor on four paths: a function body by its generated code
(`fast=True`) and by its closures (`fast=False`), and the same op placed in a
kernel loop (`cgra.op`), compiled and by closures. Then the faults the executor
reports at the op that caused them, on both paths.
"""

from __future__ import annotations

import math
import random
import sys
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import IndexType, IntegerType, f32, f64, i1, i8, i64

from sim.executor import ExecutionError, Executor
from sim.storage import ALLOCATION_LIMIT_BYTES
from tapeflow_dialects import semantics
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def _module(text: str, filename: str = "case.mlir") -> Any:
    return LocatingParser(make_context(), text, filename).parse_module()


def _zero(t: str) -> str:
    if t == "i1":
        return "arith.constant false"
    if t.startswith("f"):
        return f"arith.constant 0.0 : {t}"
    return f"arith.constant 0 : {t}"


def _program(op: str, arg_types: list[str], result: str, predicate: int | None) -> str:
    """@plain: the op in a function body; @kernel: the op placed in a kernel loop
    of one trip."""
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_types))
    operands = ", ".join(f"%a{i}" for i in range(len(arg_types)))
    types = ", ".join(arg_types)
    props = f" <{{predicate = {predicate} : i64}}>" if predicate is not None else ""
    attrs = f" attrs {{predicate = {predicate} : i64}}" if predicate is not None else ""
    return f"""
func.func @plain({params}) -> {result} {{
  %r = "{op}"({operands}){props} : ({types}) -> {result}
  func.return %r : {result}
}}
func.func @kernel({params}) -> {result} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = {_zero(result)}
  %s = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %init) -> ({result}) {{
    %k = cgra.kernel 0 rows 4 cols 4 ii 4 -> {result} {{
      %v = cgra.op "{op}"({operands}) at 0, 0 cycle 0{attrs} : ({types}) -> {result}
      cgra.yield %v : {result}
    }}
    scf.yield %k : {result}
  }}
  func.return %s : {result}
}}
"""


def _everywhere(text: str, args: list[Any]) -> list[Any]:
    """The outcome (result, or error message) of @plain and @kernel, fast and not."""
    outcomes = []
    for name in ("plain", "kernel"):
        for fast in (True, False):
            executor = Executor(_module(text), fast=fast)
            try:
                (value,) = executor.run(name, list(args))
                outcomes.append(value)
            except ExecutionError as err:
                outcomes.append(f"error: {err}")
            if fast:  # the generated function ran (the closures are the other path)
                assert executor._compiled[name].__name__ == "fast_call"
    return outcomes


def _check(
    op: str,
    arg_types: list[str],
    result: str,
    args: list[Any],
    expected: Any,
    predicate: int | None = None,
) -> None:
    outcomes = _everywhere(_program(op, arg_types, result, predicate), args)
    for outcome in outcomes:
        assert type(outcome) is type(expected), (op, args, outcomes)
        if isinstance(expected, float) and math.isnan(expected):
            assert math.isnan(outcome)
        else:
            assert outcome == expected, (op, args, outcomes)
    assert len({repr(o) for o in outcomes}) == 1, outcomes  # the same bits: -0.0, bool


# ------------------------------------------------------------ integer ops

INTEGER_CASES = [
    # op, operand type, a, b, result: MLIR two's-complement, by hand
    ("arith.addi", "i8", 100, 100, -56),  # 200 - 256
    ("arith.addi", "i64", 1, I64_MAX, I64_MIN),
    ("arith.addi", "index", I64_MAX, I64_MAX, -2),
    ("arith.subi", "i64", I64_MIN, 1, I64_MAX),
    ("arith.subi", "i8", -128, 1, 127),
    ("arith.muli", "index", 2**62, 4, 0),
    ("arith.muli", "i8", 16, 16, 0),
    ("arith.muli", "i8", -3, 50, 106),  # -150 + 256
    ("arith.divui", "i64", -4, 2, 2**63 - 2),  # (2^64 - 4) / 2
    ("arith.divui", "i8", -1, 16, 15),  # 255 / 16
    ("arith.divsi", "i64", -7, 2, -3),  # toward zero
    ("arith.divsi", "i8", 7, -2, -3),
    ("arith.remsi", "i64", -7, 2, -1),  # sign of the dividend
    ("arith.remsi", "i64", 7, -2, 1),
    ("arith.remui", "i8", -1, 10, 5),  # 255 % 10
    ("arith.floordivsi", "index", -7, 2, -4),
    ("arith.ceildivsi", "index", -7, 2, -3),
    ("arith.ceildivsi", "index", 7, 2, 4),
    ("arith.ceildivui", "i8", -1, 2, -128),  # ceil(255 / 2) = 128, held as -128
    ("arith.maxui", "i8", -1, 1, -1),  # 255 > 1
    ("arith.minui", "i8", -1, 1, 1),
    ("arith.maxsi", "i8", -1, 1, 1),
    ("arith.minsi", "i8", -1, 1, -1),
    ("arith.andi", "i8", -1, 12, 12),
    ("arith.ori", "i8", -128, 1, -127),
    ("arith.xori", "i8", -1, 1, -2),
    ("arith.shli", "i8", 1, 7, -128),
    ("arith.shli", "i8", 3, 7, -128),  # 384 mod 256 = 128
    ("arith.shli", "i8", 1, 8, 0),  # amount >= width: 0 (documented; MLIR: poison)
    ("arith.shrui", "i8", -16, 2, 60),  # 240 >> 2
    ("arith.shrui", "i64", -1, 63, 1),
    ("arith.shrui", "i8", -16, 8, 0),  # amount >= width: 0
    ("arith.shrsi", "i8", -16, 2, -4),
    ("arith.shrsi", "i8", -16, 9, -1),  # amount >= width: the sign fill
    ("arith.shrsi", "i8", 16, -1, 0),  # -1 is an amount of 255
]


@pytest.mark.parametrize(("op", "t", "a", "b", "expected"), INTEGER_CASES)
def test_integer_ops_wrap_as_mlir(op: str, t: str, a: int, b: int, expected: int) -> None:
    _check(op, [t, t], t, [a, b], expected)


CMPI = [
    # predicate (number), operand type, a, b, result
    (6, "i64", -1, 1, False),  # ult: 2^64-1 < 1 is false
    (2, "i64", -1, 1, True),  # slt
    (8, "i8", -1, 1, True),  # ugt: 255 > 1
    (9, "index", 0, -1, False),  # uge: 0 >= 2^64-1 is false
    (7, "i8", 5, 5, True),  # ule
    (0, "i8", -1, -1, True),  # eq
    (1, "i8", -1, 1, True),  # ne
    (2, "i1", True, False, True),  # slt on i1: true is -1 < 0
    (6, "i1", True, False, False),  # ult on i1: 1 < 0 is false
    (4, "i1", False, True, True),  # sgt: 0 > -1
]


@pytest.mark.parametrize(("predicate", "t", "a", "b", "expected"), CMPI)
def test_cmpi_reads_operands_as_its_predicate_says(
    predicate: int, t: str, a: Any, b: Any, expected: bool
) -> None:
    _check("arith.cmpi", [t, t], "i1", [a, b], expected, predicate)


I1 = [
    ("arith.addi", True, True, False),
    ("arith.addi", True, False, True),
    ("arith.subi", False, True, True),
    ("arith.muli", True, True, True),
    ("arith.xori", True, True, False),
    ("arith.andi", True, False, False),
    ("arith.ori", False, True, True),
    ("arith.maxsi", True, False, False),  # max(-1, 0) = 0
    ("arith.minsi", True, False, True),
    ("arith.maxui", True, False, True),
    ("arith.divui", True, True, True),  # 1 / 1
]


@pytest.mark.parametrize(("op", "a", "b", "expected"), I1)
def test_i1_arithmetic_is_mod_2_and_gives_bools(op: str, a: bool, b: bool, expected: bool) -> None:
    _check(op, ["i1", "i1"], "i1", [a, b], expected)


CASTS = [
    ("arith.extui", "i8", "i32", -1, 255),
    ("arith.extsi", "i8", "i32", -1, -1),
    ("arith.extui", "i1", "i32", True, 1),
    ("arith.extsi", "i1", "i32", True, -1),
    ("arith.trunci", "i32", "i8", 300, 44),  # 300 - 256
    ("arith.trunci", "i32", "i8", 255, -1),
    ("arith.trunci", "i32", "i1", 3, True),
    ("arith.trunci", "i32", "i1", 2, False),
    ("arith.index_cast", "index", "i8", 300, 44),
    ("arith.index_cast", "i8", "index", -5, -5),  # sign extension
    ("arith.index_cast", "i1", "index", True, -1),
    ("arith.fptosi", "f64", "i8", 3.7, 3),  # toward zero
    ("arith.fptosi", "f64", "i8", -3.7, -3),
    ("arith.fptosi", "f64", "i8", 1000.0, 127),  # saturates (documented; MLIR: poison)
    ("arith.fptosi", "f64", "i64", -1e300, I64_MIN),
    ("arith.fptosi", "f64", "i32", math.nan, 0),
    ("arith.fptoui", "f64", "i8", 300.0, -1),  # saturates at 255, held as -1
    ("arith.fptoui", "f64", "i8", -5.0, 0),
    ("arith.fptoui", "f64", "i8", 200.0, -56),  # 200, held as -56
    ("arith.sitofp", "i8", "f64", -1, -1.0),
    ("arith.uitofp", "i8", "f64", -1, 255.0),
    ("arith.uitofp", "i64", "f64", -1, 2.0**64),
    ("arith.sitofp", "i1", "f64", True, -1.0),
    ("arith.uitofp", "i1", "f64", True, 1.0),
]


@pytest.mark.parametrize(("op", "source", "result", "a", "expected"), CASTS)
def test_casts(op: str, source: str, result: str, a: Any, expected: Any) -> None:
    _check(op, [source], result, [a], expected)


def test_select_takes_the_operand_its_condition_names() -> None:
    _check("arith.select", ["i1", "index", "index"], "index", [True, 3, -4], 3)
    _check("arith.select", ["i1", "f64", "f64"], "f64", [False, 3.0, -0.0], -0.0)


# ------------------------------------------------------------------ floats


def test_f64_is_ieee_where_python_raises() -> None:
    _check("arith.divf", ["f64", "f64"], "f64", [1.0, -0.0], -math.inf)
    _check("arith.divf", ["f64", "f64"], "f64", [0.0, 0.0], math.nan)
    _check("math.exp", ["f64"], "f64", [1000.0], math.inf)
    _check("math.cosh", ["f64"], "f64", [1000.0], math.inf)
    _check("math.sin", ["f64"], "f64", [math.inf], math.nan)
    _check("math.log", ["f64"], "f64", [-1.0], math.nan)
    _check("math.powf", ["f64", "f64"], "f64", [0.0, -1.0], math.inf)
    _check("arith.maximumf", ["f64", "f64"], "f64", [-0.0, 0.0], 0.0)
    _check("arith.minimumf", ["f64", "f64"], "f64", [-0.0, 0.0], -0.0)


CMPF = [
    (7, math.nan, 1.0, False),  # ord
    (14, math.nan, 1.0, True),  # uno
    (6, 1.0, 2.0, True),  # one
    (6, math.nan, 2.0, False),
    (8, math.nan, 2.0, True),  # ueq
    (8, 1.0, 2.0, False),
    (11, math.nan, 2.0, True),  # ult
    (4, math.nan, 2.0, False),  # olt
    (0, 1.0, 1.0, False),
    (15, math.nan, math.nan, True),
]


@pytest.mark.parametrize(("predicate", "a", "b", "expected"), CMPF)
def test_cmpf_predicates_with_nan(predicate: int, a: float, b: float, expected: bool) -> None:
    _check("arith.cmpf", ["f64", "f64"], "i1", [a, b], expected, predicate)


def _f32(x: float) -> float:
    return float(np.float32(x))


def test_f32_results_are_rounded_to_single_precision() -> None:
    a, b = _f32(0.1), _f32(0.2)
    expected = _f32(np.float32(a) + np.float32(b))  # numpy's own f32 addition
    assert expected != a + b  # the case shows the rounding
    _check("arith.addf", ["f32", "f32"], "f32", [a, b], expected)
    _check("arith.mulf", ["f32", "f32"], "f32", [3e38, 10.0], math.inf)  # overflows f32
    _check("arith.divf", ["f32", "f32"], "f32", [1.0, 3.0], _f32(np.float32(1) / np.float32(3)))
    _check("arith.truncf", ["f64"], "f32", [0.1], _f32(0.1))
    _check("arith.extf", ["f32"], "f64", [_f32(0.1)], _f32(0.1))
    # Integers beyond 2^53 go to single precision in one rounding, not via f64.
    big = 2**60 + 2**36 + 1  # just above the midpoint of two f32 neighbours
    _check("arith.sitofp", ["i64"], "f32", [big], float(2**60 + 2**37))


def test_constants_are_held_at_their_type() -> None:
    text = """
    func.func @f() -> (f32, i8, i1, index) {
      %a = arith.constant 0.1 : f32
      %b = arith.constant 200 : i8
      %c = arith.constant true
      %d = arith.constant -1 : index
      func.return %a, %b, %c, %d : f32, i8, i1, index
    }"""
    for fast in (True, False):
        values = Executor(_module(text), fast=fast).run("f", [])
        assert repr(values) == repr((_f32(0.1), -56, True, -1))


# ------------------------------------------------------- the table itself


def test_accessors_at_types() -> None:
    index = IndexType()
    assert semantics.int_binary("arith.addi", i8)(100, 100) == -56
    assert semantics.int_binary("arith.divui", i64)(-4, 2) == 2**63 - 2
    assert semantics.cmpi("ult", i64)(-1, 1) is False
    assert semantics.cast("arith.extui", i8, IntegerType(32))(-1) == 255
    assert semantics.float_binary("arith.addf", f32)(_f32(0.1), _f32(0.2)) == _f32(
        np.float32(0.1) + np.float32(0.2)
    )
    assert semantics.float_binary("arith.addf", f64)(0.1, 0.2) == 0.1 + 0.2
    assert semantics.fold_int("arith.addi", I64_MAX, 1, index) == I64_MIN
    assert semantics.fold_int("arith.divsi", -7, 2, index) == -3
    assert semantics.fold_int("arith.divsi", 1, 0, index) is None  # UB: not folded
    assert semantics.fold_int("arith.divsi", I64_MIN, -1, index) is None
    assert semantics.int_binary("arith.xori", i1)(True, True) is False
    with pytest.raises(semantics.UndefinedBehavior, match="divides by zero"):
        semantics.int_binary("arith.remui", i8)(3, 0)


@pytest.mark.parametrize(
    "name",
    [
        "arith.addi",
        "arith.subi",
        "arith.muli",
        "arith.andi",
        "arith.ori",
        "arith.xori",
        "arith.maxsi",
        "arith.minsi",
        "arith.divsi",
        "arith.remui",
    ],
)
def test_array_forms_agree_with_the_scalar_functions(name: str) -> None:
    rng = np.random.default_rng(7)
    edges = np.array([I64_MIN, I64_MIN + 1, -2, -1, 0, 1, 2, I64_MAX - 1, I64_MAX], np.int64)
    a = np.concatenate([edges, rng.integers(I64_MIN, I64_MAX, 64, dtype=np.int64)])
    b = np.concatenate([edges[::-1], rng.integers(-1000, 1000, 64, dtype=np.int64)])
    b[b == 0] = 3  # division by zero has no value to compare
    a[(a == I64_MIN) & (b == -1)] = 5  # nor signed overflow
    index = IndexType()
    scalar = semantics.int_binary(name, index)
    expected = np.array([scalar(int(x), int(y)) for x, y in zip(a, b, strict=True)], np.int64)
    assert np.array_equal(semantics.int_binary_array(name, index)(a, b), expected)


# ------------------------------------------------------------------ faults


def _where(text: str, marker: str) -> str:
    """`case.mlir:line:col` of the line holding `marker`, at its first non-blank."""
    for number, line in enumerate(text.splitlines(), 1):
        if marker in line:
            return f"case.mlir:{number}:{len(line) - len(line.lstrip()) + 1}"
    raise AssertionError(marker)


def _fails_alike(text: str, name: str, args: list[Any], message: str) -> None:
    """Both paths raise an ExecutionError whose message starts with `message`."""
    errors = []
    for fast in (True, False):
        with pytest.raises(ExecutionError) as caught:
            Executor(_module(text), fast=fast).run(
                name, [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            )
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert errors[0].startswith(message), errors[0]


def test_integer_division_by_zero_is_located() -> None:
    for op in ("arith.divsi", "arith.remui", "arith.ceildivsi"):
        text = _program(op, ["index", "index"], "index", None)
        outcomes = _everywhere(text, [7, 0])
        plain, kernel = _where(text, '%r = "'), _where(text, "%v = cgra.op")
        assert (
            outcomes
            == [f"error: {plain}: '{op}' divides by zero"] * 2
            + [f"error: {kernel}: '{op}' divides by zero"] * 2
        )


def test_signed_division_overflow_is_located() -> None:
    text = _program("arith.divsi", ["i8", "i8"], "i8", None)
    outcomes = _everywhere(text, [-128, -1])
    where = _where(text, '%r = "')
    assert (
        outcomes[:2]
        == [f"error: {where}: 'arith.divsi' overflows (the minimum value divided by -1)"] * 2
    )


def test_a_loop_step_that_is_not_positive_is_located() -> None:
    text = """
    func.func @plain(%n: index, %s: index) -> index {
      %c0 = arith.constant 0 : index
      %r = scf.for %i = %c0 to %n step %s iter_args(%a = %c0) -> (index) {
        %b = arith.addi %a, %i : index
        scf.yield %b : index
      }
      func.return %r : index
    }
    func.func @kernel(%n: index, %s: index) -> index {
      %c0 = arith.constant 0 : index
      %r = scf.for %i = %c0 to %n step %s iter_args(%a = %c0) -> (index) {
        %k = cgra.kernel 0 rows 4 cols 4 ii 4 -> index {
          %b = cgra.op "arith.addi"(%a, %i) at 0, 0 cycle 0 : (index, index) -> index
          cgra.yield %b : index
        }
        scf.yield %k : index
      }
      func.return %r : index
    }"""
    for name in ("plain", "kernel"):
        for fast in (True, False):
            assert Executor(_module(text), fast=fast).run(name, [4, 1]) == (6,)
    lines = text.splitlines()
    plain_for = next(i for i, line in enumerate(lines, 1) if "scf.for" in line)
    kernel_for = next(i for i, line in enumerate(lines, 1) if "scf.for" in line and i > plain_for)
    for name, line in (("plain", plain_for), ("kernel", kernel_for)):
        for step in (0, -1):
            _fails_alike(
                text,
                name,
                [4, step],
                f"case.mlir:{line}:7: 'scf.for' step must be positive, got {step}",
            )
    # With timing (as the simulator runs), too.
    from sim.timing import TimingRecorder
    from sim.trace import MemoryTrace
    from targets.hardware import configure

    for fast in (True, False):
        trace = MemoryTrace()
        executor = Executor(_module(text), trace, TimingRecorder(trace, configure("Tflow2k")), fast)
        with pytest.raises(ExecutionError, match=f"case.mlir:{kernel_for}:7: 'scf.for' step"):
            executor.run("kernel", [4, 0])


def test_unbounded_recursion_is_located_at_the_call() -> None:
    text = """
    func.func @down(%n: index) -> index {
      %c1 = arith.constant 1 : index
      %m = arith.subi %n, %c1 : index
      %r = func.call @down(%m) : (index) -> index
      func.return %r : index
    }"""
    where = _where(text, "func.call")
    _fails_alike(text, "down", [5], f"{where}: 'func.call' of @down nests calls too deeply")


def test_regions_nested_too_deeply_are_an_error() -> None:
    depth = sys.getrecursionlimit() // 2  # compiling a region takes more than two frames
    lines = ["func.func @f(%c: i1, %x: f64) -> f64 {"]
    for d in range(depth):
        lines.append(f"%r{d} = scf.if %c -> (f64) {{")
    lines += ["%y = arith.addf %x, %x : f64", "scf.yield %y : f64"]
    for d in reversed(range(depth)):
        lines += ["} else {", "scf.yield %x : f64", "}"]
        if d:
            lines.append(f"scf.yield %r{d} : f64")
    lines += ["func.return %r0 : f64", "}"]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(40 * limit)  # xDSL's parser recurses per region too
    try:
        module = _module("\n".join(lines))
    finally:
        sys.setrecursionlimit(limit)
    for fast in (True, False):
        with pytest.raises(ExecutionError, match="^case.mlir:1:1: @f nests regions too deeply"):
            Executor(module, fast=fast).run("f", [True, 1.0])


def test_huge_allocations_are_refused() -> None:
    side = int((ALLOCATION_LIMIT_BYTES // 8) ** 0.5) + 1  # side^2 * 8 bytes > the limit
    text = f"""
    func.func @f() {{
      %m = memref.alloc() : memref<{side}x{side}xf64>
      func.return
    }}
    func.func @t() {{
      %t = tape.alloc : !tape.tape<{side}x{side}xf64>
      func.return
    }}"""
    _fails_alike(
        text,
        "f",
        [],
        f"{_where(text, 'memref.alloc')}: 'memref.alloc' allocates "
        f"{side * side * 8} bytes, more than the executor's limit of "
        f"{ALLOCATION_LIMIT_BYTES} bytes",
    )
    _fails_alike(text, "t", [], f"{_where(text, 'tape.alloc')}: 'tape.alloc' allocates")


def test_tape_indices_out_of_range_are_located() -> None:
    text = """
    func.func @f(%i: index, %v: f64) -> f64 {
      %t = tape.alloc : !tape.tape<4xf64>
      tape.store %v, %t[%i] id 0 : f64, !tape.tape<4xf64>
      %x = tape.load %t[%i] from 0 : !tape.tape<4xf64> -> f64
      func.return %x : f64
    }"""
    for fast in (True, False):
        assert Executor(_module(text), fast=fast).run("f", [3, 2.5]) == (2.5,)
    where = _where(text, "tape.store")
    for bad in (4, -1):  # -1 used to wrap around to the last entry
        _fails_alike(
            text,
            "f",
            [bad, 2.5],
            f"{where}: 'tape.store' index [{bad}] is out of bounds for a tape of shape [4]",
        )


def test_subviews_and_copies_out_of_range_are_located() -> None:
    text = """
    func.func @f(%m: memref<3x4xf64>, %i: index) -> f64 {
      %c0 = arith.constant 0 : index
      %row = memref.subview %m[%i, 0] [1, 4] [1, 1] : memref<3x4xf64> to memref<4xf64, \
strided<[1], offset: ?>>
      %x = memref.load %row[%c0] : memref<4xf64, strided<[1], offset: ?>>
      func.return %x : f64
    }
    func.func @g(%a: memref<4xf64>, %b: memref<2x4xf64>) {
      "memref.copy"(%a, %b) : (memref<4xf64>, memref<2x4xf64>) -> ()
      func.return
    }"""
    m = np.arange(12.0).reshape(3, 4)
    for fast in (True, False):
        assert Executor(_module(text), fast=fast).run("f", [m, 2]) == (8.0,)
    where = _where(text, "memref.subview")
    _fails_alike(
        text,
        "f",
        [m, 3],
        f"{where}: 'memref.subview' at offsets [3, 0] with sizes "
        "[1, 4] and strides [1, 1] is out of bounds for a buffer of shape [3, 4]",
    )
    _fails_alike(
        text,
        "g",
        [np.zeros(4), np.zeros((2, 4))],
        f"{_where(text, 'memref.copy')}: 'memref.copy' copies a buffer of shape [4] "
        "into one of shape [2, 4]",
    )


def test_memref_index_out_of_range_is_located_on_both_paths() -> None:
    text = """
    func.func @f(%m: memref<4xf64>, %i: index) -> f64 {
      %x = memref.load %m[%i] : memref<4xf64>
      func.return %x : f64
    }"""
    where = _where(text, "memref.load")
    for bad in (4, -1):
        _fails_alike(
            text, "f", [np.zeros(4), bad], f"{where}: 'memref.load' index [{bad}] is out of bounds"
        )


def test_index_arithmetic_wraps_where_inputs_are_large() -> None:
    # The generated code drops the wrap-around check where bounds on the inputs
    # show it cannot be needed, and checks the inputs where it starts; larger
    # inputs run the closures. x*4 + (n-1), by hand: 5*4 + 2 = 22; x = 2^62:
    # 2^64 + 2 wraps to 2; x = -2^61: -2^63 + 2, no wrap; x = -2^61 - 1:
    # -2^63 - 4 wraps to 2^63 - 4, + 2.
    text = """
    func.func @plain(%x: index, %n: index) -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
        %m = arith.muli %x, %c4 : index
        %s = arith.addi %m, %i : index
        scf.yield %s : index
      }
      func.return %r : index
    }
    func.func @kernel(%x: index, %n: index) -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
        %k = cgra.kernel 0 rows 4 cols 4 ii 4 -> index {
          %m = cgra.op "arith.muli"(%x, %c4) at 0, 0 cycle 0 : (index, index) -> index
          %s = cgra.op "arith.addi"(%m, %i) at 0, 1 cycle 1 : (index, index) -> index
          cgra.yield %s : index
        }
        scf.yield %k : index
      }
      func.return %r : index
    }"""
    cases = [(5, 3, 22), (2**62, 3, 2), (-(2**61), 3, I64_MIN + 2), (-(2**61) - 1, 3, 2**63 - 2)]
    for x, n, expected in cases:
        assert _everywhere(text, [x, n]) == [expected] * 4, (x, n)


def _reference_division(name: str, a: int, b: int, width: int) -> int:
    """The MLIR `arith` division ops by their definitions: operands read as
    signed or unsigned `width`-bit numbers, quotients rounded toward zero,
    minus infinity or plus infinity, remainders with the dividend's sign
    (signed) or non-negative (unsigned), the result wrapped to `width` bits."""
    mask = (1 << width) - 1
    if name.endswith("si"):
        a, b = (
            (v & mask) - (1 << width) if (v & mask) >> (width - 1) else v & mask for v in (a, b)
        )
    else:
        a, b = a & mask, b & mask
    quotient = Fraction(a, b)
    if name in ("arith.divsi", "arith.divui"):
        result = math.trunc(quotient)
    elif name == "arith.floordivsi":
        result = math.floor(quotient)
    elif name in ("arith.ceildivsi", "arith.ceildivui"):
        result = math.ceil(quotient)
    else:  # remsi, remui
        result = a - b * math.trunc(quotient)
    result &= mask
    return result - (1 << width) if result >> (width - 1) else result


@pytest.mark.parametrize("width", [8, 32, 64])
@pytest.mark.parametrize(
    "name",
    [
        "arith.divsi",
        "arith.remsi",
        "arith.floordivsi",
        "arith.ceildivsi",
        "arith.divui",
        "arith.remui",
        "arith.ceildivui",
    ],
)
def test_integer_divisions_match_their_definitions(name: str, width: int) -> None:
    """Both halves of the signed range, the edges and zero, so that the
    divisions' shortcut for non-negative operands and their general path are
    each checked against the definitions."""
    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    rng = random.Random(width)
    edges = [low, low + 1, -7, -2, -1, 0, 1, 2, 7, high - 1, high]
    values = edges + [rng.randint(low, high) for _ in range(60)]
    values += [rng.randint(0, 1000) for _ in range(20)] + [
        rng.randint(-1000, -1) for _ in range(20)
    ]
    function = semantics.int_binary(name, IntegerType(width))
    for a in values:
        for b in values:
            if b == 0 or (
                name in ("arith.divsi", "arith.floordivsi", "arith.ceildivsi")
                and a == low
                and b == -1
            ):
                continue  # undefined: raises, tested above
            got = function(a, b)
            assert type(got) is int
            assert got == _reference_division(name, a, b, width), (a, b)
