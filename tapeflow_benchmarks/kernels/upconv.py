"""
A transposed (fractionally strided) 1-D convolution, the upsampling layer of a
decoder (`torch.nn.ConvTranspose1d` with stride S, no padding; Dumoulin &
Visin, "A guide to convolution arithmetic for deep learning", 2016, section 4),
each output passed through its channel's bias and `tanh`, computed in gather
form: output `o` sums the inputs `i` with `0 <= o - S i < K`,

    for (co = 0; co < C; co++)
      for (o = 0; o < LO; o++) {               // LO = (L - 1) S + K
        lo = max(0, ceil((o - K + 1) / S));  hi = min(L, o / S + 1);
        s = bias[co];
        for (i = lo; i < hi; i++)
          for (ci = 0; ci < C; ci++) s += W[ci][co][o - S i] * x[ci][i] * x[ci][i];
        y[co][o] = tanh(s);
      }

A band whose bounds come from integer division and clamping at both ends (one
to `K / S` inputs per output), a constant loop over the channels inside it, and
the output's activation cached beside them. The squared inputs (the layer fed
by a square activation, as in a polynomial network's layer) make the products
need their operands in REV.

Sizes: `small` C = 2 channels, L = 4 inputs, K = 3, S = 2; `paper` C = 8,
L = 128, K = 4, S = 2 (a nest kernel).
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


def out_len(s: Sizes) -> int:
    return (s["L"] - 1) * s["S"] + s["K"]


def params(s: Sizes) -> tuple[Param, ...]:
    c, n, k = s["C"], s["L"], s["K"]
    return (
        Param("x", (c, n), active=True),
        Param("W", (c, c, k), active=True),
        Param("bias", (c,), active=True),
        Param("y", (c, out_len(s)), active=True, written=True),
    )


def body(s: Sizes) -> str:
    c, n, k, st = s["C"], s["L"], s["K"], s["S"]
    lo_off = st - k  # o - K + S: ceil((o - K + 1) / S) when o - K + 1 >= 0
    return render(
        """
        $consts
        %step = arith.constant $S : index
        %off = arith.constant $off : index
        scf.for %co = %c0 to %c$C step %c1 {
          %b = memref.load %bias[%co] : $bt
          scf.for %o = %c0 to %c$LO step %c1 {
            %num = arith.addi %o, %off : index
            %numc = arith.maxsi %num, %c0 : index
            %lo = arith.divui %numc, %step : index
            %q = arith.divui %o, %step : index
            %q1 = arith.addi %q, %c1 : index
            %hi = arith.minsi %q1, %c$L : index
            %s = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %b) -> (f64) {
              %si = arith.muli %i, %step : index
              %kk = arith.subi %o, %si : index
              %r = scf.for %ci = %c0 to %c$C step %c1 iter_args(%a2 = %acc) -> (f64) {
                %w = memref.load %W[%ci, %co, %kk] : $wt
                %xv = memref.load %x[%ci, %i] : $xt
                %wx = arith.mulf %w, %xv : f64
                %wxx = arith.mulf %wx, %xv : f64
                %next = arith.addf %a2, %wxx : f64
                scf.yield %next : f64
              }
              scf.yield %r : f64
            }
            %t = math.tanh %s : f64
            memref.store %t, %y[%co, %o] : $yt
          }
        }
        return
        """,
        consts=index_constants(0, 1, c, n, out_len(s)),
        C=c,
        L=n,
        LO=out_len(s),
        S=st,
        off=lo_off,
        bt=memref((c,)),
        wt=memref((c, c, k)),
        xt=memref((c, n)),
        yt=memref((c, out_len(s))),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    c, n, k, st = s["C"], s["L"], s["K"], s["S"]
    x2 = a["x"] * a["x"]
    rows = []
    for co in range(c):
        outs = []
        for o in range(out_len(s)):
            total = a["bias"][co]
            for i in range(max(0, -(-(o - k + 1) // st)), min(n, o // st + 1)):
                total = total + anp.sum(a["W"][:, co, o - st * i] * x2[:, i])
            outs.append(total)
        rows.append(anp.stack(outs))
    return None, {"y": anp.tanh(anp.stack(rows))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    c, n, k = s["C"], s["L"], s["K"]
    return {
        "x": rng.uniform(-1.0, 1.0, (c, n)),
        "W": rng.uniform(-1.0, 1.0, (c, c, k)) / np.sqrt(c),
        "bias": rng.uniform(-0.5, 0.5, c),
        "y": np.zeros((c, out_len(s))),
    }


KERNEL = Kernel(
    key="upconv",
    sizes={
        "small": {"C": 2, "L": 4, "K": 3, "S": 2},
        "paper": {"C": 8, "L": 128, "K": 4, "S": 2},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
