"""
Gauss-Seidel sweeps over a batch of diagonally dominant tridiagonal systems,
repeated until a sweep changes the solution by less than a tolerance or an
iteration limit is reached (Saad, "Iterative Methods for Sparse Linear
Systems", 2nd ed., SIAM 2003, section 4.1, Algorithm 4.1; the stopping test of
Numerical Recipes' relaxation methods, Press et al., 3rd ed., 2007, section
20.5), from the initial guess `u`, the boundary values `u[s][0]` and
`u[s][N + 1]` held fixed:

    for (s = 0; s < S; s++) {
      k = 0;  delta = INF;
      while (k < KMAX && delta > TOL) {
        delta = 0;
        for (i = 1; i <= N; i++) {
          v = (f[s][i] - a[s][i] * (u[s][i - 1] + u[s][i + 1])) / d[s][i];
          delta += (v - u[s][i]) * (v - u[s][i]);
          u[s][i] = v;
        }
        k++;
      }
    }

A `while` loop whose exit tests a counter and a value the loop computes
(`tapeflow-while-to-for` runs it up to the counter's bound with a carried flag,
the body under a branch) around one sweep that overwrites the solution in place:
each iteration stores its operands, more than half a 512-byte scratchpad at the
paper size. `|a| <= 0.2 d`, so that a sweep contracts the error by at least
0.4 and the loop stops well before KMAX = 64 at TOL = 1e-24 (about 30 sweeps);
perturbing the inputs by a finite difference's step does not change the count.

Sizes: `small` S = 2 systems of N = 3 unknowns; `paper` S = 16 systems of N = 24
(a nest kernel).
"""

from __future__ import annotations

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

TOL = 1.0e-24
KMAX = 64


def params(s: Sizes) -> tuple[Param, ...]:
    S, N = s["S"], s["N"]
    return (
        Param("a", (S, N + 2), active=True),
        Param("d", (S, N + 2), active=True),
        Param("f", (S, N + 2), active=True),
        Param("u", (S, N + 2), active=True, written=True),
    )


def body(s: Sizes) -> str:
    S, N = s["S"], s["N"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %inf = arith.constant 1.0e30 : f64
        %tol = arith.constant $tol : f64
        scf.for %s = %c0 to %c$S step %c1 {
          %res:2 = scf.while (%k = %c0, %dl = %inf) : (index, f64) -> (index, f64) {
            %more = arith.cmpi slt, %k, %c$KMAX : index
            %big = arith.cmpf ogt, %dl, %tol : f64
            %go = arith.andi %more, %big : i1
            scf.condition(%go) %k, %dl : index, f64
          } do {
          ^bb0(%k2: index, %dl2: f64):
            %dn = scf.for %i = %c1 to %c$N1 step %c1 iter_args(%acc = %zero) -> (f64) {
              %im = arith.subi %i, %c1 : index
              %ip = arith.addi %i, %c1 : index
              %ul = memref.load %u[%s, %im] : $vt
              %ur = memref.load %u[%s, %ip] : $vt
              %uo = memref.load %u[%s, %i] : $vt
              %ai = memref.load %a[%s, %i] : $vt
              %di = memref.load %d[%s, %i] : $vt
              %fi = memref.load %f[%s, %i] : $vt
              %nb = arith.addf %ul, %ur : f64
              %an = arith.mulf %ai, %nb : f64
              %rhs = arith.subf %fi, %an : f64
              %v = arith.divf %rhs, %di : f64
              %ch = arith.subf %v, %uo : f64
              %sq = arith.mulf %ch, %ch : f64
              %next = arith.addf %acc, %sq : f64
              memref.store %v, %u[%s, %i] : $vt
              scf.yield %next : f64
            }
            %k3 = arith.addi %k2, %c1 : index
            scf.yield %k3, %dn : index, f64
          }
        }
        return
        """,
        consts=index_constants(0, 1, S, N + 1, KMAX),
        S=S,
        N1=N + 1,
        KMAX=KMAX,
        tol=f64(TOL),
        vt=memref((S, N + 2)),
    )


def _value(x: Array) -> float:
    """The float behind an autograd box (the loop's exit test is not
    differentiated)."""
    while hasattr(x, "_value"):
        x = x._value
    return float(x)


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Each system's sweeps, value by value in the kernel's order (the count of
    sweeps depends on the sums' roundings)."""
    import autograd.numpy as anp

    N = s["N"]
    rows = []
    for sys in range(s["S"]):
        u = [a["u"][sys, i] for i in range(N + 2)]
        k, delta = 0, 1.0e30
        while k < KMAX and delta > TOL:
            acc = 0.0
            for i in range(1, N + 1):
                v = (a["f"][sys, i] - a["a"][sys, i] * (u[i - 1] + u[i + 1])) / a["d"][sys, i]
                ch = v - u[i]
                acc = acc + ch * ch
                u[i] = v
            delta = _value(acc)
            k += 1
        rows.append(anp.stack(u))
    return None, {"u": anp.stack(rows)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    S, N = s["S"], s["N"]
    d = rng.uniform(1.0, 2.0, (S, N + 2))
    return {
        "a": rng.uniform(-0.2, 0.2, (S, N + 2)) * d,
        "d": d,
        "f": rng.uniform(-1.0, 1.0, (S, N + 2)),
        "u": rng.uniform(-1.0, 1.0, (S, N + 2)),
    }


KERNEL = Kernel(
    key="gswhile",
    sizes={"small": {"S": 2, "N": 3}, "paper": {"S": 16, "N": 24}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
