"""
Matrix transpose times vector: PolyBench/C 4.2's `linear-algebra/kernels/atax`
(`y = A^T (A x)`), its accumulator `tmp[i]` kept in a register (as `-mem2reg`
leaves it), with one activation added:

    for (i = 0; i < N; i++) y[i] = 0;
    for (i = 0; i < M; i++) {
      tmp = 0;
      for (j = 0; j < N; j++) tmp += A[i][j] * x[j];
      tmp = tanh(tmp);                                  // added
      for (j = 0; j < N; j++) y[j] = y[j] + A[i][j] * tmp;
    }

The outer body computes one value per row between its two inner loops and the
second loop reads it in every trip: the shape of a nest whose outer body caches a
per-iteration value beside the inner loops' work. PolyBench's atax is linear in A
and x (its gradient needs only the inputs, which it never overwrites); the `tanh`
makes the gradient need each row's activation, so there is a tape to lay out, and
`y`'s read-modify-write in the second loop makes Enzyme keep the row's value for
every trip of it.

Sizes: `small` M = 5, N = 4; `paper` M = 512, N = 32 (a nest kernel).
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
        Param("A", (s["M"], s["N"]), active=True),
        Param("x", (s["N"],), active=True),
        Param("y", (s["N"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %j = %c0 to %c$N step %c1 {
          memref.store %zero, %y[%j] : $vt
        }
        scf.for %i = %c0 to %c$M step %c1 {
          %sum = scf.for %j = %c0 to %c$N step %c1 iter_args(%acc = %zero) -> (f64) {
            %a = memref.load %A[%i, %j] : $at
            %xj = memref.load %x[%j] : $vt
            %p = arith.mulf %a, %xj : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %tmp = math.tanh %sum : f64
          scf.for %j = %c0 to %c$N step %c1 {
            %a = memref.load %A[%i, %j] : $at
            %p = arith.mulf %a, %tmp : f64
            %yj = memref.load %y[%j] : $vt
            %s = arith.addf %yj, %p : f64
            memref.store %s, %y[%j] : $vt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["M"], s["N"]),
        M=s["M"],
        N=s["N"],
        at=memref((s["M"], s["N"])),
        vt=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """y = A^T tanh(A x); y's initial contents are overwritten."""
    A = a["A"]
    return None, {"y": anp.dot(A.T, anp.tanh(anp.dot(A, a["x"])))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Entries of A scaled by 1/sqrt(N), so that A x stays O(1) at every size."""
    return {
        "A": rng.uniform(-1.0, 1.0, (s["M"], s["N"])) / np.sqrt(s["N"]),
        "x": rng.uniform(-1.0, 1.0, (s["N"],)),
        "y": rng.uniform(-1.0, 1.0, (s["N"],)),
    }


KERNEL = Kernel(
    key="atax",
    sizes={"small": {"M": 5, "N": 4}, "paper": {"M": 512, "N": 32}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
