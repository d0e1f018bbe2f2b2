"""
Deriche's recursive edge-detection filter: PolyBench/C 4.2's `medley/deriche`
(its constants from alpha = 0.25, `b1 = 2^-alpha` as PolyBench writes it), each
line's recurrence state (`xm1`, `ym1`, `ym2`, ...) in registers, the backward
loops written over `r` with `j = H - 1 - r`, with one activation added:

    for (i = 0; i < W; i++) {                                      // rows, forward
      ym1 = ym2 = xm1 = 0;
      for (j = 0; j < H; j++) {
        y1[i][j] = a1 * in[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
        xm1 = in[i][j]; ym2 = ym1; ym1 = y1[i][j];
      }
    }
    for (i = 0; i < W; i++) {                                      // rows, backward
      yp1 = yp2 = xp1 = xp2 = 0;
      for (j = H - 1; j >= 0; j--) {
        y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
        xp2 = xp1; xp1 = in[i][j]; yp2 = yp1; yp1 = y2[i][j];
      }
    }
    for (i = 0; i < W; i++)
      for (j = 0; j < H; j++) out[i][j] = tanh(c1 * (y1[i][j] + y2[i][j]));   // tanh added
    ... the same two sweeps along the columns from `out` (a5..a8), then
    for (i = 0; i < W; i++)
      for (j = 0; j < H; j++) out[i][j] = c2 * (y1[i][j] + y2[i][j]);

Six two-level nests in sequence, two of them walking their lines backwards and
two walking the image by columns, each inner loop an IIR recurrence carried in
registers (three or four values per iteration), the later sweeps overwriting
`y1`, `y2` and `out`, which the earlier ones wrote. PolyBench's deriche is
linear; the `tanh` between the horizontal and the vertical pass makes the
gradient need the horizontal result.

Sizes: `small` W = 3, H = 4; `paper` W = 64, H = 96 (a nest kernel).
"""

from __future__ import annotations

from math import exp

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

ALPHA = 0.25
_K = (1.0 - exp(-ALPHA)) ** 2 / (1.0 + 2.0 * ALPHA * exp(-ALPHA) - exp(2.0 * ALPHA))
A1 = A5 = _K
A2 = A6 = _K * exp(-ALPHA) * (ALPHA - 1.0)
A3 = A7 = _K * exp(-ALPHA) * (ALPHA + 1.0)
A4 = A8 = -_K * exp(-2.0 * ALPHA)
B1 = 2.0**-ALPHA
B2 = -exp(-2.0 * ALPHA)
C1 = C2 = 1.0

_FORWARD = """
scf.for %o = %c0 to %c$outer step %c1 {
  %${tag}1, %${tag}2, %${tag}3 = scf.for %p = %c0 to %c$inner step %c1
      iter_args(%xm1 = %zero, %ym1 = %zero, %ym2 = %zero) -> (f64, f64, f64) {
    %x = memref.load %$src[$ij] : $t
    %t1 = arith.mulf %$ka, %x : f64
    %t2 = arith.mulf %$kb, %xm1 : f64
    %t3 = arith.mulf %b1, %ym1 : f64
    %t4 = arith.mulf %b2, %ym2 : f64
    %s1 = arith.addf %t1, %t2 : f64
    %s2 = arith.addf %s1, %t3 : f64
    %y = arith.addf %s2, %t4 : f64
    memref.store %y, %y1[$ij] : $t
    scf.yield %x, %y, %ym1 : f64, f64, f64
  }
}
"""

_BACKWARD = """
scf.for %o = %c0 to %c$outer step %c1 {
  %${tag}1, %${tag}2, %${tag}3, %${tag}4 = scf.for %r = %c0 to %c$inner step %c1
      iter_args(%xp1 = %zero, %xp2 = %zero, %yp1 = %zero, %yp2 = %zero)
      -> (f64, f64, f64, f64) {
    %p = arith.subi %c$last, %r : index
    %t1 = arith.mulf %$ka, %xp1 : f64
    %t2 = arith.mulf %$kb, %xp2 : f64
    %t3 = arith.mulf %b1, %yp1 : f64
    %t4 = arith.mulf %b2, %yp2 : f64
    %s1 = arith.addf %t1, %t2 : f64
    %s2 = arith.addf %s1, %t3 : f64
    %y = arith.addf %s2, %t4 : f64
    memref.store %y, %y2[$ij] : $t
    %x = memref.load %$src[$ij] : $t
    scf.yield %x, %xp1, %y, %yp1 : f64, f64, f64, f64
  }
}
"""

_SUM = """
scf.for %i = %c0 to %c$W step %c1 {
  scf.for %j = %c0 to %c$H step %c1 {
    %u = memref.load %y1[%i, %j] : $t
    %v = memref.load %y2[%i, %j] : $t
    %uv = arith.addf %u, %v : f64
    %cuv = arith.mulf %$c, %uv : f64
$act
    memref.store %$res, %out[%i, %j] : $t
  }
}
"""


def params(s: Sizes) -> tuple[Param, ...]:
    shape = (s["W"], s["H"])
    return (
        Param("img", shape, active=True),
        Param("out", shape, active=True, written=True),
        Param("y1", shape, active=True, written=True),
        Param("y2", shape, active=True, written=True),
    )


def body(s: Sizes) -> str:
    w, h = s["W"], s["H"]
    t = memref((w, h))

    def sweep(template: str, tag: str, src: str, ka: str, kb: str, rows: bool) -> str:
        outer, inner = (w, h) if rows else (h, w)
        ij = "%o, %p" if rows else "%p, %o"
        return render(
            template,
            outer=outer,
            inner=inner,
            last=inner - 1,
            src=src,
            ka=ka,
            kb=kb,
            ij=ij,
            t=t,
            tag=tag,
        )

    def total(c: str, tanh: bool) -> str:
        act = "    %act = math.tanh %cuv : f64" if tanh else ""
        return render(_SUM, W=w, H=h, c=c, act=act, res="act" if tanh else "cuv", t=t)

    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %a1 = arith.constant $a1 : f64
        %a2 = arith.constant $a2 : f64
        %a3 = arith.constant $a3 : f64
        %a4 = arith.constant $a4 : f64
        %b1 = arith.constant $b1 : f64
        %b2 = arith.constant $b2 : f64
        %k1 = arith.constant $c1 : f64
        $rowf
        $rowb
        $sum1
        $colf
        $colb
        $sum2
        return
        """,
        consts=index_constants(*sorted({0, 1, w, h, w - 1, h - 1})),
        a1=f64(A1),
        a2=f64(A2),
        a3=f64(A3),
        a4=f64(A4),
        b1=f64(B1),
        b2=f64(B2),
        c1=f64(C1),
        rowf=sweep(_FORWARD, "rf", "img", "a1", "a2", True),
        rowb=sweep(_BACKWARD, "rb", "img", "a3", "a4", True),
        sum1=total("k1", True),
        colf=sweep(_FORWARD, "cf", "out", "a1", "a2", False),
        colb=sweep(_BACKWARD, "cb", "out", "a3", "a4", False),
        sum2=total("k1", False),
    )


def _forward(lines: list[Array], ka: float, kb: float) -> list[Array]:
    """y[p] = ka x[p] + kb x[p - 1] + b1 y[p - 1] + b2 y[p - 2] along each line."""
    out = []
    for x in lines:
        xm1 = ym1 = ym2 = 0.0
        ys = []
        for p in range(x.shape[0]):
            y = ka * x[p] + kb * xm1 + B1 * ym1 + B2 * ym2
            ys.append(y)
            xm1, ym2, ym1 = x[p], ym1, y
        out.append(anp.stack(ys))
    return out


def _backward(lines: list[Array], ka: float, kb: float) -> list[Array]:
    """y[p] = ka x[p + 1] + kb x[p + 2] + b1 y[p + 1] + b2 y[p + 2] along each line."""
    out = []
    for x in lines:
        xp1 = xp2 = yp1 = yp2 = 0.0
        ys = []
        for p in reversed(range(x.shape[0])):
            y = ka * xp1 + kb * xp2 + B1 * yp1 + B2 * yp2
            ys.append(y)
            xp2, xp1, yp2, yp1 = xp1, x[p], yp1, y
        out.append(anp.stack(ys[::-1]))
    return out


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The six sweeps on numpy lines (rows, then columns)."""
    img = a["img"]
    w, h = s["W"], s["H"]
    rows = [img[i] for i in range(w)]
    y1 = anp.stack(_forward(rows, A1, A2))
    y2 = anp.stack(_backward(rows, A3, A4))
    mid = anp.tanh(C1 * (y1 + y2))
    cols = [mid[:, j] for j in range(h)]
    z1 = anp.stack(_forward(cols, A5, A6), axis=1)
    z2 = anp.stack(_backward(cols, A7, A8), axis=1)
    return None, {"out": C2 * (z1 + z2), "y1": z1, "y2": z2}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    shape = (s["W"], s["H"])
    return {name: rng.uniform(-1.0, 1.0, shape) for name in ("img", "out", "y1", "y2")}


KERNEL = Kernel(
    key="deriche",
    sizes={"small": {"W": 3, "H": 4}, "paper": {"W": 64, "H": 96}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
