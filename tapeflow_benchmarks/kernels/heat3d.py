"""
Three-dimensional heat equation: PolyBench/C 4.2's `stencils/heat-3d` (a
seven-point stencil, two sweeps per time step between grids A and B), with one
activation added to the first sweep:

    for (t = 1; t <= TSTEPS; t++) {
      for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++)
          for (k = 1; k < N - 1; k++)
            B[i][j][k] = tanh(0.125 * (A[i+1][j][k] - 2 A[i][j][k] + A[i-1][j][k])   // tanh
                            + 0.125 * (A[i][j+1][k] - 2 A[i][j][k] + A[i][j-1][k])   // added
                            + 0.125 * (A[i][j][k+1] - 2 A[i][j][k] + A[i][j][k-1])
                            + A[i][j][k]);
      (the same from B into A, without the tanh)
    }

A time-stepped stencil three loops deep: each sweep overwrites the grid the other
reads. PolyBench's stencil is linear; the `tanh` makes every step's gradient need
the first sweep's values, one per interior point and step.

Sizes: `small` T = 2, N = 4; `paper` T = 8, N = 12 (a nest kernel).
"""

from __future__ import annotations

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.kernel import (
    Array,
    Kernel,
    Param,
    Sizes,
    index_constants,
    memref,
    render,
)

_SWEEP = """
scf.for %i = %c1 to %c$last step %c1 {
  %im = arith.subi %i, %c1 : index
  %ip = arith.addi %i, %c1 : index
  scf.for %j = %c1 to %c$last step %c1 {
    %jm = arith.subi %j, %c1 : index
    %jp = arith.addi %j, %c1 : index
    scf.for %k = %c1 to %c$last step %c1 {
      %km = arith.subi %k, %c1 : index
      %kp = arith.addi %k, %c1 : index
      %v = memref.load %$src[%i, %j, %k] : $t
      %v2 = arith.mulf %two, %v : f64
      %xp = memref.load %$src[%ip, %j, %k] : $t
      %xm = memref.load %$src[%im, %j, %k] : $t
      %yp = memref.load %$src[%i, %jp, %k] : $t
      %ym = memref.load %$src[%i, %jm, %k] : $t
      %zp = memref.load %$src[%i, %j, %kp] : $t
      %zm = memref.load %$src[%i, %j, %km] : $t
      %x1 = arith.subf %xp, %v2 : f64
      %x2 = arith.addf %x1, %xm : f64
      %y1 = arith.subf %yp, %v2 : f64
      %y2 = arith.addf %y1, %ym : f64
      %z1 = arith.subf %zp, %v2 : f64
      %z2 = arith.addf %z1, %zm : f64
      %xy = arith.addf %x2, %y2 : f64
      %xyz = arith.addf %xy, %z2 : f64
      %w = arith.mulf %eighth, %xyz : f64
      %u = arith.addf %w, %v : f64
      $activation
      memref.store %$res, %$dst[%i, %j, %k] : $t
    }
  }
}"""

EIGHTH = 0.125


def params(s: Sizes) -> tuple[Param, ...]:
    n = s["N"]
    return (
        Param("A", (n, n, n), active=True, written=True),
        Param("B", (n, n, n), active=True, written=True),
    )


def body(s: Sizes) -> str:
    n = s["N"]
    t = memref((n, n, n))
    first = render(
        _SWEEP, src="A", dst="B", last=n - 1, t=t, activation="%act = math.tanh %u : f64", res="act"
    )
    second = render(_SWEEP, src="B", dst="A", last=n - 1, t=t, activation="", res="u")
    return render(
        """
        $consts
        %two = arith.constant 2.0 : f64
        %eighth = arith.constant 0.125 : f64
        scf.for %t = %c0 to %c$T step %c1 {
          $first
          $second
        }
        return
        """,
        consts=index_constants(0, 1, s["T"], n - 1),
        T=s["T"],
        first=first.strip(),
        second=second.strip(),
    )


def _interior(grid: Array, values: Array) -> Array:
    """`grid` with its interior replaced by `values` (its faces kept)."""
    n = grid.shape[0]
    inside = np.zeros((n, n, n), dtype=bool)
    inside[1:-1, 1:-1, 1:-1] = True
    return anp.where(inside, anp.pad(values, 1, mode="constant"), grid)


def _sweep(g: Array) -> Array:
    """The seven-point update at every interior point."""
    c = g[1:-1, 1:-1, 1:-1]
    return (
        EIGHTH * (g[2:, 1:-1, 1:-1] - 2.0 * c + g[:-2, 1:-1, 1:-1])
        + EIGHTH * (g[1:-1, 2:, 1:-1] - 2.0 * c + g[1:-1, :-2, 1:-1])
        + EIGHTH * (g[1:-1, 1:-1, 2:] - 2.0 * c + g[1:-1, 1:-1, :-2])
        + c
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Each step: B's interior from A's (through tanh), then A's from B's; the
    faces of both grids are never written."""
    A, B = a["A"], a["B"]
    for _ in range(s["T"]):
        B = _interior(B, anp.tanh(_sweep(A)))
        A = _interior(A, _sweep(B))
    return None, {"A": A, "B": B}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    n = s["N"]
    return {"A": rng.uniform(-1.0, 1.0, (n, n, n)), "B": rng.uniform(-1.0, 1.0, (n, n, n))}


KERNEL = Kernel(
    key="heat3d",
    sizes={"small": {"T": 2, "N": 4}, "paper": {"T": 8, "N": 12}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
