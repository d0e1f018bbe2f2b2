"""
A batch of small symmetric positive definite systems solved by the conjugate
gradient method until the residual's squared norm falls below a tolerance or an
iteration limit is reached, as Numerical Recipes' `linbcg` stops (Press,
Teukolsky, Vetterling & Flannery, "Numerical Recipes", 3rd ed., 2007, section
2.7.6; Hestenes & Stiefel, J. Res. NBS 49, 1952), from `x = 0`:

    for (s = 0; s < S; s++) {
      x = 0; r = b[s]; p = b[s]; rr = r . r; k = 0;
      while (k < KMAX && rr > TOL) {
        for (i = 0; i < N; i++) { q[i] = 0; for (j = 0; j < N; j++) q[i] += A[s][i][j] * p[j]; }
        alpha = rr / (p . q);
        for (i = 0; i < N; i++) { x[i] += alpha p[i]; r[i] -= alpha q[i]; }
        rn = r . r;  beta = rn / rr;
        for (i = 0; i < N; i++) p[i] = r[i] + beta p[i];
        rr = rn; k++;
      }
    }

A `while` loop whose exit tests a counter and a value the loop computes
(`tapeflow-while-to-for` runs it up to the counter's bound with a carried flag,
the body under a branch), whose iteration stores more than a 512-byte scratchpad
holds at the paper size (the matrix-vector product caches its `N * N` operand
pairs), inside a loop over the systems; the vectors live in per-system rows of
buffers the loop overwrites.

Sizes: `small` S = 2 systems of N = 3; `paper` S = 12 systems of N = 8 (a nest
kernel), KMAX = N and TOL = 1e-20: each system stops after N iterations (in
exact arithmetic CG converges in N; the residual is then about 1e-30), and
perturbing `A` or `b` does not change that count. `A = B B^T / N + I`.
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

TOL = 1.0e-20


def params(s: Sizes) -> tuple[Param, ...]:
    S, N = s["S"], s["N"]
    return (
        Param("A", (S, N, N), active=True),
        Param("b", (S, N), active=True),
        Param("x", (S, N), active=True, written=True),
        Param("r", (S, N), active=True, written=True),
        Param("p", (S, N), active=True, written=True),
        Param("q", (S, N), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %tol = arith.constant $tol : f64
        scf.for %s = %c0 to %c$S step %c1 {
          %rr0 = scf.for %i = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
            %bi = memref.load %b[%s, %i] : $vt
            memref.store %zero, %x[%s, %i] : $vt
            memref.store %bi, %r[%s, %i] : $vt
            memref.store %bi, %p[%s, %i] : $vt
            %b2 = arith.mulf %bi, %bi : f64
            %next = arith.addf %acc, %b2 : f64
            scf.yield %next : f64
          }
          %res:2 = scf.while (%k = %c0, %rr = %rr0) : (index, f64) -> (index, f64) {
            %more = arith.cmpi slt, %k, %c$KMAX : index
            %big = arith.cmpf ogt, %rr, %tol : f64
            %go = arith.andi %more, %big : i1
            scf.condition(%go) %k, %rr : index, f64
          } do {
          ^bb0(%k2: index, %rr2: f64):
            %pq = scf.for %i = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
              %qi = scf.for %j = %c0 to %c$N step %c1 iter_args(%a = %zero) -> (f64) {
                %aij = memref.load %A[%s, %i, %j] : $at
                %pj = memref.load %p[%s, %j] : $vt
                %t = arith.mulf %aij, %pj : f64
                %n = arith.addf %a, %t : f64
                scf.yield %n : f64
              }
              memref.store %qi, %q[%s, %i] : $vt
              %pi = memref.load %p[%s, %i] : $vt
              %t = arith.mulf %pi, %qi : f64
              %next = arith.addf %acc, %t : f64
              scf.yield %next : f64
            }
            %alpha = arith.divf %rr2, %pq : f64
            %rn = scf.for %i = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
              %xi = memref.load %x[%s, %i] : $vt
              %pi = memref.load %p[%s, %i] : $vt
              %ap = arith.mulf %alpha, %pi : f64
              %nx = arith.addf %xi, %ap : f64
              memref.store %nx, %x[%s, %i] : $vt
              %ri = memref.load %r[%s, %i] : $vt
              %qi = memref.load %q[%s, %i] : $vt
              %aq = arith.mulf %alpha, %qi : f64
              %nr = arith.subf %ri, %aq : f64
              memref.store %nr, %r[%s, %i] : $vt
              %r2 = arith.mulf %nr, %nr : f64
              %next = arith.addf %acc, %r2 : f64
              scf.yield %next : f64
            }
            %beta = arith.divf %rn, %rr2 : f64
            scf.for %i = %c0 to %c$N step %c1 {
              %ri = memref.load %r[%s, %i] : $vt
              %pi = memref.load %p[%s, %i] : $vt
              %bp = arith.mulf %beta, %pi : f64
              %np = arith.addf %ri, %bp : f64
              memref.store %np, %p[%s, %i] : $vt
            }
            %k3 = arith.addi %k2, %c1 : index
            scf.yield %k3, %rn : index, f64
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["S"], s["N"], s["N"]),
        S=s["S"],
        N=s["N"],
        KMAX=s["N"],
        tol=f"{TOL:e}",
        at=memref((s["S"], s["N"], s["N"])),
        vt=memref((s["S"], s["N"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Each system's vectors after its last iteration (`q` its initial row where
    no iteration runs: none does here)."""
    xs, rs, ps, qs = [], [], [], []
    for sys in range(s["S"]):
        A = a["A"][sys]
        x = anp.zeros(s["N"])
        r = a["b"][sys]
        p = r
        q = a["q"][sys]
        rr = anp.sum(r * r)
        k = 0
        while k < s["N"] and float(getattr(rr, "_value", rr)) > TOL:
            q = anp.dot(A, p)
            alpha = rr / anp.sum(p * q)
            x = x + alpha * p
            r = r - alpha * q
            rn = anp.sum(r * r)
            p = r + (rn / rr) * p
            rr = rn
            k += 1
        xs.append(x)
        rs.append(r)
        ps.append(p)
        qs.append(q)
    return None, {
        "x": anp.stack(xs),
        "r": anp.stack(rs),
        "p": anp.stack(ps),
        "q": anp.stack(qs),
    }


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    S, N = s["S"], s["N"]
    B = rng.uniform(-1.0, 1.0, (S, N, N))
    return {
        "A": B @ B.transpose(0, 2, 1) / N + np.eye(N),
        "b": rng.uniform(-1.0, 1.0, (S, N)),
        "x": np.zeros((S, N)),
        "r": np.zeros((S, N)),
        "p": np.zeros((S, N)),
        "q": rng.uniform(-1.0, 1.0, (S, N)),
    }


KERNEL = Kernel(
    key="cgsolve",
    sizes={"small": {"S": 2, "N": 3}, "paper": {"S": 12, "N": 8}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
