"""
A 2-D convolution layer of several input and output channels, its tanh
activation and a 2 x 2 max-pooling, fused (PyTorch's `torch.nn.Conv2d(CI, CO, K)`
with bias, no padding, stride 1, then `torch.tanh` and `torch.nn.MaxPool2d(2)`;
LeCun et al., "Gradient-Based Learning Applied to Document Recognition", Proc.
IEEE 1998, with the max-pooling that replaced its subsampling):

    for (o = 0; o < CO; o++)
      for (py = 0; py < P; py++)
        for (px = 0; px < P; px++) {
          m = -1e300;
          for (dy = 0; dy < 2; dy++)
            for (dx = 0; dx < 2; dx++) {
              s = b[o];
              for (c = 0; c < CI; c++)
                for (ky = 0; ky < K; ky++)
                  for (kx = 0; kx < K; kx++)
                    s += w[o][c][ky][kx] * x[c][2 py + dy + ky][2 px + dx + kx];
              m = max(m, tanh(s));
            }
          y[o][py][px] = m;
        }

A seven-level nest: two short loops (the pooling window) carry the maximum
between the pixel's body and a three-level reduction, so each window position
caches its activation beside the reduction's tape. The inputs are random, so the
four activations of a window are distinct (no ties for the maximum's derivative).

Sizes: `small` CI = 2, CO = 2, K = 2, P = 2; `paper` CI = 2, CO = 4, K = 3, P = 6
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
    index_constants,
    memref,
    render,
)


def _side(s: Sizes) -> int:
    return 2 * s["P"] + s["K"] - 1


def params(s: Sizes) -> tuple[Param, ...]:
    CI, CO, K, P = s["CI"], s["CO"], s["K"], s["P"]
    return (
        Param("x", (CI, _side(s), _side(s)), active=True),
        Param("w", (CO, CI, K, K), active=True),
        Param("b", (CO,), active=True),
        Param("y", (CO, P, P), active=True, written=True),
    )


def body(s: Sizes) -> str:
    CI, CO, K, P = s["CI"], s["CO"], s["K"], s["P"]
    return render(
        """
        $consts
        %lowest = arith.constant -1.0e300 : f64
        scf.for %o = %c0 to %c$CO step %c1 {
          %bo = memref.load %b[%o] : $bt
          scf.for %py = %c0 to %c$P step %c1 {
            %y0 = arith.muli %py, %c2 : index
            scf.for %px = %c0 to %c$P step %c1 {
              %x0 = arith.muli %px, %c2 : index
              %m = scf.for %dy = %c0 to %c2 step %c1 iter_args(%my = %lowest) -> (f64) {
                %oy = arith.addi %y0, %dy : index
                %mx = scf.for %dx = %c0 to %c2 step %c1 iter_args(%mw = %my) -> (f64) {
                  %ox = arith.addi %x0, %dx : index
                  %s = scf.for %c = %c0 to %c$CI step %c1 iter_args(%ac = %bo) -> (f64) {
                    %sk = scf.for %ky = %c0 to %c$K step %c1 iter_args(%ak = %ac) -> (f64) {
                      %iy = arith.addi %oy, %ky : index
                      %sx = scf.for %kx = %c0 to %c$K step %c1 iter_args(%acc = %ak) -> (f64) {
                        %ix = arith.addi %ox, %kx : index
                        %wv = memref.load %w[%o, %c, %ky, %kx] : $wt
                        %xv = memref.load %x[%c, %iy, %ix] : $xt
                        %p = arith.mulf %wv, %xv : f64
                        %next = arith.addf %acc, %p : f64
                        scf.yield %next : f64
                      }
                      scf.yield %sx : f64
                    }
                    scf.yield %sk : f64
                  }
                  %a = math.tanh %s : f64
                  %mn = arith.maximumf %mw, %a : f64
                  scf.yield %mn : f64
                }
                scf.yield %mx : f64
              }
              memref.store %m, %y[%o, %py, %px] : $yt
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, CI, CO, K, P),
        CI=CI,
        CO=CO,
        K=K,
        P=P,
        bt=memref((CO,)),
        wt=memref((CO, CI, K, K)),
        xt=memref((CI, _side(s), _side(s))),
        yt=memref((CO, P, P)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    CI, CO, K, P = s["CI"], s["CO"], s["K"], s["P"]
    x, w = a["x"], a["w"]
    n = 2 * P
    conv = sum(
        w[:, c, ky, kx][:, None, None] * x[c, ky : ky + n, kx : kx + n][None]
        for c in range(CI)
        for ky in range(K)
        for kx in range(K)
    )
    act = anp.tanh(conv + a["b"][:, None, None])
    windows = anp.reshape(act, (CO, P, 2, P, 2))
    pooled = anp.max(anp.max(windows, axis=4), axis=2)
    return None, {"y": pooled}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    CI, CO, K, P = s["CI"], s["CO"], s["K"], s["P"]
    return {
        "x": rng.uniform(-1.0, 1.0, (CI, _side(s), _side(s))),
        "w": rng.uniform(-1.0, 1.0, (CO, CI, K, K)) / np.sqrt(CI * K * K),
        "b": rng.uniform(-0.5, 0.5, CO),
        "y": np.zeros((CO, P, P)),
    }


KERNEL = Kernel(
    key="convpool",
    sizes={
        "small": {"CI": 2, "CO": 2, "K": 2, "P": 2},
        "paper": {"CI": 2, "CO": 4, "K": 3, "P": 6},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
