"""
A strided one-dimensional convolution with bias and the GELU activation over a
batch of `b` samples, `b` an argument known only at run time: PyTorch's
`torch.nn.Conv1d(CI, CO, K, stride=2)` followed by `torch.nn.GELU(approximate=
"tanh")` (Hendrycks & Gimpel, "Gaussian Error Linear Units", 2016, eq. 2's tanh
form: `0.5 z (1 + tanh(sqrt(2/pi) (z + 0.044715 z^3)))`):

    for (n = 0; n < b; n++)
      for (o = 0; o < CO; o++)
        for (p = 0; p < P; p++) {
          z = bias[o];
          for (c = 0; c < CI; c++)
            for (t = 0; t < K; t++) z += w[o][c][t] * x[n][c][2 p + t];
          y[n][o][p] = gelu(z);
        }

Five loops deep, the outermost of run-time trip count, the input read at stride
2; each output keeps its pre-activation beside the inner loops' tape, and the
GELU's polynomial and `tanh` give the gradient several values to need per output.

Sizes: `small` buffers of B = 3 samples, b = 2, CI = 2, CO = 2, K = 3, P = 3;
`paper` B = b = 8, CI = 4, CO = 8, K = 3, P = 16 (a nest kernel).
"""

from __future__ import annotations

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.kernel import (
    Array,
    Kernel,
    Param,
    Sizes,
    f64,
    index_constants,
    memref,
    render,
)

STRIDE = 2
GELU_C = float(np.sqrt(2.0 / np.pi))
GELU_A = 0.044715


def _width(s: Sizes) -> int:
    """The input length the last output's window reaches."""
    return STRIDE * (s["P"] - 1) + s["K"]


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", (s["B"], s["CI"], _width(s)), active=True),
        Param("w", (s["CO"], s["CI"], s["K"]), active=True),
        Param("bias", (s["CO"],), active=True),
        Param("y", (s["B"], s["CO"], s["P"]), active=True, written=True),
        Param("b", (), trip="b"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %half = arith.constant 0.5 : f64
        %one = arith.constant 1.0 : f64
        %gc = arith.constant $gc : f64
        %ga = arith.constant $ga : f64
        scf.for %n = %c0 to %b step %c1 {
          scf.for %o = %c0 to %c$CO step %c1 {
            %bo = memref.load %bias[%o] : $bt
            scf.for %p = %c0 to %c$P step %c1 {
              %p2 = arith.muli %p, %c$stride : index
              %z = scf.for %c = %c0 to %c$CI step %c1 iter_args(%zc = %bo) -> (f64) {
                %zk = scf.for %t = %c0 to %c$K step %c1 iter_args(%acc = %zc) -> (f64) {
                  %at = arith.addi %p2, %t : index
                  %xv = memref.load %x[%n, %c, %at] : $xt
                  %wv = memref.load %w[%o, %c, %t] : $wt
                  %prod = arith.mulf %wv, %xv : f64
                  %next = arith.addf %acc, %prod : f64
                  scf.yield %next : f64
                }
                scf.yield %zk : f64
              }
              %z2 = arith.mulf %z, %z : f64
              %z3 = arith.mulf %z2, %z : f64
              %cub = arith.mulf %ga, %z3 : f64
              %inner = arith.addf %z, %cub : f64
              %arg = arith.mulf %gc, %inner : f64
              %th = math.tanh %arg : f64
              %th1 = arith.addf %one, %th : f64
              %hz = arith.mulf %half, %z : f64
              %g = arith.mulf %hz, %th1 : f64
              memref.store %g, %y[%n, %o, %p] : $yt
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, STRIDE, s["CO"], s["P"], s["CI"], s["K"]),
        CO=s["CO"],
        P=s["P"],
        CI=s["CI"],
        K=s["K"],
        stride=STRIDE,
        gc=f64(GELU_C),
        ga=f64(GELU_A),
        xt=memref((s["B"], s["CI"], _width(s))),
        wt=memref((s["CO"], s["CI"], s["K"])),
        bt=memref((s["CO"],)),
        yt=memref((s["B"], s["CO"], s["P"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The first b samples' outputs (the rest of y kept)."""
    nb, k, p = s["b"], s["K"], s["P"]
    x, w, y = a["x"], a["w"], a["y"]
    z = a["bias"][None, :, None] * anp.ones((nb, 1, p))
    for t in range(k):
        window = x[:nb, :, t : t + STRIDE * (p - 1) + 1 : STRIDE]  # (b, CI, P)
        z = z + anp.einsum("oc,ncp->nop", w[:, :, t], window)
    gelu = 0.5 * z * (1.0 + anp.tanh(GELU_C * (z + GELU_A * z**3)))
    return None, {"y": anp.concatenate([gelu, y[nb:]], axis=0)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Weights scaled by 1/sqrt(CI K), so the pre-activations stay O(1)."""
    fan_in = s["CI"] * s["K"]
    return {
        "x": rng.uniform(-1.0, 1.0, (s["B"], s["CI"], _width(s))),
        "w": rng.uniform(-1.0, 1.0, (s["CO"], s["CI"], s["K"])) / np.sqrt(fan_in),
        "bias": rng.uniform(-0.5, 0.5, (s["CO"],)),
        "y": rng.uniform(-1.0, 1.0, (s["B"], s["CO"], s["P"])),
    }


KERNEL = Kernel(
    key="sconv",
    sizes={
        "small": {"B": 3, "b": 2, "CI": 2, "CO": 2, "K": 3, "P": 3},
        "paper": {"B": 8, "b": 8, "CI": 4, "CO": 8, "K": 3, "P": 16},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
