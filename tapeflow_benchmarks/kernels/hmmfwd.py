"""
The forward algorithm of a hidden Markov model in log space (Rabiner, "A Tutorial
on Hidden Markov Models and Selected Applications in Speech Recognition", Proc.
IEEE 1989, equations 19-20; in log space with a log-sum-exp about each sum's
maximum as Mann, "Numerically Stable Hidden Markov Model Implementation", 2006),
with log transition probabilities `A` and per-step log emission likelihoods `E`
as the parameters to learn:

    for (t = 1; t < T; t++)
      for (j = 0; j < S; j++) {
        m = -1e300;
        for (i = 0; i < S; i++) m = max(m, alpha[t - 1][i] + A[i][j]);
        s = 0;
        for (i = 0; i < S; i++) s += exp(alpha[t - 1][i] + A[i][j] - m);
        alpha[t][j] = m + log(s) + E[t][j];
      }

A three-level nest whose middle body caches its sum's maximum between two inner
loops, reading `A` by column, and reading the row of `alpha` the previous step
wrote (a buffer this function writes, so Enzyme caches what it loads).

Sizes: `small` T = 3, S = 3; `paper` T = 32, S = 16 (a nest kernel).
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
        Param("A", (s["S"], s["S"]), active=True),
        Param("E", (s["T"], s["S"]), active=True),
        Param("alpha", (s["T"], s["S"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %lowest = arith.constant -1.0e300 : f64
        scf.for %t = %c1 to %c$T step %c1 {
          %tp = arith.subi %t, %c1 : index
          scf.for %j = %c0 to %c$S step %c1 {
            %m = scf.for %i = %c0 to %c$S step %c1 iter_args(%mk = %lowest) -> (f64) {
              %av = memref.load %alpha[%tp, %i] : $lt
              %tr = memref.load %A[%i, %j] : $at
              %v = arith.addf %av, %tr : f64
              %mn = arith.maximumf %mk, %v : f64
              scf.yield %mn : f64
            }
            %s = scf.for %i = %c0 to %c$S step %c1 iter_args(%sk = %zero) -> (f64) {
              %av = memref.load %alpha[%tp, %i] : $lt
              %tr = memref.load %A[%i, %j] : $at
              %v = arith.addf %av, %tr : f64
              %d = arith.subf %v, %m : f64
              %e = math.exp %d : f64
              %sn = arith.addf %sk, %e : f64
              scf.yield %sn : f64
            }
            %ls = math.log %s : f64
            %lse = arith.addf %m, %ls : f64
            %em = memref.load %E[%t, %j] : $lt
            %new = arith.addf %lse, %em : f64
            memref.store %new, %alpha[%t, %j] : $lt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["T"], s["S"]),
        T=s["T"],
        S=s["S"],
        at=memref((s["S"], s["S"])),
        lt=memref((s["T"], s["S"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Row 0 of `alpha` is the initial distribution, kept; rows 1 to T - 1 computed."""
    A, E = a["A"], a["E"]
    rows = [a["alpha"][0]]
    for t in range(1, s["T"]):
        v = rows[-1][:, None] + A
        m = anp.max(v, axis=0)
        rows.append(m + anp.log(anp.sum(anp.exp(v - m[None, :]), axis=0)) + E[t])
    return None, {"alpha": anp.stack(rows, axis=0)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Log probabilities of random distributions (transition rows, initial state)
    and log likelihoods in [-3, 0]."""
    S, T = s["S"], s["T"]
    trans = rng.uniform(0.1, 1.0, (S, S))
    start = rng.uniform(0.1, 1.0, S)
    alpha = rng.uniform(-1.0, 0.0, (T, S))
    alpha[0] = np.log(start / start.sum())
    return {
        "A": np.log(trans / trans.sum(axis=1, keepdims=True)),
        "E": rng.uniform(-3.0, 0.0, (T, S)),
        "alpha": alpha,
    }


KERNEL = Kernel(
    key="hmmfwd",
    sizes={"small": {"T": 3, "S": 3}, "paper": {"T": 32, "S": 16}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
