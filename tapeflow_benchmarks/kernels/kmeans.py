"""
One step of soft k-means (MacKay, *Information Theory, Inference, and Learning
Algorithms*, CUP 2003, chapter 20, algorithm 20.7, of stiffness beta) over `n`
points, `n` an argument known only at run time, K means and D dimensions: the
assignment step's responsibilities, then the update step's new means:

    for (p = 0; p < n; p++) {
      s = 0;
      for (k = 0; k < K; k++) {
        d = 0;
        for (e = 0; e < D; e++) d += (x[p][e] - mu[k][e])^2;
        r[p][k] = exp(-beta d);
        s += r[p][k];
      }
      for (k = 0; k < K; k++) r[p][k] = r[p][k] / s;
    }
    for (k = 0; k < K; k++)
      for (e = 0; e < D; e++) {
        num = 0; den = 0;
        for (p = 0; p < n; p++) { num += r[p][k] * x[p][e]; den += r[p][k]; }
        m[k][e] = num / den;
      }

A three-level nest of run-time outer trip count whose outer body keeps one value
(the normaliser) beside a short inner loop's tape, overwriting what that loop
stored, followed by a nest whose innermost loop has the run-time trip count.
beta = 2 on the squared distance `d` (MacKay's distance, eq. 20.1, is half of it:
his beta = 4).

Sizes: `small` buffers of N = 5 points, n = 4, K = 3, D = 2; `paper` N = n = 256,
K = 8, D = 4 (a nest kernel).
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

BETA = 2.0


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", (s["N"], s["D"]), active=True),
        Param("mu", (s["K"], s["D"]), active=True),
        Param("r", (s["N"], s["K"]), active=True, written=True),
        Param("m", (s["K"], s["D"]), active=True, written=True),
        Param("n", (), trip="n"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %nbeta = arith.constant $nbeta : f64
        scf.for %p = %c0 to %n step %c1 {
          %s = scf.for %k = %c0 to %c$K step %c1 iter_args(%sacc = %zero) -> (f64) {
            %d = scf.for %e = %c0 to %c$D step %c1 iter_args(%dacc = %zero) -> (f64) {
              %xv = memref.load %x[%p, %e] : $xt
              %mv = memref.load %mu[%k, %e] : $mt
              %diff = arith.subf %xv, %mv : f64
              %sq = arith.mulf %diff, %diff : f64
              %dnext = arith.addf %dacc, %sq : f64
              scf.yield %dnext : f64
            }
            %arg = arith.mulf %nbeta, %d : f64
            %w = math.exp %arg : f64
            memref.store %w, %r[%p, %k] : $rt
            %snext = arith.addf %sacc, %w : f64
            scf.yield %snext : f64
          }
          scf.for %k = %c0 to %c$K step %c1 {
            %w = memref.load %r[%p, %k] : $rt
            %q = arith.divf %w, %s : f64
            memref.store %q, %r[%p, %k] : $rt
          }
        }
        scf.for %k = %c0 to %c$K step %c1 {
          scf.for %e = %c0 to %c$D step %c1 {
            %num, %den = scf.for %p = %c0 to %n step %c1
                iter_args(%nacc = %zero, %racc = %zero) -> (f64, f64) {
              %rv = memref.load %r[%p, %k] : $rt
              %xv = memref.load %x[%p, %e] : $xt
              %rx = arith.mulf %rv, %xv : f64
              %nnext = arith.addf %nacc, %rx : f64
              %rnext = arith.addf %racc, %rv : f64
              scf.yield %nnext, %rnext : f64, f64
            }
            %mean = arith.divf %num, %den : f64
            memref.store %mean, %m[%k, %e] : $mt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["K"], s["D"]),
        K=s["K"],
        D=s["D"],
        nbeta=f64(-BETA),
        xt=memref((s["N"], s["D"])),
        mt=memref((s["K"], s["D"])),
        rt=memref((s["N"], s["K"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Responsibilities of the first n points (the rest of r kept) and the means
    they weight."""
    n = s["n"]
    x, mu, r = a["x"], a["mu"], a["r"]
    xs = x[:n]
    dist = anp.sum((xs[:, None, :] - mu[None, :, :]) ** 2, axis=2)
    w = anp.exp(-BETA * dist)
    resp = w / anp.sum(w, axis=1, keepdims=True)
    means = anp.dot(resp.T, xs) / anp.sum(resp, axis=0)[:, None]
    return None, {"r": anp.concatenate([resp, r[n:]], axis=0), "m": means}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Points and means in [-1, 1]^D: every mean has a share of every point."""
    return {
        "x": rng.uniform(-1.0, 1.0, (s["N"], s["D"])),
        "mu": rng.uniform(-1.0, 1.0, (s["K"], s["D"])),
        "r": rng.uniform(0.0, 1.0, (s["N"], s["K"])),
        "m": rng.uniform(-1.0, 1.0, (s["K"], s["D"])),
    }


KERNEL = Kernel(
    key="kmeans",
    sizes={
        "small": {"N": 5, "n": 4, "K": 3, "D": 2},
        "paper": {"N": 256, "n": 256, "K": 8, "D": 4},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
