"""
An Elman recurrent network over T steps (Elman, "Finding structure in time",
Cognitive Science 14, 1990; PyTorch's `torch.nn.RNNCell` with tanh, one input
feature, no bias), its hidden states kept in `h`:

    for (t = 0; t < T; t++)
      for (i = 0; i < H; i++) {
        s = U[i] * x[t];
        for (j = 0; j < H; j++) s += W[i][j] * h[t][j];
        h[t + 1][i] = tanh(s);
      }

A nest of three loops whose middle body caches a per-iteration value.

Sizes: `small` T = 3, H = 4; `paper` T = 16, H = 16 (an extra kernel).
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
        Param("W", (s["H"], s["H"]), active=True),
        Param("U", (s["H"],), active=True),
        Param("x", (s["T"],), active=True),
        Param("h", (s["T"] + 1, s["H"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %t = %c0 to %c$T step %c1 {
          %xt = memref.load %x[%t] : $xty
          %t1 = arith.addi %t, %c1 : index
          scf.for %i = %c0 to %c$H step %c1 {
            %ui = memref.load %U[%i] : $ut
            %in = arith.mulf %ui, %xt : f64
            %s = scf.for %j = %c0 to %c$H step %c1 iter_args(%acc = %in) -> (f64) {
              %wv = memref.load %W[%i, %j] : $wt
              %hv = memref.load %h[%t, %j] : $ht
              %p = arith.mulf %wv, %hv : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            %a = math.tanh %s : f64
            memref.store %a, %h[%t1, %i] : $ht
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["T"], s["H"]),
        T=s["T"],
        H=s["H"],
        xty=memref((s["T"],)),
        ut=memref((s["H"],)),
        wt=memref((s["H"], s["H"])),
        ht=memref((s["T"] + 1, s["H"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    W, U, x, h = a["W"], a["U"], a["x"], a["h"]
    states = [h[0]]
    for t in range(s["T"]):
        states.append(anp.tanh(U * x[t] + anp.dot(W, states[-1])))
    return None, {"h": anp.stack(states)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "W": rng.uniform(-1.0, 1.0, (s["H"], s["H"])) / np.sqrt(s["H"]),
        "U": rng.uniform(-1.0, 1.0, s["H"]),
        "x": rng.uniform(-1.0, 1.0, s["T"]),
        "h": rng.uniform(-1.0, 1.0, (s["T"] + 1, s["H"])),
    }


KERNEL = Kernel(
    key="rnn",
    sizes={"small": {"T": 3, "H": 4}, "paper": {"T": 16, "H": 16}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
