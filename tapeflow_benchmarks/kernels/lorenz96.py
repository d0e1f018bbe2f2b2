"""
The Lorenz-96 model (Lorenz, "Predictability: a problem partly solved", ECMWF
Seminar on Predictability, 1996; Lorenz & Emanuel, J. Atmos. Sci. 55, 1998, eq. 1)
`dx_i/dt = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F` on a ring of `N` variables,
F = 8 (their chaotic forcing), integrated by the classical Runge-Kutta method
(Press et al., *Numerical Recipes*, 3rd ed., section 17.1) with h = 0.01 over `T`
steps, `T` an argument known only at run time, every state kept in `x`; each
step's four stages written out over the ring, as a compiler fully unrolls the
loops over `i` of a constant `N`:

    for (t = 0; t < T; t++) {
      y = x[t];  k1 = f(y);  k2 = f(y + h/2 k1);  k3 = f(y + h/2 k2);  k4 = f(y + h k3);
      x[t + 1] = y + h/6 (k1 + 2 k2 + 2 k3 + k4);
    }

A loop of run-time trip count whose straight-line body is long (about 250 ops a
step at N = 8) and depends on the iteration before through memory; its tape is
the state each step loads (N values), from which the gradient recomputes the
stages.

Sizes: `small` buffers of TM = 3 steps, T = 2, N = 4; `paper` TM = T = 512,
N = 8 (a nest kernel).
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

F, H = 8.0, 0.01


def params(s: Sizes) -> tuple[Param, ...]:
    return (
        Param("x", (s["TM"] + 1, s["N"]), active=True, written=True),
        Param("T", (), trip="T"),
    )


def _stage(n: int, y: list[str], name: str) -> tuple[list[str], list[str]]:
    """The ops of `f(y)` over the ring, its values `%<name>_<i>`."""
    lines, out = [], []
    for i in range(n):
        a, b, c = y[(i + 1) % n], y[(i - 2) % n], y[(i - 1) % n]
        v = f"%{name}_{i}"
        lines += [
            f"{v}d = arith.subf {a}, {b} : f64",
            f"{v}p = arith.mulf {v}d, {c} : f64",
            f"{v}m = arith.subf {v}p, {y[i]} : f64",
            f"{v} = arith.addf {v}m, %forcing : f64",
        ]
        out.append(v)
    return lines, out


def _axpy(y: list[str], k: list[str], scale: str, name: str) -> tuple[list[str], list[str]]:
    lines, out = [], []
    for i, (a, b) in enumerate(zip(y, k, strict=True)):
        lines += [
            f"%{name}_{i}s = arith.mulf {scale}, {b} : f64",
            f"%{name}_{i} = arith.addf {a}, %{name}_{i}s : f64",
        ]
        out.append(f"%{name}_{i}")
    return lines, out


def body(s: Sizes) -> str:
    n = s["N"]
    xt = memref((s["TM"] + 1, n))
    lines = ["%t1 = arith.addi %t, %c1 : index"]
    y = []
    for i in range(n):
        lines.append(f"%y_{i} = memref.load %x[%t, %c{i}] : {xt}")
        y.append(f"%y_{i}")
    k1l, k1 = _stage(n, y, "ka")
    y2l, y2 = _axpy(y, k1, "%half", "yb")
    k2l, k2 = _stage(n, y2, "kb")
    y3l, y3 = _axpy(y, k2, "%half", "yc")
    k3l, k3 = _stage(n, y3, "kc")
    y4l, y4 = _axpy(y, k3, "%step", "yd")
    k4l, k4 = _stage(n, y4, "kd")
    lines += k1l + y2l + k2l + y3l + k3l + y4l + k4l
    for i in range(n):
        lines += [
            f"%s23_{i} = arith.addf {k2[i]}, {k3[i]} : f64",
            f"%s23d_{i} = arith.mulf %two, %s23_{i} : f64",
            f"%s14_{i} = arith.addf {k1[i]}, {k4[i]} : f64",
            f"%sum_{i} = arith.addf %s14_{i}, %s23d_{i} : f64",
            f"%inc_{i} = arith.mulf %sixth, %sum_{i} : f64",
            f"%new_{i} = arith.addf {y[i]}, %inc_{i} : f64",
            f"memref.store %new_{i}, %x[%t1, %c{i}] : {xt}",
        ]
    return render(
        """
        $consts
        %forcing = arith.constant $F : f64
        %half = arith.constant $half : f64
        %step = arith.constant $h : f64
        %sixth = arith.constant $sixth : f64
        %two = arith.constant 2.0 : f64
        scf.for %t = %c0 to %T step %c1 {
          $step_body
        }
        return
        """,
        consts=index_constants(*range(max(n, 2))),
        F=f64(F),
        half=f64(H / 2),
        h=f64(H),
        sixth=f64(H / 6),
        step_body="\n".join(lines),
    )


def _f(y: Array) -> Array:
    return (anp.roll(y, -1) - anp.roll(y, 2)) * anp.roll(y, 1) - y + F


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    x = a["x"]
    states = [x[0]]
    for _ in range(s["T"]):
        y = states[-1]
        k1 = _f(y)
        k2 = _f(y + (H / 2) * k1)
        k3 = _f(y + (H / 2) * k2)
        k4 = _f(y + H * k3)
        states.append(y + (H / 6) * ((k1 + k4) + 2.0 * (k2 + k3)))
    rows = [*states, *(x[t] for t in range(s["T"] + 1, s["TM"] + 1))]
    return None, {"x": anp.stack(rows)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The rest state x_i = F, perturbed (as Lorenz & Emanuel start their runs)."""
    return {"x": F + rng.uniform(-1.0, 1.0, (s["TM"] + 1, s["N"]))}


KERNEL = Kernel(
    key="lorenz96",
    sizes={"small": {"TM": 3, "T": 2, "N": 4}, "paper": {"TM": 512, "T": 512, "N": 8}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
