"""
A depthwise 1-D convolution of stride 2 with a per-channel bias and a tanh, as
PyTorch's `torch.nn.Conv1d(C, C, K, stride=2, groups=C)` computes it (each channel
convolved with its own filter: the depthwise layer of MobileNets, Howard et al.,
arXiv:1704.04861, 2017, section 3.1), then `torch.tanh`:

    for (c = 0; c < C; c++)
      for (t = 0; t < T; t++) {
        s = b[c];
        for (k = 0; k < K; k++) s += w[c][k] * x[c][2 * t + k];
        y[c][t] = tanh(s);
      }

A three-deep nest: the innermost loop's cached loads (per `(c, t, k)`, read with
stride 2 along a row) and the activation's argument (per `(c, t)`), and the bias,
loaded once per channel, above both.

Sizes: `small` C = 2, T = 5, K = 3; `paper` C = 16, T = 64, K = 5 (a nest kernel).
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


def width(s: Sizes) -> int:
    """The input row's length: the last output reads `x[c][2 (T - 1) + K - 1]`."""
    return 2 * (s["T"] - 1) + s["K"]


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", (s["C"], width(s)), active=True),
        Param("w", (s["C"], s["K"]), active=True),
        Param("b", (s["C"],), active=True),
        Param("y", (s["C"], s["T"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %c = %c0 to %c$C step %c1 {
          %bc = memref.load %b[%c] : $bt
          scf.for %t = %c0 to %c$T step %c1 {
            %t2 = arith.muli %t, %c2 : index
            %s = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %bc) -> (f64) {
              %tk = arith.addi %t2, %k : index
              %xv = memref.load %x[%c, %tk] : $xt
              %wv = memref.load %w[%c, %k] : $wt
              %p = arith.mulf %wv, %xv : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            %o = math.tanh %s : f64
            memref.store %o, %y[%c, %t] : $yt
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, s["C"], s["T"], s["K"]),
        C=s["C"],
        T=s["T"],
        K=s["K"],
        xt=memref((s["C"], width(s))),
        wt=memref((s["C"], s["K"])),
        bt=memref((s["C"],)),
        yt=memref((s["C"], s["T"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    x, w, b = a["x"], a["w"], a["b"]
    last = 2 * (s["T"] - 1)
    conv = b[:, None] + sum(w[:, k : k + 1] * x[:, k : k + last + 1 : 2] for k in range(s["K"]))
    return None, {"y": anp.tanh(conv)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, (s["C"], width(s))),
        "w": rng.uniform(-1.0, 1.0, (s["C"], s["K"])) / np.sqrt(s["K"]),
        "b": rng.uniform(-0.5, 0.5, s["C"]),
        "y": np.zeros((s["C"], s["T"])),
    }


KERNEL = Kernel(
    key="depthwise",
    sizes={"small": {"C": 2, "T": 5, "K": 3}, "paper": {"C": 16, "T": 64, "K": 5}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
