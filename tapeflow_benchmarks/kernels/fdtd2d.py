"""
Two-dimensional finite-difference time domain: PolyBench/C 4.2's
`stencils/fdtd-2d` (Yee's scheme for the transverse-electric mode: fields `ex`,
`ey` and `hz` on staggered grids, a source `fict` on the first row of `ey`), with
one activation added to the magnetic field's update:

    for (t = 0; t < TMAX; t++) {
      for (j = 0; j < NY; j++) ey[0][j] = fict[t];
      for (i = 1; i < NX; i++)
        for (j = 0; j < NY; j++) ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i-1][j]);
      for (i = 0; i < NX; i++)
        for (j = 1; j < NY; j++) ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j-1]);
      for (i = 0; i < NX - 1; i++)
        for (j = 0; j < NY - 1; j++)
          hz[i][j] = tanh(hz[i][j] - 0.7 * (ex[i][j+1] - ex[i][j]      // tanh added
                                            + ey[i+1][j] - ey[i][j]));
    }

Each time step holds one loop and three two-level nests, each updating one of
three arrays in place from the others. PolyBench's scheme is linear (its gradient
needs no value of the computation); the `tanh` makes every step's gradient need
the magnetic update's arguments, one per point of `hz` and step.

Sizes: `small` TMAX = 2, NX = 4, NY = 5; `paper` TMAX = 16, NX = NY = 24 (a nest
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
    memref,
    render,
)


def params(s: Sizes) -> tuple[Param, ...]:
    grid = (s["NX"], s["NY"])
    return (
        Param("ex", grid, active=True, written=True),
        Param("ey", grid, active=True, written=True),
        Param("hz", grid, active=True, written=True),
        Param("fict", (s["TMAX"],), active=True),
    )


def body(s: Sizes) -> str:
    nx, ny = s["NX"], s["NY"]
    return render(
        """
        $consts
        %half = arith.constant 0.5 : f64
        %c07 = arith.constant 0.7 : f64
        scf.for %t = %c0 to %c$TMAX step %c1 {
          %src = memref.load %fict[%t] : $ft
          scf.for %j = %c0 to %c$NY step %c1 {
            memref.store %src, %ey[%c0, %j] : $gt
          }
          scf.for %i = %c1 to %c$NX step %c1 {
            %im = arith.subi %i, %c1 : index
            scf.for %j = %c0 to %c$NY step %c1 {
              %e = memref.load %ey[%i, %j] : $gt
              %h = memref.load %hz[%i, %j] : $gt
              %hm = memref.load %hz[%im, %j] : $gt
              %dh = arith.subf %h, %hm : f64
              %w = arith.mulf %half, %dh : f64
              %new = arith.subf %e, %w : f64
              memref.store %new, %ey[%i, %j] : $gt
            }
          }
          scf.for %i = %c0 to %c$NX step %c1 {
            scf.for %j = %c1 to %c$NY step %c1 {
              %jm = arith.subi %j, %c1 : index
              %e = memref.load %ex[%i, %j] : $gt
              %h = memref.load %hz[%i, %j] : $gt
              %hm = memref.load %hz[%i, %jm] : $gt
              %dh = arith.subf %h, %hm : f64
              %w = arith.mulf %half, %dh : f64
              %new = arith.subf %e, %w : f64
              memref.store %new, %ex[%i, %j] : $gt
            }
          }
          scf.for %i = %c0 to %c$NXM step %c1 {
            %ip = arith.addi %i, %c1 : index
            scf.for %j = %c0 to %c$NYM step %c1 {
              %jp = arith.addi %j, %c1 : index
              %h = memref.load %hz[%i, %j] : $gt
              %xr = memref.load %ex[%i, %jp] : $gt
              %x0 = memref.load %ex[%i, %j] : $gt
              %yd = memref.load %ey[%ip, %j] : $gt
              %y0 = memref.load %ey[%i, %j] : $gt
              %dx = arith.subf %xr, %x0 : f64
              %s1 = arith.addf %dx, %yd : f64
              %curl = arith.subf %s1, %y0 : f64
              %w = arith.mulf %c07, %curl : f64
              %arg = arith.subf %h, %w : f64
              %new = math.tanh %arg : f64
              memref.store %new, %hz[%i, %j] : $gt
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["TMAX"], nx, ny, nx - 1, ny - 1),
        TMAX=s["TMAX"],
        NX=nx,
        NY=ny,
        NXM=nx - 1,
        NYM=ny - 1,
        ft=memref((s["TMAX"],)),
        gt=memref((nx, ny)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """PolyBench's sweeps on whole slices: row 0 of `ey` from the source, the rest
    of `ey` and all but column 0 of `ex` from `hz`'s differences, then `hz` but its
    last row and column from the new `ex` and `ey`."""
    ex, ey, hz, fict = a["ex"], a["ey"], a["hz"], a["fict"]
    ny = s["NY"]
    for t in range(s["TMAX"]):
        first = fict[t] * anp.ones((1, ny))
        ey = anp.concatenate([first, ey[1:] - 0.5 * (hz[1:] - hz[:-1])], axis=0)
        ex = anp.concatenate([ex[:, :1], ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])], axis=1)
        curl = ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1]
        inner = anp.tanh(hz[:-1, :-1] - 0.7 * curl)
        top = anp.concatenate([inner, hz[:-1, -1:]], axis=1)
        hz = anp.concatenate([top, hz[-1:]], axis=0)
    return None, {"ex": ex, "ey": ey, "hz": hz}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    grid = (s["NX"], s["NY"])
    return {
        "ex": rng.uniform(-1.0, 1.0, grid),
        "ey": rng.uniform(-1.0, 1.0, grid),
        "hz": rng.uniform(-1.0, 1.0, grid),
        "fict": rng.uniform(-1.0, 1.0, (s["TMAX"],)),
    }


KERNEL = Kernel(
    key="fdtd2d",
    sizes={
        "small": {"TMAX": 2, "NX": 4, "NY": 5},
        "paper": {"TMAX": 16, "NX": 24, "NY": 24},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
