"""
A bank of scalar Kalman filters (Welch & Bishop, "An Introduction to the Kalman
Filter", UNC-Chapel Hill TR 95-041, 2006, section 1, equations 1.9-1.13 with
A = H = 1: a random-constant estimate) over a fixed number of measurements N,
one filter per channel, with per-channel process and measurement noise
variances `q[c]`, `r[c]` as the parameters to learn: `kalman_n` with its trip
count a constant, as a filter over a fixed window is written:

    for (c = 0; c < C; c++) {
      x = z[c][0]; p = 1;
      for (t = 1; t < N; t++) {
        pm = p + q[c];                    // time update
        k = pm / (pm + r[c]);             // gain
        x = x + k * (z[c][t] - x);        // measurement update
        p = (1 - k) * pm;
        e[c][t] = x;
      }
    }

Two values carried through a nonlinear recurrence (a division per step): the
inner loop is bound by that recurrence, not by its memory.

Sizes: `small` C = 3 channels, N = 6 measurements; `paper` C = 32, N = 128
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
    index_constants,
    memref,
    render,
)


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("z", (s["C"], s["N"]), active=True),
        Param("q", (s["C"],), active=True),
        Param("r", (s["C"],), active=True),
        Param("e", (s["C"], s["N"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        scf.for %c = %c0 to %c$C step %c1 {
          %x0 = memref.load %z[%c, %c0] : $mt
          %qc = memref.load %q[%c] : $vt
          %rc = memref.load %r[%c] : $vt
          %xf, %pf = scf.for %t = %c1 to %c$N step %c1
              iter_args(%x = %x0, %p = %one) -> (f64, f64) {
            %pm = arith.addf %p, %qc : f64
            %den = arith.addf %pm, %rc : f64
            %k = arith.divf %pm, %den : f64
            %zt = memref.load %z[%c, %t] : $mt
            %inn = arith.subf %zt, %x : f64
            %step = arith.mulf %k, %inn : f64
            %xn = arith.addf %x, %step : f64
            %omk = arith.subf %one, %k : f64
            %pn = arith.mulf %omk, %pm : f64
            memref.store %xn, %e[%c, %t] : $mt
            scf.yield %xn, %pn : f64, f64
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["C"], s["N"]),
        C=s["C"],
        N=s["N"],
        mt=memref((s["C"], s["N"])),
        vt=memref((s["C"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Columns 1 to N - 1 of `e` hold the estimates; column 0 is kept."""
    z, q, r, e = a["z"], a["q"], a["r"], a["e"]
    x, p = z[:, 0], anp.ones(s["C"])
    columns = [e[:, 0]]
    for t in range(1, s["N"]):
        pm = p + q
        k = pm / (pm + r)
        x = x + k * (z[:, t] - x)
        p = (1.0 - k) * pm
        columns.append(x)
    return None, {"e": anp.stack(columns, axis=1)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Noisy measurements of a per-channel constant; variances in [0.05, 0.5]."""
    level = rng.uniform(-1.0, 1.0, (s["C"], 1))
    return {
        "z": level + 0.3 * rng.standard_normal((s["C"], s["N"])),
        "q": rng.uniform(0.05, 0.5, s["C"]),
        "r": rng.uniform(0.05, 0.5, s["C"]),
        "e": rng.uniform(-1.0, 1.0, (s["C"], s["N"])),
    }


KERNEL = Kernel(
    key="kalman",
    sizes={
        "small": {"C": 3, "N": 6},
        "paper": {"C": 32, "N": 128},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
