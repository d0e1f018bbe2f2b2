"""
A 1-D convolution layer with a tanh activation, as a framework computes one output
channel (PyTorch's `torch.nn.Conv1d` with one input and one output channel, kernel
size K, no padding, stride 1, then `torch.tanh`):

    for (i = 0; i < N; i++) {
      s = 0;
      for (k = 0; k < K; k++) s += w[k] * x[i + k];
      y[i] = tanh(s);
    }

Enzyme caches the inner loop's loaded values (per `(i, k)`) and the activation's
argument (per `i`): two regions written by one outer loop, the shape every nest
with a per-iteration value has.

Sizes: `small` N = 16, K = 3; `paper` N = 512, K = 3 (an extra kernel).
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
        Param("x", (s["N"] + s["K"] - 1,), active=True),
        Param("w", (s["K"],), active=True),
        Param("y", (s["N"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %i = %c0 to %c$N step %c1 {
          %s = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %zero) -> (f64) {
            %ik = arith.addi %i, %k : index
            %xv = memref.load %x[%ik] : $xt
            %wv = memref.load %w[%k] : $wt
            %p = arith.mulf %wv, %xv : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %t = math.tanh %s : f64
          memref.store %t, %y[%i] : $yt
        }
        return
        """,
        consts=index_constants(0, 1, s["N"], s["K"]),
        N=s["N"],
        K=s["K"],
        xt=memref((s["N"] + s["K"] - 1,)),
        wt=memref((s["K"],)),
        yt=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    n, k = s["N"], s["K"]
    x, w = a["x"], a["w"]
    conv = sum(w[j] * x[j : j + n] for j in range(k))
    return None, {"y": anp.tanh(conv)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, s["N"] + s["K"] - 1),
        "w": rng.uniform(-1.0, 1.0, s["K"]) / np.sqrt(s["K"]),
        "y": np.zeros(s["N"]),
    }


KERNEL = Kernel(
    key="conv1d",
    sizes={"small": {"N": 16, "K": 3}, "paper": {"N": 512, "K": 3}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
