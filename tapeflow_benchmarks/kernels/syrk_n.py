"""
PolyBench/C 4.2's `linear-algebra/blas/syrk` (the lower triangle, `j <= i`)
with its sizes known only at run time (the order `N` and the inner dimension
`M` passed as arguments, the buffers of dynamic shape, as a BLAS `dsyrk` call
takes them), each row's triangle then passed through `sin` and scaled by the
row's inverse norm:

    for (i = 0; i < N; i++) {
      for (j = 0; j <= i; j++) C[i][j] *= beta;
      for (k = 0; k < M; k++)
        for (j = 0; j <= i; j++) C[i][j] += alpha * A[i][k] * A[j][k];
      z = 1;
      for (j = 0; j <= i; j++) { C[i][j] = sin(C[i][j]); z += C[i][j] * C[i][j]; }
      r = 1 / sqrt(z);
      for (j = 0; j <= i; j++) C[i][j] *= r;
    }

A triangle under an outer loop of run-time trip count, three loops over the
row's triangle and a nest of run-time depth `M` above one, and a per-row value
(`r`) the last loop reads, cached beside them. alpha = 1.5 and beta = 1.2 are
PolyBench's.

Sizes: `small` N = 6, M = 3; `paper` N = 64, M = 20 (a nest kernel).
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
    render,
)

ALPHA, BETA = 1.5, 1.2
T = "memref<?x?xf64>"


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("A", (s["N"], s["M"]), active=True, dynamic=True),
        Param("C", (s["N"], s["N"]), active=True, written=True, dynamic=True),
        Param("N", (), trip="N"),
        Param("M", (), trip="M"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %alpha = arith.constant $alpha : f64
        %beta = arith.constant $beta : f64
        %one = arith.constant 1.0 : f64
        scf.for %i = %c0 to %N step %c1 {
          %ip1 = arith.addi %i, %c1 : index
          scf.for %j = %c0 to %ip1 step %c1 {
            %c = memref.load %C[%i, %j] : $T
            %scaled = arith.mulf %c, %beta : f64
            memref.store %scaled, %C[%i, %j] : $T
          }
          scf.for %k = %c0 to %M step %c1 {
            scf.for %j = %c0 to %ip1 step %c1 {
              %aik = memref.load %A[%i, %k] : $T
              %ajk = memref.load %A[%j, %k] : $T
              %p = arith.mulf %aik, %ajk : f64
              %ap = arith.mulf %alpha, %p : f64
              %c = memref.load %C[%i, %j] : $T
              %sum = arith.addf %c, %ap : f64
              memref.store %sum, %C[%i, %j] : $T
            }
          }
          %z = scf.for %j = %c0 to %ip1 step %c1 iter_args(%acc = %one) -> (f64) {
            %c = memref.load %C[%i, %j] : $T
            %act = math.sin %c : f64
            memref.store %act, %C[%i, %j] : $T
            %sq = arith.mulf %act, %act : f64
            %next = arith.addf %acc, %sq : f64
            scf.yield %next : f64
          }
          %root = math.sqrt %z : f64
          %r = arith.divf %one, %root : f64
          scf.for %j = %c0 to %ip1 step %c1 {
            %c = memref.load %C[%i, %j] : $T
            %scaled = arith.mulf %c, %r : f64
            memref.store %scaled, %C[%i, %j] : $T
          }
        }
        return
        """,
        consts=index_constants(0, 1),
        alpha=f64(ALPHA),
        beta=f64(BETA),
        T=T,
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The lower triangle's rows become sin(beta C + alpha A A^T) over their
    norm (plus one); the rest is kept."""
    A, C = a["A"], a["C"]
    n = s["N"]
    lower = np.tril(np.ones((n, n), dtype=bool))
    updated = anp.where(lower, anp.sin(BETA * C + ALPHA * anp.dot(A, A.T)), 0.0)
    r = 1.0 / anp.sqrt(1.0 + anp.sum(updated * updated, axis=1))
    return None, {"C": anp.where(lower, updated * r[:, None], C)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Entries of A scaled by 1/sqrt(M), so A A^T stays O(1) at every size."""
    return {
        "A": rng.uniform(-1.0, 1.0, (s["N"], s["M"])) / np.sqrt(s["M"]),
        "C": rng.uniform(-1.0, 1.0, (s["N"], s["N"])),
    }


KERNEL = Kernel(
    key="syrk_n",
    sizes={"small": {"N": 6, "M": 3}, "paper": {"N": 64, "M": 20}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
