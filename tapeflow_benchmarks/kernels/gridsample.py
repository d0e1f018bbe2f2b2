"""
Bilinear grid sampling, the sampler of a spatial transformer (Jaderberg et al.,
"Spatial Transformer Networks", NeurIPS 2015, equation 5; PyTorch's
`torch.nn.functional.grid_sample` with `mode="bilinear"`, `align_corners=True`,
the grid in pixel units), differentiated with respect to both the image and the
sampling grid:

    for (p = 0; p < Q; p++) {
      gx = grid[p][0];  gy = grid[p][1];
      x0 = min((int)gx, W - 2);  y0 = min((int)gy, H - 2);
      wx = gx - x0;  wy = gy - y0;
      for (c = 0; c < C; c++)
        out[c][p] = (1-wx)(1-wy) U[c][y0][x0] + wx (1-wy) U[c][y0][x0+1]
                  + (1-wx) wy U[c][y0+1][x0] + wx wy U[c][y0+1][x0+1];
    }

Gather indices computed from floating-point data (`fptosi`, clamped) once per
sample point, the four bilinear weights made once per point and cached beside a
constant inner loop over the channels, whose four gathered pixels the grid's
gradient needs in REV.

Sizes: `small` Q = 4 points, C = 2 channels of H = W = 4; `paper` Q = 768
points, C = 8 channels of H = W = 32 (a nest kernel). The points lie in
`[0, W - 1] x [0, H - 1]`.
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
    Q, C, H, W = s["Q"], s["C"], s["H"], s["W"]
    return (
        Param("U", (C, H, W), active=True),
        Param("grid", (Q, 2), active=True),
        Param("out", (C, Q), active=True, written=True),
    )


def body(s: Sizes) -> str:
    Q, C, H, W = s["Q"], s["C"], s["H"], s["W"]
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        scf.for %p = %c0 to %c$Q step %c1 {
          %gx = memref.load %grid[%p, %c0] : $gt
          %gy = memref.load %grid[%p, %c1] : $gt
          %xi = arith.fptosi %gx : f64 to i64
          %yi = arith.fptosi %gy : f64 to i64
          %xr = arith.index_cast %xi : i64 to index
          %yr = arith.index_cast %yi : i64 to index
          %x0 = arith.minsi %xr, %c$W2 : index
          %y0 = arith.minsi %yr, %c$H2 : index
          %x1 = arith.addi %x0, %c1 : index
          %y1 = arith.addi %y0, %c1 : index
          %x0i = arith.index_cast %x0 : index to i64
          %y0i = arith.index_cast %y0 : index to i64
          %x0f = arith.sitofp %x0i : i64 to f64
          %y0f = arith.sitofp %y0i : i64 to f64
          %wx = arith.subf %gx, %x0f : f64
          %wy = arith.subf %gy, %y0f : f64
          %vx = arith.subf %one, %wx : f64
          %vy = arith.subf %one, %wy : f64
          %w00 = arith.mulf %vx, %vy : f64
          %w01 = arith.mulf %wx, %vy : f64
          %w10 = arith.mulf %vx, %wy : f64
          %w11 = arith.mulf %wx, %wy : f64
          scf.for %c = %c0 to %c$C step %c1 {
            %u00 = memref.load %U[%c, %y0, %x0] : $ut
            %u01 = memref.load %U[%c, %y0, %x1] : $ut
            %u10 = memref.load %U[%c, %y1, %x0] : $ut
            %u11 = memref.load %U[%c, %y1, %x1] : $ut
            %a = arith.mulf %w00, %u00 : f64
            %b = arith.mulf %w01, %u01 : f64
            %d = arith.mulf %w10, %u10 : f64
            %e = arith.mulf %w11, %u11 : f64
            %ab = arith.addf %a, %b : f64
            %de = arith.addf %d, %e : f64
            %v = arith.addf %ab, %de : f64
            memref.store %v, %out[%c, %p] : $ot
          }
        }
        return
        """,
        consts=index_constants(0, 1, Q, C, W - 2, H - 2),
        Q=Q,
        C=C,
        W2=W - 2,
        H2=H - 2,
        gt=memref((Q, 2)),
        ut=memref((C, H, W)),
        ot=memref((C, Q)),
    )


def _value(x: Array) -> float:
    """The float behind an autograd box (the gather index is not differentiated)."""
    while hasattr(x, "_value"):
        x = x._value
    return float(x)


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    H, W = s["H"], s["W"]
    U, grid = a["U"], a["grid"]
    columns = []
    for p in range(s["Q"]):
        gx, gy = grid[p, 0], grid[p, 1]
        x0 = min(int(_value(gx)), W - 2)
        y0 = min(int(_value(gy)), H - 2)
        wx, wy = gx - x0, gy - y0
        columns.append(
            (1 - wx) * (1 - wy) * U[:, y0, x0]
            + wx * (1 - wy) * U[:, y0, x0 + 1]
            + (1 - wx) * wy * U[:, y0 + 1, x0]
            + wx * wy * U[:, y0 + 1, x0 + 1]
        )
    return None, {"out": anp.stack(columns, axis=1)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    Q, C, H, W = s["Q"], s["C"], s["H"], s["W"]
    grid = np.stack([rng.uniform(0.0, W - 1.0, Q), rng.uniform(0.0, H - 1.0, Q)], axis=1)
    return {
        "U": rng.uniform(-1.0, 1.0, (C, H, W)),
        "grid": grid,
        "out": np.zeros((C, Q)),
    }


KERNEL = Kernel(
    key="gridsample",
    sizes={
        "small": {"Q": 4, "C": 2, "H": 4, "W": 4},
        "paper": {"Q": 768, "C": 8, "H": 32, "W": 32},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
