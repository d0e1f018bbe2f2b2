"""
The Huber loss (Huber, "Robust Estimation of a Location Parameter", Annals of
Mathematical Statistics 35(1), 1964, equation 8; PyTorch's `torch.nn.HuberLoss`
with `delta = 1`, summed) of a linear model over a run-time number of samples
`n` (an argument):

    for (i = 0; i < n; i++) {
      s = 0;
      for (k = 0; k < K; k++) s += w[k] * X[i][k];
      r = s - t[i];  a = |r|;
      loss += a <= delta ? r * r / 2 : delta * (a - delta / 2);
    }

The outer trip count is known only at run time; each sample caches its inner
loop's products and the residual (the branch, written as selects, needs it).

Sizes: `small` buffers of N = 6 samples, n = 5, K = 3 features; `paper`
N = n = 256, K = 16 (a nest kernel).
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

DELTA = 1.0


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("X", (s["N"], s["K"]), active=True, dynamic=True),
        Param("t", (s["N"],), active=True, dynamic=True),
        Param("w", (s["K"],), active=True),
        Param("n", (), trip="n"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %half = arith.constant 0.5 : f64
        %delta = arith.constant $delta : f64
        %hdelta = arith.constant $hdelta : f64
        %loss = scf.for %i = %c0 to %n step %c1 iter_args(%tot = %zero) -> (f64) {
          %s = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %zero) -> (f64) {
            %xv = memref.load %X[%i, %k] : memref<?x?xf64>
            %wv = memref.load %w[%k] : $wt
            %p = arith.mulf %wv, %xv : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %ti = memref.load %t[%i] : memref<?xf64>
          %r = arith.subf %s, %ti : f64
          %nr = arith.subf %zero, %r : f64
          %neg = arith.cmpf olt, %r, %zero : f64
          %a = arith.select %neg, %nr, %r : f64
          %rr = arith.mulf %r, %r : f64
          %quad = arith.mulf %half, %rr : f64
          %ad = arith.subf %a, %hdelta : f64
          %lin = arith.mulf %delta, %ad : f64
          %small = arith.cmpf ole, %a, %delta : f64
          %h = arith.select %small, %quad, %lin : f64
          %sum = arith.addf %tot, %h : f64
          scf.yield %sum : f64
        }
        return %loss : f64
        """,
        consts=index_constants(0, 1, s["K"]),
        K=s["K"],
        delta=f64(DELTA),
        hdelta=f64(DELTA / 2),
        wt=memref((s["K"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    X, t, w, n = a["X"], a["t"], a["w"], s["n"]
    r = anp.dot(X[:n], w) - t[:n]
    quad = 0.5 * r * r
    lin = DELTA * (anp.abs(r) - DELTA / 2)
    return anp.sum(anp.where(anp.abs(r) <= DELTA, quad, lin)), {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Targets spread so that about half the residuals fall beyond `delta` (both
    branches of the loss, none within 0.05 of the kink, where finite differences
    would straddle it)."""
    X = rng.uniform(-1.0, 1.0, (s["N"], s["K"]))
    w = rng.uniform(-1.0, 1.0, s["K"]) / np.sqrt(s["K"])
    r = rng.uniform(0.1, 2.0, s["N"]) * rng.choice([-1.0, 1.0], s["N"])
    r[np.abs(np.abs(r) - DELTA) < 0.05] += 0.1
    return {"X": X, "t": X @ w - r, "w": w}


KERNEL = Kernel(
    key="huber_n",
    sizes={
        "small": {"N": 6, "n": 5, "K": 3},
        "paper": {"N": 256, "n": 256, "K": 16},
    },
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
)
