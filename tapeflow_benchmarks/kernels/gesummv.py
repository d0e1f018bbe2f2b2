"""
Scalar, vector and matrix multiplication: PolyBench/C 4.2's
`linear-algebra/blas/gesummv` (`y = alpha A x + beta B x`, two matrix-vector
products sharing one inner loop), the accumulators kept in registers (as LLVM's
loop-invariant code motion promotes `tmp[i]` and `y[i]`), with one activation
added:

    for (i = 0; i < N; i++) {
      t = 0; u = 0;
      for (j = 0; j < N; j++) {
        t = A[i][j] * x[j] + t;
        u = B[i][j] * x[j] + u;
      }
      y[i] = tanh(alpha * t + beta * u);                       // tanh added
    }

One inner loop carrying two accumulators over two matrices. PolyBench's
gesummv is bilinear; the `tanh` makes the gradient need each row's sum, a
per-row value beside the inner loop's tape. `alpha = 1.5`, `beta = 1.2`
(PolyBench's `init_array`).

Sizes: `small` N = 4; `paper` N = 128 (a nest kernel).
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
BETA = 1.2


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("A", (s["N"], s["N"]), active=True),
        Param("B", (s["N"], s["N"]), active=True),
        Param("x", (s["N"],), active=True),
        Param("y", (s["N"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %alpha = arith.constant $alpha : f64
        %beta = arith.constant $beta : f64
        scf.for %i = %c0 to %c$N step %c1 {
          %t, %u = scf.for %j = %c0 to %c$N step %c1
              iter_args(%ta = %zero, %ua = %zero) -> (f64, f64) {
            %a = memref.load %A[%i, %j] : $mt
            %b = memref.load %B[%i, %j] : $mt
            %xj = memref.load %x[%j] : $vt
            %pa = arith.mulf %a, %xj : f64
            %pb = arith.mulf %b, %xj : f64
            %tn = arith.addf %pa, %ta : f64
            %un = arith.addf %pb, %ua : f64
            scf.yield %tn, %un : f64, f64
          }
          %at = arith.mulf %alpha, %t : f64
          %bu = arith.mulf %beta, %u : f64
          %z = arith.addf %at, %bu : f64
          %o = math.tanh %z : f64
          memref.store %o, %y[%i] : $vt
        }
        return
        """,
        consts=index_constants(0, 1, s["N"]),
        N=s["N"],
        alpha=f64(ALPHA),
        beta=f64(BETA),
        mt=memref((s["N"], s["N"])),
        vt=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    x = a["x"]
    return None, {"y": anp.tanh(ALPHA * (a["A"] @ x) + BETA * (a["B"] @ x))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Entries scaled by 1/N, so that the activation's argument stays O(1)."""
    n = s["N"]
    return {
        "A": rng.uniform(-1.0, 1.0, (n, n)) / n,
        "B": rng.uniform(-1.0, 1.0, (n, n)) / n,
        "x": rng.uniform(-1.0, 1.0, n),
        "y": np.zeros(n),
    }


KERNEL = Kernel(
    key="gesummv",
    sizes={"small": {"N": 4}, "paper": {"N": 128}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
