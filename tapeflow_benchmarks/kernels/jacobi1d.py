"""
The 1-D Jacobi stencil: PolyBench/C 4.2's `stencils/jacobi-1d`, its two sweeps a
time step, with an activation added on each averaged value:

    for (t = 0; t < TSTEPS; t++) {
      for (i = 1; i < N - 1; i++)
        B[i] = tanh(0.33333 * (A[i - 1] + A[i] + A[i + 1]));   // tanh added
      for (i = 1; i < N - 1; i++)
        A[i] = tanh(0.33333 * (B[i - 1] + B[i] + B[i + 1]));   // tanh added
    }

A time loop over two inner loops that each overwrite the buffer the other reads.
PolyBench's jacobi-1d is linear; the `tanh`s make the gradient need each
averaged value's activation, one entry per point a sweep, so that at `paper`
size the tape (2 x 16 x 142 entries, 35.5 KB) only just exceeds the 32 KB cache.

Sizes: `small` TSTEPS = 2, N = 5; `paper` TSTEPS = 16, N = 144 (a nest kernel).
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

THIRD = 0.33333
"""PolyBench's constant."""

_SWEEP = """
scf.for %i = %c1 to %c$last step %c1 {
  %im = arith.subi %i, %c1 : index
  %ip = arith.addi %i, %c1 : index
  %l = memref.load %$src[%im] : $vt
  %c = memref.load %$src[%i] : $vt
  %r = memref.load %$src[%ip] : $vt
  %lc = arith.addf %l, %c : f64
  %sum = arith.addf %lc, %r : f64
  %avg = arith.mulf %third, %sum : f64
  %act = math.tanh %avg : f64
  memref.store %act, %$dst[%i] : $vt
}
"""


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("A", (s["N"],), active=True, written=True),
        Param("B", (s["N"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    vt = memref((s["N"],))
    last = s["N"] - 1
    return render(
        """
        $consts
        %third = arith.constant $third : f64
        scf.for %t = %c0 to %c$T step %c1 {
          $first
          $second
        }
        return
        """,
        consts=index_constants(0, 1, s["T"], last),
        T=s["T"],
        third=f64(THIRD),
        first=render(_SWEEP, src="A", dst="B", last=last, vt=vt).strip(),
        second=render(_SWEEP, src="B", dst="A", last=last, vt=vt).strip(),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The ends of `A` and `B` are kept."""
    A, B = a["A"], a["B"]
    for _ in range(s["T"]):
        B = anp.concatenate([B[:1], anp.tanh(THIRD * (A[:-2] + A[1:-1] + A[2:])), B[-1:]])
        A = anp.concatenate([A[:1], anp.tanh(THIRD * (B[:-2] + B[1:-1] + B[2:])), A[-1:]])
    return None, {"A": A, "B": B}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "A": rng.uniform(-1.0, 1.0, s["N"]),
        "B": rng.uniform(-1.0, 1.0, s["N"]),
    }


KERNEL = Kernel(
    key="jacobi1d",
    sizes={"small": {"T": 2, "N": 5}, "paper": {"T": 16, "N": 144}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
