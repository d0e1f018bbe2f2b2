"""
Graph attention's neighbourhood softmax and aggregation over compressed sparse rows
(Veličković et al., "Graph Attention Networks", ICLR 2018, equations 2-4, one head
of one feature), as PyTorch Geometric computes it from the row pointers
(`torch_geometric.utils.softmax(src, ptr=rowptr)`: the segment's maximum, the sum of
the shifted exponentials, then the normalized weights), each weight scaling the
neighbour's feature:

    for (i = 0; i < R; i++) {
      lo = rowptr[i]; hi = rowptr[i + 1];
      m = e[lo];
      for (k = lo + 1; k < hi; k++) m = max(m, e[k]);
      s = 0;
      for (k = lo; k < hi; k++) s += exp(e[k] - m);
      inv = 1 / s; acc = 0;
      for (k = lo; k < hi; k++) {
        a[k] = exp(e[k] - m) * inv;
        acc += a[k] * h[col[k]];
      }
      y[i] = tanh(acc);
    }

Three inner loops per row, each with bounds loaded from the row pointers (a trip
count known only at run time, from 1 to 13), and two per-row values (`m`, `inv`)
the later loops read.

Sizes: `small` R = 4 rows of C = 5 columns; `paper` R = 1024 rows of C = 1024
columns (a nest kernel). Row `i` holds `1 + (7 i mod 13)` entries in distinct
columns.
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
        Param("e", (entries(s),), active=True),
        Param("h", (s["C"],), active=True),
        Param("a", (entries(s),), active=True, written=True),
        Param("y", (s["R"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        scf.for %i = %c0 to %c$R step %c1 {
          %i1 = arith.addi %i, %c1 : index
          %lo = memref.load %rowptr[%i] : $pt
          %hi = memref.load %rowptr[%i1] : $pt
          %lo1 = arith.addi %lo, %c1 : index
          %e0 = memref.load %e[%lo] : $et
          %m = scf.for %k = %lo1 to %hi step %c1 iter_args(%mk = %e0) -> (f64) {
            %ek = memref.load %e[%k] : $et
            %mn = arith.maximumf %mk, %ek : f64
            scf.yield %mn : f64
          }
          %s = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
            %ek = memref.load %e[%k] : $et
            %d = arith.subf %ek, %m : f64
            %x = math.exp %d : f64
            %next = arith.addf %acc, %x : f64
            scf.yield %next : f64
          }
          %inv = arith.divf %one, %s : f64
          %agg = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
            %ek = memref.load %e[%k] : $et
            %d = arith.subf %ek, %m : f64
            %x = math.exp %d : f64
            %ak = arith.mulf %x, %inv : f64
            memref.store %ak, %a[%k] : $et
            %j = memref.load %col[%k] : $ct
            %hj = memref.load %h[%j] : $ht
            %p = arith.mulf %ak, %hj : f64
            %next = arith.addf %acc, %p : f64
            scf.yield %next : f64
          }
          %t = math.tanh %agg : f64
          memref.store %t, %y[%i] : $yt
        }
        return
        """,
        consts=index_constants(0, 1, s["R"]),
        R=s["R"],
        pt=f"memref<{s['R'] + 1}xindex>",
        ct=f"memref<{entries(s)}xindex>",
        et=memref((entries(s),)),
        ht=memref((s["C"],)),
        yt=memref((s["R"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    rowptr, col, e, h = a["rowptr"], a["col"], a["e"], a["h"]
    weights, sums = [], []
    for i in range(s["R"]):
        seg = e[rowptr[i] : rowptr[i + 1]]
        x = anp.exp(seg - anp.max(seg))
        w = x / anp.sum(x)
        weights.append(w)
        sums.append(anp.sum(w * h[col[rowptr[i] : rowptr[i + 1]]]))
    return None, {"a": anp.concatenate(weights), "y": anp.tanh(anp.stack(sums))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each row's columns drawn without repetition; scores in [-2, 2) (distinct, so
    a segment's maximum is never a tie)."""
    lengths = row_lengths(s)
    columns = [np.sort(rng.choice(s["C"], n, replace=False)) for n in lengths]
    return {
        "rowptr": np.concatenate([[0], np.cumsum(lengths)]),
        "col": np.concatenate(columns),
        "e": rng.uniform(-2.0, 2.0, entries(s)),
        "h": rng.uniform(-1.0, 1.0, s["C"]),
        "a": np.zeros(entries(s)),
        "y": np.zeros(s["R"]),
    }


KERNEL = Kernel(
    key="segsoftmax",
    sizes={"small": {"R": 4, "C": 5}, "paper": {"R": 1024, "C": 1024}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
