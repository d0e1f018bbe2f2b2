"""
MTTKRP: matricized tensor times Khatri-Rao product, dense, in TACO's loop order.

`A[i][j] += B[i][k][l] * D[l][j] * C[k][j]` over an i, k, l, j nest, with the
accumulation done in place on A (a read-modify-write in the innermost loop) and
`B[i][k][l]` loaded once per l, as TACO's generated code does. A, B, C and D are
all differentiated; A is an output updated in place, so after the gradient its
shadow still holds its seed (the adjoint of A's initial contents).

Sizes: `small` I = 3, J = 2, K = 4, L = 5 (distinct, so that a transposed index
shows); `paper` 8 in every dimension (Table II, "8x8x8"; the authors' artifact
used 12 in one version); `artifact` 8 in every dimension with the innermost j loop fully
unrolled (the authors' `unroll_count(16)` on j, with N = 8 in the runs: factor 8).
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
    n_i, n_j, n_k, n_l = s["I"], s["J"], s["K"], s["L"]
    return (
        Param("A", (n_i, n_j), active=True, written=True),
        Param("B", (n_i, n_k, n_l), active=True),
        Param("C", (n_k, n_j), active=True),
        Param("D", (n_l, n_j), active=True),
    )


def body(s: Sizes) -> str:
    n_i, n_j, n_k, n_l = s["I"], s["J"], s["K"], s["L"]
    return render(
        """
        $consts
        scf.for %i = %c0 to %c$I step %c1 {
          scf.for %k = %c0 to %c$K step %c1 {
            scf.for %l = %c0 to %c$L step %c1 {
              %b = memref.load %B[%i, %k, %l] : $bt
              scf.for %j = %c0 to %c$J step %c1 {
                %d = memref.load %D[%l, %j] : $dt
                %c = memref.load %C[%k, %j] : $ct
                %bd = arith.mulf %b, %d : f64
                %bdc = arith.mulf %bd, %c : f64
                %a = memref.load %A[%i, %j] : $at
                %sum = arith.addf %a, %bdc : f64
                memref.store %sum, %A[%i, %j] : $at
              }
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, n_i, n_j, n_k, n_l),
        I=n_i,
        J=n_j,
        K=n_k,
        L=n_l,
        at=memref((n_i, n_j)),
        bt=memref((n_i, n_k, n_l)),
        ct=memref((n_k, n_j)),
        dt=memref((n_l, n_j)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    return None, {"A": a["A"] + anp.einsum("ikl,lj,kj->ij", a["B"], a["D"], a["C"])}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    n_i, n_j, n_k, n_l = s["I"], s["J"], s["K"], s["L"]
    return {
        "A": rng.standard_normal((n_i, n_j)),
        "B": rng.standard_normal((n_i, n_k, n_l)),
        "C": rng.standard_normal((n_k, n_j)),
        "D": rng.standard_normal((n_l, n_j)),
    }


KERNEL = Kernel(
    key="mttkrp",
    sizes={
        "small": {"I": 3, "J": 2, "K": 4, "L": 5},
        "paper": {"I": 8, "J": 8, "K": 8, "L": 8},
        "artifact": {"I": 8, "J": 8, "K": 8, "L": 8},
    },
    unroll={"artifact": 8},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
