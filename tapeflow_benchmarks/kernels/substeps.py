"""
Particles advanced through one time step each by as many explicit Euler substeps
as a Courant-Friedrichs-Lewy condition asks of its speed, the substep count
computed from the data, as adaptive particle integrators subcycle (Courant,
Friedrichs & Lewy, Math. Ann. 100, 1928; LeVeque, "Finite Volume Methods for
Hyperbolic Problems", 2002, section 4.4), each particle's state relaxing
through `tanh` towards its speed, then a per-particle energy:

    for (p = 0; p < P; p++) {
      v = vel[p];  m = (int)(|v| * DT / H) + 1;  h = DT / m;  x = pos[p];
      for (t = 0; t < m; t++) {
        a = tanh(x * v) - x * c[p];
        x = x + h * a;
        w[p] += x * x;
      }
      pos[p] = x;  e[p] = exp(-w[p] / m);
    }

A loop whose trip count is neither an argument nor loaded from memory nor an
index expression: computed from floating-point data (`fptosi`) per outer
iteration, without a constant bound, which Enzyme caches on the tape for REV's
loop; the inner loop writes an accumulator in memory, and a per-particle value
follows it.

Sizes: `small` P = 4; `paper` P = 640 (a nest kernel). `|v|` in [0.2, 3.4),
DT / H = 5: 2 to 17 substeps. (The gradient does not flow through `m`, a step
function of `v` constant away from its jumps.)
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

DT = 0.5
H = 0.1


def substeps(v: float) -> int:
    return int(abs(v) * (DT / H)) + 1


def params(s: Sizes) -> tuple[Param, ...]:
    P = s["P"]
    return (
        Param("vel", (P,), active=True),
        Param("c", (P,), active=True),
        Param("pos", (P,), active=True, written=True),
        Param("w", (P,), active=True, written=True),
        Param("e", (P,), active=True, written=True),
    )


def body(s: Sizes) -> str:
    return render(
        """
        $consts
        %ratio = arith.constant $ratio : f64
        %dt = arith.constant $dt : f64
        scf.for %p = %c0 to %c$P step %c1 {
          %v = memref.load %vel[%p] : $vt
          %av = math.absf %v : f64
          %q = arith.mulf %av, %ratio : f64
          %qi = arith.fptosi %q : f64 to i64
          %m0 = arith.index_cast %qi : i64 to index
          %m = arith.addi %m0, %c1 : index
          %mi = arith.index_cast %m : index to i64
          %mf = arith.sitofp %mi : i64 to f64
          %h = arith.divf %dt, %mf : f64
          %cp = memref.load %c[%p] : $vt
          %x0 = memref.load %pos[%p] : $vt
          %x = scf.for %t = %c0 to %m step %c1 iter_args(%xa = %x0) -> (f64) {
            %xv = arith.mulf %xa, %v : f64
            %th = math.tanh %xv : f64
            %xc = arith.mulf %xa, %cp : f64
            %a = arith.subf %th, %xc : f64
            %ha = arith.mulf %h, %a : f64
            %xn = arith.addf %xa, %ha : f64
            %wp = memref.load %w[%p] : $vt
            %x2 = arith.mulf %xn, %xn : f64
            %wn = arith.addf %wp, %x2 : f64
            memref.store %wn, %w[%p] : $vt
            scf.yield %xn : f64
          }
          memref.store %x, %pos[%p] : $vt
          %wf = memref.load %w[%p] : $vt
          %wm = arith.divf %wf, %mf : f64
          %nw = arith.negf %wm : f64
          %en = math.exp %nw : f64
          memref.store %en, %e[%p] : $vt
        }
        return
        """,
        consts=index_constants(0, 1, s["P"]),
        P=s["P"],
        ratio=f"{DT / H:e}",
        dt=f"{DT:e}",
        vt=memref((s["P"],)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    pos, ws, es = [], [], []
    for p in range(s["P"]):
        v = a["vel"][p]
        m = substeps(float(getattr(v, "_value", v)))
        h = DT / m
        x = a["pos"][p]
        w = a["w"][p]
        for _ in range(m):
            x = x + h * (anp.tanh(x * v) - x * a["c"][p])
            w = w + x * x
        pos.append(x)
        ws.append(w)
        es.append(anp.exp(-(w / m)))
    return None, {"pos": anp.stack(pos), "w": anp.stack(ws), "e": anp.stack(es)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Speeds kept 0.05 away from the substep count's jumps (multiples of 0.2)."""
    P = s["P"]
    k = rng.integers(1, 17, P)
    speed = 0.2 * k + rng.uniform(0.05, 0.15, P)
    return {
        "vel": speed * rng.choice([-1.0, 1.0], P),
        "c": rng.uniform(0.5, 1.5, P),
        "pos": rng.uniform(-1.0, 1.0, P),
        "w": rng.uniform(0.0, 1.0, P),
        "e": np.zeros(P),
    }


KERNEL = Kernel(
    key="substeps",
    sizes={"small": {"P": 4}, "paper": {"P": 640}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
