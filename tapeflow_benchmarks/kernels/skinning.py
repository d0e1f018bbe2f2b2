"""
Linear blend skinning (Magnenat-Thalmann, Laperrière & Thalmann, "Joint-dependent
local deformations for hand animation and object grasping", Graphics Interface
1988), the deformation ADBench's hand-tracking objective differentiates (Srajer,
Fitzgibbon & Fitzgibbon, Optimization Methods and Software 33(4-6), 2018, section
4.3: `get_skinned_vertex_positions`), with the four influences per vertex of the
glTF 2.0 specification (`JOINTS_0`/`WEIGHTS_0`, section 3.7.3): each vertex blends
the rest position transformed by four joints' 3x4 affine transforms, the joints'
numbers loaded from an index buffer:

    for (v = 0; v < V; v++)
      for (b = 0; b < 4; b++) {
        j = joint[v][b]; w = weight[v][b];
        for (k = 0; k < 3; k++)
          out[v][k] += w * (T[j][k][0] * p[v][0] + T[j][k][1] * p[v][1]
                            + T[j][k][2] * p[v][2] + T[j][k][3]);
      }

Short inner loops (four influences of three coordinates) under a long outer loop,
gathered operands (the joint's transform, through a loaded index), and an output
accumulated in memory (a load and a store of the same element per influence).

Sizes: `small` V = 3 vertices, J = 3 joints; `paper` V = 1024, J = 16 (a nest
kernel). Vertex `v`'s joints are `(v + 5 b) mod J` for `b < 4`.
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

INFLUENCES = 4


def joints(s: Sizes) -> np.ndarray:
    """Vertex `v`'s four joints (repeats allowed when J < 4 distinct values)."""
    return np.array([[(v + 5 * b) % s["J"] for b in range(INFLUENCES)] for v in range(s["V"])])


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("joint", (s["V"], INFLUENCES), indices=True),
        Param("weight", (s["V"], INFLUENCES), active=True),
        Param("T", (s["J"], 3, 4), active=True),
        Param("p", (s["V"], 3), active=True),
        Param("out", (s["V"], 3), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %v = %c0 to %c$V step %c1 {
          %p0 = memref.load %p[%v, %c0] : $pt
          %p1 = memref.load %p[%v, %c1] : $pt
          %p2 = memref.load %p[%v, %c2] : $pt
          scf.for %b = %c0 to %c4 step %c1 {
            %j = memref.load %joint[%v, %b] : $jt
            %w = memref.load %weight[%v, %b] : $wt
            scf.for %k = %c0 to %c3 step %c1 {
              %t0 = memref.load %T[%j, %k, %c0] : $tt
              %t1 = memref.load %T[%j, %k, %c1] : $tt
              %t2 = memref.load %T[%j, %k, %c2] : $tt
              %t3 = memref.load %T[%j, %k, %c3] : $tt
              %a0 = arith.mulf %t0, %p0 : f64
              %a1 = arith.mulf %t1, %p1 : f64
              %a2 = arith.mulf %t2, %p2 : f64
              %s0 = arith.addf %a0, %a1 : f64
              %s1 = arith.addf %s0, %a2 : f64
              %s2 = arith.addf %s1, %t3 : f64
              %ws = arith.mulf %w, %s2 : f64
              %o = memref.load %out[%v, %k] : $pt
              %on = arith.addf %o, %ws : f64
              memref.store %on, %out[%v, %k] : $pt
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, 3, 4, s["V"]),
        V=s["V"],
        pt=memref((s["V"], 3)),
        jt=f"memref<{s['V']}x{INFLUENCES}xindex>",
        wt=memref((s["V"], INFLUENCES)),
        tt=memref((s["J"], 3, 4)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """`out` accumulates onto its initial contents."""
    joint, weight, T, p = a["joint"], a["weight"], a["T"], a["p"]
    moved = anp.einsum("vbkl,vl->vbk", T[joint][:, :, :, :3], p) + T[joint][:, :, :, 3]
    return None, {"out": a["out"] + anp.sum(weight[:, :, None] * moved, axis=1)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Transforms near the identity, weights that sum to one per vertex."""
    w = rng.uniform(0.1, 1.0, (s["V"], INFLUENCES))
    T = np.tile(np.eye(3, 4), (s["J"], 1, 1)) + 0.2 * rng.uniform(-1.0, 1.0, (s["J"], 3, 4))
    return {
        "joint": joints(s),
        "weight": w / w.sum(axis=1, keepdims=True),
        "T": T,
        "p": rng.uniform(-1.0, 1.0, (s["V"], 3)),
        "out": rng.uniform(-0.1, 0.1, (s["V"], 3)),
    }


KERNEL = Kernel(
    key="skinning",
    sizes={"small": {"V": 3, "J": 3}, "paper": {"V": 1024, "J": 16}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
