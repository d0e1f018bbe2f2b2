"""
The sine-Gordon equation `u_tt = u_xx - sin(u)` in one dimension (Drazin &
Johnson, *Solitons: an Introduction*, CUP 1989, chapter 1) by the explicit
leapfrog scheme (second-order central differences in time and space: LeVeque,
*Finite Difference Methods for Ordinary and Partial Differential Equations*,
SIAM 2007, section 10.14), over `T` steps, `T` an argument known only at run
time, the end points held at their values (Dirichlet) and the three time levels
in rolling buffers, as a C program keeps them:

    for (t = 0; t < T; t++) {
      for (i = 1; i < N - 1; i++)
        un[i] = 2 uc[i] - up[i] + c (uc[i + 1] - 2 uc[i] + uc[i - 1]) - k sin(uc[i]);
      for (i = 1; i < N - 1; i++) { up[i] = uc[i]; uc[i] = un[i]; }
    }

with `c = (dt / dx)^2` and `k = dt^2` (dt = 0.1, dx = 0.2: c = 0.25, within the
scheme's stability bound of 1). A time loop of run-time trip count whose body is
two inner loops, the second a copy that overwrites what the first read, so every
state the sine's derivative needs exists only on the tape.

Sizes: `small` N = 6, T = 3; `paper` N = 130, T = 40 (a nest kernel).
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

DT, DX = 0.1, 0.2
C, K = (DT / DX) ** 2, DT**2
"""(dt / dx)^2 and dt^2."""


def params(s: Sizes) -> tuple[Param, ...]:
    n = s["N"]
    return (
        Param("up", (n,), active=True, written=True),
        Param("uc", (n,), active=True, written=True),
        Param("un", (n,), active=True, written=True),
        Param("T", (), trip="T"),
    )


def body(s: Sizes) -> str:
    n = s["N"]
    return render(
        """
        $consts
        %c = arith.constant $c : f64
        %k = arith.constant $k : f64
        %two = arith.constant 2.0 : f64
        scf.for %t = %c0 to %T step %c1 {
          scf.for %i = %c1 to %c$last step %c1 {
            %il = arith.subi %i, %c1 : index
            %ir = arith.addi %i, %c1 : index
            %u = memref.load %uc[%i] : $vt
            %l = memref.load %uc[%il] : $vt
            %r = memref.load %uc[%ir] : $vt
            %p = memref.load %up[%i] : $vt
            %u2 = arith.mulf %two, %u : f64
            %rl = arith.addf %r, %l : f64
            %lap = arith.subf %rl, %u2 : f64
            %clap = arith.mulf %c, %lap : f64
            %sn = math.sin %u : f64
            %ksn = arith.mulf %k, %sn : f64
            %lead = arith.subf %u2, %p : f64
            %wave = arith.addf %lead, %clap : f64
            %new = arith.subf %wave, %ksn : f64
            memref.store %new, %un[%i] : $vt
          }
          scf.for %i = %c1 to %c$last step %c1 {
            %u = memref.load %uc[%i] : $vt
            memref.store %u, %up[%i] : $vt
            %v = memref.load %un[%i] : $vt
            memref.store %v, %uc[%i] : $vt
          }
        }
        return
        """,
        consts=index_constants(0, 1, n - 1),
        last=n - 1,
        c=f64(C),
        k=f64(K),
        vt=memref((n,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The scheme on whole interiors; the end points of every buffer kept."""
    up, uc, un = a["up"], a["uc"], a["un"]
    for _ in range(s["T"]):
        inner = (
            2.0 * uc[1:-1]
            - up[1:-1]
            + C * (uc[2:] - 2.0 * uc[1:-1] + uc[:-2])
            - K * anp.sin(uc[1:-1])
        )
        un = anp.concatenate([un[:1], inner, un[-1:]])
        up = anp.concatenate([up[:1], uc[1:-1], up[-1:]])
        uc = anp.concatenate([uc[:1], inner, uc[-1:]])
    return None, {"up": up, "uc": uc, "un": un}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A kink (from 0 to 2 pi) plus noise, its previous level
    slightly shifted (a moving wave)."""
    x = np.linspace(-3.0, 3.0, s["N"])
    uc = 4.0 * np.arctan(np.exp(x)) + rng.uniform(-0.1, 0.1, s["N"])
    return {
        "up": 4.0 * np.arctan(np.exp(x + 0.05)) + rng.uniform(-0.1, 0.1, s["N"]),
        "uc": uc,
        "un": rng.uniform(-1.0, 1.0, s["N"]),
    }


KERNEL = Kernel(
    key="sinegordon",
    sizes={"small": {"N": 6, "T": 3}, "paper": {"N": 130, "T": 40}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
