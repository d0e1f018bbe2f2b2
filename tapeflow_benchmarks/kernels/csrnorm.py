"""
A graph convolution's aggregation over compressed sparse rows with each row's
messages normalized by their own L2 norm before a saturating sum, then an
activation: the row-wise message normalization of Li et al., "DeeperGCN: All You
Need to Train Deeper GCNs" (2020, section 3.3, MsgNorm: `m / ||m||_2`), over
Saad's CSR product ("Iterative Methods for Sparse Linear Systems", 2nd ed., SIAM
2003, Section 3.4, Algorithm 3.1):

    for (i = 0; i < R; i++) {
      q = eps;
      for (k = rowptr[i]; k < rowptr[i + 1]; k++) {
        m = val[k] * x[col[k]];  q += m * m;
      }
      inv = 1 / sqrt(q);  s = 0;
      for (k = rowptr[i]; k < rowptr[i + 1]; k++)
        s += tanh(val[k] * x[col[k]] * inv);
      y[i] = tanh(s);
    }

Two inner loops per row of run-time trip count (loaded from the row pointers,
without a constant bound), the second reading a per-row value the first one's
reduction makes (`inv`), and a per-row activation after them: the row's tape is
the second loop's values, the per-row norm and the activation's argument.

Sizes: `small` R = 5 rows of C = 5 columns; `paper` R = 512 rows of C = 512
columns (a nest kernel). Row `i` holds `1 + (5 i mod 17)` entries (1 to 17,
9 on average) in distinct columns.
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

EPS = 1.0e-6


def row_lengths(s: Sizes) -> list[int]:
    """Entries per row, at most the columns."""
    return [min(1 + (5 * i) % 17, s["C"]) for i in range(s["R"])]


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
        %one = arith.constant 1.0 : f64
        %eps = arith.constant $eps : f64
        scf.for %i = %c0 to %c$R step %c1 {
          %i1 = arith.addi %i, %c1 : index
          %lo = memref.load %rowptr[%i] : $pt
          %hi = memref.load %rowptr[%i1] : $pt
          %q = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %eps) -> (f64) {
            %j = memref.load %col[%k] : $ct
            %v = memref.load %val[%k] : $vt
            %xj = memref.load %x[%j] : $xt
            %m = arith.mulf %v, %xj : f64
            %m2 = arith.mulf %m, %m : f64
            %next = arith.addf %acc, %m2 : f64
            scf.yield %next : f64
          }
          %nrm = math.sqrt %q : f64
          %inv = arith.divf %one, %nrm : f64
          %s = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
            %j = memref.load %col[%k] : $ct
            %v = memref.load %val[%k] : $vt
            %xj = memref.load %x[%j] : $xt
            %m = arith.mulf %v, %xj : f64
            %mn = arith.mulf %m, %inv : f64
            %t = math.tanh %mn : f64
            %next = arith.addf %acc, %t : f64
            scf.yield %next : f64
          }
          %t = math.tanh %s : f64
          memref.store %t, %y[%i] : $yt
        }
        return
        """,
        consts=index_constants(0, 1, s["R"]),
        R=s["R"],
        eps=f"{EPS:e}",
        pt=f"memref<{s['R'] + 1}xindex>",
        ct=f"memref<{entries(s)}xindex>",
        vt=memref((entries(s),)),
        xt=memref((s["C"],)),
        yt=memref((s["R"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    rowptr, col, val, x = a["rowptr"], a["col"], a["val"], a["x"]
    m = val * x[col]
    out = []
    for i in range(s["R"]):
        row = m[rowptr[i] : rowptr[i + 1]]
        inv = 1.0 / anp.sqrt(EPS + anp.sum(row * row))
        out.append(anp.tanh(anp.sum(anp.tanh(row * inv))))
    return None, {"y": anp.stack(out)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each row's columns drawn without repetition."""
    lengths = row_lengths(s)
    columns = [np.sort(rng.choice(s["C"], n, replace=False)) for n in lengths]
    return {
        "rowptr": np.concatenate([[0], np.cumsum(lengths)]),
        "col": np.concatenate(columns),
        "val": rng.uniform(-1.0, 1.0, entries(s)),
        "x": rng.uniform(-1.0, 1.0, s["C"]),
        "y": np.zeros(s["R"]),
    }


KERNEL = Kernel(
    key="csrnorm",
    sizes={"small": {"R": 5, "C": 5}, "paper": {"R": 512, "C": 512}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
