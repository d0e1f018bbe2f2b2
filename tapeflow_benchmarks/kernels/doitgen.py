"""
Multiresolution analysis kernel: PolyBench/C 4.2's `linear-algebra/kernels/doitgen`
(each row `A[r][q]` of a 3-D array multiplied by C4, in place, through a buffer):

    for (r = 0; r < NR; r++)
      for (q = 0; q < NQ; q++) {
        for (p = 0; p < NP; p++) {
          sum[p] = 0;
          for (s = 0; s < NP; s++) sum[p] += A[r][q][s] * C4[s][p];
        }
        for (p = 0; p < NP; p++) A[r][q][p] = sum[p];
      }

A four-deep nest with two inner nests per `(r, q)`: the products read the row that
the copy loop then overwrites, so Enzyme caches it (per `(r, q, p, s)`) for C4's
gradient. PolyBench's `sum[p] = 0; sum[p] += ...` is accumulated in a scalar and
stored once (the same values). `sum` keeps the last row's sums, as PolyBench's does.

Sizes: `small` NR = 2, NQ = 3, NP = 4; `paper` NR = 10, NQ = 8, NP = 12 (PolyBench's
MINI dataset; a nest kernel).
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
        Param("A", (s["NR"], s["NQ"], s["NP"]), active=True, written=True),
        Param("C4", (s["NP"], s["NP"]), active=True),
        Param("sum", (s["NP"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %r = %c0 to %c$NR step %c1 {
          scf.for %q = %c0 to %c$NQ step %c1 {
            scf.for %p = %c0 to %c$NP step %c1 {
              %t = scf.for %s = %c0 to %c$NP step %c1 iter_args(%acc = %zero) -> (f64) {
                %a = memref.load %A[%r, %q, %s] : $at
                %c = memref.load %C4[%s, %p] : $ct
                %m = arith.mulf %a, %c : f64
                %next = arith.addf %acc, %m : f64
                scf.yield %next : f64
              }
              memref.store %t, %sum[%p] : $st
            }
            scf.for %p = %c0 to %c$NP step %c1 {
              %v = memref.load %sum[%p] : $st
              memref.store %v, %A[%r, %q, %p] : $at
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["NR"], s["NQ"], s["NP"]),
        NR=s["NR"],
        NQ=s["NQ"],
        NP=s["NP"],
        at=memref((s["NR"], s["NQ"], s["NP"])),
        ct=memref((s["NP"], s["NP"])),
        st=memref((s["NP"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    out = anp.dot(a["A"], a["C4"])
    return None, {"A": out, "sum": out[-1, -1]}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "A": rng.uniform(-1.0, 1.0, (s["NR"], s["NQ"], s["NP"])),
        "C4": rng.uniform(-1.0, 1.0, (s["NP"], s["NP"])) / np.sqrt(s["NP"]),
        "sum": np.zeros(s["NP"]),
    }


KERNEL = Kernel(
    key="doitgen",
    sizes={"small": {"NR": 2, "NQ": 3, "NP": 4}, "paper": {"NR": 10, "NQ": 8, "NP": 12}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
