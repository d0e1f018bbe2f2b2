"""
The classical fourth-order Runge-Kutta method (Press et al., *Numerical Recipes*,
3rd ed., CUP 2007, section 17.1, eq. 17.1.3) integrating the neural ordinary
differential equation `dy/dt = tanh(W y)` (Chen et al., "Neural Ordinary
Differential Equations", NeurIPS 2018: a one-layer network as the vector field)
over `S` steps of size h = 0.1, `S` an argument known only at run time, every
state kept in `y` and the stages in a scratch buffer `k`:

    for (s = 0; s < S; s++) {
      for (m = 0; m < 4; m++)                  // written out: four nests
        for (i = 0; i < D; i++) {
          a = 0;
          for (j = 0; j < D; j++)
            a += W[i][j] * (y[s][j] + c[m] * h * k[m-1][j]);   // c = 0, 1/2, 1/2, 1
          k[m][i] = tanh(a);
        }
      for (i = 0; i < D; i++)
        y[s+1][i] = y[s][i] + h / 6 * (k[0][i] + 2 k[1][i] + 2 k[2][i] + k[3][i]);
    }

Short inner loops (D = 4 trips) under a long outer loop of run-time trip count;
every step overwrites the stages the next step rewrites, so the gradient needs
each step's stages and activations.

Sizes: `small` buffers of SM = 3 steps, S = 2, D = 3; `paper` SM = S = 128,
D = 4 (a nest kernel).
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

H = 0.1
STAGE_SHIFT = (0.0, 0.5, 0.5, 1.0)
"""The fraction of h by which stage m moves the state along stage m - 1."""

_STAGE = """
scf.for %i = %c0 to %c$D step %c1 {
  %m${m}_a = scf.for %j = %c0 to %c$D step %c1 iter_args(%acc = %zero) -> (f64) {
    %yj = memref.load %y[%s, %j] : $yt
    $shift
    %w = memref.load %W[%i, %j] : $wt
    %p = arith.mulf %w, %z : f64
    %next = arith.addf %acc, %p : f64
    scf.yield %next : f64
  }
  %m${m}_act = math.tanh %m${m}_a : f64
  memref.store %m${m}_act, %k[%c$m, %i] : $kt
}"""

_SHIFT = """%kp = memref.load %k[%c$prev, %j] : $kt
%hk = arith.mulf %h$m, %kp : f64
%z = arith.addf %yj, %hk : f64"""


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("W", (s["D"], s["D"]), active=True),
        Param("y", (s["SM"] + 1, s["D"]), active=True, written=True),
        Param("k", (4, s["D"]), active=True, written=True),
        Param("S", (), trip="S"),
    )


def body(s: Sizes) -> str:
    d = s["D"]
    types = {"yt": memref((s["SM"] + 1, d)), "wt": memref((d, d)), "kt": memref((4, d))}
    stages = []
    for m in range(4):
        if m == 0:
            shift = "%z = arith.addf %yj, %zero : f64"
        else:
            shift = render(_SHIFT, prev=m - 1, m=m, kt=types["kt"]).strip()
        stages.append(render(_STAGE, m=m, D=d, shift=shift, **types).strip())
    coefficients = "\n".join(
        f"%h{m} = arith.constant {f64(STAGE_SHIFT[m] * H)} : f64" for m in range(1, 4)
    )
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %two = arith.constant 2.0 : f64
        %sixth = arith.constant $sixth : f64
        $coefficients
        scf.for %s = %c0 to %S step %c1 {
          %s1 = arith.addi %s, %c1 : index
          $stages
          scf.for %i = %c0 to %c$D step %c1 {
            %k0 = memref.load %k[%c0, %i] : $kt
            %k1 = memref.load %k[%c1, %i] : $kt
            %k2 = memref.load %k[%c2, %i] : $kt
            %k3 = memref.load %k[%c3, %i] : $kt
            %k12 = arith.addf %k1, %k2 : f64
            %k12x2 = arith.mulf %two, %k12 : f64
            %k03 = arith.addf %k0, %k3 : f64
            %sum = arith.addf %k03, %k12x2 : f64
            %dy = arith.mulf %sixth, %sum : f64
            %yi = memref.load %y[%s, %i] : $yt
            %new = arith.addf %yi, %dy : f64
            memref.store %new, %y[%s1, %i] : $yt
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, 3, d),
        sixth=f64(H / 6.0),
        coefficients=coefficients,
        stages="\n".join(stages),
        D=d,
        **types,
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """S RK4 steps from y[0]; the rows past y[S] are kept, k holds the last
    step's stages."""
    W, y, k = a["W"], a["y"], a["k"]
    states = [y[0]]
    for _ in range(s["S"]):
        ys = states[-1]
        stages = [anp.tanh(anp.dot(W, ys))]
        for m in range(1, 4):
            stages.append(anp.tanh(anp.dot(W, ys + STAGE_SHIFT[m] * H * stages[-1])))
        k = anp.stack(stages)
        states.append(ys + H / 6.0 * (stages[0] + 2.0 * (stages[1] + stages[2]) + stages[3]))
    rows = [*states, *(y[t] for t in range(s["S"] + 1, s["SM"] + 1))]
    return None, {"y": anp.stack(rows), "k": k}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """W scaled by 2/sqrt(D), so the field's activations are neither linear nor
    saturated."""
    d = s["D"]
    return {
        "W": rng.uniform(-1.0, 1.0, (d, d)) * 2.0 / np.sqrt(d),
        "y": rng.uniform(-1.0, 1.0, (s["SM"] + 1, d)),
        "k": rng.uniform(-1.0, 1.0, (4, d)),
    }


KERNEL = Kernel(
    key="rk4",
    sizes={"small": {"SM": 3, "S": 2, "D": 3}, "paper": {"SM": 128, "S": 128, "D": 4}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
