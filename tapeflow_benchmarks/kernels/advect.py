"""
Linear advection `u_t + a u_x = 0` (`a > 0`) by the upwind scheme with a
minmod-limited slope, a second-order high-resolution method (LeVeque, "Finite
Volume Methods for Hyperbolic Problems", Cambridge 2002, sections 6.9 and 6.11:
equation 6.26's minmod slope, the REA flux of section 6.10), at Courant number
`nu = a dt / dx`, each step written to its own row:

    for (t = 0; t < T; t++)
      for (i = 2; i < N - 2; i++) {
        s1 = minmod(u[t][i+1] - u[t][i], u[t][i] - u[t][i-1]);
        s0 = minmod(u[t][i] - u[t][i-1], u[t][i-1] - u[t][i-2]);
        f1 = u[t][i] + k * s1;  f0 = u[t][i-1] + k * s0;   /* k = (1 - nu) / 2 */
        u[t+1][i] = u[t][i] - nu * (f1 - f0);
      }
    minmod(a, b) = a b > 0 ? (|a| < |b| ? a : b) : 0

A time-stepped stencil whose flux is a chain of branches (selects on the signs
and magnitudes of differences) rather than arithmetic: its REV needs the
branches' outcomes, which Enzyme caches per cell. The two cells at each end of
a step keep their values (inflow and outflow boundaries held fixed).

Sizes: `small` T = 2 steps of N = 7 cells; `paper` T = 24 steps of N = 128
(a nest kernel), `nu = 0.5`.
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

NU = 0.5
K = 0.5 * (1.0 - NU)


def params(s: Sizes) -> tuple[Param, ...]:
    return (Param("u", (s["T"] + 1, s["N"]), active=True, written=True),)


def _minmod(name: str, a: str, b: str) -> str:
    return f"""
    %{name}_p = arith.mulf %{a}, %{b} : f64
    %{name}_pos = arith.cmpf ogt, %{name}_p, %zero : f64
    %{name}_aa = math.absf %{a} : f64
    %{name}_ab = math.absf %{b} : f64
    %{name}_lt = arith.cmpf olt, %{name}_aa, %{name}_ab : f64
    %{name}_m = arith.select %{name}_lt, %{a}, %{b} : f64
    %{name} = arith.select %{name}_pos, %{name}_m, %zero : f64
    """


def body(s: Sizes) -> str:
    T, N = s["T"], s["N"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %nu = arith.constant $nu : f64
        %k = arith.constant $k : f64
        scf.for %t = %c0 to %c$T step %c1 {
          %t1 = arith.addi %t, %c1 : index
          scf.for %i = %c2 to %c$N2 step %c1 {
            %im = arith.subi %i, %c1 : index
            %imm = arith.subi %i, %c2 : index
            %ip = arith.addi %i, %c1 : index
            %ul2 = memref.load %u[%t, %imm] : $ut
            %ul = memref.load %u[%t, %im] : $ut
            %uc = memref.load %u[%t, %i] : $ut
            %ur = memref.load %u[%t, %ip] : $ut
            %dr = arith.subf %ur, %uc : f64
            %dc = arith.subf %uc, %ul : f64
            %dl = arith.subf %ul, %ul2 : f64
            $mm1
            $mm0
            %ks1 = arith.mulf %k, %s1 : f64
            %ks0 = arith.mulf %k, %s0 : f64
            %f1 = arith.addf %uc, %ks1 : f64
            %f0 = arith.addf %ul, %ks0 : f64
            %df = arith.subf %f1, %f0 : f64
            %step = arith.mulf %nu, %df : f64
            %un = arith.subf %uc, %step : f64
            memref.store %un, %u[%t1, %i] : $ut
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, T, N - 2),
        T=T,
        N2=N - 2,
        nu=f64(NU),
        k=f64(K),
        mm1=_minmod("s1", "dr", "dc").strip(),
        mm0=_minmod("s0", "dc", "dl").strip(),
        ut=memref((T + 1, N)),
    )


def _minmod_np(a: Array, b: Array) -> Array:
    small = np.abs(_values(a)) < np.abs(_values(b))
    positive = _values(a) * _values(b) > 0.0
    return anp.where(positive, anp.where(small, a, b), 0.0)


def _values(x: Array) -> np.ndarray:
    while hasattr(x, "_value"):
        x = x._value
    return np.asarray(x)


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    T, N = s["T"], s["N"]
    u = a["u"]
    rows = [u[0]]
    for t in range(T):
        v = rows[-1]
        ul2, ul, uc, ur = v[0 : N - 4], v[1 : N - 3], v[2 : N - 2], v[3 : N - 1]
        s1 = _minmod_np(ur - uc, uc - ul)
        s0 = _minmod_np(uc - ul, ul - ul2)
        un = uc - NU * ((uc + K * s1) - (ul + K * s0))
        row = u[t + 1]
        rows.append(anp.concatenate([row[0:2], un, row[N - 2 : N]]))
    return None, {"u": anp.stack(rows)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A rough profile (so that every branch of the limiter is taken)."""
    T, N = s["T"], s["N"]
    u = rng.uniform(-1.0, 1.0, (T + 1, N))
    return {"u": u}


KERNEL = Kernel(
    key="advect",
    sizes={"small": {"T": 2, "N": 7}, "paper": {"T": 24, "N": 128}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
