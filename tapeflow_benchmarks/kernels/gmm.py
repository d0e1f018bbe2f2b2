"""
The log-likelihood of points under a Gaussian mixture, the GMM objective of ADBench
(Srajer, Fitzgibbon & Fitzgibbon, "A benchmark of selected algorithmic
differentiation tools on some problems in computer vision and machine learning",
Optimization Methods and Software 33(4-6), 2018, section 4.1; its C++ `gmm_objective`),
with diagonal inverse covariances (the lower-triangular part of ADBench's `icf`
zero): per point, one main term per component into a buffer reused from point to
point (ADBench's `main_term`), their maximum, and a log-sum-exp:

    for (i = 0; i < N; i++) {
      m = -inf;
      for (k = 0; k < K; k++) {
        ss = 0; sq = 0;
        for (d = 0; d < D; d++) {
          z = exp(q[k][d]) * (x[i][d] - mu[k][d]);
          ss += z * z; sq += q[k][d];
        }
        t[k] = alpha[k] + sq - 0.5 * ss;
        m = max(m, t[k]);
      }
      s = 0;
      for (k = 0; k < K; k++) s += exp(t[k] - m);
      ll[i] = m + log(s);
    }

Short inner loops (K = 4 components of D = 3 dimensions) under a long outer loop,
two regions per point, a per-point value (`m`) the second loop reads, and a
scratch buffer (`t`) each point overwrites (Enzyme caches what the second loop
loads from it).

Sizes: `small` N = 3 points, K = 2, D = 2; `paper` N = 1024, K = 4, D = 3 (a nest
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
    return (
        Param("x", (s["N"], s["D"]), active=True),
        Param("mu", (s["K"], s["D"]), active=True),
        Param("q", (s["K"], s["D"]), active=True),
        Param("alpha", (s["K"],), active=True),
        Param("t", (s["K"],), active=True, written=True),
        Param("ll", (s["N"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %half = arith.constant 0.5 : f64
        %ninf = arith.constant -1.0e300 : f64
        scf.for %i = %c0 to %c$N step %c1 {
          %m = scf.for %k = %c0 to %c$K step %c1 iter_args(%mk = %ninf) -> (f64) {
            %ss, %sq = scf.for %d = %c0 to %c$D step %c1
                iter_args(%a = %zero, %b = %zero) -> (f64, f64) {
              %qv = memref.load %q[%k, %d] : $kt
              %xv = memref.load %x[%i, %d] : $xt
              %mv = memref.load %mu[%k, %d] : $kt
              %e = math.exp %qv : f64
              %diff = arith.subf %xv, %mv : f64
              %z = arith.mulf %e, %diff : f64
              %zz = arith.mulf %z, %z : f64
              %a1 = arith.addf %a, %zz : f64
              %b1 = arith.addf %b, %qv : f64
              scf.yield %a1, %b1 : f64, f64
            }
            %al = memref.load %alpha[%k] : $at
            %h = arith.mulf %half, %ss : f64
            %u = arith.addf %al, %sq : f64
            %tk = arith.subf %u, %h : f64
            memref.store %tk, %t[%k] : $at
            %mn = arith.maximumf %mk, %tk : f64
            scf.yield %mn : f64
          }
          %s = scf.for %k = %c0 to %c$K step %c1 iter_args(%acc = %zero) -> (f64) {
            %tk = memref.load %t[%k] : $at
            %dm = arith.subf %tk, %m : f64
            %e = math.exp %dm : f64
            %next = arith.addf %acc, %e : f64
            scf.yield %next : f64
          }
          %ls = math.log %s : f64
          %l = arith.addf %m, %ls : f64
          memref.store %l, %ll[%i] : $lt
        }
        return
        """,
        consts=index_constants(0, 1, s["N"], s["K"], s["D"]),
        N=s["N"],
        K=s["K"],
        D=s["D"],
        xt=memref((s["N"], s["D"])),
        kt=memref((s["K"], s["D"])),
        at=memref((s["K"],)),
        lt=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """`t` keeps the last point's main terms."""
    x, mu, q, alpha = a["x"], a["mu"], a["q"], a["alpha"]
    z = anp.exp(q)[None, :, :] * (x[:, None, :] - mu[None, :, :])
    t = alpha[None, :] + anp.sum(q, axis=1)[None, :] - 0.5 * anp.sum(z * z, axis=2)
    m = anp.max(t, axis=1)
    ll = m + anp.log(anp.sum(anp.exp(t - m[:, None]), axis=1))
    return None, {"t": t[-1], "ll": ll}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Components' means and points in the unit cube, log inverse scales in
    [-0.5, 0.5], weights in [-1, 1]: the main terms are O(1) and distinct (the
    maximum is never a tie)."""
    return {
        "x": rng.uniform(-1.0, 1.0, (s["N"], s["D"])),
        "mu": rng.uniform(-1.0, 1.0, (s["K"], s["D"])),
        "q": rng.uniform(-0.5, 0.5, (s["K"], s["D"])),
        "alpha": rng.uniform(-1.0, 1.0, s["K"]),
        "t": np.zeros(s["K"]),
        "ll": np.zeros(s["N"]),
    }


KERNEL = Kernel(
    key="gmm",
    sizes={
        "small": {"N": 3, "K": 2, "D": 2},
        "paper": {"N": 1024, "K": 4, "D": 3},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
