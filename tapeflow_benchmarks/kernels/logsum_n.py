"""
Logsum over a run-time length: the `logsum` kernel (log-sum-exp, after Enzyme's
examples and the TapeFlow artifact) with its trip count an argument `n` and its
input a buffer of dynamic shape (`memref<?xf64>`): `A = x[0]`, `sema *= exp(x[i] -
A)` for `i < n` from `sema = 1`, result `log(sema) + A`.

Enzyme sizes its caches with `n` at run time (`memref.alloc(%n)`, accessed with
`enzyme.store/load`); TapeFlow strip-mines the loop into `ceil(n / T)` tiles and
streams them through a slab tape. The buffer is longer than `n` in the
`small` preset, so the bound really is the argument.

Sizes: `small` buffer N = 16, n = 13; `paper` N = n = 10000 (an extra kernel).
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
    return (
        Param("x", (s["N"],), active=True, dynamic=True),
        Param("n", (), trip="n"),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        %A = memref.load %x[%c0] : memref<?xf64>
        %sema = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (f64) {
          %xi = memref.load %x[%i] : memref<?xf64>
          %d = arith.subf %xi, %A : f64
          %e = math.exp %d : f64
          %next = arith.mulf %acc, %e : f64
          scf.yield %next : f64
        }
        %log = math.log %sema : f64
        %r = arith.addf %log, %A : f64
        return %r : f64
        """,
        consts=index_constants(0, 1),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    x, n = a["x"], s["n"]
    return anp.log(anp.prod(anp.exp(x[:n] - x[0]))) + x[0], {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """x in [-1, 1), with x[0] chosen so that sum(x[:n] - x[0]) = 1 (the product
    stays e however long the input)."""
    n = s["n"]
    x = rng.uniform(-1.0, 1.0, s["N"])
    x[0] = (x[1:n].sum() - 1.0) / (n - 1)
    return {"x": x}


KERNEL = Kernel(
    key="logsum_n",
    sizes={"small": {"N": 16, "n": 13}, "paper": {"N": 10000, "n": 10000}},
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
)
