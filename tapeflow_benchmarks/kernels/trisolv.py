"""
Triangular solve: PolyBench/C 4.2's `linear-algebra/solvers/trisolv` (forward
substitution, `L x = b`, L lower triangular):

    for (i = 0; i < N; i++) {
      x[i] = b[i];
      for (j = 0; j < i; j++) x[i] -= L[i][j] * x[j];
      x[i] = x[i] / L[i][i];
    }

The inner loop's trip count is the outer index (a triangle), and it reads the
entries of x that earlier outer iterations wrote: Enzyme caches them per `(i, j)`
for L's gradient. The division by the diagonal is PolyBench's own nonlinearity
(in L): no activation is added. The outer body writes two regions, the triangle's
and the division's operands per row.

Sizes: `small` N = 6; `paper` N = 96 (a nest kernel).
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


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("L", (s["N"], s["N"]), active=True),
        Param("x", (s["N"],), active=True, written=True),
        Param("b", (s["N"],), active=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %i = %c0 to %c$N step %c1 {
          %bi = memref.load %b[%i] : $vt
          memref.store %bi, %x[%i] : $vt
          scf.for %j = %c0 to %i step %c1 {
            %lij = memref.load %L[%i, %j] : $lt
            %xj = memref.load %x[%j] : $vt
            %p = arith.mulf %lij, %xj : f64
            %xi = memref.load %x[%i] : $vt
            %d = arith.subf %xi, %p : f64
            memref.store %d, %x[%i] : $vt
          }
          %xi = memref.load %x[%i] : $vt
          %lii = memref.load %L[%i, %i] : $lt
          %q = arith.divf %xi, %lii : f64
          memref.store %q, %x[%i] : $vt
        }
        return
        """,
        consts=index_constants(0, 1, s["N"]),
        N=s["N"],
        lt=memref((s["N"], s["N"])),
        vt=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Forward substitution row by row; x's initial contents are overwritten."""
    L, b = a["L"], a["b"]
    xs: list[Array] = []
    for i in range(s["N"]):
        done = anp.dot(L[i, :i], anp.stack(xs)) if xs else 0.0
        xs.append((b[i] - done) / L[i, i])
    return None, {"x": anp.stack(xs)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A lower triangle of entries scaled by 1/N below a diagonal in [1, 2], so the
    solution stays O(1) at every size (PolyBench fills the upper triangle too; the
    kernel never reads it)."""
    n = s["N"]
    L = np.tril(rng.uniform(-1.0, 1.0, (n, n)), -1) / n + np.diag(rng.uniform(1.0, 2.0, n))
    return {"L": L, "x": np.zeros(n), "b": rng.uniform(-1.0, 1.0, n)}


KERNEL = Kernel(
    key="trisolv",
    sizes={"small": {"N": 6}, "paper": {"N": 96}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
