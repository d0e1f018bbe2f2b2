"""
Row softmax, as `torch.softmax(x, dim=1)` computes it for each row of a matrix
(without the max subtraction, on inputs in [-1, 1)):

    for (r = 0; r < R; r++) {
      s = 0;
      for (j = 0; j < C; j++) s += exp(x[r][j]);
      inv = 1 / s;
      for (j = 0; j < C; j++) y[r][j] = exp(x[r][j]) * inv;
    }

Two inner loops and a per-row value (`s`) in one outer loop.

Sizes: `small` R = 4, C = 6; `paper` R = 64, C = 64 (an extra kernel).
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
        Param("x", (s["R"], s["C"]), active=True),
        Param("y", (s["R"], s["C"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        scf.for %r = %c0 to %c$R step %c1 {
          %s = scf.for %j = %c0 to %c$C step %c1 iter_args(%acc = %zero) -> (f64) {
            %xv = memref.load %x[%r, %j] : $t
            %e = math.exp %xv : f64
            %next = arith.addf %acc, %e : f64
            scf.yield %next : f64
          }
          %inv = arith.divf %one, %s : f64
          scf.for %j = %c0 to %c$C step %c1 {
            %xv = memref.load %x[%r, %j] : $t
            %e = math.exp %xv : f64
            %v = arith.mulf %e, %inv : f64
            memref.store %v, %y[%r, %j] : $t
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["R"], s["C"]),
        R=s["R"],
        C=s["C"],
        t=memref((s["R"], s["C"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    e = anp.exp(a["x"])
    return None, {"y": e / anp.sum(e, axis=1, keepdims=True)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, (s["R"], s["C"])),
        "y": np.zeros((s["R"], s["C"])),
    }


KERNEL = Kernel(
    key="softmax",
    sizes={"small": {"R": 4, "C": 6}, "paper": {"R": 64, "C": 64}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
