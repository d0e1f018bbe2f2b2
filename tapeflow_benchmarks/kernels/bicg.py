"""
The BiCG sub-kernel: PolyBench/C 4.2's `linear-algebra/kernels/bicg` (the two
matrix-vector products of the biconjugate gradient method, `s = A^T r` and
`q = A p`, in one nest), `q[i]`'s accumulator kept in a register (as LLVM's
loop-invariant code motion promotes it), with one activation added:

    for (j = 0; j < M; j++) s[j] = 0;
    for (i = 0; i < N; i++) {
      q = 0;
      for (j = 0; j < M; j++) {
        s[j] = s[j] + r[i] * A[i][j];
        q = q + A[i][j] * p[j];
      }
      q[i] = tanh(q);                                          // tanh added
    }

One nest writing two outputs: `s` accumulated in memory across the outer loop
(a load and a store of the same element each inner iteration) and `q` in a
register, stored after the inner loop. PolyBench's bicg is bilinear; the `tanh`
makes the gradient need each row's sum, a per-iteration value stored beside the
inner loop's tape.

Sizes: `small` N = 3, M = 4; `paper` N = M = 96 (a nest kernel).
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
    n, m = s["N"], s["M"]
    return (
        Param("A", (n, m), active=True),
        Param("r", (n,), active=True),
        Param("p", (m,), active=True),
        Param("s", (m,), active=True, written=True),
        Param("q", (n,), active=True, written=True),
    )


def body(s: Sizes) -> str:
    n, m = s["N"], s["M"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %j = %c0 to %c$M step %c1 {
          memref.store %zero, %s[%j] : $mt
        }
        scf.for %i = %c0 to %c$N step %c1 {
          %ri = memref.load %r[%i] : $nt
          %qs = scf.for %j = %c0 to %c$M step %c1 iter_args(%acc = %zero) -> (f64) {
            %a = memref.load %A[%i, %j] : $at
            %sj = memref.load %s[%j] : $mt
            %ra = arith.mulf %ri, %a : f64
            %sn = arith.addf %sj, %ra : f64
            memref.store %sn, %s[%j] : $mt
            %pj = memref.load %p[%j] : $mt
            %ap = arith.mulf %a, %pj : f64
            %next = arith.addf %acc, %ap : f64
            scf.yield %next : f64
          }
          %act = math.tanh %qs : f64
          memref.store %act, %q[%i] : $nt
        }
        return
        """,
        consts=index_constants(0, 1, n, m),
        N=n,
        M=m,
        at=memref((n, m)),
        nt=memref((n,)),
        mt=memref((m,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """s = A^T r; q = tanh(A p). Both outputs' initial contents are overwritten."""
    return None, {"s": anp.dot(a["A"].T, a["r"]), "q": anp.tanh(anp.dot(a["A"], a["p"]))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A scaled by 1/sqrt(M), so A p stays O(1)."""
    n, m = s["N"], s["M"]
    return {
        "A": rng.uniform(-1.0, 1.0, (n, m)) / np.sqrt(m),
        "r": rng.uniform(-1.0, 1.0, (n,)),
        "p": rng.uniform(-1.0, 1.0, (m,)),
        "s": rng.uniform(-1.0, 1.0, (m,)),
        "q": rng.uniform(-1.0, 1.0, (n,)),
    }


KERNEL = Kernel(
    key="bicg",
    sizes={"small": {"N": 3, "M": 4}, "paper": {"N": 96, "M": 96}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
