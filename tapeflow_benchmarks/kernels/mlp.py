"""
A dense (fully connected) layer with a tanh activation, PyTorch's `torch.nn.Linear`
followed by `torch.tanh` for one input vector:

    for (i = 0; i < M; i++) {
      s = b[i];
      for (k = 0; k < K; k++) s += W[i][k] * x[k];
      y[i] = tanh(s);
    }

Enzyme caches the inner loop's loaded values (per `(i, k)`) and the activation's
argument (per `i`): two regions written by one outer loop.

Sizes: `small` M = 8, K = 4; `paper` M = 64, K = 48 (an extra kernel).
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
        Param("W", (s["M"], s["K"]), active=True),
        Param("x", (s["K"],), active=True),
        Param("b", (s["M"],), active=True),
        Param("y", (s["M"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %i = %c0 to %c$M step %c1 {
          %bias = memref.load %b[%i] : $bt
          %s = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %bias) -> (f64) {
            %wv = memref.load %W[%i, %k] : $wt
            %xv = memref.load %x[%k] : $xt
            %p = arith.mulf %wv, %xv : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %t = math.tanh %s : f64
          memref.store %t, %y[%i] : $bt
        }
        return
        """,
        consts=index_constants(0, 1, s["M"], s["K"]),
        M=s["M"],
        K=s["K"],
        wt=memref((s["M"], s["K"])),
        xt=memref((s["K"],)),
        bt=memref((s["M"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    return None, {"y": anp.tanh(a["b"] + anp.dot(a["W"], a["x"]))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "W": rng.uniform(-1.0, 1.0, (s["M"], s["K"])) / np.sqrt(s["K"]),
        "x": rng.uniform(-1.0, 1.0, s["K"]),
        "b": rng.uniform(-0.5, 0.5, s["M"]),
        "y": np.zeros(s["M"]),
    }


KERNEL = Kernel(
    key="mlp",
    sizes={"small": {"M": 8, "K": 4}, "paper": {"M": 64, "K": 48}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
