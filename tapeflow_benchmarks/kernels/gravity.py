"""
Gravity: the potential-energy product of a particle set (DiffTaichi).

With `H = N/2` and `x` holding `H*H` doubles, `u = prod over i, j in [0, H) of
-1 / (x[i*H + j] - x[j*H + i] + 0.001)`, accumulated by a doubly nested loop from
`u = 1`. The flat input is indexed in both orders, so REV reads it row-wise and
column-wise, as the original does.

Sizes: `small` N = 16 (H = 8, 64 factors); `paper` N = 512 (Table II, "array 512":
H = 256, 65536 factors).
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

SOFTENING = 0.001
"""Keeps the diagonal factors (where the difference is exactly 0) finite."""


def params(s: Sizes) -> tuple[Param, ...]:
    h = s["N"] // 2
    return (Param("x", (h * h,), active=True),)


def body(s: Sizes) -> str:
    h = s["N"] // 2
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        %minus_one = arith.constant -1.0 : f64
        %softening = arith.constant $softening : f64
        %u = scf.for %i = %c0 to %c$H step %c1 iter_args(%u_i = %one) -> (f64) {
          %row_i = arith.muli %i, %c$H : index
          %u_ij = scf.for %j = %c0 to %c$H step %c1 iter_args(%acc = %u_i) -> (f64) {
            %ij = arith.addi %row_i, %j : index
            %row_j = arith.muli %j, %c$H : index
            %ji = arith.addi %row_j, %i : index
            %x_ij = memref.load %x[%ij] : $xt
            %x_ji = memref.load %x[%ji] : $xt
            %r = arith.subf %x_ij, %x_ji : f64
            %r_soft = arith.addf %r, %softening : f64
            %factor = arith.divf %minus_one, %r_soft : f64
            %next = arith.mulf %acc, %factor : f64
            scf.yield %next : f64
          }
          scf.yield %u_ij : f64
        }
        return %u : f64
        """,
        consts=index_constants(0, 1, h),
        H=h,
        softening=f64(SOFTENING),
        xt=memref((h * h,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    h = s["N"] // 2
    x = anp.reshape(a["x"], (h, h))
    return anp.prod(-1.0 / (x - x.T + SOFTENING)), {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A random x whose product has magnitude e^0.5 at any size.

    The H diagonal factors are -1/0.001 each, so the differences of the H(H-1)/2
    off-diagonal pairs are chosen (through the antisymmetric part of x) with
    log|r^2 - 0.001^2| summing to H*log(1000) - 0.5, each jittered around the
    mean; a plain random x over- or underflows at the paper size.
    """
    h = s["N"] // 2
    iu = np.triu_indices(h, k=1)
    pairs = len(iu[0])
    jitter = rng.normal(0.0, 0.1, pairs)
    logs = (h * np.log(1.0 / SOFTENING) - 0.5) / pairs + jitter - jitter.mean()
    r = rng.choice([-1.0, 1.0], pairs) * np.sqrt(SOFTENING**2 + np.exp(logs))
    anti = np.zeros((h, h))
    anti[iu] = r
    anti -= anti.T
    sym = rng.uniform(-1.0, 1.0, (h, h))
    sym = (sym + sym.T) / 2
    return {"x": (sym + anti / 2).reshape(-1)}


KERNEL = Kernel(
    key="gravity",
    sizes={"small": {"N": 16}, "paper": {"N": 512}},
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
)
