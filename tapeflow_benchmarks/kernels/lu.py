"""
LU decomposition without pivoting: PolyBench/C 4.2's `linear-algebra/solvers/lu`
(Doolittle's, in place: L's strict lower triangle and U's upper triangle overwrite
A):

    for (i = 0; i < N; i++) {
      for (j = 0; j < i; j++) {
        for (k = 0; k < j; k++) A[i][j] -= A[i][k] * A[k][j];
        A[i][j] /= A[j][j];
      }
      for (j = i; j < N; j++)
        for (k = 0; k < i; k++) A[i][j] -= A[i][k] * A[k][j];
    }

Two triangular nests in one outer body, one ending with a division per `(i, j)`:
the first's innermost loop runs `j` trips, the second's middle loop starts at `i`
and its innermost runs `i` trips.

Sizes: `small` N = 6; `paper` N = 32 (a nest kernel).
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
              %aik = memref.load %A[%i, %k] : $t
              %akj = memref.load %A[%k, %j] : $t
              %p = arith.mulf %aik, %akj : f64
              %aij = memref.load %A[%i, %j] : $t
              %d = arith.subf %aij, %p : f64
              memref.store %d, %A[%i, %j] : $t
            }
            %aij = memref.load %A[%i, %j] : $t
            %ajj = memref.load %A[%j, %j] : $t
            %q = arith.divf %aij, %ajj : f64
            memref.store %q, %A[%i, %j] : $t
          }
          scf.for %j = %i to %c$N step %c1 {
            scf.for %k = %c0 to %i step %c1 {
              %aik = memref.load %A[%i, %k] : $t
              %akj = memref.load %A[%k, %j] : $t
              %p = arith.mulf %aik, %akj : f64
              %aij = memref.load %A[%i, %j] : $t
              %d = arith.subf %aij, %p : f64
              memref.store %d, %A[%i, %j] : $t
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["N"]),
        N=s["N"],
        t=memref((s["N"], s["N"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Doolittle's factors row by row (L unit lower, U upper, A = L U), packed as
    PolyBench leaves them: L's strict lower triangle below U's upper triangle."""
    n, A = s["N"], a["A"]
    L: list[list[Array]] = []
    U: list[list[Array]] = []
    for i in range(n):
        lrow: list[Array] = []
        for j in range(i):
            lrow.append((A[i, j] - sum(lrow[k] * U[k][j] for k in range(j))) / U[j][j])
        L.append(lrow)
        U.append([A[i, j] - sum(lrow[k] * U[k][j] for k in range(i)) for j in range(n)])
    rows = [anp.stack([*L[i], *U[i][i:]]) for i in range(n)]
    return None, {"A": anp.stack(rows)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A random matrix plus N times the identity: strictly diagonally dominant, so
    the pivots stay away from zero without pivoting."""
    n = s["N"]
    return {"A": rng.uniform(-1.0, 1.0, (n, n)) + n * np.eye(n)}


KERNEL = Kernel(
    key="lu",
    sizes={"small": {"N": 6}, "paper": {"N": 32}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
