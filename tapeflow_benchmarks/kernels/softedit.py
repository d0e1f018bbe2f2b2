"""
A soft edit distance over a ragged batch of sequence pairs: Levenshtein's
recursion (Wagner & Fischer, "The String-to-String Correction Problem", JACM
21, 1974) with unit insertion and deletion costs, a squared difference as the
substitution cost, and its minimum replaced by the smoothed minimum of
Cuturi & Blondel's soft-DTW ("Soft-DTW: a Differentiable Loss Function for
Time-Series", ICML 2017, with gamma = 1), each pair's sequences of its own
lengths stored one after the other with offsets:

    for (p = 0; p < P; p++) {
      a0 = aoff[p]; la = aoff[p + 1] - a0;  b0 = boff[p]; lb = boff[p + 1] - b0;
      for (i = 1; i <= la; i++)
        for (j = 1; j <= lb; j++) {
          c = (xa[a0 + i - 1] - xb[b0 + j - 1])^2;
          R[p][i][j] = softmin(R[p][i-1][j] + 1, R[p][i][j-1] + 1, R[p][i-1][j-1] + c);
        }
    }

`softmin(u, v, w) = -log(exp(-u) + exp(-v) + exp(-w))`. Two loops whose trip
counts both come from offsets arrays, the inner one of a count that changes
from pair to pair, under a constant loop; the table's borders (`R[p][0][j] = j`,
`R[p][i][0] = i`) are part of the input.

Sizes: `small` P = 2 pairs of at most LA = LB = 3 symbols; `paper` P = 64
pairs of at most 12 (a nest kernel). Pair `p` has `2 + (5 p mod 11)` and
`2 + (7 p mod 11)` symbols (at most the buffers' bounds).
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


def lengths(s: Sizes) -> tuple[list[int], list[int]]:
    la = [min(2 + (5 * p) % 11, s["LA"]) for p in range(s["P"])]
    lb = [min(2 + (7 * p) % 11, s["LB"]) for p in range(s["P"])]
    return la, lb


def params(s: Sizes) -> tuple[Param, ...]:
    p = s["P"]
    la, lb = lengths(s)
    return (
        Param("aoff", (p + 1,), indices=True),
        Param("boff", (p + 1,), indices=True),
        Param("xa", (sum(la),), active=True),
        Param("xb", (sum(lb),), active=True),
        Param("R", (p, s["LA"] + 1, s["LB"] + 1), active=True, written=True),
    )


def body(s: Sizes) -> str:
    p = s["P"]
    la, lb = lengths(s)
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        scf.for %p = %c0 to %c$P step %c1 {
          %p1 = arith.addi %p, %c1 : index
          %a0 = memref.load %aoff[%p] : $ot
          %a1 = memref.load %aoff[%p1] : $ot
          %b0 = memref.load %boff[%p] : $ot
          %b1 = memref.load %boff[%p1] : $ot
          %la = arith.subi %a1, %a0 : index
          %lb = arith.subi %b1, %b0 : index
          %ia = arith.addi %la, %c1 : index
          %jb = arith.addi %lb, %c1 : index
          scf.for %i = %c1 to %ia step %c1 {
            %im = arith.subi %i, %c1 : index
            %ai = arith.addi %a0, %im : index
            %xi = memref.load %xa[%ai] : $at
            scf.for %j = %c1 to %jb step %c1 {
              %jm = arith.subi %j, %c1 : index
              %bj = arith.addi %b0, %jm : index
              %yj = memref.load %xb[%bj] : $bt
              %d = arith.subf %xi, %yj : f64
              %c = arith.mulf %d, %d : f64
              %up = memref.load %R[%p, %im, %j] : $rt
              %left = memref.load %R[%p, %i, %jm] : $rt
              %diag = memref.load %R[%p, %im, %jm] : $rt
              %u = arith.addf %up, %one : f64
              %v = arith.addf %left, %one : f64
              %w = arith.addf %diag, %c : f64
              %nu = arith.negf %u : f64
              %nv = arith.negf %v : f64
              %nw = arith.negf %w : f64
              %eu = math.exp %nu : f64
              %ev = math.exp %nv : f64
              %ew = math.exp %nw : f64
              %s1 = arith.addf %eu, %ev : f64
              %s2 = arith.addf %s1, %ew : f64
              %l = math.log %s2 : f64
              %r = arith.negf %l : f64
              memref.store %r, %R[%p, %i, %j] : $rt
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, p),
        P=p,
        ot=f"memref<{p + 1}xindex>",
        at=memref((sum(la),)),
        bt=memref((sum(lb),)),
        rt=memref((p, s["LA"] + 1, s["LB"] + 1)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Each pair's table filled cell by cell; the cells past its lengths kept."""
    la, lb = lengths(s)
    aoff = np.concatenate([[0], np.cumsum(la)])
    boff = np.concatenate([[0], np.cumsum(lb)])
    R = a["R"]
    tables = []
    for p in range(s["P"]):
        rows = [[R[p, i, j] for j in range(s["LB"] + 1)] for i in range(s["LA"] + 1)]
        for i in range(1, la[p] + 1):
            for j in range(1, lb[p] + 1):
                d = a["xa"][aoff[p] + i - 1] - a["xb"][boff[p] + j - 1]
                u = rows[i - 1][j] + 1.0
                v = rows[i][j - 1] + 1.0
                w = rows[i - 1][j - 1] + d * d
                rows[i][j] = -anp.log(anp.exp(-u) + anp.exp(-v) + anp.exp(-w))
        tables.append(anp.stack([anp.stack(r) for r in rows]))
    return None, {"R": anp.stack(tables)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Borders `R[p][0][j] = j`, `R[p][i][0] = i`; the rest random (overwritten
    where the pair's lengths reach)."""
    la, lb = lengths(s)
    R = rng.uniform(0.0, 1.0, (s["P"], s["LA"] + 1, s["LB"] + 1))
    R[:, 0, :] = np.arange(s["LB"] + 1)
    R[:, :, 0] = np.arange(s["LA"] + 1)
    return {
        "aoff": np.concatenate([[0], np.cumsum(la)]),
        "boff": np.concatenate([[0], np.cumsum(lb)]),
        "xa": rng.uniform(-1.0, 1.0, sum(la)),
        "xb": rng.uniform(-1.0, 1.0, sum(lb)),
        "R": R,
    }


KERNEL = Kernel(
    key="softedit",
    sizes={
        "small": {"P": 2, "LA": 3, "LB": 3},
        "paper": {"P": 64, "LA": 12, "LB": 12},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
