"""
A 2-D convolution layer with a 5 x 5 kernel and a tanh activation (PyTorch's
`torch.nn.Conv2d(1, 1, 5)` without bias, then `torch.tanh`; 5 x 5 as LeNet-5's
convolutions, LeCun et al., Proc. IEEE 1998), its window written out, as a
compiler fully unrolls the two loops of constant trip count over it (clang's
`#pragma unroll`):

    for (i = 0; i < H; i++)
      for (j = 0; j < W; j++) {
        s = w[0][0] * x[i][j] + w[0][1] * x[i][j + 1] + ... + w[4][4] * x[i + 4][j + 4];
        y[i][j] = tanh(s);
      }

An innermost loop whose straight-line iteration caches 50 values (each product's
two operands, a window input and a weight, as loaded), more than a straight-line
layer of Tflow32k's scratchpad holds (32 entries), its iterations independent.

Sizes: `small` H = W = 2; `paper` H = W = 24 (a nest kernel).
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

K = 5


def _image(s: Sizes) -> tuple[int, int]:
    return (s["H"] + K - 1, s["W"] + K - 1)


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", _image(s), active=True),
        Param("w", (K, K), active=True),
        Param("y", (s["H"], s["W"]), active=True, written=True),
    )


def window(x_type: str, y_type: str) -> list[str]:
    """An output pixel's ops, the 5 x 5 window written out: each product of a
    weight and an input (both loaded), summed in the loops' order, then tanh,
    stored to `y[i, j]` (`x` and `y` of the given memref types)."""
    wt = memref((K, K))
    lines = []
    acc = ""
    for a in range(K):
        for b in range(K):
            t = f"{a}{b}"
            lines += [
                f"%r{t} = arith.addi %i, %c{a} : index",
                f"%q{t} = arith.addi %j, %c{b} : index",
                f"%x{t} = memref.load %x[%r{t}, %q{t}] : {x_type}",
                f"%w{t} = memref.load %w[%c{a}, %c{b}] : {wt}",
                f"%p{t} = arith.mulf %w{t}, %x{t} : f64",
            ]
            if acc:
                lines.append(f"%s{t} = arith.addf {acc}, %p{t} : f64")
                acc = f"%s{t}"
            else:
                acc = f"%p{t}"
    return [*lines, f"%act = math.tanh {acc} : f64", f"memref.store %act, %y[%i, %j] : {y_type}"]


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
        consts=index_constants(*sorted({0, 1, 2, 3, 4, s["H"], s["W"]})),
        H=s["H"],
        W=s["W"],
        window="\n".join(lines),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The window's products summed in the loops' order, then tanh."""
    x, w = a["x"], a["w"]
    H, W = s["H"], s["W"]
    total = 0.0
    for p in range(K):
        for q in range(K):
            total = total + w[p, q] * x[p : p + H, q : q + W]
    return None, {"y": anp.tanh(total)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.uniform(-1.0, 1.0, _image(s)),
        "w": rng.uniform(-1.0, 1.0, (K, K)) / K,
        "y": rng.uniform(-1.0, 1.0, (s["H"], s["W"])),
    }


KERNEL = Kernel(
    key="conv5u",
    sizes={"small": {"H": 2, "W": 2}, "paper": {"H": 24, "W": 24}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
