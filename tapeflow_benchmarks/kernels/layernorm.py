"""
Layer normalization (Ba, Kiros & Hinton, "Layer Normalization", arXiv:1607.06450,
2016, section 3) over each row of a matrix, with the elementwise affine
`gamma`, `beta` and the `eps = 1e-5` of PyTorch's `torch.nn.LayerNorm`:

    for (r = 0; r < R; r++) {
      s = 0;
      for (j = 0; j < C; j++) s += x[r][j];
      mean = s / C;
      v = 0;
      for (j = 0; j < C; j++) v += (x[r][j] - mean) * (x[r][j] - mean);
      rstd = 1 / sqrt(v / C + eps);
      for (j = 0; j < C; j++) y[r][j] = (x[r][j] - mean) * rstd * gamma[j] + beta[j];
    }

Three inner loops in one outer loop, and two per-row values (`mean`, `rstd`) the
third loop reads: a row writes several regions beside its per-row values.

Sizes: `small` R = 4, C = 6; `paper` R = 128, C = 64 (a nest kernel).
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
        Param("x", (s["R"], s["C"]), active=True),
        Param("gamma", (s["C"],), active=True),
        Param("beta", (s["C"],), active=True),
        Param("y", (s["R"], s["C"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %invc = arith.constant $invc : f64
        %eps = arith.constant $eps : f64
        scf.for %r = %c0 to %c$R step %c1 {
          %s = scf.for %j = %c0 to %c$C step %c1 iter_args(%acc = %zero) -> (f64) {
            %xv = memref.load %x[%r, %j] : $t
            %next = arith.addf %acc, %xv : f64
            scf.yield %next : f64
          }
          %mean = arith.mulf %s, %invc : f64
          %v = scf.for %j = %c0 to %c$C step %c1 iter_args(%acc = %zero) -> (f64) {
            %xv = memref.load %x[%r, %j] : $t
            %d = arith.subf %xv, %mean : f64
            %d2 = arith.mulf %d, %d : f64
            %next = arith.addf %acc, %d2 : f64
            scf.yield %next : f64
          }
          %var = arith.mulf %v, %invc : f64
          %vare = arith.addf %var, %eps : f64
          %sd = math.sqrt %vare : f64
          %rstd = arith.divf %one, %sd : f64
          scf.for %j = %c0 to %c$C step %c1 {
            %xv = memref.load %x[%r, %j] : $t
            %d = arith.subf %xv, %mean : f64
            %n = arith.mulf %d, %rstd : f64
            %g = memref.load %gamma[%j] : $vt
            %b = memref.load %beta[%j] : $vt
            %ng = arith.mulf %n, %g : f64
            %o = arith.addf %ng, %b : f64
            memref.store %o, %y[%r, %j] : $t
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["R"], s["C"]),
        R=s["R"],
        C=s["C"],
        invc=f64(1.0 / s["C"]),
        eps=f64(EPS),
        t=memref((s["R"], s["C"])),
        vt=memref((s["C"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    x = a["x"]
    mean = anp.sum(x, axis=1, keepdims=True) * (1.0 / s["C"])
    d = x - mean
    var = anp.sum(d * d, axis=1, keepdims=True) * (1.0 / s["C"])
    return None, {"y": d * (1.0 / anp.sqrt(var + EPS)) * a["gamma"] + a["beta"]}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, (s["R"], s["C"])),
        "gamma": rng.uniform(0.5, 1.5, s["C"]),
        "beta": rng.uniform(-0.5, 0.5, s["C"]),
        "y": np.zeros((s["R"], s["C"])),
    }


KERNEL = Kernel(
    key="layernorm",
    sizes={"small": {"R": 4, "C": 6}, "paper": {"R": 128, "C": 64}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
