"""
What a benchmark kernel is, and everything that follows mechanically from it.

A kernel module states only what is particular to it: its size presets, the
primal's parameters, the primal's MLIR body (one template over the size
parameters), a numpy primal and an input generator. This module derives the rest
the same way for every kernel, so that the nine kernels cannot drift apart in
conventions: the full MLIR module (the primal's signature and its `enzyme.autodiff`
caller), the caller's inputs and the state the caller must leave behind.

The expected state models Enzyme's reverse mode exactly. After the call, the
shadow of every `enzyme_dup` buffer holds the adjoint of that buffer's *initial*
contents, its initial shadow having been the cotangent of its *final* contents.
The numpy primal is therefore written as a pure function from the initial contents
of every parameter to the final contents of every parameter it writes (`A += f`
returns `A + f`, a fully overwritten buffer does not depend on its initial value),
and the shadows after the call are the gradient of the scalar

    phi = result + sum over dup parameters p of <initial shadow of p, final p>

with respect to the initial contents of the dup parameters (a parameter the primal
does not write is its own final value, which carries its shadow through unchanged:
Enzyme accumulates into input shadows). autograd computes that gradient from the
numpy primal alone, independently of any MLIR.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from string import Template
from textwrap import dedent, indent
from typing import Any, TypeAlias

import autograd
import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.artifact import ARTIFACT, ArtifactRun

Sizes: TypeAlias = Mapping[str, int]
"""The size parameters of one preset, for example `{"R": 128, "C": 256}`."""

Array: TypeAlias = Any
"""A float64 numpy array, or the autograd box that stands for one while tracing."""

Primal: TypeAlias = Callable[[Sizes, Mapping[str, Array]], tuple[Array | None, dict[str, Array]]]
"""Initial contents by parameter name -> (scalar result or None, final contents of
every parameter the primal writes)."""

Generator: TypeAlias = Callable[[Sizes, np.random.Generator], dict[str, np.ndarray]]
"""Random, well-conditioned initial contents of every primal parameter, by name."""


def f64(value: float) -> str:
    """An MLIR f64 literal (MLIR demands a '.' in a decimal float, Python's repr
    of 1e-05 has none)."""
    text = repr(float(value))
    if "." not in text and "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    elif "." not in text:
        text += ".0"
    return text


def memref(shape: Sequence[int]) -> str:
    """The MLIR type of a statically shaped f64 buffer."""
    return f"memref<{'x'.join(str(d) for d in shape)}xf64>"


def index_constants(*values: int) -> str:
    """`%c<v> = arith.constant <v> : index` for each distinct value: the loop bounds
    and offsets a body refers to as `%c<v>`."""
    return "\n".join(f"%c{v} = arith.constant {v} : index" for v in sorted(set(values)))


_SSA_NAME = re.compile(r"%[A-Za-z_][\w]*")
_DEFINED = re.compile(r"^\s*(%[A-Za-z_][\w]*(?:\s*,\s*%[A-Za-z_][\w]*)*)\s*=")


def unrolled_body(
    body: str,
    iv: str,
    factor: int,
    carried: Mapping[str, str] | None = None,
    first: int = 0,
    counted: bool = True,
) -> tuple[str, dict[str, str]]:
    """
    `factor` copies of a loop body's text (its ops, without the `scf.yield`), as
    clang's `#pragma clang loop unroll_count(factor)` makes them before Enzyme sees
    the loop (the authors' flow, each kernel's `hw/Makefile`): the enclosing loop
    then steps by `factor` and Enzyme differentiates the unrolled body, so its
    caches sit between the copies' loads as theirs do. Copy `k` sees the induction
    variable `%<iv>` plus `k` (as `%<iv>_u<k>`; it needs the index constant
    `%c<k>`) and renames every value the body defines `%<name>_u<k>`; `carried`
    maps each iter_arg the body reads to the value it yields for the next trip,
    which copy `k > 0` reads from copy `k - 1`. Returns the copies' text and, for
    each iter_arg, the name of the value the last copy yields.

    With `factor > 1` and `counted`, the enclosing loop must count unrolled
    trips in `%<iv>_trip` with step 1 (the copies begin with `%<iv> = first +
    %<iv>_trip * factor`, which needs `%c<factor>` and `%c<first>`):
    Enzyme-MLIR 0.0.16 reverses a loop of step `s > 1` as if its step were 1
    (its REV iterations see `ub - 1 - iv`), which reads past the end of the
    arrays; the loop of unrolled trips is the same program. Without `counted`
    the caller defines `%<iv>` (straight-line copies: a remainder).
    """
    carried = dict(carried or {})
    lines = dedent(body).strip("\n").splitlines()
    if factor == 1:
        return "\n".join(lines), carried
    defined = {
        name.strip()
        for line in lines
        if (m := _DEFINED.match(line))
        for name in m.group(1).split(",")
    }
    out: list[str] = []
    if factor > 1 and counted:
        if first:
            out.append(f"%{iv}_base = arith.muli %{iv}_trip, %c{factor} : index")
            out.append(f"%{iv} = arith.addi %{iv}_base, %c{first} : index")
        else:
            out.append(f"%{iv} = arith.muli %{iv}_trip, %c{factor} : index")
    for k in range(factor):
        names = {f"%{iv}": f"%{iv}_u{k}" if k else f"%{iv}"}
        names.update({d: f"{d}_u{k}" for d in defined})
        if k:
            names.update({f"%{arg}": f"{value}_u{k - 1}" for arg, value in carried.items()})
            out.append(f"%{iv}_u{k} = arith.addi %{iv}, %c{k} : index")
        out += [
            _SSA_NAME.sub(lambda m, names=names: names.get(m.group(0), m.group(0)), line)
            for line in lines
        ]
    last = {arg: f"{value}_u{factor - 1}" for arg, value in carried.items()}
    return "\n".join(out), last


def render(template: str, **values: object) -> str:
    """Substitutes `$name` placeholders in an MLIR template (MLIR uses `%`, `@`, `#`
    and braces, never `$`, so the template needs no escaping). A placeholder alone
    on its line stands for a block of lines (possibly none), indented to its place."""
    lines: list[str] = []
    for line in dedent(template).strip("\n").splitlines():
        name = line.strip()[1:].strip("{}")
        if line.strip().startswith("$") and name.isidentifier() and name in values:
            if not str(values[name]):
                continue
            lines.append(indent(str(values[name]), line[: len(line) - len(line.lstrip())]))
        else:
            lines.append(Template(line).substitute(values))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Param:
    """One argument of the primal function: an f64 buffer (of static shape, or of
    dynamic shape `memref<?xf64>` with `dynamic`), an `index` buffer (`indices`:
    the row pointers and column indices of a sparse matrix, read only), or an
    `index` scalar (`trip`: a loop bound known only at run time, whose value is the
    size parameter it names)."""

    name: str
    shape: tuple[int, ...]
    active: bool = False
    """Differentiated (`enzyme_dup`, passed with its shadow) or not (`enzyme_const`)."""
    written: bool = False
    """The primal stores into it: an output, whose shadow carries a cotangent seed."""
    dynamic: bool = False
    """The buffer's type has `?` extents (the array passed has `shape`)."""
    trip: str | None = None
    """An `index` argument: the size parameter whose value it carries."""
    indices: bool = False
    """A buffer of `index` elements (never active or written)."""

    def __post_init__(self) -> None:
        if self.indices and (self.active or self.written):
            raise ValueError(f"{self.name}: a buffer of indices is neither active nor written")

    @property
    def type(self) -> str:
        if self.trip is not None:
            return "index"
        element = "index" if self.indices else "f64"
        if self.dynamic:
            return f"memref<{'x'.join('?' for _ in self.shape)}x{element}>"
        return f"memref<{'x'.join(str(d) for d in self.shape)}x{element}>"


@dataclass(frozen=True)
class CallerArg:
    """One argument of the `<key>_grad` caller: a primal argument or its shadow."""

    name: str
    param: Param
    is_shadow: bool

    @property
    def type(self) -> str:
        return self.param.type

    @property
    def shape(self) -> tuple[int, ...]:
        return self.param.shape


@dataclass(frozen=True)
class Kernel:
    """A benchmark kernel at every size preset: its MLIR, inputs and references."""

    key: str
    sizes: Mapping[str, Sizes]
    """Preset name ("small", "paper") -> size parameters."""
    params: Callable[[Sizes], tuple[Param, ...]]
    """The primal's arguments, in order."""
    returns_scalar: bool
    """The primal returns one f64 (differentiated with seed 1.0), else nothing."""
    body: Callable[[Sizes], str]
    """The primal's MLIR body; it names its arguments `%<param name>`."""
    primal: Primal
    generate: Generator
    artifact: ArtifactRun = field(default_factory=ArtifactRun)
    """What the authors' run of the `artifact` preset's program did beyond its
    text (memory map, recompute policy), each with its source."""

    def argument_addresses(self, preset: str) -> list[int | None]:
        """Per caller argument, its address in the preset's program (None: none)."""
        memory_map = self.artifact.memory_map
        named = memory_map.addresses if preset == ARTIFACT and memory_map else {}
        args = self.caller_args(preset)
        unknown = set(named) - {a.name for a in args}
        if unknown:
            raise ValueError(f"{self.key}: addresses for no argument: {sorted(unknown)}")
        return [named.get(a.name) for a in args]

    def recomputes(self, preset: str, variant: str) -> bool:
        """The preset's `variant` runs `tapeflow-recompute-loads`: the authors'
        Enzyme baseline where it recomputed, and TapeFlow where calibrated to."""
        recompute = self.artifact.recompute if preset == ARTIFACT else None
        if recompute is None:
            return False
        return variant == "enzyme" or bool(recompute.calibration)

    # ------------------------------------------------------------------ MLIR
    def mlir(self, preset: str) -> str:
        """The module text: the primal `@<key>` and the caller `@<key>_grad`."""
        sizes = self.sizes[preset]
        params = self.params(sizes)
        signature = ", ".join(f"%{p.name}: {p.type}" for p in params)
        returns = " -> f64" if self.returns_scalar else ""
        described = ", ".join(f"{k}={v}" for k, v in sizes.items())
        return (
            f"// {self.key}, preset {preset} ({described}).\n"
            "// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template "
            f"in tapeflow_benchmarks/kernels/{self.key}.py, not this file.\n"
            f"func.func @{self.key}({signature}){returns} {{\n"
            f"{indent(self.body(sizes).strip(), '  ')}\n"
            "}\n\n"
            f"{self._caller(preset)}"
        )

    def _caller(self, preset: str) -> str:
        args = self.caller_args(preset)
        params = self.params(self.sizes[preset])
        operands = [f"%{a.name}" for a in args]
        types = [a.type for a in args]
        activity = ", ".join(
            "#enzyme.activity<enzyme_dup>" if p.active else "#enzyme.activity<enzyme_const>"
            for p in params
        )
        signature = ", ".join(f"%{a.name}: {a.type}" for a in args)
        if self.returns_scalar:
            return (
                f"func.func @{self.key}_grad({signature}) -> f64 {{\n"
                "  %seed = arith.constant 1.0 : f64\n"
                f"  %r = enzyme.autodiff @{self.key}({', '.join(operands)}, %seed) "
                f"<{{activity = [{activity}], "
                "ret_activity = [#enzyme.activity<enzyme_active>]}> "
                f": ({', '.join([*types, 'f64'])}) -> f64\n"
                "  return %r : f64\n"
                "}\n"
            )
        return (
            f"func.func @{self.key}_grad({signature}) {{\n"
            f"  enzyme.autodiff @{self.key}({', '.join(operands)}) "
            f"<{{activity = [{activity}], ret_activity = []}}> "
            f": ({', '.join(types)}) -> ()\n"
            "  return\n"
            "}\n"
        )

    def caller_args(self, preset: str) -> tuple[CallerArg, ...]:
        """The caller's arguments: each primal argument, then its shadow if active."""
        args: list[CallerArg] = []
        for p in self.params(self.sizes[preset]):
            args.append(CallerArg(p.name, p, is_shadow=False))
            if p.active:
                args.append(CallerArg(f"d_{p.name}", p, is_shadow=True))
        return tuple(args)

    def caller_arg_types(self, preset: str) -> list[str]:
        """The MLIR types of the caller's arguments, by position."""
        return [a.type for a in self.caller_args(preset)]

    # ---------------------------------------------------------------- values
    def inputs(self, preset: str, seed: int = 0) -> list[np.ndarray]:
        """One array per caller argument: random primal inputs, zero shadows for
        buffers the primal only reads, random cotangent seeds in the shadows of the
        buffers it writes."""
        rng = np.random.default_rng(seed)
        sizes = self.sizes[preset]
        values = self.generate(sizes, rng)
        result: list[np.ndarray] = []
        for arg in self.caller_args(preset):
            if arg.param.trip is not None:
                result.append(np.array(sizes[arg.param.trip], dtype=np.int64))
                continue
            if not arg.is_shadow:
                dtype = np.int64 if arg.param.indices else np.float64
                value = np.asarray(values[arg.name], dtype=dtype)
                if value.shape != arg.shape:
                    raise ValueError(
                        f"{self.key}: generated {arg.name} has shape {value.shape}, "
                        f"the primal takes {arg.shape}"
                    )
                result.append(value.copy())
            elif arg.param.written:
                result.append(rng.standard_normal(arg.shape))
            else:
                result.append(np.zeros(arg.shape))
        return result

    def _split(
        self, preset: str, inputs: Sequence[np.ndarray]
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """The caller's inputs as (primal values, shadows), each by parameter name."""
        args = self.caller_args(preset)
        if len(inputs) != len(args):
            raise ValueError(
                f"{self.key}: the caller takes {len(args)} arguments, got {len(inputs)}"
            )
        values = {a.name: inputs[i] for i, a in enumerate(args) if not a.is_shadow}
        shadows = {a.param.name: inputs[i] for i, a in enumerate(args) if a.is_shadow}
        return values, shadows

    def final_state(
        self, preset: str, values: Mapping[str, Array]
    ) -> tuple[Array | None, dict[str, Array]]:
        """The numpy primal on initial contents: (result, final contents of every
        parameter), checked against the parameters' `written` flags so that a
        forgotten output cannot pass for an unchanged input."""
        sizes = self.sizes[preset]
        result, finals = self.primal(sizes, values)
        written = {p.name for p in self.params(sizes) if p.written}
        if set(finals) != written:
            raise ValueError(
                f"{self.key}: the primal returns {sorted(finals)}, "
                f"the parameters written are {sorted(written)}"
            )
        if (result is None) == self.returns_scalar:
            raise ValueError(f"{self.key}: the primal's result contradicts returns_scalar")
        return result, {**values, **finals}

    def objective(
        self, preset: str, inputs: Sequence[np.ndarray]
    ) -> tuple[Callable[[dict[str, Array]], Array], dict[str, np.ndarray]]:
        """`phi` (see the module docstring) as a function of the initial contents of
        the active parameters, and the point given by `inputs`: its gradient there is
        what the shadows hold after the call."""
        values, seeds = self._split(preset, inputs)

        def phi(active: dict[str, Array]) -> Array:
            result, finals = self.final_state(preset, {**values, **active})
            total = 0.0 if result is None else result
            for name, seed in seeds.items():
                total = total + anp.sum(seed * finals[name])
            return total

        return phi, {name: values[name] for name in seeds}

    def expected(self, preset: str, inputs: Sequence[np.ndarray]) -> dict[str, np.ndarray]:
        """What the caller leaves behind: `arg<i>` for every caller argument (primal
        buffers after the call, shadows holding their accumulated adjoints) and
        `result0` for the returned f64, if any."""
        values, _ = self._split(preset, inputs)
        result, finals = self.final_state(preset, values)
        phi, point = self.objective(preset, inputs)
        adjoints = autograd.grad(phi)(point)
        expected: dict[str, np.ndarray] = {}
        for i, arg in enumerate(self.caller_args(preset)):
            if arg.param.trip is not None:
                continue  # a scalar: not an output
            source = adjoints if arg.is_shadow else finals
            dtype = np.int64 if arg.param.indices else np.float64
            expected[f"arg{i}"] = np.array(source[arg.param.name], dtype=dtype)
        if result is not None:
            expected["result0"] = np.array(result, dtype=np.float64)
        return expected
