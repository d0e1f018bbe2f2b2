"""
Root-mean-square layer normalization (Zhang & Sennrich, "Root Mean Square Layer
Normalization", NeurIPS 2019, equation 4), as LLaMA applies it before each block
(Touvron et al., "LLaMA: Open and Efficient Foundation Language Models",
arXiv:2302.13971, 2023, section 2.2; `eps = 1e-6`, the gain `g`), over a
run-time number of rows `n` (an argument) of a buffer of dynamic shape:

    for (r = 0; r < n; r++) {
      s = 0;
      for (j = 0; j < C; j++) s += x[r][j] * x[r][j];
      inv = 1 / sqrt(s / C + eps);
      for (j = 0; j < C; j++) y[r][j] = x[r][j] * inv * g[j];
    }

The outer loop's trip count is known only at run time; each row writes two inner
loops' regions beside the per-row value `inv` that the second loop reads.

Sizes: `small` buffers of N = 5 rows, n = 4, C = 6; `paper` N = n = 128 rows of
C = 64 (a nest kernel).
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

EPS = 1e-6


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", (s["N"], s["C"]), active=True, dynamic=True),
        Param("g", (s["C"],), active=True),
        Param("y", (s["N"], s["C"]), active=True, written=True, dynamic=True),
        Param("n", (), trip="n"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %cols = arith.constant $cols : f64
        %eps = arith.constant $eps : f64
        scf.for %r = %c0 to %n step %c1 {
          %s = scf.for %j = %c0 to %c$C step %c1 iter_args(%acc = %zero) -> (f64) {
            %v = memref.load %x[%r, %j] : memref<?x?xf64>
            %sq = arith.mulf %v, %v : f64
            %next = arith.addf %acc, %sq : f64
            scf.yield %next : f64
          }
          %ms = arith.divf %s, %cols : f64
          %mse = arith.addf %ms, %eps : f64
          %rms = math.sqrt %mse : f64
          %inv = arith.divf %one, %rms : f64
          scf.for %j = %c0 to %c$C step %c1 {
            %v = memref.load %x[%r, %j] : memref<?x?xf64>
            %gj = memref.load %g[%j] : $gt
            %h = arith.mulf %v, %inv : f64
            %o = arith.mulf %h, %gj : f64
            memref.store %o, %y[%r, %j] : memref<?x?xf64>
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["C"]),
        C=s["C"],
        cols=f64(s["C"]),
        eps=f64(EPS),
        gt=memref((s["C"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The first `n` rows normalized; the rest of `y` is kept."""
    x, g, y, n = a["x"], a["g"], a["y"], s["n"]
    rows = x[:n]
    inv = 1.0 / anp.sqrt(anp.mean(rows * rows, axis=1, keepdims=True) + EPS)
    return None, {"y": anp.concatenate([rows * inv * g, y[n:]], axis=0)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, (s["N"], s["C"])),
        "g": rng.uniform(0.5, 1.5, s["C"]),
        "y": rng.uniform(-1.0, 1.0, (s["N"], s["C"])),
    }


KERNEL = Kernel(
    key="rmsnorm_n",
    sizes={
        "small": {"N": 5, "n": 4, "C": 6},
        "paper": {"N": 128, "n": 128, "C": 64},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
