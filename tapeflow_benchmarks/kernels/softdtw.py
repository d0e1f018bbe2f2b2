"""
Soft dynamic time warping between two series (Cuturi & Blondel, "Soft-DTW: a
Differentiable Loss Function for Time-Series", ICML 2017, Algorithm 1, squared
differences as the cost) within a Sakoe-Chiba band of radius W (Sakoe & Chiba,
"Dynamic programming algorithm optimization for spoken word recognition", IEEE
Trans. ASSP 26, 1978): the dynamic program over the cells `|i - j| <= W` only,

    for (i = 1; i <= N; i++)
      for (j = max(1, i - W); j <= min(N, i + W); j++)
        R[i][j] = (x[i-1] - y[j-1])^2
                  - g * log(exp(-R[i-1][j-1] / g) + exp(-R[i-1][j] / g) + exp(-R[i][j-1] / g));

The inner loop's bounds are the outer index clamped by `max` and `min`: a band
whose trip count changes near the ends of the series. The cells outside the band
keep the large values the caller gave them (the DP's infinities), R[0][0] = 0.

Sizes: `small` N = 6, W = 2; `paper` N = 96, W = 12 (a nest kernel).
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

GAMMA = 1.0
"""The smoothing parameter (the soft minimum's temperature)."""
FAR = 50.0
"""What the caller puts in the cells outside the band (`exp(-50)` is 2e-22)."""


def params(s: Sizes) -> tuple[Param, ...]:
    N = s["N"]
    return (
        Param("x", (N,), active=True),
        Param("y", (N,), active=True),
        Param("R", (N + 1, N + 1), active=True, written=True),
    )


def body(s: Sizes) -> str:
    N, W = s["N"], s["W"]
    return render(
        """
        $consts
        %neg = arith.constant $neg : f64
        %g = arith.constant $g : f64
        scf.for %i = %c1 to %c$N1 step %c1 {
          %im = arith.subi %i, %c1 : index
          %from = arith.subi %i, %c$W : index
          %lo = arith.maxsi %from, %c1 : index
          %to = arith.addi %i, %c$W1 : index
          %hi = arith.minsi %to, %c$N1 : index
          %xv = memref.load %x[%im] : $xt
          scf.for %j = %lo to %hi step %c1 {
            %jm = arith.subi %j, %c1 : index
            %yv = memref.load %y[%jm] : $xt
            %diff = arith.subf %xv, %yv : f64
            %cost = arith.mulf %diff, %diff : f64
            %a = memref.load %R[%im, %jm] : $rt
            %b = memref.load %R[%im, %j] : $rt
            %c = memref.load %R[%i, %jm] : $rt
            %na = arith.mulf %a, %neg : f64
            %nb = arith.mulf %b, %neg : f64
            %nc = arith.mulf %c, %neg : f64
            %ea = math.exp %na : f64
            %eb = math.exp %nb : f64
            %ec = math.exp %nc : f64
            %sab = arith.addf %ea, %eb : f64
            %z = arith.addf %sab, %ec : f64
            %lz = math.log %z : f64
            %soft = arith.mulf %g, %lz : f64
            %r = arith.subf %cost, %soft : f64
            memref.store %r, %R[%i, %j] : $rt
          }
        }
        return
        """,
        consts=index_constants(0, 1, W, W + 1, N + 1),
        N1=N + 1,
        W=W,
        W1=W + 1,
        neg=f64(-1.0 / GAMMA),
        g=f64(GAMMA),
        xt=memref((N,)),
        rt=memref((N + 1, N + 1)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    N, W = s["N"], s["W"]
    x, y, R = a["x"], a["y"], a["R"]
    cells = [[R[i, j] for j in range(N + 1)] for i in range(N + 1)]
    for i in range(1, N + 1):
        for j in range(max(1, i - W), min(N, i + W) + 1):
            z = (
                anp.exp(-cells[i - 1][j - 1] / GAMMA)
                + anp.exp(-cells[i - 1][j] / GAMMA)
                + anp.exp(-cells[i][j - 1] / GAMMA)
            )
            cells[i][j] = (x[i - 1] - y[j - 1]) ** 2 - GAMMA * anp.log(z)
    return None, {"R": anp.stack([anp.stack(row) for row in cells])}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    N = s["N"]
    R = np.full((N + 1, N + 1), FAR)
    R[0, 0] = 0.0
    t = np.linspace(0.0, 3.0, N)
    return {
        "x": np.sin(t) + 0.1 * rng.uniform(-1.0, 1.0, N),
        "y": np.sin(t + 0.3) + 0.1 * rng.uniform(-1.0, 1.0, N),
        "R": R,
    }


KERNEL = Kernel(
    key="softdtw",
    sizes={"small": {"N": 6, "W": 2}, "paper": {"N": 96, "W": 12}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
