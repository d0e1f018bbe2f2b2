"""
An embedding bag with per-sample weights and run-time offsets, then a tanh: PyTorch's
`torch.nn.functional.embedding_bag(input, weight, offsets, mode="sum",
per_sample_weights=psw)` (bag `b` sums the weighted rows `weight[input[k]]` for
`offsets[b] <= k < offsets[b + 1]`), in the loop order of its CPU kernel
(`aten/src/ATen/native/EmbeddingBag.cpp`: bags, then the bag's indices, then the
row's features), followed by `torch.tanh`:

    for (b = 0; b < B; b++) {
      for (k = offsets[b]; k < offsets[b + 1]; k++) {
        j = input[k];
        for (d = 0; d < D; d++) out[b][d] += psw[k] * weight[j][d];
      }
      for (d = 0; d < D; d++) out[b][d] = tanh(out[b][d]);
    }

A three-deep nest whose middle loop's bounds are loaded from memory (a trip count
known only at run time, from row to row), with a loop of constant trip count inside
it, and a second inner loop after it in the same outer body.

Sizes: `small` B = 5 bags, V = 7 rows, D = 3; `paper` B = 64 bags, V = 256 rows,
D = 16 (a nest kernel). Bag `b` holds `1 + (5 b mod 9)` indices (from 1 to 9).
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


def bag_lengths(s: Sizes) -> list[int]:
    return [1 + (5 * b) % 9 for b in range(s["B"])]


def entries(s: Sizes) -> int:
    return sum(bag_lengths(s))


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("offsets", (s["B"] + 1,), indices=True),
        Param("input", (entries(s),), indices=True),
        Param("psw", (entries(s),), active=True),
        Param("weight", (s["V"], s["D"]), active=True),
        Param("out", (s["B"], s["D"]), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        scf.for %b = %c0 to %c$B step %c1 {
          %b1 = arith.addi %b, %c1 : index
          %lo = memref.load %offsets[%b] : $ot
          %hi = memref.load %offsets[%b1] : $ot
          scf.for %k = %lo to %hi step %c1 {
            %j = memref.load %input[%k] : $it
            %p = memref.load %psw[%k] : $pt
            scf.for %d = %c0 to %c$D step %c1 {
              %wv = memref.load %weight[%j, %d] : $wt
              %pw = arith.mulf %p, %wv : f64
              %o = memref.load %out[%b, %d] : $yt
              %sum = arith.addf %o, %pw : f64
              memref.store %sum, %out[%b, %d] : $yt
            }
          }
          scf.for %d = %c0 to %c$D step %c1 {
            %o = memref.load %out[%b, %d] : $yt
            %act = math.tanh %o : f64
            memref.store %act, %out[%b, %d] : $yt
          }
        }
        return
        """,
        consts=index_constants(0, 1, s["B"], s["D"]),
        B=s["B"],
        D=s["D"],
        ot=f"memref<{s['B'] + 1}xindex>",
        it=f"memref<{entries(s)}xindex>",
        pt=memref((entries(s),)),
        wt=memref((s["V"], s["D"])),
        yt=memref((s["B"], s["D"])),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    offsets, rows = a["offsets"], a["input"]
    weighted = a["psw"][:, None] * a["weight"][rows]
    bags = [
        a["out"][b] + anp.sum(weighted[offsets[b] : offsets[b + 1]], axis=0) for b in range(s["B"])
    ]
    return None, {"out": anp.tanh(anp.stack(bags))}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Rows drawn with repetition (a bag may name a row twice), weights scaled by
    1/sqrt of the bag's length, so that the sums stay O(1)."""
    lengths = bag_lengths(s)
    scale = np.repeat(1.0 / np.sqrt(lengths), lengths)
    return {
        "offsets": np.concatenate([[0], np.cumsum(lengths)]),
        "input": rng.integers(0, s["V"], entries(s)),
        "psw": rng.uniform(-1.0, 1.0, entries(s)) * scale,
        "weight": rng.uniform(-1.0, 1.0, (s["V"], s["D"])),
        "out": rng.uniform(-0.5, 0.5, (s["B"], s["D"])),
    }


KERNEL = Kernel(
    key="embbag",
    sizes={"small": {"B": 5, "V": 7, "D": 3}, "paper": {"B": 64, "V": 256, "D": 16}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
