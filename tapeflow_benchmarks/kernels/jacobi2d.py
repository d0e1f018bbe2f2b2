"""
Two-dimensional Jacobi stencil: PolyBench/C 4.2's `stencils/jacobi-2d`, with one
activation added to the first sweep of every time step:

    for (t = 0; t < TSTEPS; t++) {
      for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++)
          B[i][j] = tanh(0.2 * (A[i][j] + A[i][j-1] + A[i][j+1]    // tanh added
                                + A[i+1][j] + A[i-1][j]));
      for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++)
          A[i][j] = 0.2 * (B[i][j] + B[i][j-1] + B[i][j+1] + B[i+1][j] + B[i-1][j]);
    }

A time-stepped stencil: two sweeps per step, each overwriting the grid the other
reads. PolyBench's stencil is linear (its gradient needs no value of the
computation); the `tanh` makes every step's gradient need the first sweep's
values, one per interior point and step, so the tape grows with the time steps.

Sizes: `small` T = 2, N = 5; `paper` T = 10, N = 24 (a nest kernel).
"""

from __future__ import annotations

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.kernel import (
    Array,
    Kernel,
    Param,
    Sizes,
    f64,
    index_constants,
    memref,
    render,
)

WEIGHT = 0.2


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("A", (s["N"], s["N"]), active=True, written=True),
        Param("B", (s["N"], s["N"]), active=True, written=True),
    )


_SWEEP = """
scf.for %i = %c1 to %c$last step %c1 {
  %im = arith.subi %i, %c1 : index
  %ip = arith.addi %i, %c1 : index
  scf.for %j = %c1 to %c$last step %c1 {
    %jm = arith.subi %j, %c1 : index
    %jp = arith.addi %j, %c1 : index
    %v0 = memref.load %$src[%i, %j] : $t
    %v1 = memref.load %$src[%i, %jm] : $t
    %v2 = memref.load %$src[%i, %jp] : $t
    %v3 = memref.load %$src[%ip, %j] : $t
    %v4 = memref.load %$src[%im, %j] : $t
    %s1 = arith.addf %v0, %v1 : f64
    %s2 = arith.addf %s1, %v2 : f64
    %s3 = arith.addf %s2, %v3 : f64
    %s4 = arith.addf %s3, %v4 : f64
    %w = arith.mulf %weight, %s4 : f64
    $activation
    memref.store %$res, %$dst[%i, %j] : $t
  }
}"""


def body(s: Sizes) -> str:
    n = s["N"]
    t = memref((n, n))
    first = render(
        _SWEEP, src="A", dst="B", last=n - 1, t=t, activation="%act = math.tanh %w : f64", res="act"
    )
    second = render(_SWEEP, src="B", dst="A", last=n - 1, t=t, activation="", res="w")
    return render(
        """
        $consts
        %weight = arith.constant $weight : f64
        scf.for %t = %c0 to %c$T step %c1 {
          $first
          $second
        }
        return
        """,
        consts=index_constants(0, 1, s["T"], n - 1),
        T=s["T"],
        weight=f64(WEIGHT),
        first=first.strip(),
        second=second.strip(),
    )


def _interior(grid: Array, values: Array) -> Array:
    """`grid` with its interior replaced by `values` (its border kept)."""
    n = grid.shape[0]
    inside = np.zeros((n, n), dtype=bool)
    inside[1:-1, 1:-1] = True
    return anp.where(inside, anp.pad(values, 1, mode="constant"), grid)


def _sweep(grid: Array) -> Array:
    """0.2 times the five-point sum at every interior point."""
    return WEIGHT * (
        grid[1:-1, 1:-1] + grid[1:-1, :-2] + grid[1:-1, 2:] + grid[2:, 1:-1] + grid[:-2, 1:-1]
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Each step: B's interior from A's, then A's interior from B's; the borders
    of both grids are never written."""
    A, B = a["A"], a["B"]
    for _ in range(s["T"]):
        B = _interior(B, anp.tanh(_sweep(A)))
        A = _interior(A, _sweep(B))
    return None, {"A": A, "B": B}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    n = s["N"]
    return {"A": rng.uniform(-1.0, 1.0, (n, n)), "B": rng.uniform(-1.0, 1.0, (n, n))}


KERNEL = Kernel(
    key="jacobi2d",
    sizes={"small": {"T": 2, "N": 5}, "paper": {"T": 10, "N": 24}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
