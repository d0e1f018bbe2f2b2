"""
A weight-normalized dense layer with a tanh activation over a batch (Salimans &
Kingma, "Weight Normalization", NIPS 2016, equation 2: `w = g v / ||v||`;
PyTorch's `torch.nn.utils.parametrizations.weight_norm(nn.Linear(K, O,
bias=False))` then `torch.tanh`), each output unit's norm and scale computed once
and applied to the whole batch, as a C implementation fuses them:

    for (o = 0; o < O; o++) {
      n = 0;
      for (k = 0; k < K; k++) n += v[o][k] * v[o][k];
      sc = g[o] / sqrt(n);
      for (b = 0; b < B; b++) {
        d = 0;
        for (k = 0; k < K; k++) d += v[o][k] * x[b][k];
        y[b][o] = tanh(sc * d);
      }
    }

A value computed in the outer body (the unit's scale) and used, unchanged, in
every iteration of the batch loop: a loop-invariant operand of the inner body's
product, beside the products' own tape.

Sizes: `small` O = 2, K = 3, B = 3; `paper` O = 32, K = 16, B = 32 (a nest
kernel).
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
        Param("v", (s["O"], s["K"]), active=True),
        Param("g", (s["O"],), active=True),
        Param("x", (s["B"], s["K"]), active=True),
        Param("y", (s["B"], s["O"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %o = %c0 to %c$O step %c1 {
          %n = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %zero) -> (f64) {
            %vv = memref.load %v[%o, %k] : $vt
            %sq = arith.mulf %vv, %vv : f64
            %next = arith.addf %acc, %sq : f64
            scf.yield %next : f64
          }
          %norm = math.sqrt %n : f64
          %go = memref.load %g[%o] : $gt
          %sc = arith.divf %go, %norm : f64
          scf.for %b = %c0 to %c$B step %c1 {
            %d = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %zero) -> (f64) {
              %vv = memref.load %v[%o, %k] : $vt
              %xv = memref.load %x[%b, %k] : $xt
              %p = arith.mulf %vv, %xv : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            %z = arith.mulf %sc, %d : f64
            %act = math.tanh %z : f64
            memref.store %act, %y[%b, %o] : $yt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["O"], s["K"], s["B"]),
        O=s["O"],
        K=s["K"],
        B=s["B"],
        vt=memref((s["O"], s["K"])),
        gt=memref((s["O"],)),
        xt=memref((s["B"], s["K"])),
        yt=memref((s["B"], s["O"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    v, g, x = a["v"], a["g"], a["x"]
    sc = g / anp.sqrt(anp.sum(v * v, axis=1))
    return None, {"y": anp.tanh(anp.dot(x, v.T) * sc[None, :])}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "v": rng.uniform(-1.0, 1.0, (s["O"], s["K"])),
        "g": rng.uniform(0.5, 1.5, s["O"]),
        "x": rng.uniform(-1.0, 1.0, (s["B"], s["K"])),
        "y": rng.uniform(-1.0, 1.0, (s["B"], s["O"])),
    }


KERNEL = Kernel(
    key="wnorm",
    sizes={
        "small": {"O": 2, "K": 3, "B": 3},
        "paper": {"O": 32, "K": 16, "B": 32},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
