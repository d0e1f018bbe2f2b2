"""
A transformer's feed-forward block as LLaMA has it (Touvron et al., "LLaMA: Open
and Efficient Foundation Language Models", 2023, section 2.2): RMSNorm (Zhang &
Sennrich, NeurIPS 2019, eq. 4, with gain `g` and eps = 1e-5 as PyTorch's
`torch.nn.RMSNorm` adds it), then the SwiGLU layer (Shazeer, "GLU Variants Improve
Transformer", 2020, eq. 6: `(Swish(x W1) * (x W3)) W2`, Swish with beta = 1, i.e.
SiLU) and the residual connection, over a batch of `b` tokens, `b` an argument
known only at run time:

    for (t = 0; t < b; t++) {
      ss = 0;
      for (d = 0; d < D; d++) ss += X[t][d] * X[t][d];
      r = 1 / sqrt(ss / D + eps);
      for (d = 0; d < D; d++) xn[d] = X[t][d] * r * g[d];
      for (h = 0; h < H; h++) {
        a = 0; c = 0;
        for (d = 0; d < D; d++) { a += W1[h][d] * xn[d]; c += W3[h][d] * xn[d]; }
        hid[h] = a / (1 + exp(-a)) * c;
      }
      for (o = 0; o < D; o++) {
        y = X[t][o];
        for (h = 0; h < H; h++) y += W2[o][h] * hid[h];
        Y[t][o] = y;
      }
    }

Under a run-time loop, four loops of a token: a reduction whose result scales
the next loop, then two nests, the first with two accumulators in one inner loop
and a gated activation after it, the second reading what the first stored; the
scratch rows `xn` and `hid` are overwritten by every token.

Sizes: `small` buffers of TB = 3 tokens, b = 2, D = 3, H = 4; `paper` TB = b = 6,
D = 16, H = 32 (a nest kernel).
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

EPS = 1e-5


def params(s: Sizes) -> tuple[Param, ...]:
    tb, d, h = s["TB"], s["D"], s["H"]
    return (
        Param("X", (tb, d), active=True),
        Param("g", (d,), active=True),
        Param("W1", (h, d), active=True),
        Param("W3", (h, d), active=True),
        Param("W2", (d, h), active=True),
        Param("Y", (tb, d), active=True, written=True),
        Param("xn", (d,), active=True, written=True),
        Param("hid", (h,), active=True, written=True),
        Param("b", (), trip="b"),
    )


def body(s: Sizes) -> str:
    tb, d, h = s["TB"], s["D"], s["H"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %eps = arith.constant $eps : f64
        %invd = arith.constant $invd : f64
        scf.for %t = %c0 to %b step %c1 {
          %ss = scf.for %d = %c0 to %c$D step %c1 iter_args(%acc = %zero) -> (f64) {
            %xv = memref.load %X[%t, %d] : $xt
            %sq = arith.mulf %xv, %xv : f64
            %next = arith.addf %acc, %sq : f64
            scf.yield %next : f64
          }
          %ms = arith.mulf %ss, %invd : f64
          %mse = arith.addf %ms, %eps : f64
          %rms = math.sqrt %mse : f64
          %r = arith.divf %one, %rms : f64
          scf.for %d = %c0 to %c$D step %c1 {
            %xv = memref.load %X[%t, %d] : $xt
            %gv = memref.load %g[%d] : $dt
            %xr = arith.mulf %xv, %r : f64
            %xg = arith.mulf %xr, %gv : f64
            memref.store %xg, %xn[%d] : $dt
          }
          scf.for %hh = %c0 to %c$H step %c1 {
            %a, %c = scf.for %d = %c0 to %c$D step %c1
                iter_args(%aacc = %zero, %cacc = %zero) -> (f64, f64) {
              %xv = memref.load %xn[%d] : $dt
              %w1 = memref.load %W1[%hh, %d] : $ht
              %w3 = memref.load %W3[%hh, %d] : $ht
              %p1 = arith.mulf %w1, %xv : f64
              %p3 = arith.mulf %w3, %xv : f64
              %an = arith.addf %aacc, %p1 : f64
              %cn = arith.addf %cacc, %p3 : f64
              scf.yield %an, %cn : f64, f64
            }
            %na = arith.negf %a : f64
            %e = math.exp %na : f64
            %den = arith.addf %one, %e : f64
            %silu = arith.divf %a, %den : f64
            %gated = arith.mulf %silu, %c : f64
            memref.store %gated, %hid[%hh] : $vt
          }
          scf.for %o = %c0 to %c$D step %c1 {
            %x0 = memref.load %X[%t, %o] : $xt
            %y = scf.for %hh = %c0 to %c$H step %c1 iter_args(%acc = %x0) -> (f64) {
              %w2 = memref.load %W2[%o, %hh] : $ot
              %hv = memref.load %hid[%hh] : $vt
              %p = arith.mulf %w2, %hv : f64
              %next = arith.addf %acc, %p : f64
              scf.yield %next : f64
            }
            memref.store %y, %Y[%t, %o] : $xt
          }
        }
        return
        """,
        consts=index_constants(0, 1, d, h),
        D=d,
        H=h,
        eps=f64(EPS),
        invd=f64(1.0 / d),
        xt=memref((tb, d)),
        dt=memref((d,)),
        ht=memref((h, d)),
        ot=memref((d, h)),
        vt=memref((h,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Y = X + (silu(xn W1^T) * (xn W3^T)) W2^T with xn = X g / rms(X), on the
    first b tokens (Y's rows past them kept); the scratch rows hold the last
    token's values."""
    b = s["b"]
    X = a["X"][:b]
    r = 1.0 / anp.sqrt(anp.sum(X * X, axis=1) / s["D"] + EPS)
    xn = X * r[:, None] * a["g"][None, :]
    z1 = anp.dot(xn, a["W1"].T)
    hid = z1 / (1.0 + anp.exp(-z1)) * anp.dot(xn, a["W3"].T)
    Y = X + anp.dot(hid, a["W2"].T)
    return None, {
        "Y": anp.concatenate([Y, a["Y"][b:]]),
        "xn": xn[-1],
        "hid": hid[-1],
    }


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Weights scaled by 1/sqrt(fan-in), so the products stay O(1)."""
    tb, d, h = s["TB"], s["D"], s["H"]
    return {
        "X": rng.uniform(-1.0, 1.0, (tb, d)),
        "g": rng.uniform(0.5, 1.5, (d,)),
        "W1": rng.uniform(-1.0, 1.0, (h, d)) / np.sqrt(d),
        "W3": rng.uniform(-1.0, 1.0, (h, d)) / np.sqrt(d),
        "W2": rng.uniform(-1.0, 1.0, (d, h)) / np.sqrt(h),
        "Y": rng.uniform(-1.0, 1.0, (tb, d)),
        "xn": rng.uniform(-1.0, 1.0, (d,)),
        "hid": rng.uniform(-1.0, 1.0, (h,)),
    }


KERNEL = Kernel(
    key="swiglu",
    sizes={
        "small": {"TB": 3, "b": 2, "D": 3, "H": 4},
        "paper": {"TB": 6, "b": 6, "D": 16, "H": 32},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
