"""
Cholesky factorisation in place: PolyBench/C 4.2's
`linear-algebra/solvers/cholesky` (the lower triangle of a symmetric
positive-definite A becomes its Cholesky factor L, A = L L^T; the strict upper
triangle is left as it was):

    for (i = 0; i < N; i++) {
      for (j = 0; j < i; j++) {
        for (k = 0; k < j; k++) A[i][j] -= A[i][k] * A[j][k];
        A[i][j] /= A[j][j];
      }
      for (k = 0; k < i; k++) A[i][i] -= A[i][k] * A[i][k];
      A[i][i] = sqrt(A[i][i]);
    }

A three-deep triangular nest: the middle loop's trip count is the outer index,
the innermost one's the middle index, and beside each inner loop its body caches
per-iteration values (the division's operands, the square root's argument).

Sizes: `small` N = 5; `paper` N = 40 (a nest kernel).
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
    return (Param("A", (s["N"], s["N"]), active=True, written=True),)


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %i = %c0 to %c$N step %c1 {
          scf.for %j = %c0 to %i step %c1 {
            scf.for %k = %c0 to %j step %c1 {
              %a = memref.load %A[%i, %k] : $at
              %b = memref.load %A[%j, %k] : $at
              %c = memref.load %A[%i, %j] : $at
              %p = arith.mulf %a, %b : f64
              %d = arith.subf %c, %p : f64
              memref.store %d, %A[%i, %j] : $at
            }
            %x = memref.load %A[%i, %j] : $at
            %y = memref.load %A[%j, %j] : $at
            %q = arith.divf %x, %y : f64
            memref.store %q, %A[%i, %j] : $at
          }
          scf.for %k = %c0 to %i step %c1 {
            %a = memref.load %A[%i, %k] : $at
            %c = memref.load %A[%i, %i] : $at
            %p = arith.mulf %a, %a : f64
            %d = arith.subf %c, %p : f64
            memref.store %d, %A[%i, %i] : $at
          }
          %v = memref.load %A[%i, %i] : $at
          %r = math.sqrt %v : f64
          memref.store %r, %A[%i, %i] : $at
        }
        return
        """,
        consts=index_constants(0, 1, s["N"]),
        N=s["N"],
        at=memref((s["N"], s["N"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The factor of the symmetric matrix whose lower triangle A holds (the loops
    read only that triangle), beside A's strict upper triangle."""
    A = a["A"]
    lower = anp.tril(A)
    symmetric = lower + anp.transpose(anp.tril(A, -1))
    return None, {"A": anp.linalg.cholesky(symmetric) + anp.triu(A, 1)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """M M^T / N + I: symmetric, eigenvalues at least 1, entries O(1)."""
    m = rng.uniform(-1.0, 1.0, (s["N"], s["N"]))
    spd = m @ m.T / s["N"] + np.eye(s["N"])
    return {"A": spd + np.triu(rng.uniform(-1.0, 1.0, (s["N"], s["N"])), 1)}


KERNEL = Kernel(
    key="cholesky",
    sizes={"small": {"N": 5}, "paper": {"N": 40}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
