"""
A mixture-of-experts feed-forward layer with top-1 routing, the tokens grouped
by expert (Shazeer et al., "Outrageously Large Neural Networks: The
Sparsely-Gated Mixture-of-Experts Layer", ICLR 2017; Fedus, Zoph & Shazeer,
"Switch Transformers", JMLR 23, 2022, section 2.1: each token goes to one
expert, its output scaled by the router's gate), as a grouped dispatch runs it
(the tokens of expert `e` at `perm[off[e]] .. perm[off[e + 1] - 1]`):

    for (e = 0; e < E; e++)
      for (t = off[e]; t < off[e + 1]; t++) {
        tok = perm[t];
        for (h = 0; h < H; h++) {
          s = 0;
          for (d = 0; d < D; d++) s += W1[e][h][d] * X[tok][d];
          Hd[t][h] = tanh(s);
        }
        for (d = 0; d < D; d++) {
          o = 0;
          for (h = 0; h < H; h++) o += W2[e][d][h] * Hd[t][h];
          Y[tok][d] = gate[t] * o;
        }
      }

A loop of run-time trip count read from an offsets array (the tokens each
expert receives) around two constant nests, whose iteration stores more than a
512-byte scratchpad at the paper size (the second nest reads back the `H`
activations the first stored, for each of the `D` outputs), and a value loaded
once per token (the gate) cached beside them.

Sizes: `small` E = 2 experts, T = 5 tokens, D = 2, H = 3; `paper` E = 8, T =
256, D = 8, H = 16 (a nest kernel). Expert `e` receives `1 + (11 e mod 7)`
parts of the tokens (the last one the rest): an uneven routing.
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


def counts(s: Sizes) -> list[int]:
    """Tokens per expert: uneven shares of T, every expert at least one."""
    e, t = s["E"], s["T"]
    weights = [1 + (11 * i) % 7 for i in range(e)]
    share = [max(1, t * w // sum(weights)) for w in weights]
    share[-1] = t - sum(share[:-1])
    assert share[-1] >= 1
    return share


def params(s: Sizes) -> tuple[Param, ...]:
    e, t, d, h = s["E"], s["T"], s["D"], s["H"]
    return (
        Param("off", (e + 1,), indices=True),
        Param("perm", (t,), indices=True),
        Param("X", (t, d), active=True),
        Param("W1", (e, h, d), active=True),
        Param("W2", (e, d, h), active=True),
        Param("gate", (t,), active=True),
        Param("Hd", (t, h), active=True, written=True),
        Param("Y", (t, d), active=True, written=True),
    )


def body(s: Sizes) -> str:
    e, t, d, h = s["E"], s["T"], s["D"], s["H"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        scf.for %e = %c0 to %c$E step %c1 {
          %e1 = arith.addi %e, %c1 : index
          %lo = memref.load %off[%e] : $ot
          %hi = memref.load %off[%e1] : $ot
          scf.for %t = %lo to %hi step %c1 {
            %tok = memref.load %perm[%t] : $pt
            scf.for %h = %c0 to %c$H step %c1 {
              %s = scf.for %d = %c0 to %c$D step %c1 iter_args(%acc = %zero) -> (f64) {
                %w = memref.load %W1[%e, %h, %d] : $w1t
                %xv = memref.load %X[%tok, %d] : $xt
                %p = arith.mulf %w, %xv : f64
                %next = arith.addf %acc, %p : f64
                scf.yield %next : f64
              }
              %a = math.tanh %s : f64
              memref.store %a, %Hd[%t, %h] : $ht
            }
            %g = memref.load %gate[%t] : $gt
            scf.for %d = %c0 to %c$D step %c1 {
              %o = scf.for %h = %c0 to %c$H step %c1 iter_args(%acc = %zero) -> (f64) {
                %w = memref.load %W2[%e, %d, %h] : $w2t
                %hv = memref.load %Hd[%t, %h] : $ht
                %p = arith.mulf %w, %hv : f64
                %next = arith.addf %acc, %p : f64
                scf.yield %next : f64
              }
              %yv = arith.mulf %g, %o : f64
              memref.store %yv, %Y[%tok, %d] : $xt
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, e, d, h),
        E=e,
        D=d,
        H=h,
        ot=f"memref<{e + 1}xindex>",
        pt=f"memref<{t}xindex>",
        xt=memref((t, d)),
        w1t=memref((e, h, d)),
        w2t=memref((e, d, h)),
        gt=memref((t,)),
        ht=memref((t, h)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Every token goes to one expert: `Hd` is overwritten row by row in routed
    order, `Y` row by row in token order."""
    off = np.concatenate([[0], np.cumsum(counts(s))])
    perm = np.asarray(a["perm"])
    hd_rows, y_rows = [], {}
    for e in range(s["E"]):
        for t in range(off[e], off[e + 1]):
            tok = int(perm[t])
            hidden = anp.tanh(a["W1"][e] @ a["X"][tok])
            hd_rows.append(hidden)
            y_rows[tok] = a["gate"][t] * (a["W2"][e] @ hidden)
    return None, {
        "Hd": anp.stack(hd_rows),
        "Y": anp.stack([y_rows[k] for k in range(s["T"])]),
    }


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    e, t, d, h = s["E"], s["T"], s["D"], s["H"]
    return {
        "off": np.concatenate([[0], np.cumsum(counts(s))]),
        "perm": rng.permutation(t),
        "X": rng.uniform(-1.0, 1.0, (t, d)),
        "W1": rng.uniform(-1.0, 1.0, (e, h, d)) / np.sqrt(d),
        "W2": rng.uniform(-1.0, 1.0, (e, d, h)) / np.sqrt(h),
        "gate": rng.uniform(0.1, 1.0, t),
        "Hd": np.zeros((t, h)),
        "Y": np.zeros((t, d)),
    }


KERNEL = Kernel(
    key="moe",
    sizes={
        "small": {"E": 2, "T": 5, "D": 2, "H": 3},
        "paper": {"E": 8, "T": 256, "D": 8, "H": 16},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
