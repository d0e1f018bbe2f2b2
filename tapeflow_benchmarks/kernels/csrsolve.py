"""
A monotone equation solved per row of a sparse matrix by Newton's method until
the step falls below a tolerance (Numerical Recipes' `rtnewt`, Press, Teukolsky,
Vetterling & Flannery, 3rd ed., 2007, section 9.4), the row's entries in
compressed sparse row storage (Saad, "Iterative Methods for Sparse Linear
Systems", 2nd ed., 2003, Algorithm 3.1): the scale `t` at which a row's
saturating responses plus `t` sum to its target, `t + sum_k tanh(t v[k]) = b[i]`:

    for (i = 0; i < R; i++) {
      t = 0;
      do {
        f = t - b[i]; g = 1;
        for (k = rowptr[i]; k < rowptr[i + 1]; k++) {
          h = tanh(t * v[k]);  f += h;  g += v[k] * (1 - h * h);
        }
        step = f / g;  t -= step;
      } while (|step| > 1e-12);
      x[i] = t;
    }

A while loop of data-dependent trip count (`tapeflow-while-to-for` counts each
run first, the row's reduction in its control slice) around a loop of run-time
trip count read from the row pointers: two levels of counts known only at run
time, the inner one's tape cached per Newton step of each row.

Sizes: `small` R = 4 rows; `paper` R = 256 rows (a nest kernel). Row `i` holds
`1 + (7 i mod 13)` entries; `v` in [0.5, 1.5), `b[i]` in [0.5, 1.5) times the
row's length (a root exists: the left side grows by at least 1 per unit of `t`).
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

TOL = 1.0e-12


def row_lengths(s: Sizes) -> list[int]:
    return [1 + (7 * i) % 13 for i in range(s["R"])]


def entries(s: Sizes) -> int:
    return sum(row_lengths(s))


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("rowptr", (s["R"] + 1,), indices=True),
        Param("v", (entries(s),), active=True),
        Param("b", (s["R"],), active=True),
        Param("x", (s["R"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %tol = arith.constant $tol : f64
        scf.for %i = %c0 to %c$R step %c1 {
          %i1 = arith.addi %i, %c1 : index
          %lo = memref.load %rowptr[%i] : $pt
          %hi = memref.load %rowptr[%i1] : $pt
          %bi = memref.load %b[%i] : $bt
          %res = scf.while (%t = %zero) : (f64) -> f64 {
            %f0 = arith.subf %t, %bi : f64
            %f, %g = scf.for %k = %lo to %hi step %c1
                iter_args(%fa = %f0, %ga = %one) -> (f64, f64) {
              %vk = memref.load %v[%k] : $vt
              %z = arith.mulf %t, %vk : f64
              %th = math.tanh %z : f64
              %t2 = arith.mulf %th, %th : f64
              %om = arith.subf %one, %t2 : f64
              %dg = arith.mulf %vk, %om : f64
              %fn = arith.addf %fa, %th : f64
              %gn = arith.addf %ga, %dg : f64
              scf.yield %fn, %gn : f64, f64
            }
            %step = arith.divf %f, %g : f64
            %nt = arith.subf %t, %step : f64
            %as = math.absf %step : f64
            %c = arith.cmpf ogt, %as, %tol : f64
            scf.condition(%c) %nt : f64
          } do {
          ^bb0(%t2: f64):
            scf.yield %t2 : f64
          }
          memref.store %res, %x[%i] : $bt
        }
        return
        """,
        consts=index_constants(0, 1, s["R"]),
        R=s["R"],
        tol=f"{TOL:e}",
        pt=f"memref<{s['R'] + 1}xindex>",
        vt=memref((entries(s),)),
        bt=memref((s["R"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    rowptr = a["rowptr"]
    out = []
    for i in range(s["R"]):
        row = a["v"][int(rowptr[i]) : int(rowptr[i + 1])]
        t = 0.0
        while True:
            th = anp.tanh(t * row)
            step = (t - a["b"][i] + anp.sum(th)) / (1.0 + anp.sum(row * (1.0 - th * th)))
            t = t - step
            if abs(float(getattr(step, "_value", step))) <= TOL:
                break
        out.append(t)
    return None, {"x": anp.stack(out)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    lengths = row_lengths(s)
    return {
        "rowptr": np.concatenate([[0], np.cumsum(lengths)]),
        "v": rng.uniform(0.5, 1.5, entries(s)),
        "b": rng.uniform(0.5, 1.5, s["R"]) * np.array(lengths),
        "x": np.zeros(s["R"]),
    }


KERNEL = Kernel(
    key="csrsolve",
    sizes={"small": {"R": 4}, "paper": {"R": 256}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
