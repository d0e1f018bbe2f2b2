"""
The softmax cross-entropy loss of a linear classifier (multiclass logistic
regression: Bishop, *Pattern Recognition and Machine Learning*, 2006, eqs. 4.104
and 4.108; PyTorch's `torch.nn.Linear` without bias followed by
`torch.nn.CrossEntropyLoss` with `reduction="sum"`) over a batch of `b` samples,
`b` an argument known only at run time, K classes and D features. Each sample's
log-sum-exp is the online form (Milakov & Gimelshein, "Online normalizer
calculation for softmax", 2018): one pass over the classes keeps the running
maximum and the sum scaled to it.

    loss = 0;
    for (n = 0; n < b; n++) {
      m = -1e300; s = 0;
      for (k = 0; k < K; k++) {
        z = 0;
        for (d = 0; d < D; d++) z += W[k][d] * X[n][d];
        m' = max(m, z); s = s * exp(m - m') + exp(z - m'); m = m';
      }
      zy = 0;
      for (d = 0; d < D; d++) zy += W[label[n]][d] * X[n][d];
      loss += m + log(s) - zy;
    }

A nest of three loops with a run-time outer trip count whose outer body caches
per-sample values beside two inner loops, one of them a short reduction reading a
row chosen by a loaded index.

Sizes: `small` buffers of N = 6 samples, b = 5, K = 4, D = 3; `paper` N = b = 64,
K = 10, D = 16 (a nest kernel).
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

LOWEST = -1e300
"""The running maximum's start: below every logit, and exp(LOWEST - z) is 0."""


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("W", (s["K"], s["D"]), active=True),
        Param("X", (s["N"], s["D"]), active=True),
        Param("label", (s["N"],), indices=True),
        Param("b", (), trip="b"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %lowest = arith.constant -1.0e300 : f64
        %loss = scf.for %n = %c0 to %b step %c1 iter_args(%l = %zero) -> (f64) {
          %m, %s = scf.for %k = %c0 to %c$K step %c1
              iter_args(%mk = %lowest, %sk = %zero) -> (f64, f64) {
            %z = scf.for %d = %c0 to %c$D step %c1 iter_args(%acc = %zero) -> (f64) {
              %wv = memref.load %W[%k, %d] : $wt
              %xv = memref.load %X[%n, %d] : $xt
              %p = arith.mulf %wv, %xv : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            %mn = arith.maximumf %mk, %z : f64
            %dm = arith.subf %mk, %mn : f64
            %em = math.exp %dm : f64
            %scaled = arith.mulf %sk, %em : f64
            %dz = arith.subf %z, %mn : f64
            %ez = math.exp %dz : f64
            %sn = arith.addf %scaled, %ez : f64
            scf.yield %mn, %sn : f64, f64
          }
          %y = memref.load %label[%n] : $lt
          %zy = scf.for %d = %c0 to %c$D step %c1 iter_args(%acc = %zero) -> (f64) {
            %wv = memref.load %W[%y, %d] : $wt
            %xv = memref.load %X[%n, %d] : $xt
            %p = arith.mulf %wv, %xv : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %ls = math.log %s : f64
          %lse = arith.addf %m, %ls : f64
          %ce = arith.subf %lse, %zy : f64
          %nl = arith.addf %l, %ce : f64
          scf.yield %nl : f64
        }
        return %loss : f64
        """,
        consts=index_constants(0, 1, s["K"], s["D"]),
        K=s["K"],
        D=s["D"],
        wt=memref((s["K"], s["D"])),
        xt=memref((s["N"], s["D"])),
        lt=f"memref<{s['N']}xindex>",
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    b = s["b"]
    z = anp.dot(a["X"][:b], a["W"].T)
    m = anp.max(z, axis=1)
    lse = m + anp.log(anp.sum(anp.exp(z - m[:, None]), axis=1))
    picked = z[np.arange(b), a["label"][:b]]
    return anp.sum(lse - picked), {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "W": rng.uniform(-1.0, 1.0, (s["K"], s["D"])) / np.sqrt(s["D"]),
        "X": rng.uniform(-1.0, 1.0, (s["N"], s["D"])),
        "label": rng.integers(0, s["K"], s["N"]),
    }


KERNEL = Kernel(
    key="xent",
    sizes={
        "small": {"N": 6, "b": 5, "K": 4, "D": 3},
        "paper": {"N": 64, "b": 64, "K": 10, "D": 16},
    },
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
)
