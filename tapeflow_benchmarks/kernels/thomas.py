"""
A batch of tridiagonal systems of different sizes solved by the Thomas algorithm,
Numerical Recipes' `tridag` (Press, Teukolsky, Vetterling & Flannery, "Numerical
Recipes", 3rd ed., 2007, section 2.4), the systems stored one after the other as
compressed rows store a sparse matrix's rows (system `s` is rows `ptr[s]` to
`ptr[s + 1] - 1`), as a batched solver (cuSPARSE's `gtsv2StridedBatch`, here with
ragged sizes) takes them:

    for (s = 0; s < S; s++) {
      lo = ptr[s]; hi = ptr[s + 1];
      bet = b[lo]; u[lo] = r[lo] / bet;
      for (j = lo + 1; j < hi; j++) {
        gam[j] = c[j - 1] / bet;
        bet = b[j] - a[j] * gam[j];
        u[j] = (r[j] - a[j] * u[j - 1]) / bet;
      }
      for (k = 0; k < hi - lo - 1; k++) {
        j = hi - 2 - k;
        u[j] -= gam[j + 1] * u[j + 1];
      }
    }

Two inner loops per system, both of run-time trip count read from the row
pointers and without a constant bound, the second walking the system backwards,
and a per-system value (the first pivot) beside their tapes.

Sizes: `small` S = 3 systems; `paper` S = 192 systems (a nest kernel). System `s`
has `2 + (5 s mod 11)` unknowns (2 to 12). Diagonally dominant: `b` in [2, 3),
`a` and `c` in [-0.5, 0.5).
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


def lengths(s: Sizes) -> list[int]:
    """Unknowns per system."""
    return [2 + (5 * i) % 11 for i in range(s["S"])]


def rows(s: Sizes) -> int:
    return sum(lengths(s))


def params(s: Sizes) -> tuple[Param, ...]:
    n = rows(s)
    return (
        Param("ptr", (s["S"] + 1,), indices=True),
        Param("a", (n,), active=True),
        Param("b", (n,), active=True),
        Param("c", (n,), active=True),
        Param("r", (n,), active=True),
        Param("gam", (n,), active=True, written=True),
        Param("u", (n,), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %s = %c0 to %c$S step %c1 {
          %s1 = arith.addi %s, %c1 : index
          %lo = memref.load %ptr[%s] : $pt
          %hi = memref.load %ptr[%s1] : $pt
          %b0 = memref.load %b[%lo] : $vt
          %r0 = memref.load %r[%lo] : $vt
          %u0 = arith.divf %r0, %b0 : f64
          memref.store %u0, %u[%lo] : $vt
          %lo1 = arith.addi %lo, %c1 : index
          %last = scf.for %j = %lo1 to %hi step %c1 iter_args(%bet = %b0) -> (f64) {
            %jm = arith.subi %j, %c1 : index
            %cj = memref.load %c[%jm] : $vt
            %g = arith.divf %cj, %bet : f64
            memref.store %g, %gam[%j] : $vt
            %bj = memref.load %b[%j] : $vt
            %aj = memref.load %a[%j] : $vt
            %ag = arith.mulf %aj, %g : f64
            %nb = arith.subf %bj, %ag : f64
            %rj = memref.load %r[%j] : $vt
            %up = memref.load %u[%jm] : $vt
            %au = arith.mulf %aj, %up : f64
            %num = arith.subf %rj, %au : f64
            %uj = arith.divf %num, %nb : f64
            memref.store %uj, %u[%j] : $vt
            scf.yield %nb : f64
          }
          %n = arith.subi %hi, %lo : index
          %n1 = arith.subi %n, %c1 : index
          %hi2 = arith.subi %hi, %c2 : index
          scf.for %k = %c0 to %n1 step %c1 {
            %j = arith.subi %hi2, %k : index
            %j1 = arith.addi %j, %c1 : index
            %g = memref.load %gam[%j1] : $vt
            %un = memref.load %u[%j1] : $vt
            %uj = memref.load %u[%j] : $vt
            %p = arith.mulf %g, %un : f64
            %nu = arith.subf %uj, %p : f64
            memref.store %nu, %u[%j] : $vt
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, s["S"]),
        S=s["S"],
        pt=f"memref<{s['S'] + 1}xindex>",
        vt=memref((rows(s),)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Each system solved as `tridag` does; `gam` keeps its initial values at each
    system's first row, which the solve never writes."""
    gam = [a["gam"][i] for i in range(rows(s))]
    u: list[Array] = [0.0] * rows(s)
    ptr = a["ptr"]
    for sys in range(s["S"]):
        lo, hi = int(ptr[sys]), int(ptr[sys + 1])
        bet = a["b"][lo]
        u[lo] = a["r"][lo] / bet
        for j in range(lo + 1, hi):
            gam[j] = a["c"][j - 1] / bet
            bet = a["b"][j] - a["a"][j] * gam[j]
            u[j] = (a["r"][j] - a["a"][j] * u[j - 1]) / bet
        for j in range(hi - 2, lo - 1, -1):
            u[j] = u[j] - gam[j + 1] * u[j + 1]
    return None, {"gam": anp.stack(gam), "u": anp.stack(u)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    n = rows(s)
    return {
        "ptr": np.concatenate([[0], np.cumsum(lengths(s))]),
        "a": rng.uniform(-0.5, 0.5, n),
        "b": rng.uniform(2.0, 3.0, n),
        "c": rng.uniform(-0.5, 0.5, n),
        "r": rng.uniform(-1.0, 1.0, n),
        "gam": rng.uniform(-1.0, 1.0, n),
        "u": rng.uniform(-1.0, 1.0, n),
    }


KERNEL = Kernel(
    key="thomas",
    sizes={"small": {"S": 3}, "paper": {"S": 192}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
