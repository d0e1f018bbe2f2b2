"""
Unit normals of triangles from their edge vectors: the cross product and the
normalization of Pharr, Jakob & Humphreys, "Physically Based Rendering: From Theory
to Implementation" (3rd ed., 2016), section 2.2.1 (`Cross`) and section 2.2
(`Normalize`), as a mesh's face normals are computed from `e1 = p1 - p0`,
`e2 = p2 - p0` (section 3.6.2), with the components in loops of three:

    for (p = 0; p < N; p++) {
      s = 0;
      for (k = 0; k < 3; k++) {
        c = u[p][(k+1)%3] * v[p][(k+2)%3] - u[p][(k+2)%3] * v[p][(k+1)%3];
        n[p][k] = c;
        s += c * c;
      }
      inv = 1 / sqrt(s);
      for (k = 0; k < 3; k++) n[p][k] = n[p][k] * inv;
    }

Short inner loops (three iterations) under a long outer loop, two regions per
outer iteration, and a per-iteration value (`inv`) the second loop reads; the
second loop rescales in place what the first stored (Enzyme caches the
overwritten values). The cyclic indices are selects on the loop counter.

Sizes: `small` N = 3 triangles; `paper` N = 2048 (a nest kernel).
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
    return (
        Param("u", (s["N"], 3), active=True),
        Param("v", (s["N"], 3), active=True),
        Param("n", (s["N"], 3), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        scf.for %p = %c0 to %c$N step %c1 {
          %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
            %last = arith.cmpi eq, %k, %c2 : index
            %first = arith.cmpi eq, %k, %c0 : index
            %kp = arith.addi %k, %c1 : index
            %km = arith.subi %k, %c1 : index
            %k1 = arith.select %last, %c0, %kp : index
            %k2 = arith.select %first, %c2, %km : index
            %u1 = memref.load %u[%p, %k1] : $t
            %u2 = memref.load %u[%p, %k2] : $t
            %v1 = memref.load %v[%p, %k1] : $t
            %v2 = memref.load %v[%p, %k2] : $t
            %a = arith.mulf %u1, %v2 : f64
            %b = arith.mulf %u2, %v1 : f64
            %c = arith.subf %a, %b : f64
            memref.store %c, %n[%p, %k] : $t
            %sq = arith.mulf %c, %c : f64
            %next = arith.addf %acc, %sq : f64
            scf.yield %next : f64
          }
          %len = math.sqrt %s : f64
          %inv = arith.divf %one, %len : f64
          scf.for %k = %c0 to %c3 step %c1 {
            %c = memref.load %n[%p, %k] : $t
            %o = arith.mulf %c, %inv : f64
            memref.store %o, %n[%p, %k] : $t
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, 3, s["N"]),
        N=s["N"],
        t=memref((s["N"], 3)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    u, v = a["u"], a["v"]
    c = anp.cross(u, v)
    return None, {"n": c / anp.sqrt(anp.sum(c * c, axis=1, keepdims=True))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Edges of unit length on average, far from parallel: `v` is `u` turned by a
    quarter turn about a random axis plus a small perturbation, so `|u x v|` stays
    away from zero."""
    u = rng.uniform(-1.0, 1.0, (s["N"], 3))
    axis = rng.uniform(-1.0, 1.0, (s["N"], 3))
    v = np.cross(axis, u) + 0.1 * rng.uniform(-1.0, 1.0, (s["N"], 3))
    return {"u": u, "v": v, "n": np.zeros((s["N"], 3))}


KERNEL = Kernel(
    key="normals",
    sizes={"small": {"N": 3}, "paper": {"N": 2048}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
