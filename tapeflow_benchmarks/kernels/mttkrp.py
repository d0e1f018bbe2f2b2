"""
MTTKRP: matricized tensor times Khatri-Rao product, dense, in TACO's loop order.

`A[i][j] += B[i][k][l] * D[l][j] * C[k][j]` over an i, k, l, j nest, with the
accumulation done in place on A (a read-modify-write in the innermost loop) and
`B[i][k][l]` loaded once per l, as TACO's generated code does. A, B, C and D are
all differentiated; A is an output updated in place, so after the gradient its
shadow still holds its seed (the adjoint of A's initial contents).

Sizes: `small` I = 3, J = 2, K = 4, L = 5 (distinct, so that a transposed index
shows); `paper` 8 in every dimension (Table II, "8x8x8"; the authors' artifact
used 12 in one version); `artifact` the authors' program as far as it is defined: 8 in
every dimension, the j loop written fully unrolled before differentiation (their
`unroll(full)`, applied by clang before their Enzyme runs, -O3) and `B[i][k][l]`
reloaded in every copy (`reload_b`). Their run also permutes the arguments, reads
the 3-tensor past `vals[100]` into the gradient buffers and aliases two shadows 8
bytes apart (`benchmarks/AD/mttkrp/hw/mttkrp.c` at `a5e40f4be`): undefined behaviour in C, so the
nearest defined program is kept, with distinct buffers.
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
    unrolled_body,
)


def params(s: Sizes) -> tuple[Param, ...]:
    n_i, n_j, n_k, n_l = s["I"], s["J"], s["K"], s["L"]
    return (
        Param("A", (n_i, n_j), active=True, written=True),
        Param("B", (n_i, n_k, n_l), active=True),
        Param("C", (n_k, n_j), active=True),
        Param("D", (n_l, n_j), active=True),
    )


REUSED_B = """
%d = memref.load %D[%l, %j] : $dt
%c = memref.load %C[%k, %j] : $ct
%bd = arith.mulf %b, %d : f64
%bdc = arith.mulf %bd, %c : f64
%a = memref.load %A[%i, %j] : $at
%sum = arith.addf %a, %bdc : f64
memref.store %sum, %A[%i, %j] : $at
"""
"""TACO's j body with `B[i][k][l]` loaded once per l (the `small` and `paper` presets)."""

RELOADED_B = """
%b = memref.load %B[%i, %k, %l] : $bt
%d = memref.load %D[%l, %j] : $dt
%bd = arith.mulf %b, %d : f64
%c = memref.load %C[%k, %j] : $ct
%bdc = arith.mulf %bd, %c : f64
%a = memref.load %A[%i, %j] : $at
%sum = arith.addf %a, %bdc : f64
memref.store %sum, %A[%i, %j] : $at
"""
"""The authors' j body (`G:benchmarks/AD/mttkrp/hw/mttkrp.c` L35-65 at gem5-SALAM
`a5e40f4be`): `B[lB]` is loaded again in every
unrolled copy, their compiler being unable to hoist it past the stores to A: five
accesses per inner iteration."""


def body(s: Sizes) -> str:
    n_i, n_j, n_k, n_l = s["I"], s["J"], s["K"], s["L"]
    u = s.get("U", 1)
    reload = bool(s.get("reload_b"))
    copies, _ = unrolled_body(RELOADED_B if reload else REUSED_B, "j", u)
    return render(
        """
        $consts
        scf.for %i = %c0 to %c$I step %c1 {
          scf.for %k = %c0 to %c$K step %c1 {
            scf.for %l = %c0 to %c$L step %c1 {
              $hoisted
              scf.for $jv = %c0 to %c$trips step %c1 {
                $copies
              }
            }
          }
        }
        return
        """,
        consts=index_constants(*range(u + 1), n_i, n_j // u, n_k, n_l),
        hoisted="" if reload else f"%b = memref.load %B[%i, %k, %l] : {memref((n_i, n_k, n_l))}",
        copies=render(
            copies,
            at=memref((n_i, n_j)),
            bt=memref((n_i, n_k, n_l)),
            ct=memref((n_k, n_j)),
            dt=memref((n_l, n_j)),
        ).rstrip("\n"),
        jv="%j_trip" if u > 1 else "%j",
        trips=n_j // u,
        I=n_i,
        K=n_k,
        L=n_l,
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
        "artifact": {"I": 8, "J": 8, "K": 8, "L": 8, "U": 8, "reload_b": 1},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
