"""
`tapeflow-unit-steps` on loops whose bounds differ by a constant, counted in
integers of every width (a property test, hypothesis): random kernels

    scf.for %o = %lo to %lo + D0 step s0          (optional outer loop)
      scf.for %i = %o to %o + D step s iter_args(%acc, %n)   (or stores)

where `D0` and `D` are built from chains of `addi`/`subi`/`muli` by constants
(intermediate values wrap, and two chains that differ in one constant cancel to a
small difference of either sign), in `i8`, `i16`, `i32`, `i64` and `index`, `lo`
anywhere including next to the type's ends, constants written signed or unsigned.
Each kernel is run by the reference executor before and after the rewrite: the
bits are the same, and equal an independent Python model (wrapping arithmetic,
`range` over the signed bounds). Counted in 64 bits, where the rewrite is exact
only where `lo + D` does not wrap, `lo` is drawn so that it does not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import assume, given, note, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from stage_checks import same_bits  # noqa: E402
from xdsl.dialects import scf  # noqa: E402

from lowering.ir.loops import constant_value  # noqa: E402
from lowering.tapeflow_unit_steps import unit_steps  # noqa: E402
from tapeflow_tools.context import make_context  # noqa: E402
from tapeflow_tools.diagnostics import LocatingParser  # noqa: E402
from tapeflow_tools.tapeflow_run import run_function  # noqa: E402

WIDTHS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}
DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64}
MAX_TRIPS = 200
"""Kernels whose model runs longer are not drawn (the executor is slow)."""


def wrap(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


@dataclass(frozen=True)
class Chain:
    """`x` through `ops` in turn: ("add", c) is x + c, ("sub", c) x - c, ("rsub",
    c) c - x, ("mul", c) x * c."""

    ops: tuple[tuple[str, int], ...]

    def model(self, x: int, bits: int) -> int:
        for kind, c in self.ops:
            x = {"add": x + c, "sub": x - c, "rsub": c - x, "mul": x * c}[kind]
            x = wrap(x, bits)
        return x


@dataclass(frozen=True)
class Bound:
    """`ub = x + (first(x) - second(x)) + extra`: `first` and `second` the same chain
    but for one constant, so the coefficients of `x` cancel."""

    first: Chain
    second: Chain
    extra: int

    def model(self, x: int, bits: int) -> int:
        d = self.first.model(x, bits) - self.second.model(x, bits)
        return wrap(x + d + self.extra, bits)


@dataclass(frozen=True)
class Kernel:
    kind: str
    inner: Bound
    step: int
    outer: Bound | None
    outer_step: int
    iter_args: bool
    unsigned: frozenset[int]
    """Which constants (by their order in the text) are written unsigned."""

    @property
    def bits(self) -> int:
        return WIDTHS[self.kind]

    def text(self) -> str:
        t, lines, count = self.kind, [], [0]

        def const(value: int) -> str:
            name = f"%k{count[0]}"
            shown = (
                value % (1 << self.bits) if count[0] in self.unsigned and t != "index" else value
            )
            count[0] += 1
            lines.append(f"  {name} = arith.constant {shown} : {t}")
            return name

        def chain(x: str, c: Chain, tag: str, pad: str) -> str:
            for n, (op, value) in enumerate(c.ops):
                k = const(value)
                name = f"%{tag}{n}"
                if op == "rsub":
                    body.append(f"{pad}{name} = arith.subi {k}, {x} : {t}")
                else:
                    arith_op = {"add": "addi", "sub": "subi", "mul": "muli"}[op]
                    body.append(f"{pad}{name} = arith.{arith_op} {x}, {k} : {t}")
                x = name
            return x

        def bound(x: str, b: Bound, tag: str, pad: str) -> str:
            e1 = chain(x, b.first, f"{tag}a", pad)
            e2 = chain(x, b.second, f"{tag}b", pad)
            extra = const(b.extra)
            body.append(f"{pad}%{tag}d = arith.subi {e1}, {e2} : {t}")
            body.append(f"{pad}%{tag}s = arith.addi {x}, %{tag}d : {t}")
            body.append(f"{pad}%{tag}u = arith.addi %{tag}s, {extra} : {t}")
            return f"%{tag}u"

        body: list[str] = []
        zero, three, one = const(0), const(3), const(1)
        step = const(self.step)
        pad = "  "
        if self.outer is not None:
            outer_step = const(self.outer_step)
            ohi = bound("%lo", self.outer, "o", pad)
            carried = "iter_args(%oacc = %acc0, %on = %n0) -> (T, T) " if self.iter_args else ""
            results = "%r:2 = " if self.iter_args else ""
            body.append(
                f"{pad}{results}scf.for %o = %lo to {ohi} step {outer_step} {carried}: {t} {{"
            )
            pad, base, acc, n = "    ", "%o", "%oacc", "%on"
        else:
            base, acc, n = "%lo", "%acc0", "%n0"
        hi = bound(base, self.inner, "i", pad)
        if self.iter_args:
            inner = "%q:2 = " if self.outer is not None else "%r:2 = "
            body.append(
                f"{pad}{inner}scf.for %i = {base} to {hi} step {step} "
                f"iter_args(%acc = {acc}, %n = {n}) -> (T, T) : {t} {{"
            )
            body.append(f"{pad}  %m = arith.muli %acc, {three} : {t}")
            body.append(f"{pad}  %acc2 = arith.addi %m, %i : {t}")
            body.append(f"{pad}  %n2 = arith.addi %n, {one} : {t}")
            body.append(f"{pad}  scf.yield %acc2, %n2 : T, T")
            body.append(f"{pad}}}")
            if self.outer is not None:
                body.append("    scf.yield %q#0, %q#1 : T, T")
                body.append("  }")
            done = "%r#0, %r#1"
        else:
            body.append(f"{pad}scf.for %i = {base} to {hi} step {step} : {t} {{")
            body.append(f"{pad}  %a = memref.load %out[%x0] : memref<2xT>")
            body.append(f"{pad}  %m = arith.muli %a, {three} : {t}")
            body.append(f"{pad}  %a2 = arith.addi %m, %i : {t}")
            body.append(f"{pad}  memref.store %a2, %out[%x0] : memref<2xT>")
            body.append(f"{pad}  %c = memref.load %out[%x1] : memref<2xT>")
            body.append(f"{pad}  %c2 = arith.addi %c, {one} : {t}")
            body.append(f"{pad}  memref.store %c2, %out[%x1] : memref<2xT>")
            body.append(f"{pad}}}")
            if self.outer is not None:
                body.append("  }")
            done = f"{zero}, {zero}"
        header = [
            f"func.func @k(%lo: {t}, %acc0: {t}, %n0: {t}, %out: memref<2xT>) -> (T, T) {{",
            "  %x0 = arith.constant 0 : index",
            "  %x1 = arith.constant 1 : index",
        ]
        text = "\n".join([*header, *lines, *body, f"  return {done} : T, T", "}"])
        return text.replace("T", t) + "\n"

    def model(self, lo: int, acc: int) -> tuple[int, int]:
        """The kernel's two results (or its memref's two values) in Python."""
        bits, n = self.bits, 0
        outer = [lo]
        if self.outer is not None:
            outer = list(range(lo, self.outer.model(lo, bits), self.outer_step))
        for base in outer:
            for i in range(base, self.inner.model(base, bits), self.step):
                acc = wrap(acc * 3 + i, bits)
                n = wrap(n + 1, bits)
        return acc, n

    def trips(self, lo: int) -> int | None:
        """How many iterations the nest runs, None where an induction variable
        would wrap past the type's end before the loop ends (`scf.for` is not
        defined there; the executor counts as `range` does)."""
        bits, total = self.bits, 0
        high = (1 << (bits - 1)) - 1
        loops = [(lo, self.outer, self.outer_step)] if self.outer is not None else []
        bases = [lo]
        for base, bound, step in loops:
            count = _count(base, bound.model(base, bits), step)
            if count and base + count * step > high:
                return None
            total += count
            if total > MAX_TRIPS:
                return total
            bases = list(range(base, base + count * step, step))
        for base in bases:
            count = _count(base, self.inner.model(base, bits), self.step)
            if count and base + count * self.step > high:
                return None
            total += count
        return total


def _count(lb: int, ub: int, step: int) -> int:
    return max(0, -(-(ub - lb) // step))


@st.composite
def bounds(draw: st.DrawFn, bits: int) -> Bound:
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    anything = st.integers(low, high) | st.sampled_from([low, high, -1, 0, 1])
    factors = st.integers(-3, 3) | st.integers(low, high)
    # Multiplications first (the coefficient of x), then additions of either sign.
    muls = draw(st.lists(st.tuples(st.just("mul"), factors), max_size=2))
    adds = draw(
        st.lists(
            st.tuples(st.sampled_from(["add", "sub", "rsub"]), anything), min_size=1, max_size=3
        )
    )
    first = (*muls, *adds)
    changed = draw(st.integers(0, len(adds) - 1))
    delta = draw(st.integers(-8, 8))
    kind, value = adds[changed]
    moved = list(adds)
    moved[changed] = (kind, wrap(value + delta, bits))
    second = (*muls, *moved)
    extra = draw(st.integers(-8, 8) | st.sampled_from([high, low, high - 3]))
    return Bound(Chain(first), Chain(second), extra)


@st.composite
def kernels(draw: st.DrawFn) -> tuple[Kernel, int, int]:
    kind = draw(st.sampled_from(list(WIDTHS)))
    bits = WIDTHS[kind]
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    inner = draw(bounds(bits))
    outer = draw(st.none() | bounds(bits))
    kernel = Kernel(
        kind=kind,
        inner=inner,
        step=draw(st.integers(1, 5)),
        outer=outer,
        outer_step=draw(st.integers(1, 3)),
        iter_args=draw(st.booleans()),
        unsigned=frozenset(draw(st.lists(st.integers(0, 40), max_size=8))),
    )
    near = st.integers(0, 40)
    lo = draw(
        st.integers(low, high)
        | near.map(lambda d: high - d)
        | near.map(lambda d: low + d)
        | st.integers(-20, 20)
    )
    acc = draw(st.integers(low, high))
    return kernel, lo, acc


def _rewritten_spans(module) -> int:  # type: ignore[no-untyped-def]
    return sum(
        1
        for op in module.walk()
        if isinstance(op, scf.ForOp) and constant_value(op.lb) == 0 and constant_value(op.ub)
    )


@settings(max_examples=60)
@given(kernels())
def test_a_span_loop_keeps_every_value_in_every_width(case: tuple[Kernel, int, int]) -> None:
    kernel, lo, acc = case
    trips = kernel.trips(lo)
    assume(trips is not None and trips <= MAX_TRIPS)
    if kernel.bits == 64:
        # Counted in 64 bits the constant count is exact where `x + D` does not
        # wrap (`D` the bound's difference without wrapping, as the forms see it).
        bases = [lo]
        if kernel.outer is not None:
            assume(-(2**63) <= lo + kernel.outer.model(0, 512) < 2**63)
            bases = list(range(lo, kernel.outer.model(lo, 64), kernel.outer_step))
        for base in bases:
            assume(-(2**63) <= base + kernel.inner.model(0, 512) < 2**63)
    text = kernel.text()
    note(text)
    note(f"lo = {lo}, acc = {acc}")
    context = make_context()
    original = LocatingParser(context, text, "span.mlir").parse_module()
    rewritten = LocatingParser(context, text, "span.mlir").parse_module()
    unit_steps(rewritten)
    rewritten.verify()
    dtype = DTYPES[kernel.kind]

    def given_values() -> dict[str, np.ndarray]:
        return {
            "arg0": np.array(lo, dtype=dtype),
            "arg1": np.array(acc, dtype=dtype),
            "arg2": np.array(0, dtype=dtype),
            "arg3": np.array([acc, 0], dtype=dtype),
        }

    want = run_function(original, "k", given_values())
    got = run_function(rewritten, "k", given_values())
    assert same_bits(got, want) is None
    model = kernel.model(lo, acc)
    if kernel.iter_args:
        assert (int(got["result0"]), int(got["result1"])) == model
    else:
        assert tuple(int(v) for v in got["arg3"]) == model
