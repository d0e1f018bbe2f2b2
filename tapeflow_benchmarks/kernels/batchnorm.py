"""
Batch normalization in training mode (Ioffe & Szegedy, "Batch Normalization",
ICML 2015, Algorithm 1) over a batch of N samples of C features, as PyTorch's
`torch.nn.BatchNorm1d` computes its output in training mode (the biased variance,
`eps = 1e-5`, the elementwise affine `gamma`, `beta`), feature by feature:

    for (c = 0; c < C; c++) {
      s = 0;
      for (n = 0; n < N; n++) s += x[n][c];
      mean = s / N;
      v = 0;
      for (n = 0; n < N; n++) v += (x[n][c] - mean) * (x[n][c] - mean);
      rstd = 1 / sqrt(v / N + eps);
      for (n = 0; n < N; n++) y[n][c] = (x[n][c] - mean) * rstd * gamma[c] + beta[c];
    }

Layer normalization's nest (`layernorm.py`) walking columns: three inner loops
per feature that each stride a row of the row-major batch (a cache line per
iteration where a row spans one), two per-feature values beside them.

Sizes: `small` N = 6, C = 4; `paper` N = 64, C = 96 (a nest kernel).
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


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", (s["N"], s["C"]), active=True),
        Param("gamma", (s["C"],), active=True),
        Param("beta", (s["C"],), active=True),
        Param("y", (s["N"], s["C"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %invn = arith.constant $invn : f64
        %eps = arith.constant $eps : f64
        scf.for %c = %c0 to %c$C step %c1 {
          %s = scf.for %n = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
            %xv = memref.load %x[%n, %c] : $t
            %next = arith.addf %acc, %xv : f64
            scf.yield %next : f64
          }
          %mean = arith.mulf %s, %invn : f64
          %v = scf.for %n = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
            %xv = memref.load %x[%n, %c] : $t
            %d = arith.subf %xv, %mean : f64
            %d2 = arith.mulf %d, %d : f64
            %next = arith.addf %acc, %d2 : f64
            scf.yield %next : f64
          }
          %var = arith.mulf %v, %invn : f64
          %vare = arith.addf %var, %eps : f64
          %sd = math.sqrt %vare : f64
          %rstd = arith.divf %one, %sd : f64
          %g = memref.load %gamma[%c] : $vt
          %b = memref.load %beta[%c] : $vt
          scf.for %n = %c0 to %c$N step %c1 {
            %xv = memref.load %x[%n, %c] : $t
            %d = arith.subf %xv, %mean : f64
            %nv = arith.mulf %d, %rstd : f64
            %ng = arith.mulf %nv, %g : f64
            %o = arith.addf %ng, %b : f64
            memref.store %o, %y[%n, %c] : $t
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["N"], s["C"]),
        N=s["N"],
        C=s["C"],
        invn=f64(1.0 / s["N"]),
        eps=f64(EPS),
        t=memref((s["N"], s["C"])),
        vt=memref((s["C"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    x = a["x"]
    mean = anp.sum(x, axis=0) * (1.0 / s["N"])
    d = x - mean
    var = anp.sum(d * d, axis=0) * (1.0 / s["N"])
    return None, {"y": d * (1.0 / anp.sqrt(var + EPS)) * a["gamma"] + a["beta"]}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, (s["N"], s["C"])),
        "gamma": rng.uniform(0.5, 1.5, s["C"]),
        "beta": rng.uniform(-0.5, 0.5, s["C"]),
        "y": np.zeros((s["N"], s["C"])),
    }


KERNEL = Kernel(
    key="batchnorm",
    sizes={"small": {"N": 6, "C": 4}, "paper": {"N": 64, "C": 96}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
