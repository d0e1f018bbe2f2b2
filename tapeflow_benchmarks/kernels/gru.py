"""
A gated recurrent unit layer over T steps (Cho et al., "Learning Phrase
Representations using RNN Encoder-Decoder for Statistical Machine Translation",
EMNLP 2014; the equations of PyTorch's `torch.nn.GRU`, one input feature, no
bias), its hidden states kept in `h`:

    for (t = 0; t < T; t++)
      for (i = 0; i < H; i++) {
        ar = Ur[i] * x[t]; az = Uz[i] * x[t]; an = 0;
        for (j = 0; j < H; j++) {
          ar += Wr[i][j] * h[t][j]; az += Wz[i][j] * h[t][j]; an += Wn[i][j] * h[t][j];
        }
        r = sigmoid(ar); z = sigmoid(az);
        n = tanh(Un[i] * x[t] + r * an);
        h[t + 1][i] = (1 - z) * n + z * h[t][i];
      }

The RNN's nest (`rnn.py`) with three gates: the middle body caches several
per-iteration values (the gates, the reset-scaled sum) beside the inner loop's
tape, and reads the previous state both in the inner loop and after it.

Sizes: `small` T = 3, H = 4; `paper` T = 24, H = 16 (a nest kernel).
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
    T, H = s["T"], s["H"]
    return (
        Param("Wr", (H, H), active=True),
        Param("Wz", (H, H), active=True),
        Param("Wn", (H, H), active=True),
        Param("U", (3, H), active=True),
        Param("x", (T,), active=True),
        Param("h", (T + 1, H), active=True, written=True),
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
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        scf.for %t = %c0 to %c$T step %c1 {
          %xt = memref.load %x[%t] : $xty
          %t1 = arith.addi %t, %c1 : index
          scf.for %i = %c0 to %c$H step %c1 {
            %ur = memref.load %U[%c0, %i] : $ut
            %uz = memref.load %U[%c1, %i] : $ut
            %un = memref.load %U[%c2, %i] : $ut
            %inr = arith.mulf %ur, %xt : f64
            %inz = arith.mulf %uz, %xt : f64
            %sr, %sz, %sn = scf.for %j = %c0 to %c$H step %c1
                iter_args(%ar = %inr, %az = %inz, %an = %zero) -> (f64, f64, f64) {
              %hv = memref.load %h[%t, %j] : $ht
              %wr = memref.load %Wr[%i, %j] : $wt
              %wz = memref.load %Wz[%i, %j] : $wt
              %wn = memref.load %Wn[%i, %j] : $wt
              %pr = arith.mulf %wr, %hv : f64
              %pz = arith.mulf %wz, %hv : f64
              %pn = arith.mulf %wn, %hv : f64
              %nr = arith.addf %ar, %pr : f64
              %nz = arith.addf %az, %pz : f64
              %nn = arith.addf %an, %pn : f64
              scf.yield %nr, %nz, %nn : f64, f64, f64
            }
            $gates
            %inn = arith.mulf %un, %xt : f64
            %rn = arith.mulf %r, %sn : f64
            %an2 = arith.addf %inn, %rn : f64
            %n = math.tanh %an2 : f64
            %hold = memref.load %h[%t, %i] : $ht
            %omz = arith.subf %one, %z : f64
            %keep = arith.mulf %z, %hold : f64
            %new = arith.mulf %omz, %n : f64
            %hnew = arith.addf %new, %keep : f64
            memref.store %hnew, %h[%t1, %i] : $ht
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, T, H),
        gates="\n".join([_sigmoid("r", "sr"), _sigmoid("z", "sz")]),
        T=T,
        H=H,
        xty=memref((T,)),
        ut=memref((3, H)),
        wt=memref((H, H)),
        ht=memref((T + 1, H)),
    )


def _sigmoid_np(a: Array) -> Array:
    return 1.0 / (1.0 + anp.exp(-a))


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    Wr, Wz, Wn, U, x, h = a["Wr"], a["Wz"], a["Wn"], a["U"], a["x"], a["h"]
    states = [h[0]]
    for t in range(s["T"]):
        prev = states[-1]
        r = _sigmoid_np(U[0] * x[t] + anp.dot(Wr, prev))
        z = _sigmoid_np(U[1] * x[t] + anp.dot(Wz, prev))
        n = anp.tanh(U[2] * x[t] + r * anp.dot(Wn, prev))
        states.append((1.0 - z) * n + z * prev)
    return None, {"h": anp.stack(states)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    H = s["H"]
    return {
        "Wr": rng.uniform(-1.0, 1.0, (H, H)) / np.sqrt(H),
        "Wz": rng.uniform(-1.0, 1.0, (H, H)) / np.sqrt(H),
        "Wn": rng.uniform(-1.0, 1.0, (H, H)) / np.sqrt(H),
        "U": rng.uniform(-1.0, 1.0, (3, H)),
        "x": rng.uniform(-1.0, 1.0, s["T"]),
        "h": rng.uniform(-1.0, 1.0, (s["T"] + 1, H)),
    }


KERNEL = Kernel(
    key="gru",
    sizes={"small": {"T": 3, "H": 4}, "paper": {"T": 24, "H": 16}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
