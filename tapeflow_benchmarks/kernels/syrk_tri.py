"""
Triangular SYRK: PolyBench/C 4.2's `linear-algebra/blas/syrk` (the lower triangle,
`j <= i`), followed by an elementwise activation of the triangle it updates.

PolyBench's kernel, as Polygeist would see it:

    for (i = 0; i < N; i++) {
      for (j = 0; j <= i; j++) C[i][j] *= beta;
      for (k = 0; k < M; k++)
        for (j = 0; j <= i; j++) C[i][j] += alpha * A[i][k] * A[j][k];
      for (j = 0; j <= i; j++) C[i][j] = sin(C[i][j]);     // added
    }

The inner trip count `i + 1` changes with the outer index, so Enzyme cannot size
one cache for the nest: it allocates one cache per outer iteration and keeps their
handles in a buffer of buffers (the triangular case of a run-time trip count). The `sin` makes
the gradient need the triangle's values, so there is a tape to lay out (PolyBench's
syrk alone is linear in C). alpha = 1.5 and beta = 1.2 are PolyBench's.

Sizes: `small` N = 8, M = 4; `paper` N = 48, M = 24 (an extra kernel: not in the
paper's Table II).
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

ALPHA, BETA = 1.5, 1.2


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("A", (s["N"], s["M"]), active=True),
        Param("C", (s["N"], s["N"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %alpha = arith.constant $alpha : f64
        %beta = arith.constant $beta : f64
        scf.for %i = %c0 to %c$N step %c1 {
          %ip1 = arith.addi %i, %c1 : index
          scf.for %j = %c0 to %ip1 step %c1 {
            %c = memref.load %C[%i, %j] : $ct
            %scaled = arith.mulf %c, %beta : f64
            memref.store %scaled, %C[%i, %j] : $ct
          }
          scf.for %k = %c0 to %c$M step %c1 {
            scf.for %j = %c0 to %ip1 step %c1 {
              %aik = memref.load %A[%i, %k] : $at
              %ajk = memref.load %A[%j, %k] : $at
              %p = arith.mulf %aik, %ajk : f64
              %ap = arith.mulf %alpha, %p : f64
              %c = memref.load %C[%i, %j] : $ct
              %sum = arith.addf %c, %ap : f64
              memref.store %sum, %C[%i, %j] : $ct
            }
          }
          scf.for %j = %c0 to %ip1 step %c1 {
            %c = memref.load %C[%i, %j] : $ct
            %act = math.sin %c : f64
            memref.store %act, %C[%i, %j] : $ct
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["N"], s["M"]),
        N=s["N"],
        M=s["M"],
        alpha=f64(ALPHA),
        beta=f64(BETA),
        at=memref((s["N"], s["M"])),
        ct=memref((s["N"], s["N"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The lower triangle becomes sin(beta C + alpha A A^T); the rest is kept."""
    A, C = a["A"], a["C"]
    lower = np.tril(np.ones((s["N"], s["N"]), dtype=bool))
    updated = anp.sin(BETA * C + ALPHA * anp.dot(A, A.T))
    return None, {"C": anp.where(lower, updated, C)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Entries of A scaled by 1/sqrt(M), so A A^T stays O(1) at every size."""
    return {
        "A": rng.uniform(-1.0, 1.0, (s["N"], s["M"])) / np.sqrt(s["M"]),
        "C": rng.uniform(-1.0, 1.0, (s["N"], s["N"])),
    }


KERNEL = Kernel(
    key="syrk_tri",
    sizes={"small": {"N": 8, "M": 4}, "paper": {"N": 48, "M": 24}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
