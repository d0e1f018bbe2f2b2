"""
Two matrix multiplications in sequence: PolyBench/C 4.2's
`linear-algebra/kernels/2mm` (`D = alpha A B C + beta D`), each dot product's
accumulator kept in a register (as `-mem2reg` leaves it), with one activation
added on the intermediate product:

    for (i = 0; i < NI; i++)
      for (j = 0; j < NJ; j++) {
        s = 0;
        for (k = 0; k < NK; k++) s += alpha * A[i][k] * B[k][j];
        tmp[i][j] = tanh(s);                                   // tanh added
      }
    for (i = 0; i < NI; i++)
      for (j = 0; j < NL; j++) {
        s = D[i][j] * beta;
        for (k = 0; k < NJ; k++) s += tmp[i][k] * C[k][j];
        D[i][j] = s;
      }

Two three-level nests one after the other, the second reading (by row) what the
first wrote (by row). PolyBench's 2mm is linear; the `tanh` between the two
products makes the gradient of the first need its sums, and the second product's
gradient needs `tmp`, a buffer this function writes. alpha = 1.5 and beta = 1.2
are PolyBench's.

Sizes: `small` NI = 3, NJ = 4, NK = 3, NL = 2; `paper` NI = NJ = NK = NL = 24
(a nest kernel).
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

ALPHA, BETA = 1.5, 1.2


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("A", (s["NI"], s["NK"]), active=True),
        Param("B", (s["NK"], s["NJ"]), active=True),
        Param("C", (s["NJ"], s["NL"]), active=True),
        Param("D", (s["NI"], s["NL"]), active=True, written=True),
        Param("tmp", (s["NI"], s["NJ"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %alpha = arith.constant $alpha : f64
        %beta = arith.constant $beta : f64
        scf.for %i = %c0 to %c$NI step %c1 {
          scf.for %j = %c0 to %c$NJ step %c1 {
            %s = scf.for %k = %c0 to %c$NK step %c1 iter_args(%acc = %zero) -> (f64) {
              %a = memref.load %A[%i, %k] : $at
              %aa = arith.mulf %alpha, %a : f64
              %b = memref.load %B[%k, %j] : $bt
              %p = arith.mulf %aa, %b : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            %act = math.tanh %s : f64
            memref.store %act, %tmp[%i, %j] : $tt
          }
        }
        scf.for %i = %c0 to %c$NI step %c1 {
          scf.for %j = %c0 to %c$NL step %c1 {
            %d = memref.load %D[%i, %j] : $dt
            %init = arith.mulf %d, %beta : f64
            %s = scf.for %k = %c0 to %c$NJ step %c1 iter_args(%acc = %init) -> (f64) {
              %t = memref.load %tmp[%i, %k] : $tt
              %c = memref.load %C[%k, %j] : $ct
              %p = arith.mulf %t, %c : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            memref.store %s, %D[%i, %j] : $dt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["NI"], s["NJ"], s["NK"], s["NL"]),
        NI=s["NI"],
        NJ=s["NJ"],
        NK=s["NK"],
        NL=s["NL"],
        alpha=f64(ALPHA),
        beta=f64(BETA),
        at=memref((s["NI"], s["NK"])),
        bt=memref((s["NK"], s["NJ"])),
        ct=memref((s["NJ"], s["NL"])),
        dt=memref((s["NI"], s["NL"])),
        tt=memref((s["NI"], s["NJ"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """tmp = tanh(alpha A B); D = beta D + tmp C. tmp's initial contents are
    overwritten."""
    tmp = anp.tanh(ALPHA * anp.dot(a["A"], a["B"]))
    return None, {"tmp": tmp, "D": BETA * a["D"] + anp.dot(tmp, a["C"])}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A scaled by 1/sqrt(NK) and C by 1/sqrt(NJ), so both products stay O(1)."""
    return {
        "A": rng.uniform(-1.0, 1.0, (s["NI"], s["NK"])) / np.sqrt(s["NK"]),
        "B": rng.uniform(-1.0, 1.0, (s["NK"], s["NJ"])),
        "C": rng.uniform(-1.0, 1.0, (s["NJ"], s["NL"])) / np.sqrt(s["NJ"]),
        "D": rng.uniform(-1.0, 1.0, (s["NI"], s["NL"])),
        "tmp": rng.uniform(-1.0, 1.0, (s["NI"], s["NJ"])),
    }


KERNEL = Kernel(
    key="twomm",
    sizes={
        "small": {"NI": 3, "NJ": 4, "NK": 3, "NL": 2},
        "paper": {"NI": 24, "NJ": 24, "NK": 24, "NL": 24},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
