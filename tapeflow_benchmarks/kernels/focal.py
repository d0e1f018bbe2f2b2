"""
The focal loss over a batch of B rows of C class scores (Lin et al., "Focal Loss
for Dense Object Detection", ICCV 2017, equation 4 with gamma = 2 and no alpha
weights; as torchvision's `sigmoid_focal_loss` but over a softmax), with soft
targets `t`, each row's softmax taken stably about the row's maximum:

    loss = 0;
    for (b = 0; b < B; b++) {
      m = -1e300;
      for (c = 0; c < C; c++) m = max(m, z[b][c]);
      s = 0;
      for (c = 0; c < C; c++) s += exp(z[b][c] - m);
      ls = log(s);
      for (c = 0; c < C; c++) {
        lp = z[b][c] - m - ls;              // log p
        p = exp(lp);
        loss -= t[b][c] * (1 - p) * (1 - p) * lp;
      }
    }

A long outer loop over three short inner loops (C = 4 classes: a 1024 x 4
reduction, where a pipeline's fill is as long as its work), each row's maximum
and log-sum cached beside the inner loops' entries.

Sizes: `small` B = 3, C = 4; `paper` B = 1024, C = 4 (a nest kernel).
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
        Param("z", (s["B"], s["C"]), active=True),
        Param("t", (s["B"], s["C"])),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %lowest = arith.constant -1.0e300 : f64
        %loss = scf.for %b = %c0 to %c$B step %c1 iter_args(%l = %zero) -> (f64) {
          %m = scf.for %c = %c0 to %c$C step %c1 iter_args(%mk = %lowest) -> (f64) {
            %zv = memref.load %z[%b, %c] : $mt
            %mn = arith.maximumf %mk, %zv : f64
            scf.yield %mn : f64
          }
          %s = scf.for %c = %c0 to %c$C step %c1 iter_args(%sk = %zero) -> (f64) {
            %zv = memref.load %z[%b, %c] : $mt
            %d = arith.subf %zv, %m : f64
            %e = math.exp %d : f64
            %sn = arith.addf %sk, %e : f64
            scf.yield %sn : f64
          }
          %ls = math.log %s : f64
          %f = scf.for %c = %c0 to %c$C step %c1 iter_args(%fk = %l) -> (f64) {
            %zv = memref.load %z[%b, %c] : $mt
            %d = arith.subf %zv, %m : f64
            %lp = arith.subf %d, %ls : f64
            %p = math.exp %lp : f64
            %q = arith.subf %one, %p : f64
            %qq = arith.mulf %q, %q : f64
            %tv = memref.load %t[%b, %c] : $mt
            %w = arith.mulf %tv, %qq : f64
            %term = arith.mulf %w, %lp : f64
            %fn = arith.subf %fk, %term : f64
            scf.yield %fn : f64
          }
          scf.yield %f : f64
        }
        return %loss : f64
        """,
        consts=index_constants(0, 1, s["B"], s["C"]),
        B=s["B"],
        C=s["C"],
        mt=memref((s["B"], s["C"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    z, t = a["z"], a["t"]
    m = anp.max(z, axis=1)
    d = z - m[:, None]
    lp = d - anp.log(anp.sum(anp.exp(d), axis=1))[:, None]
    q = 1.0 - anp.exp(lp)
    return -anp.sum(t * q * q * lp), {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Scores in [-2, 2]; soft targets, each row a distribution."""
    t = rng.uniform(0.0, 1.0, (s["B"], s["C"]))
    return {
        "z": rng.uniform(-2.0, 2.0, (s["B"], s["C"])),
        "t": t / t.sum(axis=1, keepdims=True),
    }


KERNEL = Kernel(
    key="focal",
    sizes={"small": {"B": 3, "C": 4}, "paper": {"B": 1024, "C": 4}},
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
)
