"""
The `conv1d` layer over a run-time number of outputs `n` (an argument), on buffers
of dynamic shape:

    for (i = 0; i < n; i++) {
      s = 0;
      for (k = 0; k < 3; k++) s += w[k] * x[i + k];
      y[i] = tanh(s);
    }

The outer loop's trip count is known only at run time and its body writes two
regions: the inner loop's cached loads (per `(i, k)`) and the activation's argument
(per `i`).

Sizes: `small` buffers for N = 16 outputs, n = 13; `paper` N = n = 512, K = 3
(an extra kernel).
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
        Param("x", (s["N"] + s["K"] - 1,), active=True, dynamic=True),
        Param("w", (s["K"],), active=True),
        Param("y", (s["N"],), active=True, written=True, dynamic=True),
        Param("n", (), trip="n"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %i = %c0 to %n step %c1 {
          %s = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %zero) -> (f64) {
            %ik = arith.addi %i, %k : index
            %xv = memref.load %x[%ik] : memref<?xf64>
            %wv = memref.load %w[%k] : $wt
            %p = arith.mulf %wv, %xv : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %t = math.tanh %s : f64
          memref.store %t, %y[%i] : memref<?xf64>
        }
        return
        """,
        consts=index_constants(0, 1, s["K"]),
        K=s["K"],
        wt=memref((s["K"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    n, k = s["n"], s["K"]
    x, w, y = a["x"], a["w"], a["y"]
    conv = sum(w[j] * x[j : j + n] for j in range(k))
    return None, {"y": anp.concatenate([anp.tanh(conv), y[n:]])}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, s["N"] + s["K"] - 1),
        "w": rng.uniform(-1.0, 1.0, s["K"]) / np.sqrt(s["K"]),
        "y": rng.uniform(-1.0, 1.0, s["N"]),
    }


KERNEL = Kernel(
    key="conv1d_n",
    sizes={"small": {"N": 16, "K": 3, "n": 13}, "paper": {"N": 512, "K": 3, "n": 512}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
