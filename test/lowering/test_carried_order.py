"""
Loops carrying values initialised by constants and by active values, in every
order, get the gradient central differences give (lowering/enzyme/carried_order.py
corrects Enzyme-MLIR's pairing of carried adjoints, docs/enzyme-bugs.md).

Each kernel is generated from a pattern, one letter per carried value:

- `c`: initialised by a constant, active in the loop (`sum = 0; sum += g(x)`);
- `a`: initialised by an element of the duplicated buffer `x` (`h = x0`);
- `k`: initialised by an element of the `enzyme_const` buffer `w`;
- `l`: initialised by an element of a local buffer holding constants;
- `p`: initialised by a constant and updated by constants (inactive throughout);
- `i`: an index counter.

Every active value is coupled to the one before it (`v' = v * x[j] + sin(prev)`),
so an adjoint paired with the wrong value changes the gradient. The loop is an
`scf.for` at the top level, nested in an outer loop that feeds it its active
initial values, an `affine.for`, or an `scf.while` (rewritten into a loop by
`tapeflow-while-to-for`). The gradients of `x` and `y` (the output, overwritten)
are compared with central differences of the primal, run by the reference executor.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stage_checks import central_difference_gradients, check_stages, differentiate

from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

N = 4
"""Elements of x, y and w; the tested loop runs N - 1 times."""


def _init(kind: str, k: int, outer: str | None) -> tuple[str, str]:
    """The ops defining the initial value of position k, and its name."""
    name = f"%init{k}"
    if kind == "c":
        return f"{name} = arith.constant {0.5 * k} : f64", name
    if kind == "p":
        return f"{name} = arith.constant {0.25 + k} : f64", name
    if kind == "i":
        return f"{name} = arith.constant {k} : index", name
    if kind == "a":
        if outer is not None:
            return "", outer
        return f"{name} = memref.load %x[%c{k % N}] : memref<{N}xf64>", name
    if kind == "k":
        return f"{name} = memref.load %w[%c{k % N}] : memref<{N}xf64>", name
    assert kind == "l"
    return f"{name} = memref.load %table[%c{k % N}] : memref<{N}xf64>", name


def _types(pattern: str) -> list[str]:
    return ["index" if kind == "i" else "f64" for kind in pattern]


def _body(pattern: str, args: list[str], iv: str) -> tuple[list[str], list[str]]:
    """The loop body's ops and its yielded values."""
    ops = [f"%xj = memref.load %x[{iv}] : memref<{N}xf64>"]
    out = []
    prev = "%xj"
    for k, (kind, arg) in enumerate(zip(pattern, args, strict=True)):
        if kind == "i":
            ops.append(f"%n{k} = arith.addi {arg}, %c1 : index")
            out.append(f"%n{k}")
        elif kind == "p":
            ops.append(f"%n{k} = arith.addf {arg}, %quarter : f64")
            out.append(f"%n{k}")
        else:
            ops += [
                f"%m{k} = arith.mulf {arg}, %xj : f64",
                f"%s{k} = math.sin {prev} : f64",
                f"%n{k} = arith.addf %m{k}, %s{k} : f64",
            ]
            out.append(f"%n{k}")
            prev = arg
    return ops, out


def _stores(pattern: str, results: list[str]) -> list[str]:
    """Each float result, scaled by its position, into y (a p result times x[0]:
    it is inactive, but what it multiplies is not)."""
    ops = []
    for k, (kind, res) in enumerate(zip(pattern, results, strict=True)):
        if kind == "i":
            continue
        value = res
        if kind == "p":
            ops.append(f"%ps{k} = arith.mulf {res}, %x0 : f64")
            value = f"%ps{k}"
        ops.append(f"memref.store {value}, %y[%c{k % N}] : memref<{N}xf64>")
    return ops


def kernel(pattern: str, shape: str) -> str:
    """The primal @f(x, y, w) and its caller @f_grad (x, y dup; w const)."""
    assert len(pattern) <= N
    lines = [f"%c{j} = arith.constant {j} : index" for j in range(N + 1)]
    lines += [
        "%quarter = arith.constant 0.25 : f64",
        f"%table = memref.alloca() : memref<{N}xf64>",
        *(
            f"%tv{j} = arith.constant {0.1 * (j + 1)} : f64\n"
            f"memref.store %tv{j}, %table[%c{j}] : memref<{N}xf64>"
            for j in range(N)
        ),
        f"%x0 = memref.load %x[%c0] : memref<{N}xf64>",
    ]
    types = ", ".join(_types(pattern))
    count = len(pattern)
    if shape == "nested":
        # The outer loop carries one active value, the inner loop's `a` inits.
        lines.append("%outer = scf.for %o = %c0 to %c2 step %c1 iter_args(%h = %x0) -> (f64) {")
    inits = [_init(kind, k, "%h" if shape == "nested" else None) for k, kind in enumerate(pattern)]
    lines += [op for op, _ in inits if op]
    names = [name for _, name in inits]
    args = [f"%v{k}" for k in range(count)]
    carried = ", ".join(f"{a} = {n}" for a, n in zip(args, names, strict=True))
    results = [f"%r#{k}" for k in range(count)]
    if shape in ("top", "nested"):
        lines.append(
            f"%r:{count} = scf.for %j = %c1 to %c{N} step %c1 iter_args({carried}) -> ({types}) {{"
        )
        ops, out = _body(pattern, args, "%j")
        lines += ops + [f"scf.yield {', '.join(out)} : {types}", "}"]
    elif shape == "affine":
        lines.append(f"%r:{count} = affine.for %j = 1 to {N} iter_args({carried}) -> ({types}) {{")
        ops, out = _body(pattern, args, "%j")
        lines += ops + [f"affine.yield {', '.join(out)} : {types}", "}"]
    else:
        assert shape == "while"
        lines.append(
            f"%r:{count + 1} = scf.while (%j = %c1, {carried}) : (index, {types}) -> "
            f"(index, {types}) {{"
        )
        typed = ", ".join(f"{a}: {t}" for a, t in zip(args, _types(pattern), strict=True))
        lines += [
            f"%go = arith.cmpi slt, %j, %c{N - 1} : index",
            f"scf.condition(%go) %j, {', '.join(args)} : index, {types}",
            "} do {",
            f"^bb0(%jj: index, {typed}):",
        ]
        ops, out = _body(pattern, args, "%jj")
        lines += ops + [
            "%next = arith.addi %jj, %c1 : index",
            f"scf.yield %next, {', '.join(out)} : index, {types}",
            "}",
        ]
        results = [f"%r#{k + 1}" for k in range(count)]
    lines += _stores(pattern, results)
    if shape == "nested":
        active = [r for kind, r in zip(pattern, results, strict=True) if kind not in "ip"]
        lines += [f"%hn = arith.mulf {active[-1]}, %quarter : f64", "scf.yield %hn : f64", "}"]
        lines.append(f"memref.store %outer, %x[%c{N - 1}] : memref<{N}xf64>")
    body = "\n  ".join(lines)
    m = f"memref<{N}xf64>"
    return f"""
func.func @f(%x: {m}, %y: {m}, %w: {m}) {{
  {body}
  return
}}
func.func @f_grad(%x: {m}, %dx: {m}, %y: {m}, %dy: {m}, %w: {m}) {{
  enzyme.autodiff @f(%x, %dx, %y, %dy, %w) <{{activity = [#enzyme<activity enzyme_dup>, \
#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_const>], ret_activity = []}}> : \
({m}, {m}, {m}, {m}, {m}) -> ()
  return
}}
"""


PATTERNS = [
    "ca",  # the reproducer: a sum initialised by 0 before the recurrence it sums
    "ac",
    "caa",
    "cca",
    "aca",
    "cac",
    "kca",
    "lca",
    "pca",
    "ica",
    "cpia",
    "kala",
    "ccaa",
    "acca",
    "lkca",
]


def _check(pattern: str, shape: str) -> None:
    text = kernel(pattern, shape)
    # The reference executor runs no affine.for: the affine loop's twin as an scf.for.
    same = kernel(pattern, "top") if shape == "affine" else text
    primal = LocatingParser(make_context(), same, f"{pattern}-{shape}.mlir").parse_module()
    rng = np.random.default_rng(sum(map(ord, pattern + shape)))
    x, y, w = (rng.uniform(0.2, 0.9, N) for _ in range(3))
    dx, dy = (rng.uniform(-1.0, 1.0, N) for _ in range(2))
    gradient = run_function(
        differentiate(text),
        "f_grad",
        {"arg0": x.copy(), "arg1": dx.copy(), "arg2": y.copy(), "arg3": dy.copy(), "arg4": w},
    )
    want = central_difference_gradients(primal, "f", [x, y, w], [dx, dy, None])
    for got, expected, label in (
        (gradient["arg1"], want[0], "x"),
        (gradient["arg3"], want[1], "y"),
    ):
        np.testing.assert_allclose(
            got, expected, rtol=1e-6, atol=1e-7, err_msg=f"{pattern} {shape}: d{label}"
        )


@pytest.mark.parametrize("pattern", PATTERNS)
def test_scf_for_carried_values_in_any_order(pattern: str) -> None:
    _check(pattern, "top")


@pytest.mark.parametrize("pattern", ["ca", "cca", "kca", "aca"])
@pytest.mark.parametrize("shape", ["nested", "affine", "while"])
def test_nested_affine_and_while_loops(pattern: str, shape: str) -> None:
    _check(pattern, shape)


def test_the_reproducer_of_docs_enzyme_bugs_through_every_stage() -> None:
    """docs/enzyme-bugs.md's reproducer, as written there: f(r) = r + r^2, so
    df/dr = 1 + 2r = 2.4 at r = 0.7 (Enzyme-MLIR alone gives 1.7), at every stage."""
    text = (Path(__file__).parents[2] / "docs" / "enzyme-bugs.md").read_text()
    section = text.split("## The adjoint of a loop's carried value")[1]
    reproducer = section.split("```mlir")[1].split("```")[0]
    results = check_stages(reproducer, "f_grad", {"arg0": np.array(0.7)}, unrolls=(1, 2))
    np.testing.assert_allclose(results.reference["result0"], 1.0 + 2.0 * 0.7, rtol=1e-15)
