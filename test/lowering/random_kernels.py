"""
Random primal kernels for the property test (`test_random_kernels.py`).

`kernels()` is a hypothesis strategy of `RandomKernel`s: an MLIR module with a primal
`@k` and its `enzyme.autodiff` caller `@k_grad`, and the caller's inputs. The primal
has the shapes of the loop kernels the benchmarks and PolyBench (as Polygeist emits
it) are made of:

- one to three loop nests in sequence, one to three `scf.for` deep, with random
  constant bounds inside the arrays' extents and steps of 1, 2 or 3 (Enzyme-MLIR
  reverses a strided loop wrongly unless `tapeflow-unit-steps` gives it step 1);
- reductions carried through `iter_args` (sums, and products kept bounded);
- in-place read-modify-write of the arrays (`x[i] = f(x[i], ...)`), so Enzyme
  must cache values that are overwritten later;
- constants stored over array elements read before (`x[i] = 0.5`), at any depth,
  on every iteration or under an `scf.if` on the iteration (their adjoint zeroes
  the shadow: docs/enzyme-bugs.md);
- `scf.if` with results, on the loop indices (smooth) or on data (not smooth);
- f64 and f32 arrays mixed, converted with `arith.extf`/`arith.truncf`;
- math on safe domains (sin, cos, tanh, exp of a bounded value, sqrt and log
  of 1 + x*x, division by 1 + x*x);
- loops marked `enzyme.cache_use_tensor` (Enzyme caches in tensors),
  `enzyme.enable_checkpointing` or `enzyme.disable_mincut` (Enzyme caches memref
  handles where a loop writes a buffer);
- gathers through an index table `%p` (enzyme_const) that the kernel may advance
  in place, so that Enzyme caches the index values it used.

Every array is duplicated (its shadow in the caller), and the primal returns an
f64 (active). Inputs are drawn in [0.5, 1.5] (f32 arrays hold f32 values), shadow
seeds in [-1, 1].
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

FLOATS = ("f64", "f32")
INDEX_TABLE = 5
"""The length of the index table `%p` (every extent is at most 5)."""
LOOP_ATTRIBUTES = (
    "",
    "",
    "enzyme.cache_use_tensor",
    "enzyme.enable_checkpointing = true",
    "enzyme.disable_mincut = true",
)
"""What a loop may be marked with: Enzyme's tensor caches, checkpointing, and
min-cut caching off (which caches memref handles where a loop writes a buffer)."""
STEPS = (1, 1, 2, 3)
"""A loop's step (1 as often as the others together)."""
UNARY = ("sin", "cos", "tanh", "exp_tanh", "sqrt1p", "log1p")
BINARY = ("addf", "subf", "mulf", "div1p")


@dataclass
class Array:
    name: str
    dims: tuple[int, ...]
    element: str

    @property
    def type(self) -> str:
        return f"memref<{'x'.join(map(str, self.dims))}x{self.element}>"


@dataclass
class RandomKernel:
    text: str
    inputs: dict[str, np.ndarray]
    smooth: bool
    """No branch on data: central differences apply."""
    all_f64: bool
    arrays: list[Array] = field(default_factory=list)
    table: bool = False
    """The primal's last argument is the index table `%p`."""

    def __repr__(self) -> str:  # hypothesis prints the falsifying example with this
        return f"RandomKernel(smooth={self.smooth}, all_f64={self.all_f64}):\n{self.text}"


class _Writer:
    """Builds the primal's body, naming SSA values uniquely."""

    def __init__(
        self,
        draw: st.DrawFn,
        arrays: list[Array],
        data_branches: bool,
        tensor_caches: bool,
        gather: int | None,
        attributes: tuple[str, ...] = (),
    ):
        self.draw = draw
        self.attributes = attributes
        self.tensor_caches = tensor_caches
        self.gather = gather
        """The extent the index table `%p` points into (None: no table)."""
        self.data_branches = data_branches
        self.floats = FLOATS if any(a.element == "f32" for a in arrays) else ("f64",)
        self.arrays = arrays
        self.lines: list[str] = []
        self.count = 0
        self.consts: dict[str, str] = {}
        self.smooth = True

    def fresh(self, stem: str = "v") -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def emit(self, indent: int, line: str) -> None:
        self.lines.append("  " * indent + line)

    def index(self, value: int) -> str:
        key = f"i{value}"
        if key not in self.consts:
            self.consts[key] = f"%c{value}"
        return self.consts[key]

    def real(self, value: float, element: str) -> str:
        key = f"{element}:{value!r}"
        if key not in self.consts:
            self.consts[key] = f"%cst_{element}_{len(self.consts)}"
        return self.consts[key]

    def constants(self) -> list[str]:
        out = []
        for key, name in self.consts.items():
            if key.startswith("i"):
                out.append(f"  {name} = arith.constant {key[1:]} : index")
            else:
                element, value = key.split(":", 1)
                out.append(f"  {name} = arith.constant {float(value)!r} : {element}")
        return out

    # -------------------------------------------------------------- values
    def convert(self, indent: int, value: str, have: str, want: str) -> str:
        if have == want:
            return value
        out = self.fresh()
        op = "arith.extf" if have == "f32" else "arith.truncf"
        self.emit(indent, f"{out} = {op} {value} : {have} to {want}")
        return out

    def unary(self, indent: int, op: str, x: str, t: str) -> str:
        out = self.fresh()
        if op in ("sin", "cos", "tanh"):
            self.emit(indent, f"{out} = math.{op} {x} : {t}")
        elif op == "exp_tanh":
            inner = self.fresh()
            self.emit(indent, f"{inner} = math.tanh {x} : {t}")
            self.emit(indent, f"{out} = math.exp {inner} : {t}")
        else:  # sqrt(1 + x*x) or log(1 + x*x)
            sq, one = self.fresh(), self.fresh()
            self.emit(indent, f"{sq} = arith.mulf {x}, {x} : {t}")
            self.emit(indent, f"{one} = arith.addf {sq}, {self.real(1.0, t)} : {t}")
            fn = "sqrt" if op == "sqrt1p" else "log"
            self.emit(indent, f"{out} = math.{fn} {one} : {t}")
        return out

    def binary(self, indent: int, op: str, a: str, b: str, t: str) -> str:
        out = self.fresh()
        if op == "div1p":  # a / (1 + b*b)
            sq, den = self.fresh(), self.fresh()
            self.emit(indent, f"{sq} = arith.mulf {b}, {b} : {t}")
            self.emit(indent, f"{den} = arith.addf {sq}, {self.real(1.0, t)} : {t}")
            self.emit(indent, f"{out} = arith.divf {a}, {den} : {t}")
        else:
            self.emit(indent, f"{out} = arith.{op} {a}, {b} : {t}")
        return out

    def expression(self, indent: int, leaves: list[tuple[str, str]], t: str, depth: int) -> str:
        """A random expression of type `t` over `leaves` (value, type)."""
        draw = self.draw
        if depth == 0 or draw(st.integers(0, 3)) == 0:
            value, have = leaves[draw(st.integers(0, len(leaves) - 1))]
            return self.convert(indent, value, have, t)
        if draw(st.booleans()):
            x = self.expression(indent, leaves, t, depth - 1)
            return self.unary(indent, draw(st.sampled_from(UNARY)), x, t)
        a = self.expression(indent, leaves, t, depth - 1)
        b = self.expression(indent, leaves, t, depth - 1)
        return self.binary(indent, draw(st.sampled_from(BINARY)), a, b, t)

    # -------------------------------------------------------------- loops
    def nest(self, indent: int, accumulator: str) -> str:
        """One loop nest over the dims of a random array; returns the new
        accumulator (f64)."""
        draw = self.draw
        target = draw(st.sampled_from(self.arrays))
        depth = len(target.dims)
        ivs: list[str] = []
        acc = accumulator
        opened: list[tuple[str, str]] = []  # (result name, iter arg) per loop
        for d, extent in enumerate(target.dims):
            lower = draw(st.integers(0, extent - 1))
            upper = draw(st.integers(lower + 1, extent))
            step = draw(st.sampled_from(STEPS))
            iv, res, arg = self.fresh("i"), self.fresh("r"), self.fresh("a")
            self.emit(
                indent + d,
                f"{res} = scf.for {iv} = {self.index(lower)} to {self.index(upper)} step "
                f"{self.index(step)} iter_args({arg} = {acc}) -> (f64) {{",
            )
            ivs.append(iv)
            opened.append((res, arg))
            acc = arg
        inner = indent + depth
        # Loads of every array indexable by the ivs (a prefix of the nest's ivs or
        # the innermost ones), the target among them.
        leaves: list[tuple[str, str]] = [(acc, "f64")]
        target_value = None
        for array in self.arrays:
            index = self._indices(array, target.dims, ivs)
            if index is None:
                continue
            if array is not target and not draw(st.booleans()):
                continue
            value = self.fresh()
            self.emit(
                inner, f"{value} = memref.load %{array.name}[{', '.join(index)}] : {array.type}"
            )
            leaves.append((value, array.element))
            if array is target:
                target_value = value
        assert target_value is not None
        gatherable = self.gather is not None and any(a.dims[0] == self.gather for a in self.arrays)
        if gatherable and draw(st.booleans()):
            leaves.append(self.gathered(inner, ivs[-1]))
        t = draw(st.sampled_from(self.floats))
        body = self.expression(inner, leaves, t, draw(st.integers(1, 3)))
        if draw(st.booleans()):
            body = self.branch(inner, ivs, leaves, body, t)
        if draw(st.booleans()):  # in-place read-modify-write of the target
            mixed = self.binary(
                inner,
                draw(st.sampled_from(("addf", "mulf", "div1p"))),
                self.convert(inner, target_value, target.element, t),
                self.unary(inner, draw(st.sampled_from(("sin", "tanh", "cos"))), body, t),
                t,
            )
            stored = self.convert(inner, mixed, t, target.element)
            self.emit(
                inner,
                f"memref.store {stored}, %{target.name}[{', '.join(ivs)}] : {target.type}",
            )
        if draw(st.integers(0, 3)) == 0:  # the target's element overwritten by a constant
            constant = self.real(draw(st.sampled_from((0.0, 0.5, 2.0))), target.element)
            store = f"memref.store {constant}, %{target.name}[{', '.join(ivs)}] : {target.type}"
            if draw(st.booleans()):
                self.emit(inner, store)
            else:
                rem, cond = self.fresh(), self.fresh("cond")
                self.emit(inner, f"{rem} = arith.remui {ivs[0]}, {self.index(2)} : index")
                self.emit(inner, f"{cond} = arith.cmpi eq, {rem}, {self.index(0)} : index")
                self.emit(inner, f"scf.if {cond} {{")
                self.emit(inner + 1, store)
                self.emit(inner, "}")
        contribution = self.convert(inner, body, t, "f64")
        if draw(st.booleans()):
            new_acc = self.binary(inner, "addf", acc, contribution, "f64")
        else:  # a bounded product-like update: acc * (1 + tanh(c)) / 2
            squashed = self.unary(inner, "tanh", contribution, "f64")
            scaled = self.binary(inner, "addf", squashed, self.real(1.0, "f64"), "f64")
            new_acc = self.binary(inner, "mulf", acc, scaled, "f64")
            half = self.fresh()
            self.emit(inner, f"{half} = arith.mulf {new_acc}, {self.real(0.5, 'f64')} : f64")
            new_acc = half
        for d in reversed(range(depth)):
            self.emit(indent + d + 1, f"scf.yield {new_acc} : f64")
            attribute = draw(st.sampled_from(self.attributes)) if self.attributes else ""
            self.emit(indent + d, f"}} {{{attribute}}}" if attribute else "}")
            new_acc = opened[d][0]
        return new_acc

    def gathered(self, indent: int, iv: str) -> tuple[str, str]:
        """x[p[iv], 0, ...] for an array x whose first extent is the table's, and
        maybe p[iv] advanced in place (so Enzyme must cache the index it used)."""
        draw = self.draw
        assert self.gather is not None
        sources = [a for a in self.arrays if a.dims[0] == self.gather]
        array = draw(st.sampled_from(sources))
        j, value = self.fresh("j"), self.fresh()
        self.emit(indent, f"{j} = memref.load %p[{iv}] : memref<{INDEX_TABLE}xindex>")
        rest = [self.index(0)] * (len(array.dims) - 1)
        self.emit(
            indent, f"{value} = memref.load %{array.name}[{', '.join([j, *rest])}] : {array.type}"
        )
        if draw(st.booleans()):
            step, wrapped = self.fresh(), self.fresh()
            self.emit(indent, f"{step} = arith.addi {j}, {self.index(1)} : index")
            self.emit(indent, f"{wrapped} = arith.remui {step}, {self.index(self.gather)} : index")
            self.emit(indent, f"memref.store {wrapped}, %p[{iv}] : memref<{INDEX_TABLE}xindex>")
        return value, array.element

    @staticmethod
    def _indices(array: Array, dims: tuple[int, ...], ivs: list[str]) -> list[str] | None:
        """Indices of `array` by the nest's ivs (bounded by `dims`), if they fit."""
        n = len(array.dims)
        if n > len(ivs):
            return None
        for start in (0, len(ivs) - n):  # the outermost ivs, or the innermost
            extents = dims[start : start + n]
            if all(e <= a for e, a in zip(extents, array.dims, strict=False)):
                return ivs[start : start + n]
        return None

    def branch(
        self, indent: int, ivs: list[str], leaves: list[tuple[str, str]], value: str, t: str
    ) -> str:
        draw = self.draw
        cond = self.fresh("cond")
        if not self.data_branches or draw(st.booleans()):  # on the iteration: smooth
            rem = self.fresh()
            self.emit(indent, f"{rem} = arith.remui {ivs[-1]}, {self.index(2)} : index")
            self.emit(indent, f"{cond} = arith.cmpi eq, {rem}, {self.index(0)} : index")
        else:  # on data: not smooth where the data crosses the threshold
            self.smooth = False
            probe = self.expression(indent, leaves, "f64", 1)
            self.emit(indent, f"{cond} = arith.cmpf ogt, {probe}, {self.real(1.0, 'f64')} : f64")
        out = self.fresh()
        self.emit(indent, f"{out} = scf.if {cond} -> ({t}) {{")
        then = self.unary(indent + 1, draw(st.sampled_from(UNARY)), value, t)
        self.emit(indent + 1, f"scf.yield {then} : {t}")
        self.emit(indent, "} else {")
        other = self.binary(indent + 1, draw(st.sampled_from(BINARY)), value, value, t)
        self.emit(indent + 1, f"scf.yield {other} : {t}")
        self.emit(indent, "}")
        return out


@st.composite
def kernels(
    draw: st.DrawFn,
    max_nests: int = 3,
    mixed: bool = True,
    data_branches: bool = True,
    tensor_caches: bool = True,
    mincut_off: bool = True,
) -> RandomKernel:
    """A random primal kernel and its caller (see the module docstring); `mixed`
    draws f32 arrays and values too, `data_branches` branches on data too,
    `tensor_caches` marks loops with Enzyme's cache attributes (tensor caches,
    checkpointing, and min-cut caching off if `mincut_off`)."""
    n = draw(st.integers(1, 5))
    m = draw(st.integers(1, 4))
    shapes = [(n,), (m,), (n, m)]
    if draw(st.booleans()):
        shapes.append((n, m, draw(st.integers(1, 3))))
    count = draw(st.integers(1, 3))
    arrays = []
    for a in range(count):
        element = draw(st.sampled_from(FLOATS)) if mixed else "f64"
        arrays.append(Array(f"x{a}", draw(st.sampled_from(shapes)), element))
    gather = n if draw(st.booleans()) else None
    attributes = tuple(
        a for a in LOOP_ATTRIBUTES if tensor_caches and (mincut_off or "mincut" not in a)
    )
    writer = _Writer(draw, arrays, data_branches, tensor_caches, gather, attributes or ("",))
    acc = writer.real(1.0, "f64")
    for _ in range(draw(st.integers(1, max_nests))):
        acc = writer.nest(1, acc)
    table = [f"%p: memref<{INDEX_TABLE}xindex>"] if gather is not None else []
    params = ", ".join([*(f"%{a.name}: {a.type}" for a in arrays), *table])
    body = writer.lines
    primal = [
        f"func.func @k({params}) -> f64 {{",
        *writer.constants(),
        *body,
        f"  func.return {acc} : f64",
        "}",
    ]
    grad_params = ", ".join(
        [*(f"%{a.name}: {a.type}, %d_{a.name}: {a.type}" for a in arrays), *table]
    )
    operands = ", ".join([*(f"%{a.name}, %d_{a.name}" for a in arrays), *(["%p"] if table else [])])
    types = ", ".join(
        [
            *(f"{a.type}, {a.type}" for a in arrays),
            *([f"memref<{INDEX_TABLE}xindex>"] if table else []),
        ]
    )
    activity = ", ".join(
        [
            *("#enzyme.activity<enzyme_dup>" for _ in arrays),
            *(["#enzyme.activity<enzyme_const>"] if table else []),
        ]
    )
    caller = [
        f"func.func @k_grad({grad_params}) -> f64 {{",
        "  %seed = arith.constant 1.0 : f64",
        f"  %r = enzyme.autodiff @k({operands}, %seed) <{{activity = [{activity}], "
        f"ret_activity = [#enzyme.activity<enzyme_active>]}}> : ({types}, f64) -> f64",
        "  func.return %r : f64",
        "}",
    ]
    text = (
        "// A random kernel (test/lowering/random_kernels.py)\n" + "\n".join(primal + caller) + "\n"
    )
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    inputs: dict[str, np.ndarray] = {}
    for a, array in enumerate(arrays):
        value = rng.uniform(0.5, 1.5, array.dims)
        shadow = rng.uniform(-1.0, 1.0, array.dims)
        if array.element == "f32":
            value = value.astype(np.float32).astype(np.float64)
            shadow = shadow.astype(np.float32).astype(np.float64)
        inputs[f"arg{2 * a}"] = value
        inputs[f"arg{2 * a + 1}"] = shadow
    if gather is not None:
        inputs[f"arg{2 * len(arrays)}"] = rng.integers(0, gather, INDEX_TABLE)
    return RandomKernel(
        text,
        inputs,
        writer.smooth,
        all(a.element == "f64" for a in arrays),
        arrays,
        gather is not None,
    )
