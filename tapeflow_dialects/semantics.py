"""
What the scalar ops of `arith` and `math` compute: the one table every
consumer of their meaning reads.

The reference executor's closures (`sim/impls/arith.py`), the code generators
of its fast path (`sim/kernel_compiler.py`, `sim/function_compiler.py`), the
index evaluator of the passes (`lowering/ir/index_eval.py`) and constant folding
all take an op's meaning from here, so it is written once. An entry is a
`Scalar`: a template of Python statements (what the generators inline) and the
function made from that same template (what the closures call), so the two
paths cannot disagree.

Values follow MLIR's `arith`: floats are Python floats (IEEE `f64`; `f32` and
`f16` rounded to their precision after every op); integers of width `w` (index:
`INDEX_WIDTH` bits) are Python ints in the signed range, wrapping at the width,
read as unsigned by the `*ui` ops and predicates. Where MLIR leaves a result
undefined the table raises `UndefinedBehavior` (division by zero, signed
division overflow) or picks a documented deterministic value (shifts by the
width or more, wrapped nsw/nuw results, `fptosi`/`fptoui` of nan or out of
range). Every rule: docs/research/executor.md, "Scalar values".

The module imports only xDSL, numpy and the standard library, so that both the
passes and the simulator can use it.
"""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    f64,
    i1,
)
from xdsl.ir import Attribute

INDEX_WIDTH = 64
"""The width of `index` values (MLIR's default data layout on 64-bit hosts)."""


class UndefinedBehavior(ArithmeticError):
    """An op whose result MLIR leaves undefined and the table refuses to invent
    (division by zero, signed division overflow); the message says which."""


# ------------------------------------------------------------------ integers


def int_width(value_type: Attribute) -> int | None:
    """The bit width of an integer or index type; None for any other type."""
    if isinstance(value_type, IndexType):
        return INDEX_WIDTH
    if isinstance(value_type, IntegerType):
        return value_type.width.data
    return None


def wrap(value: int, width: int) -> int | bool:
    """`value` modulo 2^width, as the executor holds it: in the signed range, or
    a bool for width 1."""
    if width == 1:
        return bool(value & 1)
    half = 1 << (width - 1)
    return ((value + half) & ((1 << width) - 1)) - half


def to_unsigned(value: int, width: int) -> int:
    """The unsigned reading of a `width`-bit value."""
    return int(value) & ((1 << width) - 1)


def to_signed(value: int, width: int) -> int:
    """The signed reading of a `width`-bit value (i1 true is -1)."""
    value = int(value) & ((1 << width) - 1)
    return value - (1 << width) if value >> (width - 1) else value


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _divisor(b: int) -> None:
    if b == 0:
        raise UndefinedBehavior("divides by zero")


def _int_functions(width: int) -> dict[str, Callable[[int, int], Any]]:
    """Every integer binary op at `width`, on held values, as plain functions
    (the templates below inline the common ones)."""
    lowest = -(1 << (width - 1))

    def s(x: int) -> int:
        return to_signed(x, width)

    def u(x: int) -> int:
        return to_unsigned(x, width)

    def w(x: int) -> int | bool:
        return wrap(x, width)

    def no_overflow(a: int, b: int) -> None:
        if a == lowest and b == -1:
            raise UndefinedBehavior("overflows (the minimum value divided by -1)")

    highest = (1 << (width - 1)) - 1

    def plain(a: int, b: int) -> bool:
        """Both operands ints of the non-negative half of the range, the divisor
        not zero: every signed and unsigned division below reads them as they
        are, cannot fault, and gives a result in the range (no wrap-around)."""
        return type(a) is int and type(b) is int and 0 <= a <= highest and 0 < b <= highest

    def divsi(a: int, b: int) -> int | bool:
        if plain(a, b):
            return a // b
        a, b = s(a), s(b)
        _divisor(b)
        no_overflow(a, b)
        return w(_trunc_div(a, b))

    def remsi(a: int, b: int) -> int | bool:
        if plain(a, b):
            return a % b
        a, b = s(a), s(b)
        _divisor(b)
        return w(a - b * _trunc_div(a, b))

    def floordivsi(a: int, b: int) -> int | bool:
        if plain(a, b):
            return a // b
        a, b = s(a), s(b)
        _divisor(b)
        no_overflow(a, b)
        return w(a // b)

    def ceildivsi(a: int, b: int) -> int | bool:
        if plain(a, b):
            return -((-a) // b)
        a, b = s(a), s(b)
        _divisor(b)
        no_overflow(a, b)
        return w(-((-a) // b))

    def divui(a: int, b: int) -> int | bool:
        if plain(a, b):
            return a // b
        a, b = u(a), u(b)
        _divisor(b)
        return w(a // b)

    def remui(a: int, b: int) -> int | bool:
        if plain(a, b):
            return a % b
        a, b = u(a), u(b)
        _divisor(b)
        return w(a % b)

    def ceildivui(a: int, b: int) -> int | bool:
        if plain(a, b):
            return -((-a) // b)
        a, b = u(a), u(b)
        _divisor(b)
        return w(-((-a) // b))

    def shli(a: int, b: int) -> int | bool:
        b = u(b)
        return w(a << b) if b < width else w(0)

    def shrui(a: int, b: int) -> int | bool:
        b = u(b)
        return w(u(a) >> b) if b < width else w(0)

    def shrsi(a: int, b: int) -> int | bool:
        b = u(b)
        return w(s(a) >> min(b, width - 1))  # >= width: the sign fill

    return {
        "arith.addi": lambda a, b: w(a + b),
        "arith.subi": lambda a, b: w(a - b),
        "arith.muli": lambda a, b: w(a * b),
        "arith.andi": lambda a, b: w(a & b),
        "arith.ori": lambda a, b: w(a | b),
        "arith.xori": lambda a, b: w(a ^ b),
        "arith.maxsi": lambda a, b: b if s(b) > s(a) else a,
        "arith.minsi": lambda a, b: b if s(b) < s(a) else a,
        "arith.maxui": lambda a, b: b if u(b) > u(a) else a,
        "arith.minui": lambda a, b: b if u(b) < u(a) else a,
        "arith.divsi": divsi,
        "arith.remsi": remsi,
        "arith.floordivsi": floordivsi,
        "arith.ceildivsi": ceildivsi,
        "arith.divui": divui,
        "arith.remui": remui,
        "arith.ceildivui": ceildivui,
        "arith.shli": shli,
        "arith.shrui": shrui,
        "arith.shrsi": shrsi,
    }


INT_BINARY: tuple[str, ...] = tuple(_int_functions(64))
"""The integer binary ops of the table (`int_binary` gives one at a type)."""

_MAY_RAISE = frozenset(
    {
        "arith.divsi",
        "arith.remsi",
        "arith.floordivsi",
        "arith.ceildivsi",
        "arith.divui",
        "arith.remui",
        "arith.ceildivui",
    }
)
"""Integer ops that raise `UndefinedBehavior` for some operands."""

CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
"""`arith.cmpi` predicates by number."""

CMPF_PREDICATES = (
    "false",
    "oeq",
    "ogt",
    "oge",
    "olt",
    "ole",
    "one",
    "ord",
    "ueq",
    "ugt",
    "uge",
    "ult",
    "ule",
    "une",
    "uno",
    "true",
)
"""`arith.cmpf` predicates by number."""


# -------------------------------------------------------------------- floats
# Python's math raises where IEEE 754 returns inf or nan; the hardware does not.


def _div_by_zero(a: float, b: float) -> float:
    """a / b for b == +-0.0, which Python refuses."""
    if a == 0.0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _ieee(function: Callable[..., float], ufunc: Any) -> Callable[..., float]:
    """`function`, or numpy's IEEE result where Python's math raises."""

    def ieee(*args: float) -> float:
        try:
            return function(*args)
        except (ValueError, OverflowError):
            with np.errstate(all="ignore"):
                return float(ufunc(*(np.float64(a) for a in args)))

    ieee.__name__ = getattr(function, "__name__", "ieee")
    return ieee


def _log(a: float) -> float:
    if a > 0.0:
        return math.log(a)
    return -math.inf if a == 0.0 else math.nan


def _sqrt(a: float) -> float:
    return math.sqrt(a) if a >= 0.0 else math.nan


_pow = _ieee(math.pow, np.power)


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


def _integral(function: Callable[[float], int]) -> Callable[[float], float]:
    def integral(a: float) -> float:
        return float(function(a)) if math.isfinite(a) else a

    return integral


def _roundeven(a: float) -> float:
    return float(round(a)) if math.isfinite(a) else a  # Python rounds half to even


def _round(a: float) -> float:  # half away from zero
    if not math.isfinite(a):
        return a
    return math.copysign(float(math.floor(abs(a) + 0.5)), a)


# name -> (statement template, helpers). Templates: `{t}` is the target, `{a}`,
# `{b}`, `{c}` the operands, other fields the helpers (named values).
_Template = tuple[tuple[str, ...], dict[str, Any]]


def _call(function: Callable[..., Any], arity: int) -> _Template:
    args = ", ".join(f"{{{p}}}" for p in "abc"[:arity])
    return (f"{{t}} = {{F}}({args})",), {"F": function}


_FLOAT_BINARY_TEMPLATES: dict[str, _Template] = {
    "arith.addf": (("{t} = {a} + {b}",), {}),
    "arith.subf": (("{t} = {a} - {b}",), {}),
    "arith.mulf": (("{t} = {a} * {b}",), {}),
    "arith.divf": (
        (
            "try:",
            "    {t} = {a} / {b}",
            "except ZeroDivisionError:",
            "    {t} = {D}({a}, {b})",
        ),
        {"D": _div_by_zero},
    ),
    "arith.remf": _call(_ieee(math.fmod, np.fmod), 2),
    "arith.maximumf": _call(_maximumf, 2),
    "arith.minimumf": _call(_minimumf, 2),
    "arith.maxnumf": _call(_maxnumf, 2),
    "arith.minnumf": _call(_minnumf, 2),
    "math.powf": _call(_pow, 2),
    "math.atan2": _call(math.atan2, 2),
    "math.copysign": _call(math.copysign, 2),
}

_FLOAT_UNARY_TEMPLATES: dict[str, _Template] = {
    "arith.negf": (("{t} = -{a}",), {}),
    "math.exp": (
        ("try:", "    {t} = {E}({a})", "except OverflowError:", "    {t} = {INF}"),
        {"E": math.exp, "INF": math.inf},
    ),
    "math.exp2": _call(lambda a: _pow(2.0, a), 1),
    "math.expm1": _call(lambda a: math.expm1(a) if a < 709.0 else math.inf, 1),
    "math.log": _call(_log, 1),
    "math.log2": _call(lambda a: _log(a) / math.log(2.0) if a > 0 else _log(a), 1),
    "math.log10": _call(lambda a: math.log10(a) if a > 0 else _log(a), 1),
    "math.log1p": _call(lambda a: math.log1p(a) if a > -1.0 else _log(a + 1.0), 1),
    "math.sqrt": _call(_sqrt, 1),
    "math.rsqrt": _call(lambda a: 1.0 / s if (s := _sqrt(a)) else _div_by_zero(1.0, s), 1),
    "math.cbrt": _call(lambda a: float(np.cbrt(a)), 1),
    "math.absf": _call(abs, 1),
    "math.sin": _call(_ieee(math.sin, np.sin), 1),
    "math.cos": _call(_ieee(math.cos, np.cos), 1),
    "math.tan": _call(_ieee(math.tan, np.tan), 1),
    "math.tanh": _call(math.tanh, 1),
    "math.sinh": _call(_ieee(math.sinh, np.sinh), 1),
    "math.cosh": _call(_ieee(math.cosh, np.cosh), 1),
    "math.asinh": _call(math.asinh, 1),
    "math.acosh": _call(_ieee(math.acosh, np.arccosh), 1),
    "math.atanh": _call(_ieee(math.atanh, np.arctanh), 1),
    "math.atan": _call(math.atan, 1),
    "math.asin": _call(_ieee(math.asin, np.arcsin), 1),
    "math.acos": _call(_ieee(math.acos, np.arccos), 1),
    "math.erf": _call(math.erf, 1),
    "math.floor": _call(_integral(math.floor), 1),
    "math.ceil": _call(_integral(math.ceil), 1),
    "math.trunc": _call(_integral(math.trunc), 1),
    "math.round": _call(_round, 1),
    "math.roundeven": _call(_roundeven, 1),
}

_FLOAT_TERNARY_TEMPLATES: dict[str, _Template] = {
    # a*b + c, rounded twice (Python has no fused multiply-add before 3.13).
    "math.fma": (("{t} = {a} * {b} + {c}",), {}),
}

_F32 = struct.Struct("f")
_F16 = struct.Struct("e")


def _rounding(fmt: struct.Struct) -> Callable[[float], float]:
    pack, unpack = fmt.pack, fmt.unpack

    def round_to(value: float) -> float:
        try:
            return unpack(pack(value))[0]  # type: ignore[no-any-return]
        except OverflowError:  # beyond the largest finite value: IEEE gives inf
            return math.copysign(math.inf, value)

    return round_to


round_f32 = _rounding(_F32)
"""The nearest single-precision value (IEEE round to nearest even)."""
round_f16 = _rounding(_F16)
"""The nearest half-precision value."""


def float_rounding(value_type: Attribute) -> Callable[[float], float] | None:
    """What rounds a double to `value_type` after every op (None: nothing)."""
    if isinstance(value_type, Float32Type):
        return round_f32
    if isinstance(value_type, Float16Type):
        return round_f16
    return None


# -------------------------------------------------------------- the entries


@dataclass(frozen=True)
class Scalar:
    """
    The meaning of one scalar op at its types: `lines`, Python statements that
    compute it (`{t}` the target, `{a}`, `{b}`, `{c}` the operands, every other
    field a value of `helpers`), and `function`, the same statements as a
    function of the operands.

    Integer ops also say how large their result can be (`growth`), so that a
    code generator that knows bounds of the operands (`result_bits`) can use
    `exact`, the statements without the wrap-around check, where the result
    provably fits its `width`.
    """

    name: str
    arity: int
    lines: tuple[str, ...]
    helpers: Mapping[str, Any] = field(default_factory=dict)
    total: bool = True
    """Never raises: the generated code may compute it ahead (hoist it)."""
    counted: bool = False
    """A float op, which the executor counts in `ops_executed`."""
    width: int | None = None
    """The bit width of an integer result."""
    growth: str | None = None
    """How the magnitude of an integer result follows its operands': 'add'
    (|a op b| < 2^(max(bits) + 1)), 'mul' (< 2^(sum of bits)), 'keep' (< 2^max
    of all operands' bits), 'select' (< 2^max of the last two); None: unknown."""
    exact: tuple[str, ...] | None = None
    """`lines` without the wrap-around, for results known to fit `width`."""
    function: Callable[..., Any] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "function", _function_of(self))

    def result_bits(self, operand_bits: Sequence[int | None]) -> int | None:
        """A bound `b` with |result| < 2^b, given such bounds of the operands
        (None: unbounded); None if there is none below the width."""
        if self.growth is None or self.width is None:
            return None
        bits = list(operand_bits[1:] if self.growth == "select" else operand_bits)
        if not bits or any(b is None for b in bits):
            return None
        known: list[int] = bits  # type: ignore[assignment]
        result = {"add": max(known) + 1, "mul": sum(known)}.get(self.growth, max(known))
        return result if result < self.width else None

    def render(
        self,
        target: str,
        operands: Sequence[str],
        name: Callable[[Any, str], str],
        operand_bits: Sequence[int | None] = (),
    ) -> list[str]:
        """The statements computing this op of the operand expressions into
        `target`; `name(value, hint)` gives each helper a name the generated code
        can use. With `operand_bits` (see `result_bits`) that show the result
        fits, the exact statements. A target that is not a plain name (`fr[3]`)
        is assigned once, from a local."""
        template = self.lines
        if self.exact is not None and operand_bits and self.result_bits(operand_bits) is not None:
            template = self.exact
        fields = {
            k: name(v, k)
            for k, v in self.helpers.items()
            if any("{" + k + "}" in line for line in template)
        }
        fields.update(zip("abc", operands, strict=False))
        simple = target.isidentifier()
        fields["t"] = target if simple or len(template) == 1 else "_t"
        lines = [line.format(**fields) for line in template]
        if not simple and len(template) > 1:
            lines.append(f"{target} = _t")
        return lines


_OPERATORS: dict[str, Callable[..., Any]] = {
    "{t} = {a} + {b}": operator.add,
    "{t} = {a} - {b}": operator.sub,
    "{t} = {a} * {b}": operator.mul,
    "{t} = {a} & {b}": operator.and_,
    "{t} = {a} | {b}": operator.or_,
    "{t} = {a} ^ {b}": operator.xor,
    "{t} = -{a}": operator.neg,
    "{t} = int({a})": int,
    "{t} = float({a})": float,
}
"""Templates that are one Python operator: their function is the operator's C
implementation (what a closure calls fastest)."""


def _function_of(entry: Scalar) -> Callable[..., Any]:
    """The function computing `entry`: its template, compiled."""
    if len(entry.lines) == 1:
        line = entry.lines[0]
        if line in _OPERATORS:
            return _OPERATORS[line]
        if line == "{t} = {F}(" + ", ".join(f"{{{p}}}" for p in "abc"[: entry.arity]) + ")":
            return entry.helpers["F"]  # type: ignore[no-any-return]
    params = list("abc"[: entry.arity])
    body = [
        line.format(t="t", **{p: p for p in params}, **{k: k for k in entry.helpers})
        for line in entry.lines
    ]
    source = "\n".join(
        [f"def f({', '.join(params)}):", *("    " + b for b in body), "    return t"]
    )
    namespace = dict(entry.helpers)
    exec(compile(source, f"<semantics of {entry.name}>", "exec"), namespace)  # noqa: S102
    return namespace["f"]  # type: ignore[no-any-return]


def _rounded(template: _Template, rounding: Callable[[float], float] | None) -> _Template:
    lines, helpers = template
    if rounding is None:
        return template
    return (*lines, "{t} = {R}({t})"), {**helpers, "R": rounding}


def _float_entry(name: str, result_type: Attribute) -> Scalar | None:
    for arity, table in (
        (1, _FLOAT_UNARY_TEMPLATES),
        (2, _FLOAT_BINARY_TEMPLATES),
        (3, _FLOAT_TERNARY_TEMPLATES),
    ):
        if name in table:
            lines, helpers = _rounded(table[name], float_rounding(result_type))
            return Scalar(name, arity, lines, helpers, total=True, counted=True)
    return None


def _int_entry(name: str, width: int) -> Scalar:
    """`name` at `width`: the common ops inline (canonical values in, wrapped
    values out), the others a call of `_int_functions(width)[name]`."""
    functions = _int_functions(width)
    total = name not in _MAY_RAISE
    if width > 1:
        low, high, mask = -(1 << (width - 1)), (1 << (width - 1)) - 1, (1 << width) - 1
        symbol = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}.get(name)
        if symbol is not None:
            exact = (f"{{t}} = {{a}} {symbol} {{b}}",)
            lines = (*exact, f"if not {low} <= {{t}} <= {high}: {{t}} = {{W}}({{t}})")
            growth = "mul" if symbol == "*" else "add"
            helpers = {"W": lambda x: wrap(x, width)}
            return Scalar(name, 2, lines, helpers, total, width=width, growth=growth, exact=exact)
        inline = {
            "arith.maxsi": "{t} = {b} if {b} > {a} else {a}",
            "arith.minsi": "{t} = {b} if {b} < {a} else {a}",
            "arith.maxui": f"{{t}} = {{b}} if ({{b}} & {mask}) > ({{a}} & {mask}) else {{a}}",
            "arith.minui": f"{{t}} = {{b}} if ({{b}} & {mask}) < ({{a}} & {mask}) else {{a}}",
        }.get(name)
        if inline is not None:  # one of the operands
            return Scalar(name, 2, (inline,), {}, total, width=width, growth="keep")
    bitwise = {"arith.andi": "&", "arith.ori": "|", "arith.xori": "^"}.get(name)
    if bitwise is not None:  # held values in, held values out, at any width
        return Scalar(
            name, 2, (f"{{t}} = {{a}} {bitwise} {{b}}",), {}, total, width=width, growth="keep"
        )
    lines, helpers = _call(functions[name], 2)
    return Scalar(name, 2, lines, helpers, total, width=width)


def _cmpi_entry(predicate: int, width: int) -> Scalar:
    name = CMPI_PREDICATES[predicate]
    symbol = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
    op = symbol[name[1:]] if name[0] in "su" else symbol[name]
    a, b = "{a}", "{b}"
    if name[0] == "u" and width > 1:
        mask = (1 << width) - 1
        a, b = f"({a} & {mask})", f"({b} & {mask})"
    elif name[0] == "s" and width == 1:
        a, b = b, a  # i1 true is -1 when signed: the order flips
    return Scalar("arith.cmpi", 2, (f"{{t}} = {a} {op} {b}",))


_CMPF_TEMPLATES = (
    "False",  # false
    "{a} == {b}",  # oeq
    "{a} > {b}",  # ogt
    "{a} >= {b}",  # oge
    "{a} < {b}",  # olt
    "{a} <= {b}",  # ole
    "({a} < {b} or {a} > {b})",  # one: ordered and unequal
    "({a} == {a} and {b} == {b})",  # ord: neither is nan
    "not ({a} < {b} or {a} > {b})",  # ueq
    "not ({a} <= {b})",  # ugt
    "not ({a} < {b})",  # uge
    "not ({a} >= {b})",  # ult
    "not ({a} > {b})",  # ule
    "{a} != {b}",  # une
    "({a} != {a} or {b} != {b})",  # uno
    "True",  # true
)
"""`arith.cmpf` by predicate: comparisons with nan are false, so an ordered
predicate is the plain comparison and an unordered one the negated converse."""


def _cmpf_entry(predicate: int) -> Scalar:
    return Scalar("arith.cmpf", 2, ("{t} = " + _CMPF_TEMPLATES[predicate],))


def _fptoi(width: int, signed: bool) -> Callable[[float], int | bool]:
    low = -(1 << (width - 1)) if signed else 0
    high = (1 << (width - 1)) - 1 if signed else (1 << width) - 1

    def fptoi(a: float) -> int | bool:
        if math.isnan(a):
            return wrap(0, width)
        if a <= low:
            return wrap(low, width)
        if a >= high:
            return wrap(high, width)
        return wrap(int(a), width)

    return fptoi


def _itof(
    width: int, signed: bool, rounding: Callable[[float], float] | None
) -> Callable[[int], float]:
    def itof(a: int) -> float:
        value = to_signed(a, width) if signed else to_unsigned(a, width)
        if rounding is None:
            return float(value)
        if abs(value) < 1 << 53:
            return rounding(float(value))  # exact in double: rounded once
        if rounding is round_f32 and -(1 << 63) <= value < 1 << 64:
            # numpy converts 64-bit integers to single precision in one rounding.
            exact = np.int64(value) if value < 1 << 63 else np.uint64(value)
            return float(np.float32(exact))
        return rounding(float(value))  # rounded twice (half precision only)

    return itof


def _cast_entry(name: str, source: Attribute, result: Attribute) -> Scalar | None:
    ws, wd = int_width(source), int_width(result)
    rounding = float_rounding(result)
    lines: tuple[str, ...] | None = None
    helpers: dict[str, Any] = {}
    if name in (
        "arith.index_cast",
        "arith.extsi",
        "arith.index_castui",
        "arith.extui",
        "arith.trunci",
    ):
        if ws is None or wd is None:
            return None
        unsigned = name in ("arith.index_castui", "arith.extui")
        if wd < ws:  # truncation
            lines, helpers = _call(lambda a: wrap(int(a), wd), 1)
        elif unsigned and ws < wd:  # zero extension
            lines = (f"{{t}} = int({{a}}) & {(1 << ws) - 1}",)
        elif ws == 1 and wd > 1:  # sign extension of i1: true is -1
            lines = ("{t} = -int({a})",)
        else:  # sign extension, or the same width: the same value
            return Scalar(name, 1, ("{t} = int({a})",), width=wd, growth="keep")
    elif name in ("arith.fptosi", "arith.fptoui"):
        if wd is None or not isinstance(source, AnyFloat):
            return None
        lines, helpers = _call(_fptoi(wd, name == "arith.fptosi"), 1)
    elif name in ("arith.sitofp", "arith.uitofp"):
        if ws is None or not isinstance(result, AnyFloat):
            return None
        signed = name == "arith.sitofp"
        if rounding is None and ws > 1 and signed:
            lines = ("{t} = float({a})",)
        elif rounding is None and ws > 1:
            lines = (f"{{t}} = float({{a}} & {(1 << ws) - 1})",)
        else:
            lines, helpers = _call(_itof(ws, signed, rounding), 1)
    elif name in ("arith.extf", "arith.truncf"):
        if not isinstance(source, AnyFloat) or not isinstance(result, AnyFloat):
            return None
        lines, helpers = _rounded((("{t} = float({a})",), {}), rounding)
    if lines is None:
        return None
    return Scalar(name, 1, lines, helpers)


CASTS = (
    "arith.index_cast",
    "arith.index_castui",
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
    "arith.fptosi",
    "arith.fptoui",
    "arith.sitofp",
    "arith.uitofp",
    "arith.extf",
    "arith.truncf",
)
"""The casts of the table (`cast` gives one between two types)."""


OPS: frozenset[str] = frozenset(
    {
        *_FLOAT_BINARY_TEMPLATES,
        *_FLOAT_UNARY_TEMPLATES,
        *_FLOAT_TERNARY_TEMPLATES,
        *INT_BINARY,
        *CASTS,
        "arith.cmpi",
        "arith.cmpf",
        "arith.select",
    }
)
"""Every op name the table knows (at some types)."""


COST_CLASSES: Mapping[str, str] = {
    op: cost_class
    for cost_class, ops in {
        "fadd": (
            "arith.addf",
            "arith.subf",
            "arith.cmpf",
            "arith.maximumf",
            "arith.minimumf",
            "arith.maxnumf",
            "arith.minnumf",
        ),
        "fmul": ("arith.mulf", "math.fma"),
        "fdiv": ("arith.divf", "arith.remf"),
        "sqrt": ("math.sqrt",),
        "transcendental": (
            "math.acos",
            "math.acosh",
            "math.asin",
            "math.asinh",
            "math.atan",
            "math.atan2",
            "math.atanh",
            "math.cbrt",
            "math.ceil",
            "math.cos",
            "math.cosh",
            "math.erf",
            "math.exp",
            "math.exp2",
            "math.expm1",
            "math.floor",
            "math.log",
            "math.log10",
            "math.log1p",
            "math.log2",
            "math.powf",
            "math.round",
            "math.roundeven",
            "math.rsqrt",
            "math.sin",
            "math.sinh",
            "math.tan",
            "math.tanh",
            "math.trunc",
        ),
        "integer": (
            *INT_BINARY,
            *CASTS,
            "arith.cmpi",
            "arith.select",
            "arith.negf",
            "math.absf",
            "math.copysign",
        ),
    }.items()
    for op in ops
}
"""Each op of the table -> the class of functional unit that runs it, which times
it and charges its energy (`targets.costs` gives each class its latency and energy
from the hardware; a dialect only names the class). Declared here, beside the
ops' meaning, so that an op added to the table without a class is refused at
import rather than timed as some default."""

if set(COST_CLASSES) != OPS:
    raise ImportError(
        "tapeflow_dialects.semantics: every op of the table needs a cost class in "
        f"COST_CLASSES; missing {sorted(OPS - set(COST_CLASSES))}, unknown "
        f"{sorted(set(COST_CLASSES) - OPS)}"
    )


@cache
def _scalar(
    name: str, types: tuple[Attribute, ...], result: Attribute, predicate: int | None
) -> Scalar | None:
    if (
        name in _FLOAT_BINARY_TEMPLATES
        or name in _FLOAT_UNARY_TEMPLATES
        or name in _FLOAT_TERNARY_TEMPLATES
    ):
        if not isinstance(result, AnyFloat) or not all(isinstance(t, AnyFloat) for t in types):
            return None
        return _float_entry(name, result)
    if name in INT_BINARY:
        width = int_width(result)
        if width is None or len(types) != 2 or any(int_width(t) != width for t in types):
            return None
        return _int_entry(name, width)
    if name == "arith.cmpi":
        width = int_width(types[0]) if types else None
        if width is None or predicate is None or not 0 <= predicate < len(CMPI_PREDICATES):
            return None
        return _cmpi_entry(predicate, width)
    if name == "arith.cmpf":
        if not types or not isinstance(types[0], AnyFloat) or predicate is None:
            return None
        if not 0 <= predicate < len(CMPF_PREDICATES):
            return None
        return _cmpf_entry(predicate)
    if name == "arith.select":  # of values of any type (memrefs too)
        if len(types) != 3:
            return None
        return Scalar(
            name, 3, ("{t} = {b} if {a} else {c}",), width=int_width(result), growth="select"
        )
    if name in CASTS and len(types) == 1:
        return _cast_entry(name, types[0], result)
    return None


def scalar(
    name: str,
    operand_types: Sequence[Attribute],
    result_types: Sequence[Attribute],
    properties: Mapping[str, Attribute] | None = None,
) -> Scalar | None:
    """The entry of op `name` with these operand and result types (and, for the
    comparisons, its `predicate` property); None if the table has no such op, or
    not at these types (vectors, tensors...)."""
    if len(result_types) != 1:
        return None
    predicate = None
    attr = (properties or {}).get("predicate")
    if isinstance(attr, IntegerAttr):
        predicate = attr.value.data
    return _scalar(name, tuple(operand_types), result_types[0], predicate)


# ------------------------------------------------------ convenient accessors


def _at(
    name: str, types: Sequence[Attribute], result: Attribute, predicate: int | None = None
) -> Scalar:
    entry = _scalar(name, tuple(types), result, predicate)
    if entry is None:
        raise KeyError(f"no semantics for '{name}' on {', '.join(map(str, types))} -> {result}")
    return entry


FLOAT_BINARY: Mapping[str, Callable[[float, float], float]] = {
    name: _float_entry(name, f64).function  # type: ignore[union-attr]
    for name in _FLOAT_BINARY_TEMPLATES
}
"""Binary float ops in double precision (any type `float_binary` rounds)."""

FLOAT_UNARY: Mapping[str, Callable[[float], float]] = {
    name: _float_entry(name, f64).function  # type: ignore[union-attr]
    for name in _FLOAT_UNARY_TEMPLATES
}
"""Unary float ops in double precision."""

CMPF: Mapping[int, Callable[[float, float], bool]] = {
    p: _cmpf_entry(p).function for p in range(len(CMPF_PREDICATES))
}
"""`arith.cmpf` by predicate number."""


def float_binary(name: str, value_type: Attribute) -> Callable[[float, float], float]:
    """Binary float op `name` on `value_type` values (rounded to its precision)."""
    return _at(name, (value_type, value_type), value_type).function


def float_unary(name: str, value_type: Attribute) -> Callable[[float], float]:
    return _at(name, (value_type,), value_type).function


def int_binary(name: str, value_type: Attribute) -> Callable[[int, int], int | bool]:
    """Integer op `name` on `value_type` (index or iN) values: wraps at the
    width; i1 results are bools; may raise `UndefinedBehavior`."""
    return _at(name, (value_type, value_type), value_type).function


def cmpi(predicate: int | str, value_type: Attribute) -> Callable[[int, int], bool]:
    """`arith.cmpi` with `predicate` (number or name, e.g. 'ult') on `value_type`."""
    if isinstance(predicate, str):
        predicate = CMPI_PREDICATES.index(predicate)
    return _at("arith.cmpi", (value_type, value_type), i1, predicate).function


def cast(name: str, source: Attribute, result: Attribute) -> Callable[[Any], Any]:
    """Cast `name` (e.g. 'arith.extsi') from `source` to `result` values."""
    return _at(name, (source,), result).function


def fold_int(name: str, a: int, b: int, value_type: Attribute) -> int | bool | None:
    """`a name b` at `value_type` for constant folding; None where MLIR leaves the
    result undefined (then the op must stay)."""
    try:
        return int_binary(name, value_type)(
            wrap(a, int_width(value_type) or 64), wrap(b, int_width(value_type) or 64)
        )
    except UndefinedBehavior:
        return None


def constant_value(attr: Attribute) -> int | bool | float | None:
    """The value an `arith.constant` holds, as the executor holds it; None for
    constants that are not scalars (dense, ...)."""
    if isinstance(attr, FloatAttr):
        value = float(attr.value.data)
        rounding = float_rounding(attr.type)
        return rounding(value) if rounding is not None else value
    if isinstance(attr, IntegerAttr):
        width = int_width(attr.type)
        return wrap(int(attr.value.data), width if width is not None else INDEX_WIDTH)
    return None


# -------------------------------------------------------------- numpy arrays

_ARRAY_FORMS: dict[str, Any] = {
    "arith.addi": np.add,
    "arith.subi": np.subtract,
    "arith.muli": np.multiply,
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
}
"""Ops whose numpy int64 ufunc is exactly the 64-bit op (int64 arrays wrap
around as MLIR does); tests check them against the table's functions."""


def int_binary_array(
    name: str, value_type: Attribute
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """`int_binary` elementwise on int64 arrays (broadcasting): a numpy ufunc at 64
    bits where it is the same op, else the table's function on each element."""
    function = int_binary(name, value_type)
    if int_width(value_type) == 64 and name in _ARRAY_FORMS:
        return _ARRAY_FORMS[name]  # type: ignore[no-any-return]
    vectorised = np.frompyfunc(function, 2, 1)

    def elementwise(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(vectorised(a, b)).astype(np.int64)

    return elementwise


def cast_array(
    name: str, source: Attribute, result: Attribute
) -> Callable[[np.ndarray], np.ndarray]:
    """An integer cast elementwise on int64 arrays."""
    function = cast(name, source, result)
    if function is int:
        return lambda a: a
    vectorised = np.frompyfunc(function, 1, 1)
    return lambda a: np.asarray(vectorised(a)).astype(np.int64)


__all__ = [
    "CASTS",
    "CMPF",
    "CMPF_PREDICATES",
    "CMPI_PREDICATES",
    "COST_CLASSES",
    "FLOAT_BINARY",
    "FLOAT_UNARY",
    "INDEX_WIDTH",
    "INT_BINARY",
    "OPS",
    "Scalar",
    "UndefinedBehavior",
    "cast",
    "cast_array",
    "cmpi",
    "constant_value",
    "fold_int",
    "float_binary",
    "float_rounding",
    "float_unary",
    "int_binary",
    "int_binary_array",
    "int_width",
    "round_f16",
    "round_f32",
    "scalar",
    "to_signed",
    "to_unsigned",
    "wrap",
]
