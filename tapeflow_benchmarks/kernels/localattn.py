"""
Sliding-window (local) attention of one head over a run-time sequence length:
position `i` attends to the positions within `W` of it, the window clamped at the
sequence's ends, as Longformer's local attention does (Beltagy, Peters & Cohan,
"Longformer: The Long-Document Transformer", 2020, section 3.1; scaled
dot-product attention of Vaswani et al., NeurIPS 2017), the weights kept in a
banded buffer of `2W + 1` columns:

    for (i = 0; i < L; i++) {
      lo = max(0, i - W);  hi = min(L, i + W + 1);  z = 0;
      for (j = lo; j < hi; j++) {
        s = 0;
        for (d = 0; d < D; d++) s += Q[i][d] * K[j][d];
        P[i][j - lo] = exp(s * scale);  z += P[i][j - lo];
      }
      inv = 1 / z;
      for (d = 0; d < D; d++) {
        o = 0;
        for (j = lo; j < hi; j++) o += P[i][j - lo] * V[j][d];
        O[i][d] = o * inv;
      }
    }

A clamped band (`max`/`min` bounds, at most `2W + 1` iterations) under an outer
loop whose trip count is an argument (`L`, the buffers of dynamic shape), the
band's loops both at the middle of the nest and innermost, and a per-row value
(`inv`) cached beside them.

Sizes: `small` buffers of N = 6 rows, L = 5, D = 2, W = 1; `paper` N = L = 256
positions, D = 8, W = 4 (a nest kernel).
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
    render,
)


def params(s: Sizes) -> tuple[Param, ...]:
    n, d, b = s["N"], s["D"], 2 * s["W"] + 1
    return (
        Param("Q", (n, d), active=True, dynamic=True),
        Param("K", (n, d), active=True, dynamic=True),
        Param("V", (n, d), active=True, dynamic=True),
        Param("P", (n, b), active=True, written=True, dynamic=True),
        Param("O", (n, d), active=True, written=True, dynamic=True),
        Param("L", (), trip="L"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %scale = arith.constant $scale : f64
        scf.for %i = %c0 to %L step %c1 {
          %im = arith.subi %i, %c$W : index
          %lo = arith.maxsi %im, %c0 : index
          %ip = arith.addi %i, %c$W1 : index
          %hi = arith.minsi %ip, %L : index
          %z = scf.for %j = %lo to %hi step %c1 iter_args(%za = %zero) -> (f64) {
            %s = scf.for %d = %c0 to %c$D step %c1 iter_args(%acc = %zero) -> (f64) {
              %q = memref.load %Q[%i, %d] : memref<?x?xf64>
              %k = memref.load %K[%j, %d] : memref<?x?xf64>
              %p = arith.mulf %q, %k : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            %ss = arith.mulf %s, %scale : f64
            %e = math.exp %ss : f64
            %jl = arith.subi %j, %lo : index
            memref.store %e, %P[%i, %jl] : memref<?x?xf64>
            %zn = arith.addf %za, %e : f64
            scf.yield %zn : f64
          }
          %inv = arith.divf %one, %z : f64
          scf.for %d = %c0 to %c$D step %c1 {
            %o = scf.for %j = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
              %jl = arith.subi %j, %lo : index
              %p = memref.load %P[%i, %jl] : memref<?x?xf64>
              %v = memref.load %V[%j, %d] : memref<?x?xf64>
              %pv = arith.mulf %p, %v : f64
              %next = arith.addf %acc, %pv : f64
              scf.yield %next : f64
            }
            %oi = arith.mulf %o, %inv : f64
            memref.store %oi, %O[%i, %d] : memref<?x?xf64>
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["W"], s["W"] + 1, s["D"]),
        W=s["W"],
        W1=s["W"] + 1,
        D=s["D"],
        scale=f"{1.0 / np.sqrt(s['D']):.17e}",
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The first `L` rows of `P` (their first `hi - lo` columns) and `O` computed,
    the rest kept."""
    n, length, w = s["N"], s["L"], s["W"]
    scale = float(f"{1.0 / np.sqrt(s['D']):.17e}")
    p_rows, o_rows = [], []
    for i in range(length):
        lo, hi = max(0, i - w), min(length, i + w + 1)
        e = anp.exp((a["K"][lo:hi] @ a["Q"][i]) * scale)
        p_rows.append(anp.concatenate([e, a["P"][i, hi - lo :]]))
        o_rows.append((e @ a["V"][lo:hi]) * (1.0 / anp.sum(e)))
    p = anp.concatenate([anp.stack(p_rows), a["P"][length:n]], axis=0)
    o = anp.concatenate([anp.stack(o_rows), a["O"][length:n]], axis=0)
    return None, {"P": p, "O": o}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    n, d, b = s["N"], s["D"], 2 * s["W"] + 1
    return {
        "Q": rng.uniform(-1.0, 1.0, (n, d)),
        "K": rng.uniform(-1.0, 1.0, (n, d)),
        "V": rng.uniform(-1.0, 1.0, (n, d)),
        "P": rng.uniform(-1.0, 1.0, (n, b)),
        "O": rng.uniform(-1.0, 1.0, (n, d)),
    }


KERNEL = Kernel(
    key="localattn",
    sizes={
        "small": {"N": 6, "L": 5, "D": 2, "W": 1},
        "paper": {"N": 256, "L": 256, "D": 8, "W": 4},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
