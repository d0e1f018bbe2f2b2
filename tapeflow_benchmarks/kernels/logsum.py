"""
Logsum: log-sum-exp as the authors' artifact wrote it (from Enzyme's examples).

`A = x[0]`, one loop `sema *= exp(x[i] - A)` from `sema = 1`, result
`log(sema) + A`. The running product (not a sum) is the artifact's, kept for its
dataflow: one loop-carried multiply fed by an `exp` per element.

Sizes: `small` N = 16; `paper` N = 10000 (Table II, "input 10K"); `artifact` N = 10000
unrolled by 8 (the authors' `unroll_count(8)`).
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


def params(s: Sizes) -> tuple[Param, ...]:
    return (Param("x", (s["N"],), active=True),)


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        %A = memref.load %x[%c0] : $xt
        %sema = scf.for %i = %c0 to %c$N step %c1 iter_args(%acc = %one) -> (f64) {
          %xi = memref.load %x[%i] : $xt
          %d = arith.subf %xi, %A : f64
          %e = math.exp %d : f64
          %next = arith.mulf %acc, %e : f64
          scf.yield %next : f64
        }
        %log = math.log %sema : f64
        %r = arith.addf %log, %A : f64
        return %r : f64
        """,
        consts=index_constants(0, 1, s["N"]),
        N=s["N"],
        xt=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    x = a["x"]
    return anp.log(anp.prod(anp.exp(x - x[0]))) + x[0], {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """x in [-1, 1), with x[0] chosen so that sum(x - x[0]) = 1: the product stays
    e however long the input (a random x[0] would over- or underflow it)."""
    n = s["N"]
    x = rng.uniform(-1.0, 1.0, n)
    x[0] = (x[1:].sum() - 1.0) / (n - 1)
    return {"x": x}


KERNEL = Kernel(
    key="logsum",
    sizes={"small": {"N": 16}, "paper": {"N": 10000}, "artifact": {"N": 10000}},
    unroll={"artifact": 8},
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
)
