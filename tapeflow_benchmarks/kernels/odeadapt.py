"""
An adaptive-step ODE integrator in a `while` loop: Heun's method with its
embedded Euler step as the error estimate (the Heun-Euler 2(1) pair) and the
standard step-size controller `h *= clamp(0.9 sqrt(tol / err), 0.2, 5)`, a
rejected step retried with the smaller `h` (Hairer, Norsett & Wanner, "Solving
Ordinary Differential Equations I", 2nd ed., 1993, section II.4, equations
4.11-4.13; Press et al., "Numerical Recipes", 3rd ed., 2007, section 17.2), on a
system of D decoupled cubic-decay equations `y_i' = b_i - a_i y_i^3`:

    t = 0;  h = H0;  k = 0;
    while (t < T && k < KMAX) {
      acc = 0;
      for (i = 0; i < D; i++) {                      /* error estimate */
        k1 = f_i(y[i]);  k2 = f_i(y[i] + h k1);  acc += (k2 - k1)^2;
      }
      err = max(h / 2 * sqrt(acc / D), 1e-30);  ok = err <= TOL;
      for (i = 0; i < D; i++) {                      /* accept or keep */
        k1 = f_i(y[i]);  k2 = f_i(y[i] + h k1);
        y[i] = ok ? y[i] + h / 2 (k1 + k2) : y[i];
      }
      if (ok) t += h;
      h = min(h * clamp(0.9 sqrt(TOL / err), 0.2, 5), T - t);  k++;
    }

A loop of data-dependent trip count (the accepted and rejected steps) whose
body holds two loops over the state, the second reading a scalar the first one's
reduction makes through the controller; each iteration stores more than half a
scratchpad. The step size depends on the state, so the gradient flows through
the controller too (as it does in a differentiated adaptive solver that does not
detach `h`).

Sizes: `small` D = 3 for T = 0.3; `paper` D = 64 for T = 4 (a nest kernel,
about 40 steps), `H0 = 0.05`, `TOL = 1e-4`, `KMAX = 256`.
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

H0 = 0.05
TOL = 1.0e-4
KMAX = 256
FLOOR = 1.0e-30


def params(s: Sizes) -> tuple[Param, ...]:
    D = s["D"]
    return (
        Param("a", (D,), active=True),
        Param("b", (D,), active=True),
        Param("y", (D,), active=True, written=True),
    )


def _stages(suffix: str, D: int) -> str:
    return f"""
    %ai{suffix} = memref.load %a[%i{suffix}] : memref<{D}xf64>
    %bi{suffix} = memref.load %b[%i{suffix}] : memref<{D}xf64>
    %yi{suffix} = memref.load %y[%i{suffix}] : memref<{D}xf64>
    %y2{suffix} = arith.mulf %yi{suffix}, %yi{suffix} : f64
    %y3{suffix} = arith.mulf %y2{suffix}, %yi{suffix} : f64
    %ay{suffix} = arith.mulf %ai{suffix}, %y3{suffix} : f64
    %k1{suffix} = arith.subf %bi{suffix}, %ay{suffix} : f64
    %hk{suffix} = arith.mulf %h, %k1{suffix} : f64
    %yt{suffix} = arith.addf %yi{suffix}, %hk{suffix} : f64
    %z2{suffix} = arith.mulf %yt{suffix}, %yt{suffix} : f64
    %z3{suffix} = arith.mulf %z2{suffix}, %yt{suffix} : f64
    %az{suffix} = arith.mulf %ai{suffix}, %z3{suffix} : f64
    %k2{suffix} = arith.subf %bi{suffix}, %az{suffix} : f64
    """


def body(s: Sizes) -> str:
    D = s["D"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %half = arith.constant 0.5 : f64
        %nine = arith.constant 0.9 : f64
        %fmin = arith.constant 0.2 : f64
        %fmax = arith.constant 5.0 : f64
        %tol = arith.constant $tol : f64
        %floor = arith.constant $floor : f64
        %tend = arith.constant $tend : f64
        %h0 = arith.constant $h0 : f64
        %dn = arith.constant $dn : f64
        %res:3 = scf.while (%t = %zero, %h = %h0, %k = %c0) : $st -> $st {
          %more = arith.cmpi slt, %k, %c$KMAX : index
          %open = arith.cmpf olt, %t, %tend : f64
          %go = arith.andi %more, %open : i1
          scf.condition(%go) %t, %h, %k : f64, f64, index
        } do {
        ^bb0(%t: f64, %h: f64, %k: index):
          %acc = scf.for %i_e = %c0 to %c$D step %c1 iter_args(%sq = %zero) -> (f64) {
            $stage_e
            %dk = arith.subf %k2_e, %k1_e : f64
            %dk2 = arith.mulf %dk, %dk : f64
            %next = arith.addf %sq, %dk2 : f64
            scf.yield %next : f64
          }
          %mean = arith.divf %acc, %dn : f64
          %rms = math.sqrt %mean : f64
          %hh = arith.mulf %h, %half : f64
          %est = arith.mulf %hh, %rms : f64
          %err = arith.maximumf %est, %floor : f64
          %ok = arith.cmpf ole, %err, %tol : f64
          scf.for %i_u = %c0 to %c$D step %c1 {
            $stage_u
            %ks = arith.addf %k1_u, %k2_u : f64
            %inc = arith.mulf %hh, %ks : f64
            %yn = arith.addf %yi_u, %inc : f64
            %yo = arith.select %ok, %yn, %yi_u : f64
            memref.store %yo, %y[%i_u] : $vt
          }
          %tn = arith.addf %t, %h : f64
          %t2 = arith.select %ok, %tn, %t : f64
          %ratio = arith.divf %tol, %err : f64
          %root = math.sqrt %ratio : f64
          %fac0 = arith.mulf %nine, %root : f64
          %fac1 = arith.maximumf %fac0, %fmin : f64
          %fac = arith.minimumf %fac1, %fmax : f64
          %hn = arith.mulf %h, %fac : f64
          %left = arith.subf %tend, %t2 : f64
          %h2 = arith.minimumf %hn, %left : f64
          %k2 = arith.addi %k, %c1 : index
          scf.yield %t2, %h2, %k2 : f64, f64, index
        }
        return
        """,
        consts=index_constants(0, 1, D, KMAX),
        D=D,
        KMAX=KMAX,
        tol=f64(TOL),
        floor=f64(FLOOR),
        tend=f64(s["T10"] / 10.0),
        h0=f64(H0),
        dn=f64(float(D)),
        stage_e=_stages("_e", D).strip(),
        stage_u=_stages("_u", D).strip(),
        vt=memref((D,)),
        st="(f64, f64, index)",
    )


def _values(x: Array) -> np.ndarray:
    """The floats behind an autograd box (the accept test is not differentiated)."""
    while hasattr(x, "_value"):
        x = x._value
    return np.asarray(x)


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """The same operations in the same order, component by component (the
    accepted steps depend on the roundings)."""
    D, tend = s["D"], s["T10"] / 10.0
    av, bv = a["a"], a["b"]
    y = [a["y"][i] for i in range(D)]
    t, h, k = 0.0, H0, 0
    while k < KMAX and _values(t) < tend:
        k1 = [bv[i] - av[i] * (y[i] * y[i] * y[i]) for i in range(D)]
        yt = [y[i] + h * k1[i] for i in range(D)]
        k2 = [bv[i] - av[i] * (yt[i] * yt[i] * yt[i]) for i in range(D)]
        acc = 0.0
        for i in range(D):
            acc = acc + (k2[i] - k1[i]) * (k2[i] - k1[i])
        hh = h * 0.5
        est = hh * anp.sqrt(acc / float(D))
        err = est if _values(est) >= FLOOR else FLOOR
        ok = bool(_values(err) <= TOL)
        if ok:
            y = [y[i] + hh * (k1[i] + k2[i]) for i in range(D)]
            t = t + h
        fac = 0.9 * anp.sqrt(TOL / err)
        fac = fac if _values(fac) >= 0.2 else 0.2
        fac = fac if _values(fac) <= 5.0 else 5.0
        hn = h * fac
        left = tend - t
        h = hn if _values(hn) <= _values(left) else left
        k += 1
    return None, {"y": anp.stack(y)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    D = s["D"]
    return {
        "a": rng.uniform(0.5, 1.5, D),
        "b": rng.uniform(-1.0, 1.0, D),
        "y": rng.uniform(-1.0, 1.0, D),
    }


KERNEL = Kernel(
    key="odeadapt",
    sizes={"small": {"D": 3, "T10": 3}, "paper": {"D": 64, "T10": 40}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
