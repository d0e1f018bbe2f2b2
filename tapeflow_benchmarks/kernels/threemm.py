"""
Three matrix multiplications: PolyBench/C 4.2's `linear-algebra/kernels/3mm`
(`E = A B; F = C D; G = E F`), each dot product's accumulator kept in a register
(as `-mem2reg` leaves it), with an activation added on the two intermediate
products:

    for (i = 0; i < NI; i++)
      for (j = 0; j < NJ; j++) {
        s = 0;
        for (k = 0; k < NK; k++) s += A[i][k] * B[k][j];
        E[i][j] = tanh(s);                                     // tanh added
      }
    for (i = 0; i < NJ; i++)
      for (j = 0; j < NL; j++) {
        s = 0;
        for (k = 0; k < NM; k++) s += C[i][k] * D[k][j];
        F[i][j] = tanh(s);                                     // tanh added
      }
    for (i = 0; i < NI; i++)
      for (j = 0; j < NL; j++) {
        s = 0;
        for (k = 0; k < NJ; k++) s += E[i][k] * F[k][j];
        G[i][j] = s;
      }

Three three-level nests in sequence, the third reading one buffer the function
wrote by row (`E`) and the other by column (`F`), so the entries Enzyme caches
for the third product are walked across the second's layout. PolyBench's 3mm is
linear; the `tanh`s make the first two products' gradients need their sums.

Sizes: `small` NI = 2, NJ = 3, NK = 2, NL = 2, NM = 3; `paper` all 16 (a nest
kernel).
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
    NI, NJ, NK, NL, NM = s["NI"], s["NJ"], s["NK"], s["NL"], s["NM"]
    return (
        Param("A", (NI, NK), active=True),
        Param("B", (NK, NJ), active=True),
        Param("C", (NJ, NM), active=True),
        Param("D", (NM, NL), active=True),
        Param("E", (NI, NJ), active=True, written=True),
        Param("F", (NJ, NL), active=True, written=True),
        Param("G", (NI, NL), active=True, written=True),
    )


_NEST = """
scf.for %i = %c0 to %c$rows step %c1 {
  scf.for %j = %c0 to %c$cols step %c1 {
    %s$n = scf.for %k = %c0 to %c$inner step %c1 iter_args(%acc = %zero) -> (f64) {
      %a = memref.load %$left[%i, %k] : $lt
      %b = memref.load %$right[%k, %j] : $rt
      %p = arith.mulf %a, %b : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    $finish
  }
}
"""


def _nest(n: int, out: str, left: str, right: str, dims: dict[str, tuple[int, int]]) -> str:
    rows, inner = dims[left]
    cols = dims[right][1]
    if out == "G":
        finish = f"memref.store %s{n}, %G[%i, %j] : {memref(dims[out])}"
    else:
        finish = (
            f"%act{n} = math.tanh %s{n} : f64\n"
            f"memref.store %act{n}, %{out}[%i, %j] : {memref(dims[out])}"
        )
    return render(
        _NEST,
        n=n,
        rows=rows,
        cols=cols,
        inner=inner,
        left=left,
        right=right,
        lt=memref(dims[left]),
        rt=memref(dims[right]),
        finish=finish,
    )


def body(s: Sizes) -> str:
    NI, NJ, NK, NL, NM = s["NI"], s["NJ"], s["NK"], s["NL"], s["NM"]
    dims = {p.name: p.shape for p in params(s)}
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        $first
        $second
        $third
        return
        """,
        consts=index_constants(0, 1, NI, NJ, NK, NL, NM),
        first=_nest(1, "E", "A", "B", dims).strip(),
        second=_nest(2, "F", "C", "D", dims).strip(),
        third=_nest(3, "G", "E", "F", dims).strip(),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """E and F are overwritten, G too."""
    E = anp.tanh(anp.dot(a["A"], a["B"]))
    F = anp.tanh(anp.dot(a["C"], a["D"]))
    return None, {"E": E, "F": F, "G": anp.dot(E, F)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A scaled by 1/sqrt(NK), C by 1/sqrt(NM), so both products stay O(1)."""
    NI, NJ, NK, NL, NM = s["NI"], s["NJ"], s["NK"], s["NL"], s["NM"]
    return {
        "A": rng.uniform(-1.0, 1.0, (NI, NK)) / np.sqrt(NK),
        "B": rng.uniform(-1.0, 1.0, (NK, NJ)),
        "C": rng.uniform(-1.0, 1.0, (NJ, NM)) / np.sqrt(NM),
        "D": rng.uniform(-1.0, 1.0, (NM, NL)),
        "E": rng.uniform(-1.0, 1.0, (NI, NJ)),
        "F": rng.uniform(-1.0, 1.0, (NJ, NL)),
        "G": rng.uniform(-1.0, 1.0, (NI, NL)),
    }


KERNEL = Kernel(
    key="threemm",
    sizes={
        "small": {"NI": 2, "NJ": 3, "NK": 2, "NL": 2, "NM": 3},
        "paper": {"NI": 16, "NJ": 16, "NK": 16, "NL": 16, "NM": 16},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
