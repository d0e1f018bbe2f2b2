"""
A two-layer perceptron with a layer normalization and a GELU between its layers,
over a batch of constant size, one sample at a time as a C implementation runs it
(PyTorch's `torch.nn.Sequential(nn.Linear(K, H), nn.LayerNorm(H,
elementwise_affine=False), nn.GELU(approximate="tanh"), nn.Linear(H, O))`; Ba,
Kiros & Hinton, "Layer Normalization", 2016, eps = 1e-5 as PyTorch's; the GELU's
tanh approximation of Hendrycks & Gimpel, "Gaussian Error Linear Units", 2016),
the hidden values in buffers each sample overwrites:

    for (b = 0; b < B; b++) {
      for (i = 0; i < H; i++) {
        s = b1[i];
        for (k = 0; k < K; k++) s += W1[i][k] * x[b][k];
        h[i] = s;
      }
      mu = 0;  for (i = 0; i < H; i++) mu += h[i];
      mu /= H;
      v = 0;   for (i = 0; i < H; i++) v += (h[i] - mu) * (h[i] - mu);
      r = 1 / sqrt(v / H + eps);
      for (i = 0; i < H; i++) {
        n = (h[i] - mu) * r;
        g[i] = 0.5 * n * (1 + tanh(0.7978845608028654 * (n + 0.044715 * n * n * n)));
      }
      for (o = 0; o < O; o++) {
        s = b2[o];
        for (i = 0; i < H; i++) s += W2[o][i] * g[i];
        y[b][o] = s;
      }
    }

An outer body of five nests in sequence (two of them two-deep), its per-sample
mean and inverse deviation cached beside the inner loops' entries, two scratch
buffers written by one nest and read by the next.

Sizes: `small` B = 2, K = 3, H = 4, O = 2; `paper` B = 32, K = 16, H = 32, O = 8
(a nest kernel).
"""

from __future__ import annotations

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.kernel import (
    Array,
    Kernel,
    Param,
    Sizes,
    f64,
    index_constants,
    memref,
    render,
)

EPS = 1e-5
GELU_K = 0.7978845608028654
"""sqrt(2 / pi), the tanh approximation's scale."""
GELU_C = 0.044715


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", (s["B"], s["K"]), active=True),
        Param("W1", (s["H"], s["K"]), active=True),
        Param("b1", (s["H"],), active=True),
        Param("W2", (s["O"], s["H"]), active=True),
        Param("b2", (s["O"],), active=True),
        Param("h", (s["H"],), active=True, written=True),
        Param("g", (s["H"],), active=True, written=True),
        Param("y", (s["B"], s["O"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %half = arith.constant 0.5 : f64
        %nh = arith.constant $nh : f64
        %eps = arith.constant $eps : f64
        %gk = arith.constant $gk : f64
        %gc = arith.constant $gc : f64
        scf.for %b = %c0 to %c$B step %c1 {
          scf.for %i = %c0 to %c$H step %c1 {
            %bi = memref.load %b1[%i] : $ht
            %s = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %bi) -> (f64) {
              %w = memref.load %W1[%i, %k] : $w1t
              %xv = memref.load %x[%b, %k] : $xt
              %p = arith.mulf %w, %xv : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            memref.store %s, %h[%i] : $ht
          }
          %sum = scf.for %i = %c0 to %c$H step %c1 iter_args(%acc = %zero) -> (f64) {
            %hv = memref.load %h[%i] : $ht
            %next = arith.addf %acc, %hv : f64
            scf.yield %next : f64
          }
          %mu = arith.divf %sum, %nh : f64
          %sq = scf.for %i = %c0 to %c$H step %c1 iter_args(%acc = %zero) -> (f64) {
            %hv = memref.load %h[%i] : $ht
            %d = arith.subf %hv, %mu : f64
            %dd = arith.mulf %d, %d : f64
            %next = arith.addf %acc, %dd : f64
            scf.yield %next : f64
          }
          %var = arith.divf %sq, %nh : f64
          %ve = arith.addf %var, %eps : f64
          %sd = math.sqrt %ve : f64
          %r = arith.divf %one, %sd : f64
          scf.for %i = %c0 to %c$H step %c1 {
            %hv = memref.load %h[%i] : $ht
            %d = arith.subf %hv, %mu : f64
            %n = arith.mulf %d, %r : f64
            %n2 = arith.mulf %n, %n : f64
            %n3 = arith.mulf %n2, %n : f64
            %cn3 = arith.mulf %gc, %n3 : f64
            %u = arith.addf %n, %cn3 : f64
            %v = arith.mulf %gk, %u : f64
            %th = math.tanh %v : f64
            %op = arith.addf %one, %th : f64
            %hn = arith.mulf %half, %n : f64
            %gv = arith.mulf %hn, %op : f64
            memref.store %gv, %g[%i] : $ht
          }
          scf.for %o = %c0 to %c$O step %c1 {
            %bo = memref.load %b2[%o] : $ot
            %s = scf.for %i = %c0 to %c$H step %c1 iter_args(%acc = %bo) -> (f64) {
              %w = memref.load %W2[%o, %i] : $w2t
              %gv = memref.load %g[%i] : $ht
              %p = arith.mulf %w, %gv : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            memref.store %s, %y[%b, %o] : $yt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["B"], s["H"], s["K"], s["O"]),
        B=s["B"],
        H=s["H"],
        K=s["K"],
        O=s["O"],
        nh=f64(s["H"]),
        eps=f64(EPS),
        gk=f64(GELU_K),
        gc=f64(GELU_C),
        ht=memref((s["H"],)),
        ot=memref((s["O"],)),
        w1t=memref((s["H"], s["K"])),
        w2t=memref((s["O"], s["H"])),
        xt=memref((s["B"], s["K"])),
        yt=memref((s["B"], s["O"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """`h` and `g` keep the last sample's values."""
    pre = anp.dot(a["x"], a["W1"].T) + a["b1"]
    mu = anp.sum(pre, axis=1) / s["H"]
    d = pre - mu[:, None]
    var = anp.sum(d * d, axis=1) / s["H"]
    n = d * (1.0 / anp.sqrt(var + EPS))[:, None]
    g = 0.5 * n * (1.0 + anp.tanh(GELU_K * (n + GELU_C * n * n * n)))
    y = anp.dot(g, a["W2"].T) + a["b2"]
    return None, {"h": pre[-1], "g": g[-1], "y": y}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Weights scaled by 1/sqrt(fan-in) (PyTorch's default initialization range)."""
    B, K, H, n_out = s["B"], s["K"], s["H"], s["O"]
    return {
        "x": rng.uniform(-1.0, 1.0, (B, K)),
        "W1": rng.uniform(-1.0, 1.0, (H, K)) / np.sqrt(K),
        "b1": rng.uniform(-1.0, 1.0, H) / np.sqrt(K),
        "W2": rng.uniform(-1.0, 1.0, (n_out, H)) / np.sqrt(H),
        "b2": rng.uniform(-1.0, 1.0, n_out) / np.sqrt(H),
        "h": np.zeros(H),
        "g": np.zeros(H),
        "y": rng.uniform(-1.0, 1.0, (B, n_out)),
    }


KERNEL = Kernel(
    key="lngelu",
    sizes={
        "small": {"B": 2, "K": 3, "H": 4, "O": 2},
        "paper": {"B": 32, "K": 16, "H": 32, "O": 8},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
