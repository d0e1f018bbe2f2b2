"""
A particle-in-cell charge deposit with the triangular-shaped-cloud (second-order
B-spline) weighting, each particle's charge scattered to its three nearest grid
points (Birdsall & Langdon, "Plasma Physics via Computer Simulation", 1991,
section 8.8; Hockney & Eastwood, "Computer Simulation Using Particles", 1988,
section 5-3), followed by the field energy of the deposited density:

    for (p = 0; p < P; p++) {
      s = x[p] / dx;  c = (int)(s + 0.5);
      for (m = 0; m < 3; m++) {
        g = c - 1 + m;  r = s - g;  a = |r|;
        w = a < 0.5 ? 0.75 - r * r : 0.5 * (1.5 - a) * (1.5 - a);
        rho[g] += q[p] * w;
      }
    }
    E = sum over g of rho[g]^2

Grid indices computed from floating-point data (`fptosi`) once per particle,
scatter adds to them from a constant inner loop, the weight a branch (a
select) per grid point. `x` and `q` are differentiated: the energy's gradient
is the deposit's force on each particle.

Sizes: `small` P = 6 particles on G = 8 grid points; `paper` P = 2048 particles
on G = 256 (a nest kernel), `dx = 1`, the particles in `[1, G - 2)`.
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
    P, G = s["P"], s["G"]
    return (
        Param("x", (P,), active=True),
        Param("q", (P,), active=True),
        Param("rho", (G,), active=True, written=True),
    )


def body(s: Sizes) -> str:
    P, G = s["P"], s["G"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %half = arith.constant 0.5 : f64
        %tq = arith.constant 0.75 : f64
        %th = arith.constant 1.5 : f64
        scf.for %p = %c0 to %c$P step %c1 {
          %s = memref.load %x[%p] : $xt
          %qp = memref.load %q[%p] : $xt
          %sh = arith.addf %s, %half : f64
          %ci = arith.fptosi %sh : f64 to i64
          %c = arith.index_cast %ci : i64 to index
          %cm = arith.subi %c, %c1 : index
          scf.for %m = %c0 to %c3 step %c1 {
            %g = arith.addi %cm, %m : index
            %gi = arith.index_cast %g : index to i64
            %gf = arith.sitofp %gi : i64 to f64
            %r = arith.subf %s, %gf : f64
            %a = math.absf %r : f64
            %r2 = arith.mulf %r, %r : f64
            %win = arith.subf %tq, %r2 : f64
            %b = arith.subf %th, %a : f64
            %b2 = arith.mulf %b, %b : f64
            %wout = arith.mulf %half, %b2 : f64
            %near = arith.cmpf olt, %a, %half : f64
            %w = arith.select %near, %win, %wout : f64
            %qw = arith.mulf %qp, %w : f64
            %old = memref.load %rho[%g] : $gt
            %new = arith.addf %old, %qw : f64
            memref.store %new, %rho[%g] : $gt
          }
        }
        %e = scf.for %g = %c0 to %c$G step %c1 iter_args(%acc = %zero) -> (f64) {
          %v = memref.load %rho[%g] : $gt
          %v2 = arith.mulf %v, %v : f64
          %next = arith.addf %acc, %v2 : f64
          scf.yield %next : f64
        }
        return %e : f64
        """,
        consts=index_constants(0, 1, 3, P, G),
        P=P,
        G=G,
        xt=memref((P,)),
        gt=memref((G,)),
    )


def _value(x: Array) -> float:
    """The float behind an autograd box (the cell index is not differentiated)."""
    while hasattr(x, "_value"):
        x = x._value
    return float(x)


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    """The deposit as a sum of one-hot rows (autograd has no in-place add)."""
    G = s["G"]
    contributions = []
    for p in range(s["P"]):
        sp, qp = a["x"][p], a["q"][p]
        c = int(_value(sp) + 0.5)
        for m in range(3):
            g = c - 1 + m
            r = sp - g
            w = 0.75 - r * r if abs(_value(r)) < 0.5 else 0.5 * (1.5 - anp.abs(r)) ** 2
            onehot = np.zeros(G)
            onehot[g] = 1.0
            contributions.append(qp * w * onehot)
    rho = a["rho"] + anp.sum(anp.stack(contributions), axis=0)
    return anp.sum(rho * rho), {"rho": rho}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    P, G = s["P"], s["G"]
    return {
        "x": rng.uniform(1.0, G - 2.0, P),
        "q": rng.uniform(-1.0, 1.0, P) / np.sqrt(P / G),
        "rho": rng.uniform(-0.1, 0.1, G),
    }


KERNEL = Kernel(
    key="pic",
    sizes={"small": {"P": 6, "G": 8}, "paper": {"P": 2048, "G": 256}},
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
)
