"""
PolyBench/C 4.2's `mvt` (matrix-vector product and transpose), verbatim:

    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
        x1[i] = x1[i] + A[i][j] * y_1[j];
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
        x2[i] = x2[i] + A[j][i] * y_2[j];

Two constant nests in sequence over the same matrix, the second walking it by
columns; each accumulates into memory (`x1[i]`, `x2[i]` loaded and stored every
trip, as the C code does), not into a register.

Sizes: `small` N = 4; `paper` N = 80 (a nest kernel; PolyBench's SMALL is 120).
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
    N = s["N"]
    return (
        Param("x1", (N,), active=True, written=True),
        Param("x2", (N,), active=True, written=True),
        Param("y_1", (N,), active=True),
        Param("y_2", (N,), active=True),
        Param("A", (N, N), active=True),
    )


def body(s: Sizes) -> str:
    N = s["N"]
    return render(
        """
        $consts
        scf.for %i = %c0 to %c$N step %c1 {
          scf.for %j = %c0 to %c$N step %c1 {
            %x = memref.load %x1[%i] : $vt
            %a = memref.load %A[%i, %j] : $at
            %y = memref.load %y_1[%j] : $vt
            %m = arith.mulf %a, %y : f64
            %s = arith.addf %x, %m : f64
            memref.store %s, %x1[%i] : $vt
          }
        }
        scf.for %i = %c0 to %c$N step %c1 {
          scf.for %j = %c0 to %c$N step %c1 {
            %x = memref.load %x2[%i] : $vt
            %a = memref.load %A[%j, %i] : $at
            %y = memref.load %y_2[%j] : $vt
            %m = arith.mulf %a, %y : f64
            %s = arith.addf %x, %m : f64
            memref.store %s, %x2[%i] : $vt
          }
        }
        return
        """,
        consts=index_constants(0, 1, N),
        N=N,
        vt=memref((N,)),
        at=memref((N, N)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    A = a["A"]
    return None, {
        "x1": a["x1"] + anp.dot(A, a["y_1"]),
        "x2": a["x2"] + anp.dot(A.T, a["y_2"]),
    }


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    N = s["N"]
    return {
        "x1": rng.uniform(-1.0, 1.0, N),
        "x2": rng.uniform(-1.0, 1.0, N),
        "y_1": rng.uniform(-1.0, 1.0, N),
        "y_2": rng.uniform(-1.0, 1.0, N),
        "A": rng.uniform(-1.0, 1.0, (N, N)) / N,
    }


KERNEL = Kernel(
    key="mvt",
    sizes={"small": {"N": 4}, "paper": {"N": 80}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
