"""
A sparse-dense matrix product in compressed sparse row (CSR) storage followed by
an activation, `Y = tanh(Y0 + A H)`: the neighbourhood aggregation of a graph
convolution layer (Kipf & Welling, "Semi-Supervised Classification with Graph
Convolutional Networks", ICLR 2017, equation 2) over D features, with the CSR
row traversal of Saad, "Iterative Methods for Sparse Linear Systems" (2nd ed.,
SIAM 2003), Section 3.4 (the row-by-row SpMM order of Gustavson's algorithm,
ACM TOMS 4(3), 1978):

    for (i = 0; i < R; i++) {
      for (k = rowptr[i]; k < rowptr[i + 1]; k++) {
        a = val[k]; h = col[k];
        for (f = 0; f < D; f++) Y[i][f] += a * H[h][f];
      }
      for (f = 0; f < D; f++) Y[i][f] = tanh(Y[i][f]);
    }

Three loops deep with a run-time middle trip count (loaded from the row pointer
buffer, different for each row), a per-entry value (`a`) cached beside the
innermost loop's tape, and a second inner loop per row.

Sizes: `small` R = 4 rows, C = 5 columns, D = 2 features; `paper` R = 128,
C = 128, D = 16 (a nest kernel). Row `i` holds `1 + (5 i mod 11)` entries (from
1 to 11, 6 on average) in distinct columns.
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


def row_lengths(s: Sizes) -> list[int]:
    """Entries per row, at most the columns."""
    return [min(1 + (5 * i) % 11, s["C"]) for i in range(s["R"])]


def entries(s: Sizes) -> int:
    return sum(row_lengths(s))


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("rowptr", (s["R"] + 1,), indices=True),
        Param("col", (entries(s),), indices=True),
        Param("val", (entries(s),), active=True),
        Param("H", (s["C"], s["D"]), active=True),
        Param("Y", (s["R"], s["D"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %i = %c0 to %c$R step %c1 {
          %i1 = arith.addi %i, %c1 : index
          %lo = memref.load %rowptr[%i] : $pt
          %hi = memref.load %rowptr[%i1] : $pt
          scf.for %k = %lo to %hi step %c1 {
            %a = memref.load %val[%k] : $vt
            %h = memref.load %col[%k] : $ct
            scf.for %f = %c0 to %c$D step %c1 {
              %hv = memref.load %H[%h, %f] : $ht
              %p = arith.mulf %a, %hv : f64
              %y = memref.load %Y[%i, %f] : $yt
              %s = arith.addf %y, %p : f64
              memref.store %s, %Y[%i, %f] : $yt
            }
          }
          scf.for %f = %c0 to %c$D step %c1 {
            %y = memref.load %Y[%i, %f] : $yt
            %t = math.tanh %y : f64
            memref.store %t, %Y[%i, %f] : $yt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["R"], s["D"]),
        R=s["R"],
        D=s["D"],
        pt=f"memref<{s['R'] + 1}xindex>",
        ct=f"memref<{entries(s)}xindex>",
        vt=memref((entries(s),)),
        ht=memref((s["C"], s["D"])),
        yt=memref((s["R"], s["D"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    rowptr, col, val, H, Y = a["rowptr"], a["col"], a["val"], a["H"], a["Y"]
    products = val[:, None] * H[col]
    sums = [anp.sum(products[rowptr[i] : rowptr[i + 1]], axis=0) for i in range(s["R"])]
    return None, {"Y": anp.tanh(Y + anp.stack(sums))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each row's columns drawn without repetition; values scaled by 1/sqrt of the
    row's length, so that the sums stay O(1)."""
    lengths = row_lengths(s)
    columns = [np.sort(rng.choice(s["C"], n, replace=False)) for n in lengths]
    scale = np.repeat(1.0 / np.sqrt(lengths), lengths)
    return {
        "rowptr": np.concatenate([[0], np.cumsum(lengths)]),
        "col": np.concatenate(columns),
        "val": rng.uniform(-1.0, 1.0, entries(s)) * scale,
        "H": rng.uniform(-1.0, 1.0, (s["C"], s["D"])),
        "Y": rng.uniform(-0.5, 0.5, (s["R"], s["D"])),
    }


KERNEL = Kernel(
    key="spmm",
    sizes={"small": {"R": 4, "C": 5, "D": 2}, "paper": {"R": 128, "C": 128, "D": 16}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
