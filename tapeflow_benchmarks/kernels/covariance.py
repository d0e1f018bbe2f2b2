"""
Covariance: PolyBench/C 4.2's `datamining/covariance`, its sums kept in registers
(as `-mem2reg` leaves PolyBench's accumulators):

    for (j = 0; j < M; j++) {
      mean[j] = 0; for (i = 0; i < N; i++) mean[j] += data[i][j];
      mean[j] /= N;
    }
    for (i = 0; i < N; i++) for (j = 0; j < M; j++) data[i][j] -= mean[j];
    for (i = 0; i < M; i++)
      for (j = i; j < M; j++) {
        cov[i][j] = 0; for (k = 0; k < N; k++) cov[i][j] += data[k][i] * data[k][j];
        cov[i][j] /= (N - 1); cov[j][i] = cov[i][j];
      }

The last nest is triangular (`j` from `i`): Enzyme caches the products' operands
per `(i, j, k)` in one cache per outer iteration, since the middle loop's trip
count changes with `i`.

Sizes: `small` M = 4, N = 5; `paper` M = 16, N = 32 (an extra kernel; PolyBench's
SMALL dataset is M = 80, N = 100).
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


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("data", (s["N"], s["M"]), active=True, written=True),
        Param("mean", (s["M"],), active=True, written=True),
        Param("cov", (s["M"], s["M"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %n = arith.constant $n : f64
        %n1 = arith.constant $n1 : f64
        scf.for %j = %c0 to %c$M step %c1 {
          %sum = scf.for %i = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
            %d = memref.load %data[%i, %j] : $dt
            %next = arith.addf %acc, %d : f64
            scf.yield %next : f64
          }
          %m = arith.divf %sum, %n : f64
          memref.store %m, %mean[%j] : $mt
        }
        scf.for %i = %c0 to %c$N step %c1 {
          scf.for %j = %c0 to %c$M step %c1 {
            %d = memref.load %data[%i, %j] : $dt
            %m = memref.load %mean[%j] : $mt
            %c = arith.subf %d, %m : f64
            memref.store %c, %data[%i, %j] : $dt
          }
        }
        scf.for %i = %c0 to %c$M step %c1 {
          scf.for %j = %i to %c$M step %c1 {
            %dot = scf.for %k = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
              %a = memref.load %data[%k, %i] : $dt
              %b = memref.load %data[%k, %j] : $dt
              %p = arith.mulf %a, %b : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            %v = arith.divf %dot, %n1 : f64
            memref.store %v, %cov[%i, %j] : $ct
            memref.store %v, %cov[%j, %i] : $ct
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["M"], s["N"]),
        M=s["M"],
        N=s["N"],
        n=f64(float(s["N"])),
        n1=f64(float(s["N"] - 1)),
        dt=memref((s["N"], s["M"])),
        mt=memref((s["M"],)),
        ct=memref((s["M"], s["M"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Every output as numpy computes it: the column means, the centred data and
    its covariance (symmetric, so the mirrored triangle is the whole matrix)."""
    mean = anp.sum(a["data"], axis=0) / float(s["N"])
    centred = a["data"] - mean
    cov = anp.dot(centred.T, centred) / float(s["N"] - 1)
    return None, {"data": centred, "mean": mean, "cov": cov}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "data": rng.uniform(-1.0, 1.0, (s["N"], s["M"])),
        "mean": np.zeros(s["M"]),
        "cov": np.zeros((s["M"], s["M"])),
    }


KERNEL = Kernel(
    key="covariance",
    sizes={"small": {"M": 4, "N": 5}, "paper": {"M": 16, "N": 32}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
