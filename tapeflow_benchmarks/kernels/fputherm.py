"""
A Fermi-Pasta-Ulam-Tsingou beta chain (Fermi, Pasta & Ulam, "Studies of
Nonlinear Problems", Los Alamos LA-1940, 1955: unit masses and springs with a
cubic force term, both ends fixed) stepped by a kick and a drift per step
(Stormer-Verlet's leapfrog form, Hairer, Lubich & Wanner, Acta Numerica 2003,
section 1.4), under a Berendsen thermostat (Berendsen et al., J. Chem. Phys. 81,
3684, 1984, equation 34: the velocities rescaled each step by
`lambda = sqrt(1 + (dt / tau) (T0 / T - 1))`, `T` the chain's kinetic temperature):

    for (t = 0; t < T; t++) {
      ke = 0;
      for (i = 1; i < N - 1; i++) {
        dl = u[i] - u[i - 1];  dr = u[i + 1] - u[i];
        f = dr - dl + beta * (dr * dr * dr - dl * dl * dl);
        v[i] += dt * f;                                  // kick
        ke += v[i] * v[i];
      }
      lambda = sqrt(1 + (dt / tau) * (T0 * (N - 2) / ke - 1));
      for (i = 1; i < N - 1; i++) {
        v[i] *= lambda;                                  // thermostat
        u[i] += dt * v[i];                               // drift
      }
    }

A time loop whose body caches its step's kinetic energy and rescaling (the
per-step values) between two inner loops over the chain, both updating buffers
in place (so Enzyme caches what they load and overwrite).

Sizes: `small` T = 2, N = 5; `paper` T = 32, N = 64 (a nest kernel).
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

BETA = 0.5
DT = 0.05
TAU = 0.5
T0 = 0.5
"""The cubic coefficient, the step, the thermostat's time constant and target
kinetic energy per mass (twice the temperature, with unit masses and k_B)."""


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("u", (s["N"],), active=True, written=True),
        Param("v", (s["N"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    N = s["N"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %beta = arith.constant $beta : f64
        %dt = arith.constant $dt : f64
        %rate = arith.constant $rate : f64
        %target = arith.constant $target : f64
        scf.for %t = %c0 to %c$T step %c1 {
          %ke = scf.for %i = %c1 to %c$last step %c1 iter_args(%acc = %zero) -> (f64) {
            %im = arith.subi %i, %c1 : index
            %ip = arith.addi %i, %c1 : index
            %ul = memref.load %u[%im] : $vt
            %uc = memref.load %u[%i] : $vt
            %ur = memref.load %u[%ip] : $vt
            %dl = arith.subf %uc, %ul : f64
            %dr = arith.subf %ur, %uc : f64
            %lin = arith.subf %dr, %dl : f64
            %dr2 = arith.mulf %dr, %dr : f64
            %dr3 = arith.mulf %dr2, %dr : f64
            %dl2 = arith.mulf %dl, %dl : f64
            %dl3 = arith.mulf %dl2, %dl : f64
            %cub = arith.subf %dr3, %dl3 : f64
            %bc = arith.mulf %beta, %cub : f64
            %f = arith.addf %lin, %bc : f64
            %kick = arith.mulf %dt, %f : f64
            %vo = memref.load %v[%i] : $vt
            %vn = arith.addf %vo, %kick : f64
            memref.store %vn, %v[%i] : $vt
            %v2 = arith.mulf %vn, %vn : f64
            %next = arith.addf %acc, %v2 : f64
            scf.yield %next : f64
          }
          %ratio = arith.divf %target, %ke : f64
          %dev = arith.subf %ratio, %one : f64
          %rd = arith.mulf %rate, %dev : f64
          %sq = arith.addf %one, %rd : f64
          %lam = math.sqrt %sq : f64
          scf.for %i = %c1 to %c$last step %c1 {
            %vo = memref.load %v[%i] : $vt
            %vs = arith.mulf %vo, %lam : f64
            memref.store %vs, %v[%i] : $vt
            %uo = memref.load %u[%i] : $vt
            %du = arith.mulf %dt, %vs : f64
            %un = arith.addf %uo, %du : f64
            memref.store %un, %u[%i] : $vt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["T"], N - 1),
        T=s["T"],
        last=N - 1,
        beta=f64(BETA),
        dt=f64(DT),
        rate=f64(DT / TAU),
        target=f64(T0 * (N - 2)),
        vt=memref((N,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The ends of `u` and `v` are kept."""
    N = s["N"]
    u, v = a["u"], a["v"]
    for _ in range(s["T"]):
        dl = u[1:-1] - u[:-2]
        dr = u[2:] - u[1:-1]
        f = (dr - dl) + BETA * (dr * dr * dr - dl * dl * dl)
        vi = v[1:-1] + DT * f
        ke = anp.sum(vi * vi)
        lam = anp.sqrt(1.0 + (DT / TAU) * (T0 * (N - 2) / ke - 1.0))
        vi = vi * lam
        ui = u[1:-1] + DT * vi
        v = anp.concatenate([v[:1], vi, v[-1:]])
        u = anp.concatenate([u[:1], ui, u[-1:]])
    return None, {"u": u, "v": v}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Displacements in [-0.5, 0.5] and velocities in [-1, 1], the ends at rest."""
    u = rng.uniform(-0.5, 0.5, s["N"])
    v = rng.uniform(-1.0, 1.0, s["N"])
    u[0] = u[-1] = v[0] = v[-1] = 0.0
    return {"u": u, "v": v}


KERNEL = Kernel(
    key="fputherm",
    sizes={"small": {"T": 2, "N": 5}, "paper": {"T": 32, "N": 64}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
