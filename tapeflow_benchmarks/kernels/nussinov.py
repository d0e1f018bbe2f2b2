"""
PolyBench/C 4.2's `nussinov` (RNA folding by dynamic programming over a triangle,
Nussinov et al., SIAM J. Appl. Math. 35, 1978) over floats, its `max_score`
replaced by a log-sum-exp so that a cell sums its candidates' weights rather than
picking the best, as McCaskill's partition function does for the same recursion
(McCaskill, "The equilibrium partition function and base pair binding
probabilities for RNA secondary structure", Biopolymers 29, 1990), the pair score
`match(seq[i], seq[j])` a weight `M[i][j]`:

    for (i = N - 1; i >= 0; i--)
      for (j = i + 1; j < N; j++) {
        acc = 0;
        for (k = i + 1; k < j; k++) acc += exp(T[i][k] + T[k + 1][j]);
        T[i][j] = log(exp(T[i][j - 1]) + exp(T[i + 1][j])
                      + exp(T[i + 1][j - 1] + M[i][j]) + acc);
      }

A triangle inside a triangle: `j`'s trip count depends on `i`, `k`'s on `i` and
`j` (bounded by `N - 2`), the outer loop walking down (`i = N - 1 - ii`), and every
cell read by later cells, so Enzyme caches the loads of `T` (written in place)
beside the exponentials.

Sizes: `small` N = 4; `paper` N = 28 (a nest kernel). `T` starts in [-1, 0) (the
cells on and below the diagonal are read, never written), `M` in [-1, 0).
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
        Param("M", (s["N"], s["N"]), active=True),
        Param("T", (s["N"], s["N"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %ii = %c0 to %c$N step %c1 {
          %i = arith.subi %c$Nm1, %ii : index
          %i1 = arith.addi %i, %c1 : index
          scf.for %j = %i1 to %c$N step %c1 {
            %acc = scf.for %k = %i1 to %j step %c1 iter_args(%a = %zero) -> (f64) {
              %k1 = arith.addi %k, %c1 : index
              %l = memref.load %T[%i, %k] : $tt
              %r = memref.load %T[%k1, %j] : $tt
              %lr = arith.addf %l, %r : f64
              %e = math.exp %lr : f64
              %next = arith.addf %a, %e : f64
              scf.yield %next : f64
            }
            %jm = arith.subi %j, %c1 : index
            %left = memref.load %T[%i, %jm] : $tt
            %down = memref.load %T[%i1, %j] : $tt
            %diag = memref.load %T[%i1, %jm] : $tt
            %m = memref.load %M[%i, %j] : $tt
            %dm = arith.addf %diag, %m : f64
            %e1 = math.exp %left : f64
            %e2 = math.exp %down : f64
            %e3 = math.exp %dm : f64
            %s1 = arith.addf %e1, %e2 : f64
            %s2 = arith.addf %s1, %e3 : f64
            %s3 = arith.addf %s2, %acc : f64
            %v = math.log %s3 : f64
            memref.store %v, %T[%i, %j] : $tt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["N"], s["N"] - 1),
        N=s["N"],
        Nm1=s["N"] - 1,
        tt=memref((s["N"], s["N"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    n = s["N"]
    t = [[a["T"][i, j] for j in range(n)] for i in range(n)]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            acc = 0.0
            for k in range(i + 1, j):
                acc = acc + anp.exp(t[i][k] + t[k + 1][j])
            t[i][j] = anp.log(
                anp.exp(t[i][j - 1])
                + anp.exp(t[i + 1][j])
                + anp.exp(t[i + 1][j - 1] + a["M"][i, j])
                + acc
            )
    return None, {"T": anp.stack([anp.stack(row) for row in t])}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "M": rng.uniform(-1.0, 0.0, (s["N"], s["N"])),
        "T": rng.uniform(-1.0, 0.0, (s["N"], s["N"])),
    }


KERNEL = Kernel(
    key="nussinov",
    sizes={"small": {"N": 4}, "paper": {"N": 28}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
