"""
Triangular matrix multiply: PolyBench/C 4.2's `linear-algebra/blas/trmm`
(`B = alpha A^T B`, A unit lower triangular, in place):

    for (i = 0; i < M; i++)
      for (j = 0; j < N; j++) {
        for (k = i + 1; k < M; k++) B[i][j] += A[k][i] * B[k][j];
        B[i][j] = alpha * B[i][j];
      }

The innermost loop's lower bound follows the outer index (a triangle of `k > i`),
and it reads rows of B that later outer iterations overwrite, so Enzyme caches them
(per `(i, j, k)`) for A's gradient. alpha = 1.5 is PolyBench's.

Sizes: `small` M = 5, N = 3; `paper` M = 32, N = 24 (a nest kernel).
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

ALPHA = 1.5


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("A", (s["M"], s["M"]), active=True),
        Param("B", (s["M"], s["N"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %alpha = arith.constant $alpha : f64
        scf.for %i = %c0 to %c$M step %c1 {
          %i1 = arith.addi %i, %c1 : index
          scf.for %j = %c0 to %c$N step %c1 {
            scf.for %k = %i1 to %c$M step %c1 {
              %a = memref.load %A[%k, %i] : $at
              %bk = memref.load %B[%k, %j] : $bt
              %p = arith.mulf %a, %bk : f64
              %bi = memref.load %B[%i, %j] : $bt
              %sum = arith.addf %bi, %p : f64
              memref.store %sum, %B[%i, %j] : $bt
            }
            %bi = memref.load %B[%i, %j] : $bt
            %scaled = arith.mulf %alpha, %bi : f64
            memref.store %scaled, %B[%i, %j] : $bt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["M"], s["N"]),
        M=s["M"],
        N=s["N"],
        alpha=f64(ALPHA),
        at=memref((s["M"], s["M"])),
        bt=memref((s["M"], s["N"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Row i adds the rows k > i, which are still B's initial rows when it runs."""
    upper = np.triu(np.ones((s["M"], s["M"])), 1)
    B = a["B"]
    return None, {"B": ALPHA * (B + anp.dot(upper * a["A"].T, B))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Entries of A scaled by 1/sqrt(M), so that A^T B stays O(1) at every size."""
    return {
        "A": rng.uniform(-1.0, 1.0, (s["M"], s["M"])) / np.sqrt(s["M"]),
        "B": rng.uniform(-1.0, 1.0, (s["M"], s["N"])),
    }


KERNEL = Kernel(
    key="trmm",
    sizes={"small": {"M": 5, "N": 3}, "paper": {"M": 32, "N": 24}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
