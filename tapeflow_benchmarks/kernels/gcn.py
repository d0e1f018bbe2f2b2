"""
A graph convolution layer (Kipf & Welling, "Semi-Supervised Classification with
Graph Convolutional Networks", ICLR 2017, equation 2: `H' = tanh(D^-1/2 (A + I)
D^-1/2 H W)`) over the graph's edges in compressed sparse rows (Saad, "Iterative
Methods for Sparse Linear Systems", 2nd ed., 2003, Section 3.4), the product `H W`
given (`x`, one row of F features per node) and the neighbour's side of the
normalisation folded into the edge weights (`w[k] = 1 / sqrt(d_j)`, as PyTorch
Geometric's `gcn_norm` precomputes it), the node's side computed per node from
its weighted degree:

    for (i = 0; i < N; i++) {
      q = 1;  for (k = ptr[i]; k < ptr[i + 1]; k++) q += w[k];
      di = 1 / sqrt(q);
      for (k = ptr[i]; k < ptr[i + 1]; k++) {
        c = w[k] * di;
        for (f = 0; f < F; f++) y[i][f] += c * x[col[k]][f];
      }
      for (f = 0; f < F; f++) y[i][f] = tanh(y[i][f] + di * di * x[i][f] + b[f]);
    }

A loop of constant trip count (the features) inside a loop of run-time trip count
(the node's edges, from the row pointers), the edge's weight scaled once per edge,
the node's normalisation cached once per node beside a second constant loop (the
self-loop and the activation): three regions under the node loop, one of them
run-time, whose iteration can store more than half a scratchpad (13 edges of 16
features).

Sizes: `small` N = 5 nodes of F = 3 features; `paper` N = 192 nodes of F = 16
(a nest kernel). Node `i` has `1 + (7 i mod 13)` neighbours (1 to 13, 7 on
average), distinct and other than itself where the graph allows.
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


def degrees(s: Sizes) -> list[int]:
    """Neighbours per node, at most the other nodes."""
    return [min(1 + (7 * i) % 13, s["N"] - 1) for i in range(s["N"])]


def edges(s: Sizes) -> int:
    return sum(degrees(s))


def params(s: Sizes) -> tuple[Param, ...]:
    N, F = s["N"], s["F"]
    return (
        Param("ptr", (N + 1,), indices=True),
        Param("col", (edges(s),), indices=True),
        Param("w", (edges(s),), active=True),
        Param("x", (N, F), active=True),
        Param("b", (F,), active=True),
        Param("y", (N, F), active=True, written=True),
    )


def body(s: Sizes) -> str:
    N, F = s["N"], s["F"]
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        scf.for %i = %c0 to %c$N step %c1 {
          %i1 = arith.addi %i, %c1 : index
          %lo = memref.load %ptr[%i] : $pt
          %hi = memref.load %ptr[%i1] : $pt
          %q = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %one) -> (f64) {
            %wk = memref.load %w[%k] : $wt
            %next = arith.addf %acc, %wk : f64
            scf.yield %next : f64
          }
          %nrm = math.sqrt %q : f64
          %di = arith.divf %one, %nrm : f64
          scf.for %k = %lo to %hi step %c1 {
            %j = memref.load %col[%k] : $ct
            %wk = memref.load %w[%k] : $wt
            %c = arith.mulf %wk, %di : f64
            scf.for %f = %c0 to %c$F step %c1 {
              %xv = memref.load %x[%j, %f] : $xt
              %h = memref.load %y[%i, %f] : $xt
              %m = arith.mulf %c, %xv : f64
              %h2 = arith.addf %h, %m : f64
              memref.store %h2, %y[%i, %f] : $xt
            }
          }
          %dd = arith.mulf %di, %di : f64
          scf.for %f = %c0 to %c$F step %c1 {
            %h = memref.load %y[%i, %f] : $xt
            %xs = memref.load %x[%i, %f] : $xt
            %bf = memref.load %b[%f] : $bt
            %sl = arith.mulf %dd, %xs : f64
            %z0 = arith.addf %h, %sl : f64
            %z = arith.addf %z0, %bf : f64
            %t = math.tanh %z : f64
            memref.store %t, %y[%i, %f] : $xt
          }
        }
        return
        """,
        consts=index_constants(0, 1, N, F),
        N=N,
        F=F,
        pt=f"memref<{N + 1}xindex>",
        ct=f"memref<{edges(s)}xindex>",
        wt=memref((edges(s),)),
        xt=memref((N, F)),
        bt=memref((F,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    ptr, col, w, x, b, y = a["ptr"], a["col"], a["w"], a["x"], a["b"], a["y"]
    rows = []
    for i in range(s["N"]):
        lo, hi = int(ptr[i]), int(ptr[i + 1])
        di = 1.0 / anp.sqrt(1.0 + anp.sum(w[lo:hi]))
        h = y[i]
        for k in range(lo, hi):
            h = h + (w[k] * di) * x[int(col[k])]
        rows.append(anp.tanh(h + di * di * x[i] + b))
    return None, {"y": anp.stack(rows)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each node's neighbours drawn without repetition among the other nodes; the
    weights `1 / sqrt(d_j)` of a degree between 1 and 14."""
    N, F = s["N"], s["F"]
    cols = []
    for i, d in enumerate(degrees(s)):
        others = np.array([j for j in range(N) if j != i])
        cols.append(np.sort(rng.choice(others, d, replace=False)))
    return {
        "ptr": np.concatenate([[0], np.cumsum(degrees(s))]),
        "col": np.concatenate(cols),
        "w": 1.0 / np.sqrt(rng.integers(1, 15, edges(s)).astype(np.float64)),
        "x": rng.uniform(-1.0, 1.0, (N, F)),
        "b": rng.uniform(-0.5, 0.5, F),
        "y": np.zeros((N, F)),
    }


KERNEL = Kernel(
    key="gcn",
    sizes={"small": {"N": 5, "F": 3}, "paper": {"N": 192, "F": 16}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
