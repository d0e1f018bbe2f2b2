"""
QR factorisation by modified Gram-Schmidt: PolyBench/C 4.2's
`linear-algebra/solvers/gramschmidt` (A of M x N becomes the updated columns, Q
the orthonormal columns, R's upper triangle the factor; R's strict lower triangle
is left as it was). PolyBench's `R[k][j] = 0; R[k][j] += ...` is accumulated in a
scalar and stored once (the same values):

    for (k = 0; k < N; k++) {
      nrm = 0;
      for (i = 0; i < M; i++) nrm += A[i][k] * A[i][k];
      R[k][k] = sqrt(nrm);
      for (i = 0; i < M; i++) Q[i][k] = A[i][k] / R[k][k];
      for (j = k + 1; j < N; j++) {
        s = 0;
        for (i = 0; i < M; i++) s += Q[i][k] * A[i][j];
        R[k][j] = s;
        for (i = 0; i < M; i++) A[i][j] = A[i][j] - Q[i][k] * R[k][j];
      }
    }

A triangular middle loop (`j` from `k + 1`, a lower bound of the outer index)
around two constant inner loops, beside three more loops and a per-iteration
square root in the outer body; A, Q and R are read after they are overwritten.

Sizes: `small` M = 4, N = 3; `paper` M = 32, N = 24 (a nest kernel).
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
    M, N = s["M"], s["N"]
    return (
        Param("A", (M, N), active=True, written=True),
        Param("R", (N, N), active=True, written=True),
        Param("Q", (M, N), active=True, written=True),
    )


def body(s: Sizes) -> str:
    M, N = s["M"], s["N"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %k = %c0 to %c$N step %c1 {
          %nrm = scf.for %i = %c0 to %c$M step %c1 iter_args(%acc = %zero) -> (f64) {
            %a = memref.load %A[%i, %k] : $at
            %sq = arith.mulf %a, %a : f64
            %next = arith.addf %acc, %sq : f64
            scf.yield %next : f64
          }
          %rkk = math.sqrt %nrm : f64
          memref.store %rkk, %R[%k, %k] : $rt
          scf.for %i = %c0 to %c$M step %c1 {
            %a = memref.load %A[%i, %k] : $at
            %r = memref.load %R[%k, %k] : $rt
            %q = arith.divf %a, %r : f64
            memref.store %q, %Q[%i, %k] : $at
          }
          %k1 = arith.addi %k, %c1 : index
          scf.for %j = %k1 to %c$N step %c1 {
            %rkj = scf.for %i = %c0 to %c$M step %c1 iter_args(%acc = %zero) -> (f64) {
              %q = memref.load %Q[%i, %k] : $at
              %a = memref.load %A[%i, %j] : $at
              %p = arith.mulf %q, %a : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            memref.store %rkj, %R[%k, %j] : $rt
            scf.for %i = %c0 to %c$M step %c1 {
              %a = memref.load %A[%i, %j] : $at
              %q = memref.load %Q[%i, %k] : $at
              %r = memref.load %R[%k, %j] : $rt
              %p = arith.mulf %q, %r : f64
              %d = arith.subf %a, %p : f64
              memref.store %d, %A[%i, %j] : $at
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, M, N),
        M=M,
        N=N,
        at=memref((M, N)),
        rt=memref((N, N)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    A, R = a["A"], a["R"]
    N = s["N"]
    columns = [A[:, j] for j in range(N)]
    q: list[Array] = []
    rows: list[list[Array]] = [[R[k, j] for j in range(N)] for k in range(N)]
    for k in range(N):
        rows[k][k] = anp.sqrt(anp.sum(columns[k] * columns[k]))
        q.append(columns[k] / rows[k][k])
        for j in range(k + 1, N):
            rows[k][j] = anp.sum(q[k] * columns[j])
            columns[j] = columns[j] - q[k] * rows[k][j]
    R_final = anp.stack([anp.stack(row) for row in rows])
    return None, {
        "A": anp.stack(columns, axis=1),
        "R": R_final,
        "Q": anp.stack(q, axis=1),
    }


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A well-conditioned A (columns near orthogonal: a random matrix plus a
    multiple of the identity's first N rows)."""
    M, N = s["M"], s["N"]
    A = rng.uniform(-1.0, 1.0, (M, N)) + 2.0 * np.eye(M, N)
    return {"A": A, "R": rng.uniform(-1.0, 1.0, (N, N)), "Q": np.zeros((M, N))}


KERNEL = Kernel(
    key="gramschmidt",
    sizes={"small": {"M": 4, "N": 3}, "paper": {"M": 32, "N": 24}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
