"""
Correlation: PolyBench/C 4.2's `datamining/correlation`, its sums kept in
registers (as `-mem2reg` leaves PolyBench's accumulators):

    for (j = 0; j < M; j++) { mean[j] = sum_i data[i][j] / N; }
    for (j = 0; j < M; j++) {
      stddev[j] = sqrt(sum_i (data[i][j] - mean[j])^2 / N);
      stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];          // eps = 0.1
    }
    for (i = 0; i < N; i++) for (j = 0; j < M; j++)
      data[i][j] = (data[i][j] - mean[j]) / (sqrt(N) * stddev[j]);
    for (i = 0; i < M - 1; i++) {
      corr[i][i] = 1.0;
      for (j = i + 1; j < M; j++) {
        corr[i][j] = sum_k data[k][i] * data[k][j]; corr[j][i] = corr[i][j];
      }
    }
    corr[M-1][M-1] = 1.0;

The last nest is triangular (`j` from `i + 1`), and the standard deviations' guard
is a select the gradient follows.

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

EPS = 0.1


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("data", (s["N"], s["M"]), active=True, written=True),
        Param("mean", (s["M"],), active=True, written=True),
        Param("stddev", (s["M"],), active=True, written=True),
        Param("corr", (s["M"], s["M"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %eps = arith.constant $eps : f64
        %n = arith.constant $n : f64
        %sqrtn = math.sqrt %n : f64
        scf.for %j = %c0 to %c$M step %c1 {
          %sum = scf.for %i = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
            %d = memref.load %data[%i, %j] : $dt
            %next = arith.addf %acc, %d : f64
            scf.yield %next : f64
          }
          %m = arith.divf %sum, %n : f64
          memref.store %m, %mean[%j] : $mt
        }
        scf.for %j = %c0 to %c$M step %c1 {
          %m = memref.load %mean[%j] : $mt
          %ss = scf.for %i = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
            %d = memref.load %data[%i, %j] : $dt
            %c = arith.subf %d, %m : f64
            %sq = arith.mulf %c, %c : f64
            %next = arith.addf %acc, %sq : f64
            scf.yield %next : f64
          }
          %var = arith.divf %ss, %n : f64
          %sd = math.sqrt %var : f64
          %small = arith.cmpf ole, %sd, %eps : f64
          %guarded = arith.select %small, %one, %sd : f64
          memref.store %guarded, %stddev[%j] : $mt
        }
        scf.for %i = %c0 to %c$N step %c1 {
          scf.for %j = %c0 to %c$M step %c1 {
            %d = memref.load %data[%i, %j] : $dt
            %m = memref.load %mean[%j] : $mt
            %sd = memref.load %stddev[%j] : $mt
            %c = arith.subf %d, %m : f64
            %scale = arith.mulf %sqrtn, %sd : f64
            %z = arith.divf %c, %scale : f64
            memref.store %z, %data[%i, %j] : $dt
          }
        }
        scf.for %i = %c0 to %c$Mm1 step %c1 {
          memref.store %one, %corr[%i, %i] : $ct
          %ip1 = arith.addi %i, %c1 : index
          scf.for %j = %ip1 to %c$M step %c1 {
            %dot = scf.for %k = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
              %a = memref.load %data[%k, %i] : $dt
              %b = memref.load %data[%k, %j] : $dt
              %p = arith.mulf %a, %b : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            memref.store %dot, %corr[%i, %j] : $ct
            memref.store %dot, %corr[%j, %i] : $ct
          }
        }
        memref.store %one, %corr[%c$Mm1, %c$Mm1] : $ct
        return
        """,
        consts=index_constants(0, 1, s["M"] - 1, s["M"], s["N"]),
        M=s["M"],
        Mm1=s["M"] - 1,
        N=s["N"],
        eps=f64(EPS),
        n=f64(float(s["N"])),
        dt=memref((s["N"], s["M"])),
        mt=memref((s["M"],)),
        ct=memref((s["M"], s["M"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Every output as numpy computes it; the correlation matrix is symmetric with
    a unit diagonal, so the mirrored triangle is the whole matrix."""
    n = float(s["N"])
    data = a["data"]
    mean = anp.sum(data, axis=0) / n
    sd = anp.sqrt(anp.sum((data - mean) ** 2, axis=0) / n)
    sd = anp.where(sd <= EPS, 1.0, sd)
    z = (data - mean) / (np.sqrt(n) * sd)
    corr = anp.dot(z.T, z)
    eye = np.eye(s["M"], dtype=bool)
    corr = anp.where(eye, 1.0, corr)
    return None, {"data": z, "mean": mean, "stddev": sd, "corr": corr}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "data": rng.uniform(-1.0, 1.0, (s["N"], s["M"])),
        "mean": np.zeros(s["M"]),
        "stddev": np.zeros(s["M"]),
        "corr": np.zeros((s["M"], s["M"])),
    }


KERNEL = Kernel(
    key="correlation",
    sizes={"small": {"M": 4, "N": 5}, "paper": {"M": 16, "N": 32}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
