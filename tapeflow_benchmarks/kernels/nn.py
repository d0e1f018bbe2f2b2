"""
NN: a linear classifier with a softmax cross-entropy loss (Enzyme's MNIST example).

`a[i] = b[i] + sum_j W[i][j] * p[j] / 255` for each of L labels, then the softmax
in three loops (a running max with `arith.maximumf`, `s = sum exp(a[i] - max)`,
`q[i] = exp(a[i] - max) / s`) and the loss `-log(q[label])`. The image `p` is
constant; W and b are differentiated.

`a` and `q` are temporaries, allocated with `memref.alloca`: Enzyme-MLIR cannot
differentiate a `memref.dealloc` of a buffer that carries derivatives ("could not
compute the adjoint"), and a stack buffer needs none.

Sizes: `small` a 4x4 image (S = 16) and L = 4 labels; `paper` 28x28 (S = 784) and
L = 10 (Table II, "image 28x28"); `artifact` the authors' program
(`benchmarks/AD/nn/hw/nn.c`): the same sizes with the pixel loop written unrolled by U = 8 before
differentiation (clang applies their `unroll_count(8)` before their Enzyme runs, -O3),
the pixel scaled before the multiply (`pixel_first`) and their label, 1. The label is
a size parameter so that the loss picks a fixed entry at any size. Their softmax
writes a fixed address with no shadow; whether a nonzero seed reaches W then
depends on their Enzyme's handling of that pointer (section 6.6): here the loss is
differentiated as written.
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
    return (
        Param("p", (s["S"],)),
        Param("W", (s["L"], s["S"]), active=True),
        Param("b", (s["L"],), active=True),
    )


PIXEL_FIRST = """
%w = memref.load %W[%i, %j] : $wt
%p_j = memref.load %p[%j] : $pt
%scaled = arith.divf %p_j, %c255f : f64
%wp = arith.mulf %w, %scaled : f64
%next = arith.addf %acc, %wp : f64
"""
"""The authors' `act[i] + W[i][j] * (pixel[j] / 255.0)` (`G:benchmarks/AD/nn/hw/nn.c`
L74-96 at gem5-SALAM `a5e40f4be`): the scaled pixel is what their Enzyme caches."""

PRODUCT_FIRST = """
%w = memref.load %W[%i, %j] : $wt
%p_j = memref.load %p[%j] : $pt
%wp = arith.mulf %w, %p_j : f64
%scaled = arith.divf %wp, %c255f : f64
%next = arith.addf %acc, %scaled : f64
"""
"""`W[i][j] * p[j] / 255` evaluated left to right (the `small` and `paper` presets)."""


def body(s: Sizes) -> str:
    u = s.get("U", 1)
    copies, last = unrolled_body(
        PIXEL_FIRST if s.get("pixel_first") else PRODUCT_FIRST, "j", u, {"acc": "%next"}
    )
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %c255f = arith.constant 255.0 : f64
        %a = memref.alloca() : $lt
        scf.for %i = %c0 to %c$L step %c1 {
          %b_i = memref.load %b[%i] : $lt
          %a_i = scf.for $jv = %c0 to %c$trips step %c1 iter_args(%acc = %b_i) -> (f64) {
            $copies
            scf.yield $last : f64
          }
          memref.store %a_i, %a[%i] : $lt
        }
        %a_0 = memref.load %a[%c0] : $lt
        %max = scf.for %i = %c1 to %c$L step %c1 iter_args(%m = %a_0) -> (f64) {
          %a_i = memref.load %a[%i] : $lt
          %next = arith.maximumf %m, %a_i : f64
          scf.yield %next : f64
        }
        %sum = scf.for %i = %c0 to %c$L step %c1 iter_args(%acc = %zero) -> (f64) {
          %a_i = memref.load %a[%i] : $lt
          %shifted = arith.subf %a_i, %max : f64
          %e = math.exp %shifted : f64
          %next = arith.addf %acc, %e : f64
          scf.yield %next : f64
        }
        %q = memref.alloca() : $lt
        scf.for %i = %c0 to %c$L step %c1 {
          %a_i = memref.load %a[%i] : $lt
          %shifted = arith.subf %a_i, %max : f64
          %e = math.exp %shifted : f64
          %q_i = arith.divf %e, %sum : f64
          memref.store %q_i, %q[%i] : $lt
        }
        %q_label = memref.load %q[%c$label] : $lt
        %log = math.log %q_label : f64
        %loss = arith.negf %log : f64
        return %loss : f64
        """,
        consts=index_constants(*range(u + 1), s["S"] // u, s["L"], s["label"]),
        copies=render(copies, wt=memref((s["L"], s["S"])), pt=memref((s["S"],))).rstrip("\n"),
        last=last["acc"],
        jv="%j_trip" if u > 1 else "%j",
        trips=s["S"] // u,
        L=s["L"],
        label=s["label"],
        pt=memref((s["S"],)),
        wt=memref((s["L"], s["S"])),
        lt=memref((s["L"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    if s.get("pixel_first"):
        logits = a["b"] + anp.sum(a["W"] * (a["p"] / 255.0), axis=1)
    else:
        logits = a["b"] + anp.sum(a["W"] * a["p"] / 255.0, axis=1)
    e = anp.exp(logits - anp.max(logits))
    q = e / anp.sum(e)
    return -anp.log(q[s["label"]]), {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Pixels in [0, 255); weights scaled so the logits spread over a few units
    (distinct, so the max is unique)."""
    return {
        "p": rng.uniform(0.0, 255.0, s["S"]),
        "W": rng.normal(0.0, 2.0 / np.sqrt(s["S"]), (s["L"], s["S"])),
        "b": rng.normal(0.0, 0.5, s["L"]),
    }


KERNEL = Kernel(
    key="nn",
    sizes={
        "small": {"S": 16, "L": 4, "label": 1},
        "paper": {"S": 784, "L": 10, "label": 3},
        "artifact": {"S": 784, "L": 10, "label": 1, "U": 8, "pixel_first": 1},
    },
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
    artifact=ArtifactRun(
        memory_map=MemoryMap(
            {
                "p": 0x80C00000,
                "b": 0x80C01880,
                "W": 0x80C01880 + 10 * 8,
                "d_b": 0x80C10DD0,
                "d_W": 0x80C10DD0 + 10 * 8,
            },
            f"{AUTHORS} benchmarks/AD/nn/hw/nn.c, top(): the image, then the network "
            "v = {b[10], W[10][784]} and its shadow v_grad, b first in each",
        ),
        notes=("Their softmax output at a fixed 0x80caa120 is a buffer of ours, from the heap.",),
    ),
)
