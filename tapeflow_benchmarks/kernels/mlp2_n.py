"""
A two-layer perceptron over a run-time batch: PyTorch's
`torch.nn.Sequential(nn.Linear(K, H), nn.Tanh(), nn.Linear(H, O))` applied to the
first `n` rows of a batch (an argument; a buffer of dynamic shape), one sample at
a time as a C implementation runs it, the hidden activations in a buffer each
sample overwrites:

    for (b = 0; b < n; b++) {
      for (i = 0; i < H; i++) {
        s = b1[i];
        for (k = 0; k < K; k++) s += W1[i][k] * x[b][k];
        h[i] = tanh(s);
      }
      for (o = 0; o < O; o++) {
        s = b2[o];
        for (i = 0; i < H; i++) s += W2[o][i] * h[i];
        y[b][o] = s;
      }
    }

A three-deep nest with a run-time outer trip count, two two-deep nests in one
outer body, and a scratch buffer (`h`) written by the first and read by the
second (Enzyme caches what the second loads: `h` is overwritten by the next
sample).

Sizes: `small` buffers of N = 3 rows, n = 2, K = 3, H = 4, O = 2; `paper`
N = n = 32 samples, K = 32 inputs, H = 16 hidden units, O = 10 outputs (a nest
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
        Param("x", (s["N"], s["K"]), active=True, dynamic=True),
        Param("W1", (s["H"], s["K"]), active=True),
        Param("b1", (s["H"],), active=True),
        Param("W2", (s["O"], s["H"]), active=True),
        Param("b2", (s["O"],), active=True),
        Param("h", (s["H"],), active=True, written=True),
        Param("y", (s["N"], s["O"]), active=True, written=True, dynamic=True),
        Param("n", (), trip="n"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %b = %c0 to %n step %c1 {
          scf.for %i = %c0 to %c$H step %c1 {
            %bi = memref.load %b1[%i] : $ht
            %s = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %bi) -> (f64) {
              %w = memref.load %W1[%i, %k] : $w1t
              %xv = memref.load %x[%b, %k] : memref<?x?xf64>
              %p = arith.mulf %w, %xv : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            %t = math.tanh %s : f64
            memref.store %t, %h[%i] : $ht
          }
          scf.for %o = %c0 to %c$O step %c1 {
            %bo = memref.load %b2[%o] : $ot
            %s = scf.for %i = %c0 to %c$H step %c1 iter_args(%acc = %bo) -> (f64) {
              %w = memref.load %W2[%o, %i] : $w2t
              %hv = memref.load %h[%i] : $ht
              %p = arith.mulf %w, %hv : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            memref.store %s, %y[%b, %o] : memref<?x?xf64>
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["H"], s["K"], s["O"]),
        H=s["H"],
        K=s["K"],
        O=s["O"],
        ht=memref((s["H"],)),
        ot=memref((s["O"],)),
        w1t=memref((s["H"], s["K"])),
        w2t=memref((s["O"], s["H"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The first `n` rows of `y` computed, the rest kept; `h` keeps the last
    sample's activations (the initial `h` when `n` is 0)."""
    n = s["n"]
    rows = a["x"][:n]
    hidden = anp.tanh(rows @ a["W1"].T + a["b1"])
    out = hidden @ a["W2"].T + a["b2"]
    h = hidden[-1] if n > 0 else a["h"]
    return None, {"h": h, "y": anp.concatenate([out, a["y"][n:]], axis=0)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Weights scaled by 1/sqrt(fan-in) (PyTorch's default initialization range)."""
    return {
        "x": rng.uniform(-1.0, 1.0, (s["N"], s["K"])),
        "W1": rng.uniform(-1.0, 1.0, (s["H"], s["K"])) / np.sqrt(s["K"]),
        "b1": rng.uniform(-1.0, 1.0, s["H"]) / np.sqrt(s["K"]),
        "W2": rng.uniform(-1.0, 1.0, (s["O"], s["H"])) / np.sqrt(s["H"]),
        "b2": rng.uniform(-1.0, 1.0, s["O"]) / np.sqrt(s["H"]),
        "h": np.zeros(s["H"]),
        "y": rng.uniform(-1.0, 1.0, (s["N"], s["O"])),
    }


KERNEL = Kernel(
    key="mlp2_n",
    sizes={
        "small": {"N": 3, "n": 2, "K": 3, "H": 4, "O": 2},
        "paper": {"N": 32, "n": 32, "K": 32, "H": 16, "O": 10},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
