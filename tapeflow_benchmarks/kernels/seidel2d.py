"""
Two-dimensional Gauss-Seidel stencil: PolyBench/C 4.2's `stencils/seidel-2d`, in
place, with one activation added:

    for (t = 0; t <= TSTEPS - 1; t++)
      for (i = 1; i <= N - 2; i++)
        for (j = 1; j <= N - 2; j++)
          A[i][j] = tanh((A[i-1][j-1] + A[i-1][j] + A[i-1][j+1]      // tanh added
                          + A[i][j-1] + A[i][j] + A[i][j+1]
                          + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1]) / 9.0);

A time-stepped stencil that overwrites the grid it reads within the sweep: each
point reads neighbours the same sweep has already updated. PolyBench's stencil is
linear; the `tanh` makes every step's gradient need one value per interior point
and step.

Sizes: `small` T = 2, N = 5; `paper` T = 10, N = 24 (a nest kernel).
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

DIVISOR = 9.0
_TAPS = [(di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1)]


def params(s: Sizes) -> tuple[Param, ...]:
    return (Param("A", (s["N"], s["N"]), active=True, written=True),)


def body(s: Sizes) -> str:
    names = {-1: "m", 0: "", 1: "p"}
    loads = []
    for n, (di, dj) in enumerate(_TAPS):
        loads.append(f"%v{n} = memref.load %A[%i{names[di]}, %j{names[dj]}] : $t")
    sums = ["%s1 = arith.addf %v0, %v1 : f64"]
    sums += [f"%s{n} = arith.addf %s{n - 1}, %v{n} : f64" for n in range(2, len(_TAPS))]
    return render(
        """
        $consts
        %divisor = arith.constant $divisor : f64
        scf.for %t = %c0 to %c$T step %c1 {
          scf.for %i = %c1 to %c$last step %c1 {
            %im = arith.subi %i, %c1 : index
            %ip = arith.addi %i, %c1 : index
            scf.for %j = %c1 to %c$last step %c1 {
              %jm = arith.subi %j, %c1 : index
              %jp = arith.addi %j, %c1 : index
              $loads
              $sums
              %w = arith.divf %s$top, %divisor : f64
              %act = math.tanh %w : f64
              memref.store %act, %A[%i, %j] : $t
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["T"], s["N"] - 1),
        T=s["T"],
        last=s["N"] - 1,
        top=len(_TAPS) - 1,
        divisor=f64(DIVISOR),
        loads=render("\n".join(loads), t=memref((s["N"], s["N"]))).strip(),
        sums="\n".join(sums),
        t=memref((s["N"], s["N"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The sweeps point by point, in PolyBench's order (each point sees the
    values the sweep has already written), on a list of rows of scalars."""
    n = s["N"]
    grid = [[a["A"][i, j] for j in range(n)] for i in range(n)]
    for _ in range(s["T"]):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                total = 0.0
                for di, dj in _TAPS:
                    total = total + grid[i + di][j + dj]
                grid[i][j] = anp.tanh(total / DIVISOR)
    return None, {"A": anp.stack([anp.stack(row) for row in grid])}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    n = s["N"]
    return {"A": rng.uniform(-1.0, 1.0, (n, n))}


KERNEL = Kernel(
    key="seidel2d",
    sizes={"small": {"T": 2, "N": 5}, "paper": {"T": 10, "N": 24}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
