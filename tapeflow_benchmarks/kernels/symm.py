"""
Symmetric matrix multiply: PolyBench/C 4.2's `linear-algebra/blas/symm`
(`C = alpha A B + beta C`, A symmetric, only its lower triangle read), its
accumulator `temp2` kept in a register (as `-mem2reg` leaves it), with one
activation added:

    for (i = 0; i < M; i++)
      for (j = 0; j < N; j++) {
        temp2 = 0;
        for (k = 0; k < i; k++) {
          C[k][j] += alpha * B[i][j] * A[i][k];
          temp2 += B[k][j] * A[i][k];
        }
        C[i][j] = tanh(beta * C[i][j] + alpha * B[i][j] * A[i][i]
                       + alpha * temp2);                        // tanh added
      }

The innermost loop's trip count is the outer index (a triangle) and it
read-modify-writes the rows above row i, which earlier outer iterations finished:
the middle loop's body caches a per-`(i, j)` value beside the triangle's tape.
PolyBench's symm is linear in C and bilinear in A and B, whose gradients need
only the inputs it never overwrites; the `tanh` makes the gradient need each
entry's activation. alpha = 1.5 and beta = 1.2 are PolyBench's.

Sizes: `small` M = 5, N = 3; `paper` M = 48, N = 24 (a nest kernel).
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
        Param("A", (s["M"], s["M"]), active=True),
        Param("B", (s["M"], s["N"]), active=True),
        Param("C", (s["M"], s["N"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %alpha = arith.constant $alpha : f64
        %beta = arith.constant $beta : f64
        scf.for %i = %c0 to %c$M step %c1 {
          scf.for %j = %c0 to %c$N step %c1 {
            %bij = memref.load %B[%i, %j] : $bt
            %abij = arith.mulf %alpha, %bij : f64
            %temp2 = scf.for %k = %c0 to %i step %c1 iter_args(%acc = %zero) -> (f64) {
              %aik = memref.load %A[%i, %k] : $at
              %p = arith.mulf %abij, %aik : f64
              %ckj = memref.load %C[%k, %j] : $ct
              %c = arith.addf %ckj, %p : f64
              memref.store %c, %C[%k, %j] : $ct
              %bkj = memref.load %B[%k, %j] : $bt
              %q = arith.mulf %bkj, %aik : f64
              %next = arith.addf %acc, %q : f64
              scf.yield %next : f64
            }
            %cij = memref.load %C[%i, %j] : $ct
            %bc = arith.mulf %beta, %cij : f64
            %aii = memref.load %A[%i, %i] : $at
            %d = arith.mulf %abij, %aii : f64
            %at2 = arith.mulf %alpha, %temp2 : f64
            %s1 = arith.addf %bc, %d : f64
            %s2 = arith.addf %s1, %at2 : f64
            %act = math.tanh %s2 : f64
            memref.store %act, %C[%i, %j] : $ct
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["M"], s["N"]),
        M=s["M"],
        N=s["N"],
        alpha=f64(ALPHA),
        beta=f64(BETA),
        at=memref((s["M"], s["M"])),
        bt=memref((s["M"], s["N"])),
        ct=memref((s["M"], s["N"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Row i's activation sees C's initial row (the rows below add to it only
    later), then every row i' > i adds alpha A[i'][i] B[i'] to it."""
    A, B, C = a["A"], a["B"], a["C"]
    strict = np.tril(np.ones((s["M"], s["M"])), -1) * A
    diagonal = anp.diag(A)[:, None]
    activated = anp.tanh(BETA * C + ALPHA * (diagonal * B + anp.dot(strict, B)))
    return None, {"C": activated + ALPHA * anp.dot(strict.T, B)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Entries of A scaled by 1/M, so that the sums stay O(1) at every size."""
    m, n = s["M"], s["N"]
    return {
        "A": rng.uniform(-1.0, 1.0, (m, m)) / m,
        "B": rng.uniform(-1.0, 1.0, (m, n)),
        "C": rng.uniform(-1.0, 1.0, (m, n)),
    }


KERNEL = Kernel(
    key="symm",
    sizes={"small": {"M": 5, "N": 3}, "paper": {"M": 48, "N": 24}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
