"""
An explicit time stepper for the viscous Burgers equation `u_t + u u_x = nu u_xx`
in one dimension over `T` steps, `T` an argument known only at run time: first-order
upwind differences for the advection (the velocity stays positive) and central
differences for the diffusion, the forward-Euler scheme of LeVeque, *Finite
Volume Methods for Hyperbolic Problems*, CUP 2002, chapter 4's upwind method,
with a central difference for the viscous term; the end points held fixed
(Dirichlet), every state kept in `u`:

    for (t = 0; t < T; t++) {
      u[t + 1][0] = u[t][0]; u[t + 1][N - 1] = u[t][N - 1];
      for (i = 1; i < N - 1; i++) {
        c = u[t][i];
        u[t + 1][i] = c - a * c * (c - u[t][i - 1]) + b * (u[t][i + 1] - 2 c + u[t][i - 1]);
      }
    }

with `a = dt / dx` and `b = nu dt / dx^2` (a = 0.2, b = 0.2: stable for the
velocities drawn, in [0.5, 1.5]). A nest of two loops whose outer trip count is a
run-time argument and whose outer body stores values of its own beside the inner
loop (the boundary), the inner loop's product of two states making its tape.

Sizes: `small` buffers of TM = 4 steps, T = 3, N = 6 points; `paper` TM = T = 48,
N = 66 (a nest kernel).
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

A, B = 0.2, 0.2
"""dt / dx and nu dt / dx^2."""


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("u", (s["TM"] + 1, s["N"]), active=True, written=True),
        Param("T", (), trip="T"),
    )


def body(s: Sizes) -> str:
    N = s["N"]
    return render(
        """
        $consts
        %a = arith.constant $a : f64
        %b = arith.constant $b : f64
        %two = arith.constant 2.0 : f64
        scf.for %t = %c0 to %T step %c1 {
          %t1 = arith.addi %t, %c1 : index
          %first = memref.load %u[%t, %c0] : $ut
          memref.store %first, %u[%t1, %c0] : $ut
          %last = memref.load %u[%t, %c$last] : $ut
          memref.store %last, %u[%t1, %c$last] : $ut
          scf.for %i = %c1 to %c$last step %c1 {
            %il = arith.subi %i, %c1 : index
            %ir = arith.addi %i, %c1 : index
            %c = memref.load %u[%t, %i] : $ut
            %l = memref.load %u[%t, %il] : $ut
            %r = memref.load %u[%t, %ir] : $ut
            %dl = arith.subf %c, %l : f64
            %adv = arith.mulf %c, %dl : f64
            %aadv = arith.mulf %a, %adv : f64
            %c2 = arith.mulf %two, %c : f64
            %rl = arith.addf %r, %l : f64
            %lap = arith.subf %rl, %c2 : f64
            %blap = arith.mulf %b, %lap : f64
            %moved = arith.subf %c, %aadv : f64
            %new = arith.addf %moved, %blap : f64
            memref.store %new, %u[%t1, %i] : $ut
          }
        }
        return
        """,
        consts=index_constants(0, 1, N - 1),
        last=N - 1,
        a=f64(A),
        b=f64(B),
        ut=memref((s["TM"] + 1, N)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    u = a["u"]
    states = [u[0]]
    for _ in range(s["T"]):
        c = states[-1]
        inner = c[1:-1] - A * c[1:-1] * (c[1:-1] - c[:-2]) + B * (c[2:] - 2.0 * c[1:-1] + c[:-2])
        states.append(anp.concatenate([c[:1], inner, c[-1:]]))
    rows = [*states, *(u[t] for t in range(s["T"] + 1, s["TM"] + 1))]
    return None, {"u": anp.stack(rows)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"u": rng.uniform(0.5, 1.5, (s["TM"] + 1, s["N"]))}


KERNEL = Kernel(
    key="burgers",
    sizes={"small": {"TM": 4, "T": 3, "N": 6}, "paper": {"TM": 48, "T": 48, "N": 66}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
