"""
A sparse matrix-vector product in compressed sparse row (CSR) storage followed by
an activation, `y = tanh(A x)`: the CSR product of Saad, "Iterative Methods for
Sparse Linear Systems" (2nd ed., SIAM 2003), Section 3.4, Algorithm 3.1, as the
aggregation of a graph-convolution layer (Kipf & Welling, "Semi-Supervised
Classification with Graph Convolutional Networks", ICLR 2017) computes it:

    for (i = 0; i < R; i++) {
      s = 0;
      for (k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * x[col[k]];
      y[i] = tanh(s);
    }

The inner loop's bounds are values loaded from a buffer of indices: its trip
count is known only at run time and differs from row to row, and the outer body
caches a per-row value (the activation's argument) beside the inner loop's tape.

Sizes: `small` R = 6 rows of C = 5 columns; `paper` R = 512 rows of C = 512
columns (an extra kernel). Row `i` holds `1 + (7 i mod 13)` entries (from 1 to
13, 7 on average) in distinct columns.
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
    return [min(1 + (7 * i) % 13, s["C"]) for i in range(s["R"])]


def entries(s: Sizes) -> int:
    return sum(row_lengths(s))


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("rowptr", (s["R"] + 1,), indices=True),
        Param("col", (entries(s),), indices=True),
        Param("val", (entries(s),), active=True),
        Param("x", (s["C"],), active=True),
        Param("y", (s["R"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %i = %c0 to %c$R step %c1 {
          %i1 = arith.addi %i, %c1 : index
          %lo = memref.load %rowptr[%i] : $pt
          %hi = memref.load %rowptr[%i1] : $pt
          %s = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
            %j = memref.load %col[%k] : $ct
            %v = memref.load %val[%k] : $vt
            %xj = memref.load %x[%j] : $xt
            %p = arith.mulf %v, %xj : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %t = math.tanh %s : f64
          memref.store %t, %y[%i] : $yt
        }
        return
        """,
        consts=index_constants(0, 1, s["R"]),
        R=s["R"],
        pt=f"memref<{s['R'] + 1}xindex>",
        ct=f"memref<{entries(s)}xindex>",
        vt=memref((entries(s),)),
        xt=memref((s["C"],)),
        yt=memref((s["R"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    rowptr, col, val, x = a["rowptr"], a["col"], a["val"], a["x"]
    products = val * x[col]
    sums = [anp.sum(products[rowptr[i] : rowptr[i + 1]]) for i in range(s["R"])]
    return None, {"y": anp.tanh(anp.stack(sums))}


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
        "x": rng.uniform(-1.0, 1.0, s["C"]),
        "y": np.zeros(s["R"]),
    }


KERNEL = Kernel(
    key="spmv",
    sizes={"small": {"R": 6, "C": 5}, "paper": {"R": 512, "C": 512}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
