"""
A long short-term memory network over T steps (Hochreiter & Schmidhuber, "Long
Short-Term Memory", Neural Computation 9, 1997, with the forget gate of Gers et
al., 2000; the equations of PyTorch's `torch.nn.LSTMCell`, one input feature, no
bias), its hidden and cell states kept in `h` and `c`:

    for (t = 0; t < T; t++)
      for (i = 0; i < H; i++) {
        a_g = U[g][i] * x[t] for each gate g of (in, forget, cell, out);
        for (j = 0; j < H; j++) a_g += W[g][i][j] * h[t][j];   // four sums
        c[t + 1][i] = sigmoid(a_f) * c[t][i] + sigmoid(a_i) * tanh(a_c);
        h[t + 1][i] = sigmoid(a_o) * tanh(c[t + 1][i]);
      }

A nest of three loops whose middle body caches several per-iteration values
(four gates, the cell state) beside an inner loop of five loads an iteration.

Sizes: `small` T = 2, H = 3; `paper` T = 12, H = 16 (a nest kernel).
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

GATES = 4


def params(s: Sizes) -> tuple[Param, ...]:
    T, H = s["T"], s["H"]
    return (
        Param("W", (GATES, H, H), active=True),
        Param("U", (GATES, H), active=True),
        Param("x", (T,), active=True),
        Param("h", (T + 1, H), active=True, written=True),
        Param("c", (T + 1, H), active=True, written=True),
    )


def _sigmoid(name: str, arg: str) -> str:
    return (
        f"%{name}_n = arith.negf %{arg} : f64\n"
        f"%{name}_e = math.exp %{name}_n : f64\n"
        f"%{name}_d = arith.addf %one, %{name}_e : f64\n"
        f"%{name} = arith.divf %one, %{name}_d : f64"
    )


def body(s: Sizes) -> str:
    T, H = s["T"], s["H"]
    inputs = "\n".join(
        f"%u{g} = memref.load %U[%c{g}, %i] : $ut\n%in{g} = arith.mulf %u{g}, %xt : f64"
        for g in range(GATES)
    )
    products = "\n".join(
        f"%w{g} = memref.load %W[%c{g}, %i, %j] : $wt\n"
        f"%p{g} = arith.mulf %w{g}, %hv : f64\n"
        f"%n{g} = arith.addf %a{g}, %p{g} : f64"
        for g in range(GATES)
    )
    gates = "\n".join([_sigmoid("ig", "s0"), _sigmoid("fg", "s1"), _sigmoid("og", "s3")])
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        scf.for %t = %c0 to %c$T step %c1 {
          %xt = memref.load %x[%t] : $xty
          %t1 = arith.addi %t, %c1 : index
          scf.for %i = %c0 to %c$H step %c1 {
            $inputs
            %s0, %s1, %s2, %s3 = scf.for %j = %c0 to %c$H step %c1
                iter_args(%a0 = %in0, %a1 = %in1, %a2 = %in2, %a3 = %in3) -> (f64, f64, f64, f64) {
              %hv = memref.load %h[%t, %j] : $ht
              $products
              scf.yield %n0, %n1, %n2, %n3 : f64, f64, f64, f64
            }
            $gates
            %gg = math.tanh %s2 : f64
            %cold = memref.load %c[%t, %i] : $ht
            %kept = arith.mulf %fg, %cold : f64
            %added = arith.mulf %ig, %gg : f64
            %cnew = arith.addf %kept, %added : f64
            memref.store %cnew, %c[%t1, %i] : $ht
            %ct = math.tanh %cnew : f64
            %hnew = arith.mulf %og, %ct : f64
            memref.store %hnew, %h[%t1, %i] : $ht
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, 3, T, H),
        inputs=render(inputs, ut=memref((GATES, H))).rstrip("\n"),
        products=render(products, wt=memref((GATES, H, H))).rstrip("\n"),
        gates=gates,
        T=T,
        H=H,
        xty=memref((T,)),
        ht=memref((T + 1, H)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    W, U, x, h, c = a["W"], a["U"], a["x"], a["h"], a["c"]

    def sigmoid(v: Array) -> Array:
        return 1.0 / (1.0 + anp.exp(-v))

    hs, cs = [h[0]], [c[0]]
    for t in range(s["T"]):
        pre = [U[g] * x[t] + anp.dot(W[g], hs[-1]) for g in range(GATES)]
        cs.append(sigmoid(pre[1]) * cs[-1] + sigmoid(pre[0]) * anp.tanh(pre[2]))
        hs.append(sigmoid(pre[3]) * anp.tanh(cs[-1]))
    return None, {"h": anp.stack(hs), "c": anp.stack(cs)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    T, H = s["T"], s["H"]
    return {
        "W": rng.uniform(-1.0, 1.0, (GATES, H, H)) / np.sqrt(H),
        "U": rng.uniform(-1.0, 1.0, (GATES, H)),
        "x": rng.uniform(-1.0, 1.0, T),
        "h": rng.uniform(-1.0, 1.0, (T + 1, H)),
        "c": rng.uniform(-1.0, 1.0, (T + 1, H)),
    }


KERNEL = Kernel(
    key="lstm",
    sizes={"small": {"T": 2, "H": 3}, "paper": {"T": 12, "H": 16}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
