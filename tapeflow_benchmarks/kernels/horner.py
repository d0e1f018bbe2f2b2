"""
Polynomial evaluation by Horner's rule (Knuth, "The Art of Computer Programming",
vol. 2, 3rd ed., section 4.6.4, rule (2); numpy's `polyval`) of a fixed degree
D at M points, each value passed through an activation, as a polynomial feature
layer or a learned polynomial activation computes it: `horner_n` with its
degree a constant:

    for (i = 0; i < M; i++) {
      p = c[0];
      for (k = 1; k <= D; k++) p = p * x[i] + c[k];
      y[i] = tanh(p);
    }

(`c[0]` the leading coefficient). Each step multiplies two active values (the
running value and the point), so the inner loop's tape holds one value per
step; the inner loop is bound by its multiply-add recurrence.

Sizes: `small` M = 4 points, D = 4; `paper` M = 256, D = 32 (a nest kernel).
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
        Param("c", (s["D"] + 1,), active=True),
        Param("x", (s["M"],), active=True),
        Param("y", (s["M"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %lead = memref.load %c[%c0] : $ct
        scf.for %i = %c0 to %c$M step %c1 {
          %xi = memref.load %x[%i] : $xt
          %p = scf.for %k = %c1 to %c$K step %c1 iter_args(%acc = %lead) -> (f64) {
            %ck = memref.load %c[%k] : $ct
            %px = arith.mulf %acc, %xi : f64
            %next = arith.addf %px, %ck : f64
            scf.yield %next : f64
          }
          %t = math.tanh %p : f64
          memref.store %t, %y[%i] : $xt
        }
        return
        """,
        consts=index_constants(0, 1, s["M"], s["D"] + 1),
        M=s["M"],
        K=s["D"] + 1,
        ct=memref((s["D"] + 1,)),
        xt=memref((s["M"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    c, x = a["c"], a["x"]
    p = c[0] * anp.ones(s["M"])
    for k in range(1, s["D"] + 1):
        p = p * x + c[k]
    return None, {"y": anp.tanh(p)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Points in [-0.9, 0.9] and coefficients in [-0.5, 0.5): the value stays O(1)
    at every degree."""
    return {
        "c": rng.uniform(-0.5, 0.5, s["D"] + 1),
        "x": rng.uniform(-0.9, 0.9, s["M"]),
        "y": np.zeros(s["M"]),
    }


KERNEL = Kernel(
    key="horner",
    sizes={
        "small": {"M": 4, "D": 4},
        "paper": {"M": 256, "D": 32},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
