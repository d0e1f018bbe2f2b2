"""
Logsum: log-sum-exp as the authors' artifact wrote it (from Enzyme's examples).

`A = x[0]`, one loop `sema *= exp(x[i] - A)` from `sema = 1`, result
`log(sema) + A`. The running product (not a sum) is the artifact's, kept for its
dataflow: one loop-carried multiply fed by an `exp` per element.

Sizes: `small` N = 16; `paper` N = 10000 (Table II, "input 10K"); `artifact` N = 10000
with the loop written unrolled by U = 8 before differentiation, as clang applies the
authors' `unroll_count(8)` before their Enzyme does (`G:benchmarks/AD/logsum/hw/logsum.c`
L26-38 at gem5-SALAM `a5e40f4be`, -O1, its `hw/Makefile`).
"""

from __future__ import annotations

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.artifact import AUTHORS, ArtifactRun, MemoryMap
from tapeflow_benchmarks.kernels.kernel import (
    Array,
    Kernel,
    Param,
    Sizes,
    index_constants,
    memref,
    render,
    unrolled_body,
)


def params(s: Sizes) -> tuple[Param, ...]:
    return (Param("x", (s["N"],), active=True),)


def body(s: Sizes) -> str:
    u = s.get("U", 1)
    copies, last = unrolled_body(
        """
        %xi = memref.load %x[%i] : $xt
        %d = arith.subf %xi, %A : f64
        %e = math.exp %d : f64
        %next = arith.mulf %acc, %e : f64
        """,
        "i",
        u,
        {"acc": "%next"},
    )
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        %A = memref.load %x[%c0] : $xt
        %sema = scf.for $iv = %c0 to %c$trips step %c1 iter_args(%acc = %one) -> (f64) {
          $copies
          scf.yield $last : f64
        }
        %log = math.log %sema : f64
        %r = arith.addf %log, %A : f64
        return %r : f64
        """,
        consts=index_constants(*range(u + 1), s["N"] // u),
        copies=render(copies, xt=memref((s["N"],))).rstrip("\n"),
        last=last["acc"],
        iv="%i_trip" if u > 1 else "%i",
        trips=s["N"] // u,
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
    sizes={"small": {"N": 16}, "paper": {"N": 10000}, "artifact": {"N": 10000, "U": 8}},
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
    artifact=ArtifactRun(
        memory_map=MemoryMap(
            {"x": 0x80C00A00, "d_x": 0x80C14280},
            f"{AUTHORS} benchmarks/AD/logsum/hw/logsum.c, top(): inputp = input + 80,000 B",
        )
    ),
)
