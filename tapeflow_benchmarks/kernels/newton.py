"""
Square roots by Newton's method, one while loop per element with a data-dependent
exit: Heron's iteration `x <- (x + a / x) / 2` (Newton-Raphson on `x^2 - a`),
repeated until the step falls below a tolerance as Numerical Recipes' `rtnewt`
does (Press, Teukolsky, Vetterling & Flannery, "Numerical Recipes", 3rd ed.,
2007, section 9.4), from the start `a + 1`:

    for (i = 0; i < N; i++) {
      x = a[i] + 1;
      do { x1 = (x + a[i] / x) / 2; d = |x1 - x|; x = x1; } while (d > 1e-13);
      out[i] = x;
    }

A loop of run-time trip count known only by running it (6 or 7 iterations
here), inside a loop of constant count: `tapeflow-while-to-for` counts each run
first and replays it as `scf.for`, and Enzyme caches each run's iterates in a
buffer of the run's length, one per element.

Sizes: `small` N = 3; `paper` N = 1024 (a nest kernel).
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

TOLERANCE = 1e-13


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("a", (s["N"],), active=True),
        Param("out", (s["N"],), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %tol = arith.constant 1.0e-13 : f64
        %half = arith.constant 0.5 : f64
        %one = arith.constant 1.0 : f64
        scf.for %i = %c0 to %c$N step %c1 {
          %av = memref.load %a[%i] : $t
          %x0 = arith.addf %av, %one : f64
          %r = scf.while (%x = %x0) : (f64) -> f64 {
            %q = arith.divf %av, %x : f64
            %s = arith.addf %x, %q : f64
            %nx = arith.mulf %s, %half : f64
            %d = arith.subf %nx, %x : f64
            %ad = math.absf %d : f64
            %c = arith.cmpf ogt, %ad, %tol : f64
            scf.condition(%c) %nx : f64
          } do {
          ^bb0(%x2: f64):
            scf.yield %x2 : f64
          }
          memref.store %r, %out[%i] : $t
        }
        return
        """,
        consts=index_constants(0, 1, s["N"]),
        N=s["N"],
        t=memref((s["N"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The iteration's limit (it stops within the tolerance of it)."""
    return None, {"out": anp.sqrt(a["a"])}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"a": rng.uniform(0.5, 4.0, s["N"]), "out": np.zeros(s["N"])}


KERNEL = Kernel(
    key="newton",
    sizes={"small": {"N": 3}, "paper": {"N": 1024}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
