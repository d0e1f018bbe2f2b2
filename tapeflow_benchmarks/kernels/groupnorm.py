"""
Group normalization (Wu & He, "Group Normalization", ECCV 2018, section 3 and
Figure 3's code; PyTorch's `torch.nn.GroupNorm` with `eps = 1e-5` and the
per-channel affine `gamma`, `beta`) of one sample of C channels of P positions,
the channels split into G groups of C / G:

    for (g = 0; g < G; g++) {
      s = 0;
      for (c = g * CG; c < (g + 1) * CG; c++) for (p = 0; p < P; p++) s += x[c][p];
      mean = s / (CG * P);
      v = 0;
      for (c ...) for (p ...) v += (x[c][p] - mean) * (x[c][p] - mean);
      rstd = 1 / sqrt(v / (CG * P) + eps);
      for (c ...) { gc = gamma[c]; bc = beta[c];
        for (p ...) y[c][p] = (x[c][p] - mean) * rstd * gc + bc; }
    }

Layer normalization's nest (`layernorm.py`) one level deeper: each group's three
passes are two-level nests whose bounds depend on the group, and the outer body
caches two per-group values beside them.

Sizes: `small` G = 2, C = 4, P = 3; `paper` G = 8, C = 32, P = 64 (a nest kernel).
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
        Param("x", (s["C"], s["P"]), active=True),
        Param("gamma", (s["C"],), active=True),
        Param("beta", (s["C"],), active=True),
        Param("y", (s["C"], s["P"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    G, C, P = s["G"], s["C"], s["P"]
    cg = C // G
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %invn = arith.constant $invn : f64
        %eps = arith.constant $eps : f64
        scf.for %g = %c0 to %c$G step %c1 {
          %lo = arith.muli %g, %c$CG : index
          %hi = arith.addi %lo, %c$CG : index
          %s = scf.for %c = %lo to %hi step %c1 iter_args(%sc = %zero) -> (f64) {
            %sp = scf.for %p = %c0 to %c$P step %c1 iter_args(%acc = %sc) -> (f64) {
              %xv = memref.load %x[%c, %p] : $t
              %next = arith.addf %acc, %xv : f64
              scf.yield %next : f64
            }
            scf.yield %sp : f64
          }
          %mean = arith.mulf %s, %invn : f64
          %v = scf.for %c = %lo to %hi step %c1 iter_args(%vc = %zero) -> (f64) {
            %vp = scf.for %p = %c0 to %c$P step %c1 iter_args(%acc = %vc) -> (f64) {
              %xv = memref.load %x[%c, %p] : $t
              %d = arith.subf %xv, %mean : f64
              %d2 = arith.mulf %d, %d : f64
              %next = arith.addf %acc, %d2 : f64
              scf.yield %next : f64
            }
            scf.yield %vp : f64
          }
          %var = arith.mulf %v, %invn : f64
          %vare = arith.addf %var, %eps : f64
          %sd = math.sqrt %vare : f64
          %rstd = arith.divf %one, %sd : f64
          scf.for %c = %lo to %hi step %c1 {
            %gc = memref.load %gamma[%c] : $vt
            %bc = memref.load %beta[%c] : $vt
            scf.for %p = %c0 to %c$P step %c1 {
              %xv = memref.load %x[%c, %p] : $t
              %d = arith.subf %xv, %mean : f64
              %nv = arith.mulf %d, %rstd : f64
              %ng = arith.mulf %nv, %gc : f64
              %o = arith.addf %ng, %bc : f64
              memref.store %o, %y[%c, %p] : $t
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, G, cg, P),
        G=G,
        CG=cg,
        P=P,
        invn=f64(1.0 / (cg * P)),
        eps=f64(EPS),
        t=memref((C, P)),
        vt=memref((C,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    G, C, P = s["G"], s["C"], s["P"]
    x = anp.reshape(a["x"], (G, (C // G) * P))
    mean = anp.sum(x, axis=1, keepdims=True) * (1.0 / ((C // G) * P))
    d = x - mean
    var = anp.sum(d * d, axis=1, keepdims=True) * (1.0 / ((C // G) * P))
    normed = anp.reshape(d * (1.0 / anp.sqrt(var + EPS)), (C, P))
    return None, {"y": normed * a["gamma"][:, None] + a["beta"][:, None]}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, (s["C"], s["P"])),
        "gamma": rng.uniform(0.5, 1.5, s["C"]),
        "beta": rng.uniform(-0.5, 0.5, s["C"]),
        "y": np.zeros((s["C"], s["P"])),
    }


KERNEL = Kernel(
    key="groupnorm",
    sizes={"small": {"G": 2, "C": 4, "P": 3}, "paper": {"G": 8, "C": 32, "P": 64}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
