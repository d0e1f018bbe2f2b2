"""
Levinson-Durbin recursion: PolyBench/C 4.2's `linear-algebra/solvers/durbin`
(solves the Yule-Walker equations of the Toeplitz matrix of `1, r[0..N-2]`), its
scalars `alpha`, `beta` and `sum` kept in registers (as `-mem2reg` leaves them):

    y[0] = -r[0]; beta = 1; alpha = -r[0];
    for (k = 1; k < N; k++) {
      beta = (1 - alpha * alpha) * beta;
      sum = 0;
      for (i = 0; i < k; i++) sum += r[k-i-1] * y[i];
      alpha = -(r[k] + sum) / beta;
      for (i = 0; i < k; i++) z[i] = y[i] + alpha * y[k-i-1];
      for (i = 0; i < k; i++) y[i] = z[i];
      y[k] = alpha;
    }

Three inner loops whose trip count is the outer index (triangles), the outer body
carrying two values from one trip to the next and computing one between its
inner loops, and y overwritten every trip after being read in reverse order.
PolyBench's own nonlinearities (the square of alpha, the division by beta) make
the tape: no activation is added.

Sizes: `small` N = 6; `paper` N = 96 (a nest kernel).
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
        Param("r", (s["N"],), active=True),
        Param("y", (s["N"],), active=True, written=True),
        Param("z", (s["N"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %r0 = memref.load %r[%c0] : $t
        %alpha0 = arith.negf %r0 : f64
        memref.store %alpha0, %y[%c0] : $t
        %last:2 = scf.for %k = %c1 to %c$N step %c1
            iter_args(%alpha = %alpha0, %beta = %one) -> (f64, f64) {
          %km1 = arith.subi %k, %c1 : index
          %aa = arith.mulf %alpha, %alpha : f64
          %om = arith.subf %one, %aa : f64
          %nbeta = arith.mulf %om, %beta : f64
          %sum = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f64) {
            %ri = arith.subi %km1, %i : index
            %rv = memref.load %r[%ri] : $t
            %yi = memref.load %y[%i] : $t
            %p = arith.mulf %rv, %yi : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %rk = memref.load %r[%k] : $t
          %num = arith.addf %rk, %sum : f64
          %q = arith.divf %num, %nbeta : f64
          %nalpha = arith.negf %q : f64
          scf.for %i = %c0 to %k step %c1 {
            %ri = arith.subi %km1, %i : index
            %yi = memref.load %y[%i] : $t
            %yr = memref.load %y[%ri] : $t
            %p = arith.mulf %nalpha, %yr : f64
            %zi = arith.addf %yi, %p : f64
            memref.store %zi, %z[%i] : $t
          }
          scf.for %i = %c0 to %k step %c1 {
            %zi = memref.load %z[%i] : $t
            memref.store %zi, %y[%i] : $t
          }
          memref.store %nalpha, %y[%k] : $t
          scf.yield %nalpha, %nbeta : f64, f64
        }
        return
        """,
        consts=index_constants(0, 1, s["N"]),
        N=s["N"],
        t=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The recursion on lists of scalars; z keeps the last trip's values (and its
    initial last entry, which no trip writes)."""
    n, r = s["N"], a["r"]
    alpha = -r[0]
    beta = 1.0
    y: list[Array] = [alpha]
    z: list[Array] = [a["z"][i] for i in range(n)]
    for k in range(1, n):
        beta = (1.0 - alpha * alpha) * beta
        total = 0.0
        for i in range(k):
            total = total + r[k - i - 1] * y[i]
        alpha = -(r[k] + total) / beta
        z[:k] = [y[i] + alpha * y[k - i - 1] for i in range(k)]
        y = [*z[:k], alpha]
    return None, {"y": anp.stack(y), "z": anp.stack(z)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The autocorrelations 0.5^(k+1) of a first-order autoregressive process,
    perturbed by 1%: the Toeplitz matrix stays positive definite, so every
    reflection coefficient stays inside (-1, 1) and beta away from zero at every
    size (PolyBench's `r[i] = N + 1 - i` is not a valid autocorrelation)."""
    n = s["N"]
    r = 0.5 ** np.arange(1, n + 1) * (1.0 + 0.01 * rng.uniform(-1.0, 1.0, n))
    return {"r": r, "y": np.zeros(n), "z": np.zeros(n)}


KERNEL = Kernel(
    key="durbin",
    sizes={"small": {"N": 6}, "paper": {"N": 96}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
