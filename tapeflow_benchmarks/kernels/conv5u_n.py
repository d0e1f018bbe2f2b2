"""
The `conv5u` layer (PyTorch's `torch.nn.Conv2d(1, 1, 5)` without bias, then
`torch.tanh`; 5 x 5 as LeNet-5's convolutions, LeCun et al., Proc. IEEE 1998, the
window written out as a compiler fully unrolls its two loops of constant trip
count) over a run-time number of output rows `n` (an argument), on buffers of
dynamic shape:

    for (i = 0; i < n; i++)
      for (j = 0; j < W; j++) {
        s = w[0][0] * x[i][j] + w[0][1] * x[i][j + 1] + ... + w[4][4] * x[i + 4][j + 4];
        y[i][j] = tanh(s);
      }

The inner loop's straight-line iteration caches 50 values (each product's two
operands, as loaded), more than a straight-line layer of Tflow32k's scratchpad
holds (32 entries), its iterations independent; the outer loop's trip count is
known only at run time.

Sizes: `small` buffers for H = 3 rows, n = 2, W = 2; `paper` H = n = 24, W = 24
(a nest kernel).
"""

from __future__ import annotations

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.conv5u import K, window
from tapeflow_benchmarks.kernels.kernel import (
    Array,
    Kernel,
    Param,
    Sizes,
    index_constants,
    render,
)


def _image(s: Sizes) -> tuple[int, int]:
    return (s["H"] + K - 1, s["W"] + K - 1)


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", _image(s), active=True, dynamic=True),
        Param("w", (K, K), active=True),
        Param("y", (s["H"], s["W"]), active=True, written=True, dynamic=True),
        Param("n", (), trip="n"),
    )


def body(s: Sizes) -> str:
    lines = window("memref<?x?xf64>", "memref<?x?xf64>")
    return render(
        """
        $consts
        scf.for %i = %c0 to %n step %c1 {
          scf.for %j = %c0 to %c$W step %c1 {
            $window
          }
        }
        return
        """,
        consts=index_constants(*sorted({0, 1, 2, 3, 4, s["W"]})),
        W=s["W"],
        window="\n".join(lines),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The window's products summed in the loops' order, then tanh, on the first
    `n` rows (the rest of `y` as given)."""
    x, w, y = a["x"], a["w"], a["y"]
    n, W = s["n"], s["W"]
    total = 0.0
    for p in range(K):
        for q in range(K):
            total = total + w[p, q] * x[p : p + n, q : q + W]
    return None, {"y": anp.concatenate([anp.tanh(total), y[n:]], axis=0)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, _image(s)),
        "w": rng.uniform(-1.0, 1.0, (K, K)) / K,
        "y": rng.uniform(-1.0, 1.0, (s["H"], s["W"])),
    }


KERNEL = Kernel(
    key="conv5u_n",
    sizes={"small": {"H": 3, "W": 2, "n": 2}, "paper": {"H": 24, "W": 24, "n": 24}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
