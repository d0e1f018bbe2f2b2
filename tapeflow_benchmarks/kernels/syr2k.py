"""
SYR2K: PolyBench/C 4.2's `linear-algebra/blas/syr2k` as it is (the lower
triangle, `j <= i`; alpha = 1.5 and beta = 1.2 are PolyBench's):

    for (i = 0; i < N; i++) {
      for (j = 0; j <= i; j++) C[i][j] *= beta;
      for (k = 0; k < M; k++)
        for (j = 0; j <= i; j++)
          C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
    }

A triangular nest (the inner trip count `i + 1` changes with the outer index)
whose two regions per row (the scaling loop and the rank-2k update) differ in
shape, and whose tape is the products' four loads per step: the kernel is linear
in C and bilinear in A and B, so the gradient needs the loaded values alone.

Sizes: `small` N = 5, M = 3; `paper` N = 40, M = 20 (a nest kernel).
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
        Param("B", (s["N"], s["M"]), active=True),
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
              %ajk = memref.load %A[%j, %k] : $at
              %bik = memref.load %B[%i, %k] : $at
              %bjk = memref.load %B[%j, %k] : $at
              %aik = memref.load %A[%i, %k] : $at
              %a1 = arith.mulf %ajk, %alpha : f64
              %p1 = arith.mulf %a1, %bik : f64
              %b1 = arith.mulf %bjk, %alpha : f64
              %p2 = arith.mulf %b1, %aik : f64
              %u = arith.addf %p1, %p2 : f64
              %c = memref.load %C[%i, %j] : $ct
              %sum = arith.addf %c, %u : f64
              memref.store %sum, %C[%i, %j] : $ct
            }
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
    """The lower triangle becomes beta C + alpha (A B^T + B A^T); the rest is kept."""
    A, B, C = a["A"], a["B"], a["C"]
    lower = np.tril(np.ones((s["N"], s["N"]), dtype=bool))
    updated = BETA * C + ALPHA * (anp.dot(B, A.T) + anp.dot(A, B.T))
    return None, {"C": anp.where(lower, updated, C)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Entries of A and B scaled by 1/sqrt(M), so the products stay O(1)."""
    scale = 1.0 / np.sqrt(s["M"])
    return {
        "A": rng.uniform(-1.0, 1.0, (s["N"], s["M"])) * scale,
        "B": rng.uniform(-1.0, 1.0, (s["N"], s["M"])) * scale,
        "C": rng.uniform(-1.0, 1.0, (s["N"], s["N"])),
    }


KERNEL = Kernel(
    key="syr2k",
    sizes={"small": {"N": 5, "M": 3}, "paper": {"N": 40, "M": 20}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
