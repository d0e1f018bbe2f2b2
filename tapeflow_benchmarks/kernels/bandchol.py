"""
The Cholesky factorization of a symmetric positive definite band matrix of
run-time half-bandwidth `P`, in place over the lower triangle (Golub & Van Loan,
"Matrix Computations", 4th ed., 2013, Algorithm 4.3.5, band Cholesky in gaxpy
form; LAPACK's `dpbtrf` for the band-stored variant):

    for (j = 0; j < N; j++) {
      e = min(j + P + 1, N);
      for (i = j; i < e; i++) {
        s = A[i][j];
        for (k = max(0, i - P); k < j; k++) s -= A[i][k] * A[j][k];
        A[i][j] = s;
      }
      r = sqrt(A[j][j]);  A[j][j] = r;
      for (i = j + 1; i < e; i++) A[i][j] /= r;
    }

Two loops of run-time trip count under a constant one, the first with a loop
inside it whose lower bound is clamped and depends on the middle loop's index
(a triangle cut by the band), and the column's pivot cached once per column
beside the scaling loop. `P` is an argument: no constant bounds either inner
trip count.

Sizes: `small` N = 5, P = 2; `paper` N = 192, P = 8 (a nest kernel). The
matrix is diagonally dominant within its band.
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
    N = s["N"]
    return (
        Param("A", (N, N), active=True, written=True),
        Param("P", (), trip="P"),
    )


def body(s: Sizes) -> str:
    N = s["N"]
    return render(
        """
        $consts
        scf.for %j = %c0 to %c$N step %c1 {
          %jp = arith.addi %j, %P : index
          %jp1 = arith.addi %jp, %c1 : index
          %e = arith.minsi %jp1, %c$N : index
          scf.for %i = %j to %e step %c1 {
            %im = arith.subi %i, %P : index
            %klo = arith.maxsi %im, %c0 : index
            %a0 = memref.load %A[%i, %j] : $at
            %s = scf.for %k = %klo to %j step %c1 iter_args(%acc = %a0) -> (f64) {
              %aik = memref.load %A[%i, %k] : $at
              %ajk = memref.load %A[%j, %k] : $at
              %m = arith.mulf %aik, %ajk : f64
              %next = arith.subf %acc, %m : f64
              scf.yield %next : f64
            }
            memref.store %s, %A[%i, %j] : $at
          }
          %d = memref.load %A[%j, %j] : $at
          %r = math.sqrt %d : f64
          memref.store %r, %A[%j, %j] : $at
          %j1 = arith.addi %j, %c1 : index
          scf.for %i = %j1 to %e step %c1 {
            %v = memref.load %A[%i, %j] : $at
            %q = arith.divf %v, %r : f64
            memref.store %q, %A[%i, %j] : $at
          }
        }
        return
        """,
        consts=index_constants(0, 1, N),
        N=N,
        at=memref((N, N)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The factorization element by element, in the kernel's order; the entries
    it does not write keep their initial values."""
    N, P = s["N"], s["P"]
    A = a["A"]
    L = {}
    for j in range(N):
        e = min(j + P + 1, N)
        for i in range(j, e):
            acc = A[i, j]
            for k in range(max(0, i - P), j):
                acc = acc - L[i, k] * L[j, k]
            L[i, j] = acc
        L[j, j] = anp.sqrt(L[j, j])
        for i in range(j + 1, e):
            L[i, j] = L[i, j] / L[j, j]
    rows = [anp.stack([L[i, j] if (i, j) in L else A[i, j] for j in range(N)]) for i in range(N)]
    return None, {"A": anp.stack(rows)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A symmetric band of off-diagonal entries in `[-1, 1] / P` and a diagonal
    of 2 to 3: diagonally dominant, hence positive definite."""
    N, P = s["N"], s["P"]
    A = rng.uniform(-1.0, 1.0, (N, N)) / P
    A = (A + A.T) / 2.0
    i, j = np.indices((N, N))
    A[np.abs(i - j) > P] = 0.0
    A[np.diag_indices(N)] = rng.uniform(2.0, 3.0, N)
    return {"A": A}


KERNEL = Kernel(
    key="bandchol",
    sizes={"small": {"N": 5, "P": 2}, "paper": {"N": 192, "P": 8}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
