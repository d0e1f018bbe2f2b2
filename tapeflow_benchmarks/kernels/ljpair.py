"""
The Lennard-Jones potential energy of `n` particles, `n` an argument known only
at run time, summed over the pairs `j < i` (Allen & Tildesley, *Computer
Simulation of Liquids*, 2nd ed., OUP 2017: the Lennard-Jones pair potential of
chapter 1 and the double loop over pairs of its force routines; reduced units,
sigma = epsilon = 1, no cut-off), each particle's share of its pairs
kept in `e`:

    E = 0;
    for (i = 0; i < n; i++) {
      xi = pos[i][0]; yi = pos[i][1]; zi = pos[i][2]; ei = 0;
      for (j = 0; j < i; j++) {
        d2 = (xi - pos[j][0])^2 + (yi - pos[j][1])^2 + (zi - pos[j][2])^2;
        s6 = 1 / d2^3;
        ei += 4 * (s6 * s6 - s6);
      }
      e[i] = ei; E += ei;
    }

The gradient with respect to the positions is minus the forces. The pair loop's
trip count is the outer index (triangular) under a run-time outer bound, and the
outer body both stores a per-particle value and carries the total.

Sizes: `small` buffers of N = 8 particles, n = 7; `paper` N = n = 64 (a nest
kernel). The particles sit on a cubic lattice of spacing 1.2 with a jitter of at
most 0.1 per coordinate, so every pair is at least 1 apart.
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
        Param("pos", (s["N"], 3), active=True),
        Param("e", (s["N"],), active=True, written=True),
        Param("n", (), trip="n"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %four = arith.constant 4.0 : f64
        %E = scf.for %i = %c0 to %n step %c1 iter_args(%tot = %zero) -> (f64) {
          %xi = memref.load %pos[%i, %c0] : $rt
          %yi = memref.load %pos[%i, %c1] : $rt
          %zi = memref.load %pos[%i, %c2] : $rt
          %ei = scf.for %j = %c0 to %i step %c1 iter_args(%acc = %zero) -> (f64) {
            %xj = memref.load %pos[%j, %c0] : $rt
            %yj = memref.load %pos[%j, %c1] : $rt
            %zj = memref.load %pos[%j, %c2] : $rt
            %dx = arith.subf %xi, %xj : f64
            %dy = arith.subf %yi, %yj : f64
            %dz = arith.subf %zi, %zj : f64
            %dx2 = arith.mulf %dx, %dx : f64
            %dy2 = arith.mulf %dy, %dy : f64
            %dz2 = arith.mulf %dz, %dz : f64
            %dxy = arith.addf %dx2, %dy2 : f64
            %d2 = arith.addf %dxy, %dz2 : f64
            %d4 = arith.mulf %d2, %d2 : f64
            %d6 = arith.mulf %d4, %d2 : f64
            %s6 = arith.divf %one, %d6 : f64
            %s12 = arith.mulf %s6, %s6 : f64
            %diff = arith.subf %s12, %s6 : f64
            %v = arith.mulf %four, %diff : f64
            %next = arith.addf %acc, %v : f64
            scf.yield %next : f64
          }
          memref.store %ei, %e[%i] : $et
          %nt = arith.addf %tot, %ei : f64
          scf.yield %nt : f64
        }
        return %E : f64
        """,
        consts=index_constants(0, 1, 2),
        rt=memref((s["N"], 3)),
        et=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    n, r = s["n"], a["pos"]
    shares = [a["e"][i] * 0.0 for i in range(s["N"])]
    for i in range(n):
        d = r[i] - r[:i]
        d2 = anp.sum(d * d, axis=1)
        s6 = 1.0 / (d2 * d2 * d2)
        shares[i] = anp.sum(4.0 * (s6 * s6 - s6))
    kept = [shares[i] if i < n else a["e"][i] for i in range(s["N"])]
    return sum(shares[:n]), {"e": anp.stack(kept)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    side = int(np.ceil(s["N"] ** (1.0 / 3.0)))
    cells = np.array(np.unravel_index(np.arange(s["N"]), (side, side, side))).T
    return {
        "pos": 1.2 * cells + rng.uniform(-0.1, 0.1, (s["N"], 3)),
        "e": np.zeros(s["N"]),
    }


KERNEL = Kernel(
    key="ljpair",
    sizes={"small": {"N": 8, "n": 7}, "paper": {"N": 64, "n": 64}},
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
)
