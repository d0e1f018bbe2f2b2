"""
The loss of logistic regression (Bishop, *Pattern Recognition and Machine
Learning*, 2006, eq. 4.90, with labels in {-1, 1}) over N samples of K features:

    loss = 0;
    for (i = 0; i < N; i++) {
      z = 0;
      for (k = 0; k < K; k++) z += w[k] * X[i][k];
      loss += log(1 + exp(-t[i] * z));
    }

Sizes: `small` N = 8, K = 4; `paper` N = 256, K = 8 (an extra kernel).
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
        Param("X", (s["N"], s["K"]), active=True),
        Param("t", (s["N"],)),
        Param("w", (s["K"],), active=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %loss = scf.for %i = %c0 to %c$N step %c1 iter_args(%l = %zero) -> (f64) {
          %z = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %zero) -> (f64) {
            %wv = memref.load %w[%k] : $wt
            %xv = memref.load %X[%i, %k] : $xt
            %p = arith.mulf %wv, %xv : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %ti = memref.load %t[%i] : $tt
          %m = arith.mulf %ti, %z : f64
          %neg = arith.negf %m : f64
          %e = math.exp %neg : f64
          %a = arith.addf %one, %e : f64
          %lg = math.log %a : f64
          %nl = arith.addf %l, %lg : f64
          scf.yield %nl : f64
        }
        return %loss : f64
        """,
        consts=index_constants(0, 1, s["N"], s["K"]),
        N=s["N"],
        K=s["K"],
        wt=memref((s["K"],)),
        xt=memref((s["N"], s["K"])),
        tt=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    z = anp.dot(a["X"], a["w"])
    return anp.sum(anp.log(1.0 + anp.exp(-a["t"] * z))), {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "X": rng.uniform(-1.0, 1.0, (s["N"], s["K"])),
        "t": rng.choice([-1.0, 1.0], s["N"]),
        "w": rng.uniform(-1.0, 1.0, s["K"]) / np.sqrt(s["K"]),
    }


KERNEL = Kernel(
    key="logreg",
    sizes={"small": {"N": 8, "K": 4}, "paper": {"N": 256, "K": 8}},
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
)
