"""
Gravity: the potential-energy product of a particle set (DiffTaichi).

With `H = N/2` and `x` holding `H*H` doubles, `u = prod over the pairs i < j < H of
-1 / (x[i*H + j] - x[j*H + i] + 0.001)`, from `u = 1`: each pair once, as the
authors' source iterates them (`for i; for j = i+1 ..`). The flat input is indexed in
both orders, so REV reads it row-wise and column-wise, as the original does.

The pairs are visited by two loops with constant bounds instead of the triangular
`j in (i, H)`: that inner loop's trip count depends on `i`, and Enzyme then caches
the tape in buffers it grows at run time (`enzyme.store` into `memref<?xf64>`),
which the pipeline cannot lower yet (the dynamic-tapes issue). H is even, so row
`r` of the triangle (H-1-r pairs) and row `H-1-r` (r pairs) fill exactly H-1 slots:
the outer loop runs over `r in [0, H/2)`, the inner one over `c in [0, H-1)`, and
slot c is the pair `(r, r+1+c)` when `c < H-1-r`, otherwise `(H-1-r, c+1)` (two
`arith.select`s on the indices). The same C(H, 2) factors, each once, with the same
row-wise and column-wise reads of x; only the order of the product differs (the
rows of the triangle are taken two at a time). Once dynamic tapes land, the
template can return to the literal triangular loop.

Sizes: `small` N = 16 (H = 8, 28 pairs); `paper` N = 512 (Table II, "array 512":
H = 256, 32640 pairs); `artifact` the same (the authors' x is 256x256; no unroll
pragma on gravity's loops is known, so not unrolled).
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
)

SOFTENING = 0.001
"""The authors' softening constant in `r + 0.001`."""


def params(s: Sizes) -> tuple[Param, ...]:
    h = s["N"] // 2
    return (Param("x", (h * h,), active=True),)


def triangular_body(s: Sizes) -> str:
    """The authors' loop as written (`G:benchmarks/AD/gravity/hw/gravity.c` L27-30
    at gem5-SALAM `a5e40f4be`): `for i < H; for j =
    i+1 .. H`, the loop-invariant row offset `i*H` hoisted out of the inner loop as
    clang's -O1 does. Enzyme caches the running product per pair in one chunk per
    outer iteration, as their Enzyme does for a triangular nest."""
    h = s["N"] // 2
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        %minus_one = arith.constant -1.0 : f64
        %softening = arith.constant $softening : f64
        %u = scf.for %i = %c0 to %c$H step %c1 iter_args(%u_i = %one) -> (f64) {
          %first = arith.addi %i, %c1 : index
          %row_i = arith.muli %i, %c$H : index
          %u_ij = scf.for %j = %first to %c$H step %c1 iter_args(%acc = %u_i) -> (f64) {
            %ij = arith.addi %row_i, %j : index
            %row_j = arith.muli %j, %c$H : index
            %ji = arith.addi %row_j, %i : index
            %x_ij = memref.load %x[%ij] : $xt
            %x_ji = memref.load %x[%ji] : $xt
            %diff = arith.subf %x_ij, %x_ji : f64
            %r_soft = arith.addf %diff, %softening : f64
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


def body(s: Sizes) -> str:
    if s.get("triangular"):
        return triangular_body(s)
    h = s["N"] // 2
    if h % 2:
        raise ValueError(f"gravity: N/2 must be even to fold the pairs, got N = {s['N']}")
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        %minus_one = arith.constant -1.0 : f64
        %softening = arith.constant $softening : f64
        %u = scf.for %r = %c0 to %c$half step %c1 iter_args(%u_r = %one) -> (f64) {
          %mirror = arith.subi %c$last, %r : index
          %u_rc = scf.for %c = %c0 to %c$last step %c1 iter_args(%acc = %u_r) -> (f64) {
            %first = arith.cmpi ult, %c, %mirror : index
            %c_next = arith.addi %c, %c1 : index
            %j_first = arith.addi %c_next, %r : index
            %i = arith.select %first, %r, %mirror : index
            %j = arith.select %first, %j_first, %c_next : index
            %row_i = arith.muli %i, %c$H : index
            %ij = arith.addi %row_i, %j : index
            %row_j = arith.muli %j, %c$H : index
            %ji = arith.addi %row_j, %i : index
            %x_ij = memref.load %x[%ij] : $xt
            %x_ji = memref.load %x[%ji] : $xt
            %diff = arith.subf %x_ij, %x_ji : f64
            %r_soft = arith.addf %diff, %softening : f64
            %factor = arith.divf %minus_one, %r_soft : f64
            %next = arith.mulf %acc, %factor : f64
            scf.yield %next : f64
          }
          scf.yield %u_rc : f64
        }
        return %u : f64
        """,
        consts=index_constants(0, 1, h // 2, h - 1, h),
        H=h,
        half=h // 2,
        last=h - 1,
        softening=f64(SOFTENING),
        xt=memref((h * h,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    h = s["N"] // 2
    x = anp.reshape(a["x"], (h, h))
    upper = np.triu_indices(h, k=1)
    return anp.prod(-1.0 / (x[upper] - x.T[upper] + SOFTENING)), {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A random x whose product has magnitude e^0.5 at any size.

    The factor of pair (i, j) is -1/(x[i,j] - x[j,i] + 0.001), which only the
    antisymmetric part of x decides: its entries are chosen so that the softened
    differences have magnitudes e^l with the l summing to -0.5, each jittered
    around the mean; a plain random x over- or underflows at the paper size.
    """
    h = s["N"] // 2
    upper = np.triu_indices(h, k=1)
    pairs = len(upper[0])
    jitter = rng.normal(0.0, 0.1, pairs)
    logs = -0.5 / pairs + jitter - jitter.mean()
    r = rng.choice([-1.0, 1.0], pairs) * np.exp(logs) - SOFTENING
    anti = np.zeros((h, h))
    anti[upper] = r
    anti -= anti.T
    sym = rng.uniform(-1.0, 1.0, (h, h))
    sym = (sym + sym.T) / 2
    return {"x": (sym + anti / 2).reshape(-1)}


KERNEL = Kernel(
    key="gravity",
    sizes={
        "small": {"N": 16},
        "paper": {"N": 512},
        "artifact": {"N": 512, "triangular": 1},
    },
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
    artifact=ArtifactRun(
        memory_map=MemoryMap(
            {"x": 0x80C00000, "d_x": 0x80E00000},
            f"{AUTHORS} benchmarks/AD/gravity/hw/gravity.c, top(): x_grad at x + N*N*8 "
            "for N = 512, though 256^2 doubles are used",
        ),
        recompute=Recompute(
            f"{AUTHORS} benchmarks/AD/gravity/hw/live_vars.txt: their Enzyme rebuilds "
            "`r + 0.001` and the factor from two re-loads of x (`add10_unwrap`, "
            "`div_unwrap`) and caches only the running product"
        ),
    ),
)
