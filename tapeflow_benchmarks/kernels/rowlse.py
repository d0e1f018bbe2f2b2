"""
A row-wise log-sum-exp over a tall, narrow matrix (the normaliser of a softmax
over each row, as `torch.logsumexp(x, dim=1)` computes it, without the max
subtraction, on inputs in [-1, 1)): a reduction of 4 values per row,

    for (i = 0; i < N; i++) {
      s = 0;
      for (k = 0; k < K; k++) s += exp(x[i][k]);
      y[i] = log(s);
    }

Short inner loops: the shape where streaming's per-tile costs weigh most.

Sizes: `small` N = 8, K = 4; `paper` N = 1000, K = 4 (an extra kernel).
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
        Param("x", (s["N"], s["K"]), active=True),
        Param("y", (s["N"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %i = %c0 to %c$N step %c1 {
          %s = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %zero) -> (f64) {
            %xv = memref.load %x[%i, %k] : $xt
            %e = math.exp %xv : f64
            %next = arith.addf %acc, %e : f64
            scf.yield %next : f64
          }
          %l = math.log %s : f64
          memref.store %l, %y[%i] : $yt
        }
        return
        """,
        consts=index_constants(0, 1, s["N"], s["K"]),
        N=s["N"],
        K=s["K"],
        xt=memref((s["N"], s["K"])),
        yt=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    return None, {"y": anp.log(anp.sum(anp.exp(a["x"]), axis=1))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.uniform(-1.0, 1.0, (s["N"], s["K"])), "y": np.zeros(s["N"])}


KERNEL = Kernel(
    key="rowlse",
    sizes={"small": {"N": 8, "K": 4}, "paper": {"N": 1000, "K": 4}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
