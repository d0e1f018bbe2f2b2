"""
Vector multiplication and matrix addition: PolyBench/C 4.2's
`linear-algebra/blas/gemver` (a rank-2 update of A, then `x` from A's columns and
`w` from its rows), each dot product's accumulator kept in a register (as LLVM's
loop-invariant code motion promotes `x[i]` and `w[i]`), with one activation
added:

    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++) A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++) x[i] = x[i] + beta * A[j][i] * y[j];
    for (i = 0; i < N; i++) x[i] = tanh(x[i] + z[i]);          // tanh added
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++) w[i] = w[i] + alpha * A[i][j] * x[j];

Four nests in sequence over one matrix, the second walking A by columns (a line
per access past the cache), the last reading the updated A by rows. PolyBench's
gemver is bilinear: its gradient needs only the updated A and `x`; the `tanh`
makes the gradient also need the activation's argument, and the rank-2 update
overwrites A, which the later nests read. alpha = 1.5 and beta = 1.2 are
PolyBench's.

Sizes: `small` N = 4; `paper` N = 96 (a nest kernel).
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
    n = s["N"]
    vectors = ("u1", "v1", "u2", "v2", "y", "z")
    return (
        Param("A", (n, n), active=True, written=True),
        *(Param(name, (n,), active=True) for name in vectors),
        Param("x", (n,), active=True, written=True),
        Param("w", (n,), active=True, written=True),
    )


def body(s: Sizes) -> str:
    n = s["N"]
    return render(
        """
        $consts
        %alpha = arith.constant $alpha : f64
        %beta = arith.constant $beta : f64
        scf.for %i = %c0 to %c$N step %c1 {
          %u1i = memref.load %u1[%i] : $v
          %u2i = memref.load %u2[%i] : $v
          scf.for %j = %c0 to %c$N step %c1 {
            %a = memref.load %A[%i, %j] : $t
            %v1j = memref.load %v1[%j] : $v
            %v2j = memref.load %v2[%j] : $v
            %p1 = arith.mulf %u1i, %v1j : f64
            %p2 = arith.mulf %u2i, %v2j : f64
            %s1 = arith.addf %a, %p1 : f64
            %s2 = arith.addf %s1, %p2 : f64
            memref.store %s2, %A[%i, %j] : $t
          }
        }
        scf.for %i = %c0 to %c$N step %c1 {
          %x0 = memref.load %x[%i] : $v
          %xs = scf.for %j = %c0 to %c$N step %c1 iter_args(%acc = %x0) -> (f64) {
            %a = memref.load %A[%j, %i] : $t
            %yj = memref.load %y[%j] : $v
            %ba = arith.mulf %beta, %a : f64
            %p = arith.mulf %ba, %yj : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          memref.store %xs, %x[%i] : $v
        }
        scf.for %i = %c0 to %c$N step %c1 {
          %xi = memref.load %x[%i] : $v
          %zi = memref.load %z[%i] : $v
          %s = arith.addf %xi, %zi : f64
          %act = math.tanh %s : f64
          memref.store %act, %x[%i] : $v
        }
        scf.for %i = %c0 to %c$N step %c1 {
          %w0 = memref.load %w[%i] : $v
          %ws = scf.for %j = %c0 to %c$N step %c1 iter_args(%acc = %w0) -> (f64) {
            %a = memref.load %A[%i, %j] : $t
            %xj = memref.load %x[%j] : $v
            %aa = arith.mulf %alpha, %a : f64
            %p = arith.mulf %aa, %xj : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          memref.store %ws, %w[%i] : $v
        }
        return
        """,
        consts=index_constants(0, 1, n),
        N=n,
        alpha=f64(ALPHA),
        beta=f64(BETA),
        t=memref((n, n)),
        v=memref((n,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """A += u1 v1^T + u2 v2^T; x = tanh(x + beta A^T y + z); w += alpha A x."""
    A = a["A"] + anp.outer(a["u1"], a["v1"]) + anp.outer(a["u2"], a["v2"])
    x = anp.tanh(a["x"] + BETA * anp.dot(A.T, a["y"]) + a["z"])
    w = a["w"] + ALPHA * anp.dot(A, x)
    return None, {"A": A, "x": x, "w": w}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A scaled by 1/sqrt(N) and the vectors by N^(-1/4), so A^T y stays O(1)."""
    n = s["N"]
    out = {"A": rng.uniform(-1.0, 1.0, (n, n)) / np.sqrt(n)}
    for name in ("u1", "v1", "u2", "v2"):
        out[name] = rng.uniform(-1.0, 1.0, (n,)) / n**0.25
    for name in ("y", "z", "x", "w"):
        out[name] = rng.uniform(-1.0, 1.0, (n,))
    return out


KERNEL = Kernel(
    key="gemver",
    sizes={"small": {"N": 4}, "paper": {"N": 96}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
