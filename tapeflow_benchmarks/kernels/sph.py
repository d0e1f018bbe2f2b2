"""
The density summation of smoothed particle hydrodynamics (Monaghan, "Smoothed
particle hydrodynamics", Annu. Rev. Astron. Astrophys. 30, 1992, eq. 2.4:
`rho_i = sum_j m_j W(r_ij, h)`) with the cubic spline kernel in three dimensions
(ibid., eq. 2.6 with `sigma = 1 / (pi h^3)`) over `n` particles, `n` an argument
known only at run time, every pair including `j = i`; the distance softened by
`eta^2 = 0.01 h^2` (the softening of Monaghan's artificial viscosity, ibid. eq.
4.2) so that its square root is differentiable at 0:

    for (i = 0; i < n; i++) {
      rho = 0;
      for (j = 0; j < n; j++) {
        r2 = 0;
        for (k = 0; k < 3; k++) { d = x[i][k] - x[j][k]; r2 += d * d; }
        q = sqrt(r2 + eta2) / h;
        w = q < 1 ? 1 - 1.5 q^2 + 0.75 q^3 : q < 2 ? 0.25 (2 - q)^3 : 0;
        rho += m[j] * w;
      }
      dens[i] = sigma * rho;
    }

Two run-time loops, the inner one over all particles, under them a loop of 3
trips (the coordinates), the kernel's branches as selects; each pair caches the
square root's and the polynomials' operands beside the short loop's tape, and
each particle one value after the inner loop.

Sizes: `small` buffers of NB = 5 particles, n = 4, h = 1; `paper` NB = n = 48
(a nest kernel).
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

H = 1.0
ETA2 = 0.01 * H * H
SIGMA = 1.0 / (np.pi * H**3)


def params(s: Sizes) -> tuple[Param, ...]:
    nb = s["NB"]
    return (
        Param("x", (nb, 3), active=True),
        Param("m", (nb,), active=True),
        Param("dens", (nb,), active=True, written=True),
        Param("n", (), trip="n"),
    )


def body(s: Sizes) -> str:
    nb = s["NB"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %two = arith.constant 2.0 : f64
        %a2 = arith.constant 1.5 : f64
        %a3 = arith.constant 0.75 : f64
        %b3 = arith.constant 0.25 : f64
        %eta2 = arith.constant $eta2 : f64
        %invh = arith.constant $invh : f64
        %sigma = arith.constant $sigma : f64
        scf.for %i = %c0 to %n step %c1 {
          %rho = scf.for %j = %c0 to %n step %c1 iter_args(%racc = %zero) -> (f64) {
            %r2 = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
              %xi = memref.load %x[%i, %k] : $xt
              %xj = memref.load %x[%j, %k] : $xt
              %d = arith.subf %xi, %xj : f64
              %dd = arith.mulf %d, %d : f64
              %next = arith.addf %acc, %dd : f64
              scf.yield %next : f64
            }
            %soft = arith.addf %r2, %eta2 : f64
            %r = math.sqrt %soft : f64
            %q = arith.mulf %r, %invh : f64
            %qq = arith.mulf %q, %q : f64
            %qqq = arith.mulf %qq, %q : f64
            %t2 = arith.mulf %a2, %qq : f64
            %t3 = arith.mulf %a3, %qqq : f64
            %w1a = arith.subf %one, %t2 : f64
            %w1 = arith.addf %w1a, %t3 : f64
            %tq = arith.subf %two, %q : f64
            %tq2 = arith.mulf %tq, %tq : f64
            %tq3 = arith.mulf %tq2, %tq : f64
            %w2 = arith.mulf %b3, %tq3 : f64
            %near = arith.cmpf olt, %q, %one : f64
            %inside = arith.cmpf olt, %q, %two : f64
            %outer = arith.select %inside, %w2, %zero : f64
            %w = arith.select %near, %w1, %outer : f64
            %mj = memref.load %m[%j] : $mt
            %mw = arith.mulf %mj, %w : f64
            %rnext = arith.addf %racc, %mw : f64
            scf.yield %rnext : f64
          }
          %di = arith.mulf %sigma, %rho : f64
          memref.store %di, %dens[%i] : $mt
        }
        return
        """,
        consts=index_constants(0, 1, 3),
        eta2=f64(ETA2),
        invh=f64(1.0 / H),
        sigma=f64(SIGMA),
        xt=memref((nb, 3)),
        mt=memref((nb,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The pairwise kernel on the first n particles; the densities past them kept."""
    n = s["n"]
    x = a["x"][:n]
    d = x[:, None, :] - x[None, :, :]
    q = anp.sqrt(anp.sum(d * d, axis=2) + ETA2) / H
    w1 = 1.0 - 1.5 * q**2 + 0.75 * q**3
    w2 = 0.25 * (2.0 - q) ** 3
    w = anp.where(q < 1.0, w1, anp.where(q < 2.0, w2, 0.0))
    dens = SIGMA * anp.dot(w, a["m"][:n])
    return None, {"dens": anp.concatenate([dens, a["dens"][n:]])}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Particles in a cube of side 3 h, so pairs fall in all three branches."""
    nb = s["NB"]
    return {
        "x": rng.uniform(0.0, 3.0 * H, (nb, 3)),
        "m": rng.uniform(0.5, 1.5, (nb,)),
        "dens": rng.uniform(-1.0, 1.0, (nb,)),
    }


KERNEL = Kernel(
    key="sph",
    sizes={"small": {"NB": 5, "n": 4}, "paper": {"NB": 48, "n": 48}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
