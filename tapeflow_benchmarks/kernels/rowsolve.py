"""
A monotone equation solved per row by Newton's method until the step falls below
a tolerance, as Numerical Recipes' `rtnewt` iterates (Press, Teukolsky,
Vetterling & Flannery, "Numerical Recipes", 3rd ed., 2007, section 9.4): the
scale `t` at which a row of saturating responses sums to its target,
`sum_j tanh(t a[r][j]) = b[r]`, from `t = 0`, the function and its derivative
summed in one loop over the row:

    for (r = 0; r < R; r++) {
      x = 0;
      do {
        f = 0; g = 0;
        for (j = 0; j < C; j++) {
          h = tanh(x * a[r][j]);
          f += h; g += a[r][j] * (1 - h * h);
        }
        step = (f - b[r]) / g; x -= step;
      } while (|step| > 1e-12);
      t[r] = x;
    }

A while loop of data-dependent trip count (4 or 5 iterations here) per row,
whose exit depends on an inner loop (a reduction over the row that reads only
buffers the while loop does not write): `tapeflow-while-to-for` counts each run
first, the reduction included, and replays it as `scf.for`; Enzyme caches each
run's values per iteration and column.

Sizes: `small` R = 2 rows of C = 3; `paper` R = 128 rows of C = 32 (a nest
kernel). `a` in [0.5, 1.5), `b[r]` in [0.1 C, 0.4 C): a root exists.
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
        Param("a", (s["R"], s["C"]), active=True),
        Param("b", (s["R"],), active=True),
        Param("t", (s["R"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %tol = arith.constant 1.0e-12 : f64
        scf.for %r = %c0 to %c$R step %c1 {
          %br = memref.load %b[%r] : $bt
          %res = scf.while (%x = %zero) : (f64) -> f64 {
            %f, %g = scf.for %j = %c0 to %c$C step %c1
                iter_args(%fa = %zero, %ga = %zero) -> (f64, f64) {
              %av = memref.load %a[%r, %j] : $at
              %z = arith.mulf %x, %av : f64
              %th = math.tanh %z : f64
              %t2 = arith.mulf %th, %th : f64
              %om = arith.subf %one, %t2 : f64
              %dg = arith.mulf %av, %om : f64
              %fn = arith.addf %fa, %th : f64
              %gn = arith.addf %ga, %dg : f64
              scf.yield %fn, %gn : f64, f64
            }
            %fr = arith.subf %f, %br : f64
            %step = arith.divf %fr, %g : f64
            %nx = arith.subf %x, %step : f64
            %as = math.absf %step : f64
            %c = arith.cmpf ogt, %as, %tol : f64
            scf.condition(%c) %nx : f64
          } do {
          ^bb0(%x2: f64):
            scf.yield %x2 : f64
          }
          memref.store %res, %t[%r] : $bt
        }
        return
        """,
        consts=index_constants(0, 1, s["R"], s["C"]),
        R=s["R"],
        C=s["C"],
        at=memref((s["R"], s["C"])),
        bt=memref((s["R"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    out = []
    for r in range(s["R"]):
        x = 0.0
        while True:
            th = anp.tanh(x * a["a"][r])
            step = (anp.sum(th) - a["b"][r]) / anp.sum(a["a"][r] * (1.0 - th * th))
            x = x - step
            if abs(float(getattr(step, "_value", step))) <= 1e-12:
                break
        out.append(x)
    return None, {"t": anp.stack(out)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "a": rng.uniform(0.5, 1.5, (s["R"], s["C"])),
        "b": rng.uniform(0.1, 0.4, s["R"]) * s["C"],
        "t": np.zeros(s["R"]),
    }


KERNEL = Kernel(
    key="rowsolve",
    sizes={"small": {"R": 2, "C": 3}, "paper": {"R": 128, "C": 32}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
