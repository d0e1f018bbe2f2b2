"""
Matdescent: a matrix-vector product, then a product reduction (Enzyme's examples).

`out[i] = sum_j M[i][j] * v[j]` in an i/j nest into a temporary buffer, then
`sum = sum * (out[i] + out[i])`. M is constant, v is differentiated.

Deviation, documented here, in the `small` and `paper` presets: the
reduction starts from `sum = 1`, not 0. From 0 the result and gradient are
identically zero, so no reference could tell a right gradient from a wrong one; the
loop structure, dataflow and tape are the same either way. The `artifact` preset is
the authors' program, quirk included: `start` = 0 (`G:benchmarks/AD/matd/hw/matd.c`
L22-37 at gem5-SALAM `a5e40f4be`, where `+=` became `*=`), so its gradient is
identically zero, which the reference says too.
Their `out` comes from the accelerator's malloc and overlaps `mat`'s rows from 311
on; that aliasing is undefined behaviour in C and is not reproduced (`out` is a
buffer of its own).

`out` is a temporary allocated with `memref.alloca`: Enzyme-MLIR cannot
differentiate a `memref.dealloc` of a buffer that carries derivatives, and a stack
buffer needs none.

Sizes: `small` R = 6, C = 8 (unequal, so that a transposed index shows); `paper`
R = C = 400 (Table II, "M,N 400"); `artifact` R = C = 400 with the inner j loop
written unrolled by U = 16 before differentiation, as clang applies the authors'
`unroll_count(16)` before their Enzyme runs (-O3).
"""

from __future__ import annotations

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.artifact import AUTHORS, ArtifactRun, MemoryMap, Recompute
from tapeflow_benchmarks.kernels.kernel import (
    Array,
    Kernel,
    Param,
    Sizes,
    f64,
    index_constants,
    memref,
    render,
    unrolled_body,
)


def params(s: Sizes) -> tuple[Param, ...]:
    return (Param("M", (s["R"], s["C"])), Param("v", (s["C"],), active=True))


def body(s: Sizes) -> str:
    u = s.get("U", 1)
    copies, last = unrolled_body(
        """
        %m = memref.load %M[%i, %j] : $mt
        %v_j = memref.load %v[%j] : $vt
        %mv = arith.mulf %m, %v_j : f64
        %next = arith.addf %acc, %mv : f64
        """,
        "j",
        u,
        {"acc": "%next"},
    )
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %start = arith.constant $start : f64
        %out = memref.alloca() : $outt
        scf.for %i = %c0 to %c$R step %c1 {
          %dot = scf.for $jv = %c0 to %c$trips step %c1 iter_args(%acc = %zero) -> (f64) {
            $copies
            scf.yield $last : f64
          }
          memref.store %dot, %out[%i] : $outt
        }
        %sum = scf.for %i = %c0 to %c$R step %c1 iter_args(%acc = %start) -> (f64) {
          %o = memref.load %out[%i] : $outt
          %twice = arith.addf %o, %o : f64
          %next = arith.mulf %acc, %twice : f64
          scf.yield %next : f64
        }
        return %sum : f64
        """,
        consts=index_constants(*range(u + 1), s["R"], s["C"] // u),
        copies=render(copies, mt=memref((s["R"], s["C"])), vt=memref((s["C"],))).rstrip("\n"),
        last=last["acc"],
        jv="%j_trip" if u > 1 else "%j",
        trips=s["C"] // u,
        start=f64(s.get("start", 1)),
        R=s["R"],
        outt=memref((s["R"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    out = anp.dot(a["M"], a["v"])
    return s.get("start", 1) * anp.prod(out + out), {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A random M whose rows are rescaled so that each factor `2 * out[i]` has a
    random sign and a magnitude around 1, with the logs summing to 0.5: R random
    factors would over- or underflow the product at the paper size."""
    r, c = s["R"], s["C"]
    v = rng.uniform(0.5, 1.5, c)
    m = rng.uniform(0.0, 1.0, (r, c))
    jitter = rng.normal(0.0, 0.2, r)
    factors = rng.choice([-1.0, 1.0], r) * np.exp(0.5 / r + jitter - jitter.mean())
    m *= (factors / (2.0 * (m @ v)))[:, None]
    return {"M": m, "v": v}


KERNEL = Kernel(
    key="matdescent",
    sizes={
        "small": {"R": 6, "C": 8},
        "paper": {"R": 400, "C": 400},
        "artifact": {"R": 400, "C": 400, "U": 16, "start": 0},
    },
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
    artifact=ArtifactRun(
        memory_map=MemoryMap(
            {"M": 0x80C00A00, "v": 0x80E71A00, "d_v": 0x80FAA200},
            f"{AUTHORS} benchmarks/AD/matd/hw/matd.c, top(): Min, Vin, Vout",
        ),
        recompute=Recompute(
            f"{AUTHORS} benchmarks/AD/matd/hw/live_vars.txt: their Enzyme re-loads the "
            "constant M (16 `_unwrap` loads per unrolled body) and `out[i] + out[i]`, "
            "caching only the product's 400 partial values"
        ),
        notes=(
            "Their malloc base lies inside Min, so their tape overlapped the matrix "
            "(undefined behaviour); our heap steps over Min (`placement.heap`).",
        ),
    ),
)
