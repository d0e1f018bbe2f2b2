"""
An Elman RNN over a ragged batch of sequences, packed one after the other with an
offsets array as PyTorch's `torch.nn.utils.rnn.pack_sequence` and
`torch.nn.RNN(E, H, nonlinearity="tanh")` run them (each sequence from the same
initial state `h0`), the last state of each sequence scored by a linear read-out
and a `tanh` (Elman, "Finding Structure in Time", Cognitive Science 14, 1990):

    for (b = 0; b < B; b++) {
      for (i = 0; i < H; i++) h[i] = h0[i];
      for (t = off[b]; t < off[b + 1]; t++) {
        for (i = 0; i < H; i++) {
          s = c[i];
          for (k = 0; k < E; k++) s += W[i][k] * x[t][k];
          for (k = 0; k < H; k++) s += U[i][k] * h[k];
          g[i] = tanh(s);
        }
        for (i = 0; i < H; i++) h[i] = g[i];
      }
      z = 0;
      for (i = 0; i < H; i++) z += v[i] * h[i];
      y[b] = tanh(z);
    }

A loop of run-time trip count without a constant bound (a sequence's length, from
the offsets) whose iteration stores more than a 512-byte scratchpad (Enzyme-MLIR
caches both operands of each of the `H * E + H * H` products, the state's loads
among them, beside the `H` activations: 126 values a step at the paper size),
between per-sequence loops whose values are cached once per outer iteration (the
read-out's loads of the last state).

Sizes: `small` B = 3 sequences, H = 2, E = 2; `paper` B = 24 sequences, H = 6
hidden units, E = 4 inputs (a nest kernel). Sequence `b` has `1 + (7 b mod 13)`
steps (1 to 13).
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


def lengths(s: Sizes) -> list[int]:
    """Steps per sequence."""
    return [1 + (7 * b) % 13 for b in range(s["B"])]


def steps(s: Sizes) -> int:
    return sum(lengths(s))


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("off", (s["B"] + 1,), indices=True),
        Param("x", (steps(s), s["E"]), active=True),
        Param("W", (s["H"], s["E"]), active=True),
        Param("U", (s["H"], s["H"]), active=True),
        Param("c", (s["H"],), active=True),
        Param("h0", (s["H"],), active=True),
        Param("v", (s["H"],), active=True),
        Param("h", (s["H"],), active=True, written=True),
        Param("g", (s["H"],), active=True, written=True),
        Param("y", (s["B"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %b = %c0 to %c$B step %c1 {
          %b1 = arith.addi %b, %c1 : index
          %lo = memref.load %off[%b] : $ot
          %hi = memref.load %off[%b1] : $ot
          scf.for %i = %c0 to %c$H step %c1 {
            %v0 = memref.load %h0[%i] : $ht
            memref.store %v0, %h[%i] : $ht
          }
          scf.for %t = %lo to %hi step %c1 {
            scf.for %i = %c0 to %c$H step %c1 {
              %ci = memref.load %c[%i] : $ht
              %sx = scf.for %k = %c0 to %c$E step %c1 iter_args(%acc = %ci) -> (f64) {
                %w = memref.load %W[%i, %k] : $wt
                %xv = memref.load %x[%t, %k] : $xt
                %p = arith.mulf %w, %xv : f64
                %next = arith.addf %acc, %p : f64
                scf.yield %next : f64
              }
              %sh = scf.for %k = %c0 to %c$H step %c1 iter_args(%acc = %sx) -> (f64) {
                %u = memref.load %U[%i, %k] : $ut
                %hk = memref.load %h[%k] : $ht
                %p = arith.mulf %u, %hk : f64
                %next = arith.addf %acc, %p : f64
                scf.yield %next : f64
              }
              %th = math.tanh %sh : f64
              memref.store %th, %g[%i] : $ht
            }
            scf.for %i = %c0 to %c$H step %c1 {
              %gi = memref.load %g[%i] : $ht
              memref.store %gi, %h[%i] : $ht
            }
          }
          %z = scf.for %i = %c0 to %c$H step %c1 iter_args(%acc = %zero) -> (f64) {
            %vi = memref.load %v[%i] : $ht
            %hi2 = memref.load %h[%i] : $ht
            %p = arith.mulf %vi, %hi2 : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %tz = math.tanh %z : f64
          memref.store %tz, %y[%b] : $yt
        }
        return
        """,
        consts=index_constants(0, 1, s["B"], s["H"], s["E"]),
        B=s["B"],
        H=s["H"],
        E=s["E"],
        ot=f"memref<{s['B'] + 1}xindex>",
        xt=memref((steps(s), s["E"])),
        wt=memref((s["H"], s["E"])),
        ut=memref((s["H"], s["H"])),
        ht=memref((s["H"],)),
        yt=memref((s["B"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """`h` and `g` keep the last sequence's last state (`g` its initial value when
    that sequence is empty: none is here)."""
    off = a["off"]
    out = []
    h = a["h0"]
    g = a["g"]
    for b in range(s["B"]):
        h = a["h0"]
        for t in range(int(off[b]), int(off[b + 1])):
            g = anp.tanh(a["c"] + a["W"] @ a["x"][t] + a["U"] @ h)
            h = g
        out.append(anp.tanh(anp.sum(a["v"] * h)))
    return None, {"h": h, "g": g, "y": anp.stack(out)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Weights scaled by 1/sqrt(H) (PyTorch's default initialization range)."""
    scale = 1.0 / np.sqrt(s["H"])
    return {
        "off": np.concatenate([[0], np.cumsum(lengths(s))]),
        "x": rng.uniform(-1.0, 1.0, (steps(s), s["E"])),
        "W": rng.uniform(-1.0, 1.0, (s["H"], s["E"])) * scale,
        "U": rng.uniform(-1.0, 1.0, (s["H"], s["H"])) * scale,
        "c": rng.uniform(-1.0, 1.0, s["H"]) * scale,
        "h0": rng.uniform(-1.0, 1.0, s["H"]),
        "v": rng.uniform(-1.0, 1.0, s["H"]),
        "h": np.zeros(s["H"]),
        "g": np.zeros(s["H"]),
        "y": np.zeros(s["B"]),
    }


KERNEL = Kernel(
    key="rnn_ragged",
    sizes={
        "small": {"B": 3, "H": 2, "E": 2},
        "paper": {"B": 24, "H": 6, "E": 4},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
