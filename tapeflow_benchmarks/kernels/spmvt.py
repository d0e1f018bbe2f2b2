"""
A transposed sparse matrix-vector product over compressed sparse rows, as the
backward pass of a CSR product computes it (Saad, "Iterative Methods for Sparse
Linear Systems", 2nd ed., SIAM 2003, Section 3.4: the product by `A^T` runs over
the rows of `A` and scatters into the columns), each row's input through `tanh`
once and each product through a saturating `tanh` before its scatter add:

    for (i = 0; i < R; i++) {
      t = tanh(x[i]);
      for (k = rowptr[i]; k < rowptr[i + 1]; k++)
        y[col[k]] += tanh(val[k] * t);
    }

An inner loop of run-time trip count (loaded from the row pointers) whose
stores go to addresses loaded from memory (`col[k]`): indirect scatter adds,
where Enzyme's REV reads the same indirect addresses; the row's activation is
cached once per row beside the inner loop's tape.

Sizes: `small` R = 5 rows of C = 5 columns; `paper` R = 512 rows of C = 512
columns (a nest kernel). Row `i` holds `1 + (3 i mod 19)` entries (1 to 19, 10
on average) in distinct columns.
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
    return [min(1 + (3 * i) % 19, s["C"]) for i in range(s["R"])]


def entries(s: Sizes) -> int:
    return sum(row_lengths(s))


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("rowptr", (s["R"] + 1,), indices=True),
        Param("col", (entries(s),), indices=True),
        Param("val", (entries(s),), active=True),
        Param("x", (s["R"],), active=True),
        Param("y", (s["C"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %i = %c0 to %c$R step %c1 {
          %i1 = arith.addi %i, %c1 : index
          %lo = memref.load %rowptr[%i] : $pt
          %hi = memref.load %rowptr[%i1] : $pt
          %xi = memref.load %x[%i] : $xt
          %t = math.tanh %xi : f64
          scf.for %k = %lo to %hi step %c1 {
            %j = memref.load %col[%k] : $ct
            %v = memref.load %val[%k] : $vt
            %m = arith.mulf %v, %t : f64
            %g = math.tanh %m : f64
            %yj = memref.load %y[%j] : $yt
            %s = arith.addf %yj, %g : f64
            memref.store %s, %y[%j] : $yt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["R"]),
        R=s["R"],
        pt=f"memref<{s['R'] + 1}xindex>",
        ct=f"memref<{entries(s)}xindex>",
        vt=memref((entries(s),)),
        xt=memref((s["R"],)),
        yt=memref((s["C"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The scatter as a sum of one-hot columns (autograd has no in-place add)."""
    rowptr, col, val, x = a["rowptr"], a["col"], a["val"], a["x"]
    rows = np.repeat(np.arange(s["R"]), np.diff(rowptr))
    g = anp.tanh(val * anp.tanh(x[rows]))
    scatter = np.zeros((s["C"], len(col)))
    scatter[col, np.arange(len(col))] = 1.0
    return None, {"y": a["y"] + anp.dot(scatter, g)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each row's columns drawn without repetition."""
    lengths = row_lengths(s)
    columns = [np.sort(rng.choice(s["C"], n, replace=False)) for n in lengths]
    return {
        "rowptr": np.concatenate([[0], np.cumsum(lengths)]),
        "col": np.concatenate(columns),
        "val": rng.uniform(-1.0, 1.0, entries(s)),
        "x": rng.uniform(-1.0, 1.0, s["R"]),
        "y": rng.uniform(-1.0, 1.0, s["C"]),
    }


KERNEL = Kernel(
    key="spmvt",
    sizes={"small": {"R": 5, "C": 5}, "paper": {"R": 512, "C": 512}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
