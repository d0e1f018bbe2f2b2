"""
Enzyme's caches of run-time extent run in the executor: loops bounded by an
argument, triangular nests (a cache of per-iteration caches), nested dynamic
loops (rank-reducing subviews of dynamic size). Gradients equal central
differences of the primal (run by the executor on perturbed inputs, independently
of Enzyme) and a closed form where one is short; the fast path and the closures
agree exactly; a cache access outside the logical extents Enzyme gave is an error.
Each kernel in `dynamic_kernels/` names its source in its header comment.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from sim.errors import ExecutionError
from sim.executor import Executor
from tapeflow_tools.context import make_context
from tapeflow_tools.frontend import parse_module_text

KERNELS = Path(__file__).parent / "dynamic_kernels"


@cache
def _text(name: str) -> str:
    ctx = make_context()
    path = KERNELS / f"{name}.mlir"
    module = parse_module_text(ctx, path.read_text(), str(path))
    TapeflowEnzymePass().apply(ctx, module)
    module.verify()
    return str(module)


def differentiated(name: str) -> ModuleOp:
    return parse_module_text(make_context(), _text(name), f"{name}.mlir")


def central(f: Callable[[np.ndarray], float], x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += h
        down[idx] -= h
        grad[idx] = (f(up) - f(down)) / (2 * h)
    return grad


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("n", [0, 1, 7])
def test_argument_bounded_loop(fast: bool, n: int) -> None:
    module = differentiated("argument_bound")
    x = np.random.default_rng(n).uniform(-1.5, 1.5, 9)
    dx = np.zeros(9)
    (value,) = Executor(module, fast=fast).run("prod_grad", [x.copy(), dx, n])
    s = np.sin(x[:n])
    assert value == pytest.approx(np.prod(s), rel=1e-13)
    closed = np.zeros(9)
    for i in range(n):
        closed[i] = np.prod(np.delete(s, i)) * np.cos(x[i])
    np.testing.assert_allclose(dx, closed, rtol=1e-12, atol=1e-15)
    primal = Executor(module, fast=False)
    fd = central(lambda v: primal.run("prod", [v, n])[0], x)
    np.testing.assert_allclose(dx, fd, rtol=1e-6, atol=1e-8)


def _tri_phi(
    module: ModuleOp, n: int, C: np.ndarray, seed: np.ndarray
) -> Callable[[np.ndarray], float]:
    primal = Executor(module, fast=False)

    def phi(A: np.ndarray) -> float:
        C_out = C.copy()
        primal.run("tri", [A, C_out, n])
        return float(np.sum(seed * C_out))

    return phi


@pytest.mark.parametrize("n", [1, 2, 6])
def test_triangular_nest_of_dynamic_extent(n: int) -> None:
    module = differentiated("triangular")
    rng = np.random.default_rng(10 + n)
    A, C, seed = rng.uniform(-1, 1, (n, 4)), rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, (n, n))
    outputs = []
    for fast in (False, True):
        dA, C_run, dC = np.zeros((n, 4)), C.copy(), seed.copy()
        Executor(module, fast=fast).run("tri_grad", [A.copy(), dA, C_run, dC, n])
        outputs.append((dA, C_run, dC))
    for got, want in zip(outputs[0], outputs[1], strict=True):
        np.testing.assert_array_equal(got, want)
    fd = central(_tri_phi(module, n, C, seed), A)
    np.testing.assert_allclose(outputs[0][0], fd, rtol=1e-6, atol=1e-8)


def test_nested_dynamic_loops_through_dynamic_subviews() -> None:
    module = differentiated("rectangular_dynamic")
    rng = np.random.default_rng(3)
    n, m = 5, 3
    x, y, seed = rng.uniform(-1, 1, (n, m)), rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    results = []
    for fast in (False, True):
        dx = np.zeros((n, m))
        Executor(module, fast=fast).run("rect_grad", [x.copy(), dx, y.copy(), seed.copy(), n, m])
        results.append(dx)
    np.testing.assert_array_equal(results[0], results[1])
    primal = Executor(module, fast=False)

    def phi(v: np.ndarray) -> float:
        y_out = y.copy()
        primal.run("rect", [v, y_out, n, m])
        return float(seed @ y_out)

    np.testing.assert_allclose(results[0], central(phi, x), rtol=1e-6, atol=1e-8)


CACHE_OUTSIDE = """
func.func @f(%n: index, %i: index) -> f64 {
  %c2 = arith.constant 2 : index
  %v = arith.constant 1.5 : f64
  %alloc = memref.alloc(%n) : memref<?xf64>
  enzyme.store %v, %alloc[%i] ([%c2]) : memref<?xf64>
  %r = enzyme.load %alloc[%i] ([%c2]) : memref<?xf64>
  return %r : f64
}
"""


@pytest.mark.parametrize("fast", [False, True])
def test_cache_access_outside_its_extents_is_an_error(fast: bool) -> None:
    module = parse_module_text(make_context(), CACHE_OUTSIDE, "outside.mlir")
    run = Executor(module, fast=fast)
    assert run.run("f", [4, 1]) == (1.5,)
    with pytest.raises(ExecutionError, match=r"outside the cache's logical extents \[2\]"):
        run.run("f", [4, 3])
    with pytest.raises(ExecutionError, match=r"out of bounds for a cache buffer of shape \[4\]"):
        run.run("f", [4, 5])
    with pytest.raises(ExecutionError, match="negative extent"):
        run.run("f", [-1, 0])
