"""
Black-Scholes pricing of European call options: PARSEC's `blackscholes`
(Bienia et al., "The PARSEC Benchmark Suite", PACT 2008), its
`BlkSchlsEqEuroNoDiv` for calls (`otype = 0`) over `n` options, `n` an argument
known only at run time, with its `CNDF`, the normal distribution by Abramowitz &
Stegun's polynomial (*Handbook of Mathematical Functions*, 1964, 26.2.17), the
sign test written as selects; its gradient is the options' sensitivities to
every input (the Greeks):

    for (i = 0; i < n; i++) {
      sq = sqrt(T[i]);  den = v[i] * sq;
      d1 = (log(S[i] / K[i]) + (r[i] + 0.5 v[i]^2) T[i]) / den;  d2 = d1 - den;
      price[i] = S[i] CNDF(d1) - K[i] exp(-r[i] T[i]) CNDF(d2);
    }
    CNDF(x): a = |x|; k = 1 / (1 + 0.2316419 a);
             p = k (b1 + k (b2 + k (b3 + k (b4 + k b5))))   (PARSEC's powers of k)
             c = 1 - p exp(-a^2 / 2) / sqrt(2 pi);  CNDF = x < 0 ? 1 - c : c

A loop of run-time trip count, its iterations independent, with a long
straight-line body (about 80 ops, two exponentials, a logarithm, a square root
and two divisions on its longest path) and selects; its tape is the five inputs
each option loads, from which the gradient recomputes the rest.

Sizes: `small` buffers of NB = 4 options, n = 3; `paper` NB = n = 1024 (a nest
kernel).
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

B = (0.319381530, -0.356563782, 1.781477937, -1.821255978, 1.330274429)
"""Abramowitz & Stegun 26.2.17's coefficients, PARSEC's."""
P = 0.2316419
INV_SQRT_2PI = 0.39894228040143270286
INPUTS = ("S", "K", "r", "v", "T")


def params(s: Sizes) -> tuple[Param, ...]:
    nb = s["NB"]
    return (
        *(Param(name, (nb,), active=True) for name in INPUTS),
        Param("price", (nb,), active=True, written=True),
        Param("n", (), trip="n"),
    )


def _cndf(x: str, p: str) -> list[str]:
    """PARSEC's CNDF of `%<x>` into `%<p>_out`, as it writes it."""
    return [
        f"%{p}_neg = arith.cmpf olt, %{x}, %zero : f64",
        f"%{p}_m = arith.negf %{x} : f64",
        f"%{p}_a = arith.select %{p}_neg, %{p}_m, %{x} : f64",
        f"%{p}_aa = arith.mulf %{p}_a, %{p}_a : f64",
        f"%{p}_h = arith.mulf %mhalf, %{p}_aa : f64",
        f"%{p}_e = math.exp %{p}_h : f64",
        f"%{p}_np = arith.mulf %{p}_e, %invsqrt2pi : f64",
        f"%{p}_pa = arith.mulf %p, %{p}_a : f64",
        f"%{p}_d = arith.addf %one, %{p}_pa : f64",
        f"%{p}_k = arith.divf %one, %{p}_d : f64",
        f"%{p}_k2 = arith.mulf %{p}_k, %{p}_k : f64",
        f"%{p}_k3 = arith.mulf %{p}_k2, %{p}_k : f64",
        f"%{p}_k4 = arith.mulf %{p}_k3, %{p}_k : f64",
        f"%{p}_k5 = arith.mulf %{p}_k4, %{p}_k : f64",
        f"%{p}_l1 = arith.mulf %{p}_k, %b1 : f64",
        f"%{p}_l2 = arith.mulf %{p}_k2, %b2 : f64",
        f"%{p}_l3 = arith.mulf %{p}_k3, %b3 : f64",
        f"%{p}_s2 = arith.addf %{p}_l2, %{p}_l3 : f64",
        f"%{p}_l4 = arith.mulf %{p}_k4, %b4 : f64",
        f"%{p}_s3 = arith.addf %{p}_s2, %{p}_l4 : f64",
        f"%{p}_l5 = arith.mulf %{p}_k5, %b5 : f64",
        f"%{p}_s4 = arith.addf %{p}_s3, %{p}_l5 : f64",
        f"%{p}_s5 = arith.addf %{p}_s4, %{p}_l1 : f64",
        f"%{p}_loc = arith.mulf %{p}_s5, %{p}_np : f64",
        f"%{p}_c = arith.subf %one, %{p}_loc : f64",
        f"%{p}_flip = arith.subf %one, %{p}_c : f64",
        f"%{p}_out = arith.select %{p}_neg, %{p}_flip, %{p}_c : f64",
    ]


def body(s: Sizes) -> str:
    t = memref((s["NB"],))
    lines = [f"%{name}i = memref.load %{name}[%i] : {t}" for name in INPUTS]
    lines += [
        "%sq = math.sqrt %Ti : f64",
        "%ratio = arith.divf %Si, %Ki : f64",
        "%lg = math.log %ratio : f64",
        "%vv = arith.mulf %vi, %vi : f64",
        "%pw = arith.mulf %vv, %half : f64",
        "%d1a = arith.addf %ri, %pw : f64",
        "%d1b = arith.mulf %d1a, %Ti : f64",
        "%d1c = arith.addf %d1b, %lg : f64",
        "%den = arith.mulf %vi, %sq : f64",
        "%d1 = arith.divf %d1c, %den : f64",
        "%d2 = arith.subf %d1, %den : f64",
        *_cndf("d1", "n1"),
        *_cndf("d2", "n2"),
        "%rt = arith.mulf %ri, %Ti : f64",
        "%mrt = arith.negf %rt : f64",
        "%disc = math.exp %mrt : f64",
        "%fv = arith.mulf %Ki, %disc : f64",
        "%sn = arith.mulf %Si, %n1_out : f64",
        "%fn = arith.mulf %fv, %n2_out : f64",
        "%pr = arith.subf %sn, %fn : f64",
        f"memref.store %pr, %price[%i] : {t}",
    ]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %half = arith.constant 0.5 : f64
        %mhalf = arith.constant -0.5 : f64
        %p = arith.constant $p : f64
        %invsqrt2pi = arith.constant $inv : f64
        %b1 = arith.constant $b1 : f64
        %b2 = arith.constant $b2 : f64
        %b3 = arith.constant $b3 : f64
        %b4 = arith.constant $b4 : f64
        %b5 = arith.constant $b5 : f64
        scf.for %i = %c0 to %n step %c1 {
          $option
        }
        return
        """,
        consts=index_constants(0, 1),
        p=f64(P),
        inv=f64(INV_SQRT_2PI),
        **{f"b{k + 1}": f64(b) for k, b in enumerate(B)},
        option="\n".join(lines),
    )


def _cnd(x: Array) -> Array:
    a = anp.where(x < 0.0, -x, x)
    k = 1.0 / (1.0 + P * a)
    poly = (k**2 * B[1] + k**3 * B[2]) + k**4 * B[3]
    poly = (poly + k**5 * B[4]) + k * B[0]
    c = 1.0 - poly * (anp.exp(-0.5 * (a * a)) * INV_SQRT_2PI)
    return anp.where(x < 0.0, 1.0 - c, c)


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The calls' prices on the first n options; the prices past them kept."""
    n = s["n"]
    S, K, r, v, T = (a[name][:n] for name in INPUTS)
    den = v * anp.sqrt(T)
    d1 = ((r + v * v * 0.5) * T + anp.log(S / K)) / den
    d2 = d1 - den
    price = S * _cnd(d1) - K * anp.exp(-(r * T)) * _cnd(d2)
    return None, {"price": anp.concatenate([price, a["price"][n:]])}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """PARSEC's input ranges, roughly: spot and strike 30-70, rates 1-10%,
    volatilities 5-65%, maturities 0.2-2 years (d1 and d2 of both signs)."""
    nb = s["NB"]
    return {
        "S": rng.uniform(30.0, 70.0, nb),
        "K": rng.uniform(30.0, 70.0, nb),
        "r": rng.uniform(0.01, 0.1, nb),
        "v": rng.uniform(0.05, 0.65, nb),
        "T": rng.uniform(0.2, 2.0, nb),
        "price": rng.uniform(-1.0, 1.0, nb),
    }


KERNEL = Kernel(
    key="blackscholes",
    sizes={"small": {"NB": 4, "n": 3}, "paper": {"NB": 1024, "n": 1024}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
