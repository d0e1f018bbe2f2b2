"""
Causal (masked) scaled dot-product attention of one head: position `i` attends
to positions `j <= i` only (Vaswani et al., "Attention Is All You Need", NeurIPS
2017, section 3.2.3's masked decoder self-attention; PyTorch's
`torch.nn.functional.scaled_dot_product_attention(..., is_causal=True)`, which
masks the scores above the diagonal to -inf, so their weights are 0), also
returning the weights `P`, without the max subtraction (its inputs keep the
scores O(1)):

    for (i = 0; i < L; i++) {
      z = 0;
      for (j = 0; j <= i; j++) {
        s = 0;
        for (d = 0; d < D; d++) s += Q[i][d] * K[j][d];
        P[i][j] = exp(s * scale);  z += P[i][j];
      }
      inv = 1 / z;
      for (j = 0; j <= i; j++) P[i][j] *= inv;
      for (d = 0; d < D; d++) {
        o = 0;
        for (j = 0; j <= i; j++) o += P[i][j] * V[j][d];
        O[i][d] = o;
      }
    }

The attention kernel's three loops of a row with triangular trip counts: two of
them innermost, under a loop of fixed trip count (`d`), so the triangle is in the
middle of a nest as well as at its top. `P` above the diagonal is never touched
(the reference keeps its initial zeros there).

Sizes: `small` L = 4, D = 2; `paper` L = 48, D = 8 (a nest kernel).
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


def params(s: Sizes) -> tuple[Param, ...]:
    L, D = s["L"], s["D"]
    return (
        Param("Q", (L, D), active=True),
        Param("K", (L, D), active=True),
        Param("V", (L, D), active=True),
        Param("P", (L, L), active=True, written=True),
        Param("O", (L, D), active=True, written=True),
    )


def body(s: Sizes) -> str:
    L, D = s["L"], s["D"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %scale = arith.constant $scale : f64
        scf.for %i = %c0 to %c$L step %c1 {
          %i1 = arith.addi %i, %c1 : index
          %z = scf.for %j = %c0 to %i1 step %c1 iter_args(%zacc = %zero) -> (f64) {
            %s = scf.for %d = %c0 to %c$D step %c1 iter_args(%acc = %zero) -> (f64) {
              %q = memref.load %Q[%i, %d] : $vt
              %k = memref.load %K[%j, %d] : $vt
              %p = arith.mulf %q, %k : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            %scaled = arith.mulf %s, %scale : f64
            %e = math.exp %scaled : f64
            memref.store %e, %P[%i, %j] : $pt
            %znext = arith.addf %zacc, %e : f64
            scf.yield %znext : f64
          }
          %inv = arith.divf %one, %z : f64
          scf.for %j = %c0 to %i1 step %c1 {
            %e = memref.load %P[%i, %j] : $pt
            %w = arith.mulf %e, %inv : f64
            memref.store %w, %P[%i, %j] : $pt
          }
          scf.for %d = %c0 to %c$D step %c1 {
            %o = scf.for %j = %c0 to %i1 step %c1 iter_args(%acc = %zero) -> (f64) {
              %w = memref.load %P[%i, %j] : $pt
              %v = memref.load %V[%j, %d] : $vt
              %p = arith.mulf %w, %v : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            memref.store %o, %O[%i, %d] : $vt
          }
        }
        return
        """,
        consts=index_constants(0, 1, L, D),
        L=L,
        D=D,
        scale=f64(1.0 / np.sqrt(D)),
        vt=memref((L, D)),
        pt=memref((L, L)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """P = softmax of the scores below and on the diagonal (P's initial contents
    kept above it); O = P V."""
    Q, K, V = a["Q"], a["K"], a["V"]
    below = np.tril(np.ones((s["L"], s["L"])))
    e = anp.exp(anp.dot(Q, anp.transpose(K)) * (1.0 / np.sqrt(s["D"]))) * below
    weights = e * (1.0 / anp.sum(e, axis=1, keepdims=True))
    P = weights + a["P"] * (1.0 - below)
    return None, {"P": P, "O": anp.dot(weights, V)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    L, D = s["L"], s["D"]
    return {
        "Q": rng.uniform(-1.0, 1.0, (L, D)),
        "K": rng.uniform(-1.0, 1.0, (L, D)),
        "V": rng.uniform(-1.0, 1.0, (L, D)),
        "P": np.zeros((L, L)),
        "O": np.zeros((L, D)),
    }


KERNEL = Kernel(
    key="causal",
    sizes={"small": {"L": 4, "D": 2}, "paper": {"L": 48, "D": 8}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
