"""
A banded matrix-vector product followed by an activation, the band's widths and
the order known only at run time: LAPACK's general band storage (`dgbmv`, the
band of `A` kept row by row in `KL + KU + 1` columns, Anderson et al., "LAPACK
Users' Guide", 3rd ed., SIAM 1999, section 5.3.3; Golub & Van Loan, "Matrix
Computations", 4th ed., 2013, Algorithm 1.2.1), each row's sum through `tanh`
and scaled by a per-row gain:

    for (i = 0; i < N; i++) {
      lo = max(0, i - KL);  hi = min(N, i + KU + 1);  s = 0;
      for (j = lo; j < hi; j++) s += B[i][j - i + KL] * x[j] * x[j];
      t = tanh(s);
      y[i] = t * g[i];
    }

A clamped band whose widths are arguments (`KL`, `KU`): unlike a window of
constant half-width, no constant bounds the inner loop's trip count; the outer
trip count is an argument too (`N`, the buffers of dynamic shape), and the row's
activation is cached beside the inner loop's tape. The squared `x[j]` (a
quadratic form's diagonal weighting) makes the inner loop's products need their
operands in REV.

Sizes: `small` N = 6, KL = 1, KU = 2; `paper` N = 1024, KL = 6, KU = 9 (a nest
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
    render,
)


def params(s: Sizes) -> tuple[Param, ...]:
    n, w = s["N"], s["KL"] + s["KU"] + 1
    return (
        Param("B", (n, w), active=True, dynamic=True),
        Param("x", (n,), active=True, dynamic=True),
        Param("g", (n,), active=True, dynamic=True),
        Param("y", (n,), active=True, written=True, dynamic=True),
        Param("N", (), trip="N"),
        Param("KL", (), trip="KL"),
        Param("KU", (), trip="KU"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %i = %c0 to %N step %c1 {
          %im = arith.subi %i, %KL : index
          %lo = arith.maxsi %im, %c0 : index
          %iu = arith.addi %i, %KU : index
          %ip = arith.addi %iu, %c1 : index
          %hi = arith.minsi %ip, %N : index
          %off = arith.subi %KL, %i : index
          %s = scf.for %j = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
            %jb = arith.addi %j, %off : index
            %b = memref.load %B[%i, %jb] : memref<?x?xf64>
            %xj = memref.load %x[%j] : memref<?xf64>
            %bx = arith.mulf %b, %xj : f64
            %bxx = arith.mulf %bx, %xj : f64
            %next = arith.addf %acc, %bxx : f64
            scf.yield %next : f64
          }
          %t = math.tanh %s : f64
          %gi = memref.load %g[%i] : memref<?xf64>
          %yi = arith.mulf %t, %gi : f64
          memref.store %yi, %y[%i] : memref<?xf64>
        }
        return
        """,
        consts=index_constants(0, 1),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    n, kl, ku = s["N"], s["KL"], s["KU"]
    rows = []
    for i in range(n):
        lo, hi = max(0, i - kl), min(n, i + ku + 1)
        xs = a["x"][lo:hi]
        rows.append(anp.sum(a["B"][i, lo - i + kl : hi - i + kl] * xs * xs))
    return None, {"y": anp.tanh(anp.stack(rows)) * a["g"]}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    n, w = s["N"], s["KL"] + s["KU"] + 1
    return {
        "B": rng.uniform(-1.0, 1.0, (n, w)) / np.sqrt(w),
        "x": rng.uniform(-1.0, 1.0, n),
        "g": rng.uniform(0.5, 1.5, n),
        "y": np.zeros(n),
    }


KERNEL = Kernel(
    key="bandmv",
    sizes={
        "small": {"N": 6, "KL": 1, "KU": 2},
        "paper": {"N": 1024, "KL": 6, "KU": 9},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
