"""
PolyBench/C 4.2's `medley/floyd-warshall` over floats, its `min` replaced by a
smoothed minimum, the negated log-mean-exp `softmin(u, v) = -log((exp(-u) +
exp(-v)) / 2)` (the soft-min of Cuturi & Blondel, "Soft-DTW", ICML 2017, with
gamma = 1, shifted by `log 2` so that `softmin(u, u) = u`: between the minimum
and the mean, it keeps a zero diagonal at zero, where the unshifted one would
make every self-loop negative and the passes diverge), each pass `k`
written to its own layer of the table so that the pass reads the previous one
(the update in place reads values the same pass wrote, which a table per pass
keeps apart; Cormen et al., "Introduction to Algorithms", 3rd ed., section
25.2, equation 25.5 defines the recurrence this way):

    for (k = 0; k < N; k++)
      for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
          D[k + 1][i][j] = softmin(D[k][i][j], D[k][i][k] + D[k][k][j]);

Three constant loops, the innermost reading a value loaded once per middle
iteration (`D[k][i][k]`) and a row of the previous pass, each cell's two
exponentials cached.

Sizes: `small` N = 3; `paper` N = 24 (a nest kernel).
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

LN2 = float(np.log(2.0))


def params(s: Sizes) -> tuple[Param, ...]:
    n = s["N"]
    return (Param("D", (n + 1, n, n), active=True, written=True),)


def body(s: Sizes) -> str:
    n = s["N"]
    return render(
        """
        $consts
        %ln2 = arith.constant $ln2 : f64
        scf.for %k = %c0 to %c$N step %c1 {
          %k1 = arith.addi %k, %c1 : index
          scf.for %i = %c0 to %c$N step %c1 {
            %dik = memref.load %D[%k, %i, %k] : $t
            scf.for %j = %c0 to %c$N step %c1 {
              %dij = memref.load %D[%k, %i, %j] : $t
              %dkj = memref.load %D[%k, %k, %j] : $t
              %via = arith.addf %dik, %dkj : f64
              %nu = arith.negf %dij : f64
              %nv = arith.negf %via : f64
              %eu = math.exp %nu : f64
              %ev = math.exp %nv : f64
              %sum = arith.addf %eu, %ev : f64
              %l = math.log %sum : f64
              %r = arith.subf %ln2, %l : f64
              memref.store %r, %D[%k1, %i, %j] : $t
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, n),
        N=n,
        ln2=f64(LN2),
        t=memref((n + 1, n, n)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    layers = [a["D"][0]]
    for k in range(s["N"]):
        prev = layers[-1]
        via = prev[:, k][:, None] + prev[k, :][None, :]
        layers.append(LN2 - anp.log(anp.exp(-prev) + anp.exp(-via)))
    return None, {"D": anp.stack(layers)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Edge lengths from 0.5 to 3 (zero on the diagonal) in the first layer; the
    others overwritten."""
    n = s["N"]
    D = rng.uniform(0.0, 1.0, (n + 1, n, n))
    D[0] = rng.uniform(0.5, 3.0, (n, n))
    np.fill_diagonal(D[0], 0.0)
    return {"D": D}


KERNEL = Kernel(
    key="floydsoft",
    sizes={"small": {"N": 3}, "paper": {"N": 24}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
