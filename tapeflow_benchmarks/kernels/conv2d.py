"""
A 2-D convolution layer with a tanh activation, as a framework computes one output
channel (PyTorch's `torch.nn.Conv2d` with one input and one output channel, a K x K
kernel, no padding, stride 1, then `torch.tanh`):

    for (i = 0; i < H; i++)
      for (j = 0; j < W; j++) {
        s = 0;
        for (a = 0; a < K; a++)
          for (b = 0; b < K; b++) s += w[a][b] * x[i + a][j + b];
        y[i][j] = tanh(s);
      }

Enzyme caches the products' operands (per `(i, j, a, b)`) and the activation's
argument (per `(i, j)`): the inner nest's region and a per-iteration value, two
loops above the innermost.

Sizes: `small` H = W = 4, K = 3; `paper` H = W = 24, K = 3 (an extra kernel).
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


def _image(s: Sizes) -> tuple[int, int]:
    return (s["H"] + s["K"] - 1, s["W"] + s["K"] - 1)


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", _image(s), active=True),
        Param("w", (s["K"], s["K"]), active=True),
        Param("y", (s["H"], s["W"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %i = %c0 to %c$H step %c1 {
          scf.for %j = %c0 to %c$W step %c1 {
            %s = scf.for %a = %c0 to %c$K step %c1 iter_args(%acc = %zero) -> (f64) {
              %ia = arith.addi %i, %a : index
              %row = scf.for %b = %c0 to %c$K step %c1 iter_args(%in = %acc) -> (f64) {
                %jb = arith.addi %j, %b : index
                %xv = memref.load %x[%ia, %jb] : $xt
                %wv = memref.load %w[%a, %b] : $wt
                %p = arith.mulf %wv, %xv : f64
                %next = arith.addf %in, %p : f64
                scf.yield %next : f64
              }
              scf.yield %row : f64
            }
            %t = math.tanh %s : f64
            memref.store %t, %y[%i, %j] : $yt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["H"], s["W"], s["K"]),
        H=s["H"],
        W=s["W"],
        K=s["K"],
        xt=memref(_image(s)),
        wt=memref((s["K"], s["K"])),
        yt=memref((s["H"], s["W"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    h, w, k = s["H"], s["W"], s["K"]
    x, kernel = a["x"], a["w"]
    conv = sum(kernel[p, q] * x[p : p + h, q : q + w] for p in range(k) for q in range(k))
    return None, {"y": anp.tanh(conv)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, _image(s)),
        "w": rng.uniform(-1.0, 1.0, (s["K"], s["K"])) / s["K"],
        "y": np.zeros((s["H"], s["W"])),
    }


KERNEL = Kernel(
    key="conv2d",
    sizes={"small": {"H": 4, "W": 4, "K": 3}, "paper": {"H": 24, "W": 24, "K": 3}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
