"""
A 3 x 3 convolution over a three-channel (RGB) image with a tanh activation, a
network's first layer (Simonyan & Zisserman, "Very Deep Convolutional Networks
for Large-Scale Image Recognition", ICLR 2015: 3 x 3 filters at stride 1 over
the RGB input; PyTorch's `torch.nn.Conv2d(3, 1, 3)` without bias, then
`torch.tanh`), its window written out, as a compiler fully unrolls the three
loops of constant trip count over it (clang's `#pragma unroll`):

    for (i = 0; i < H; i++)
      for (j = 0; j < W; j++) {
        s = w[0][0][0] * x[0][i][j] + w[0][0][1] * x[0][i][j + 1] + ...
          + w[2][2][2] * x[2][i + 2][j + 2];
        y[i][j] = tanh(s);
      }

An innermost loop whose straight-line iteration caches 54 values (each product's
two operands, as loaded; 432 B), more than half of Tflow32k's 512 B scratchpad,
its iterations independent.

Sizes: `small` H = W = 2; `paper` H = W = 16 (a nest kernel).
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

CI = 3
K = 3
D = 1
"""Input channels, kernel side, dilation."""


def _image(s: Sizes) -> tuple[int, int, int]:
    return (CI, s["H"] + D * (K - 1), s["W"] + D * (K - 1))


def window(x_type: str, y_type: str) -> list[str]:
    """An output pixel's ops, the window written out: each product of a weight and
    an input (both loaded), summed in the loops' order (channel, row, column),
    then tanh, stored to `y[i, j]`."""
    wt = memref((CI, K, K))
    lines = []
    acc = ""
    for c in range(CI):
        for a in range(K):
            for b in range(K):
                t = f"{c}{a}{b}"
                lines += [
                    f"%r{t} = arith.addi %i, %c{D * a} : index",
                    f"%q{t} = arith.addi %j, %c{D * b} : index",
                    f"%x{t} = memref.load %x[%c{c}, %r{t}, %q{t}] : {x_type}",
                    f"%w{t} = memref.load %w[%c{c}, %c{a}, %c{b}] : {wt}",
                    f"%p{t} = arith.mulf %w{t}, %x{t} : f64",
                ]
                if acc:
                    lines.append(f"%s{t} = arith.addf {acc}, %p{t} : f64")
                    acc = f"%s{t}"
                else:
                    acc = f"%p{t}"
    return [*lines, f"%act = math.tanh {acc} : f64", f"memref.store %act, %y[%i, %j] : {y_type}"]


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", _image(s), active=True),
        Param("w", (CI, K, K), active=True),
        Param("y", (s["H"], s["W"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    lines = window(memref(_image(s)), memref((s["H"], s["W"])))
    return render(
        """
        $consts
        scf.for %i = %c0 to %c$H step %c1 {
          scf.for %j = %c0 to %c$W step %c1 {
            $window
          }
        }
        return
        """,
        consts=index_constants(*sorted({0, 1, 2, s["H"], s["W"]})),
        H=s["H"],
        W=s["W"],
        window="\n".join(lines),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The window's products summed in the loops' order, then tanh."""
    x, w = a["x"], a["w"]
    H, W = s["H"], s["W"]
    total = 0.0
    for c in range(CI):
        for p in range(K):
            for q in range(K):
                total = total + w[c, p, q] * x[c, D * p : D * p + H, D * q : D * q + W]
    return None, {"y": anp.tanh(total)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, _image(s)),
        "w": rng.uniform(-1.0, 1.0, (CI, K, K)) / np.sqrt(CI * K * K),
        "y": rng.uniform(-1.0, 1.0, (s["H"], s["W"])),
    }


KERNEL = Kernel(
    key="rgbconv",
    sizes={"small": {"H": 2, "W": 2}, "paper": {"H": 16, "W": 16}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
