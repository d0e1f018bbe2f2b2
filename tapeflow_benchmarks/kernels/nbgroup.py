"""
Softened Coulomb forces over a neighbour list for the particles of a group
only, as LAMMPS computes a fix over a group (`if (mask[i] & groupbit)`
around the particle's work, the LAMMPS developer guide's "Fix styles"; the
others keep their acceleration): the Verlet neighbour list of molecular dynamics
(Verlet, Phys. Rev. 159, 1967; Allen & Tildesley, "Computer Simulation of
Liquids", 2nd ed., 2017, section 5.3.1) stored as compressed rows (LAMMPS'
`numneigh`/`firstneigh` as an offsets array), the force of Plummer's softened
potential (Aarseth, "Gravitational N-Body Simulations", 2003, section 2.4):

    for (p = 0; p < P; p++) {
      if (!(mask[p] & GROUPBIT)) continue;
      inv_m = 1 / m[p];  fx = fy = 0;
      for (k = nptr[p]; k < nptr[p + 1]; k++) {
        j = nbr[k];
        dx = X[j][0] - X[p][0];  dy = X[j][1] - X[p][1];
        r2 = dx * dx + dy * dy + EPS;  w = q[j] / (r2 * sqrt(r2));
        fx += dx * w;  fy += dy * w;
      }
      A[p][0] = q[p] * fx * inv_m;  A[p][1] = q[p] * fy * inv_m;
    }

A loop of run-time trip count read from an offsets array (the neighbours each
particle has) under a branch on data, carrying two accumulators, the
particle's charge and inverse mass loaded once per particle and used after
it: Enzyme allocates each particle's caches inside the branch. EPS = 0.01,
GROUPBIT = 2.

Sizes: `small` P = 6 particles; `paper` P = 768 (a nest kernel). Particle `p`
has `1 + (5 p mod 11)` neighbours (from 1 to 11, 6 on average), distinct and
other than itself; `mask[p] = p mod 4`, so that half the particles are in the
group.
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

EPS = 0.01
GROUPBIT = 2


def neighbour_counts(s: Sizes) -> list[int]:
    return [min(1 + (5 * p) % 11, s["P"] - 1) for p in range(s["P"])]


def entries(s: Sizes) -> int:
    return sum(neighbour_counts(s))


def params(s: Sizes) -> tuple[Param, ...]:
    p = s["P"]
    return (
        Param("nptr", (p + 1,), indices=True),
        Param("nbr", (entries(s),), indices=True),
        Param("mask", (p,), indices=True),
        Param("X", (p, 2), active=True),
        Param("q", (p,), active=True),
        Param("m", (p,), active=True),
        Param("A", (p, 2), active=True, written=True),
    )


def body(s: Sizes) -> str:
    p = s["P"]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %eps = arith.constant $eps : f64
        scf.for %p = %c0 to %c$P step %c1 {
          %mk = memref.load %mask[%p] : $mt
          %bit = arith.andi %mk, %c2 : index
          %in = arith.cmpi ne, %bit, %c0 : index
          scf.if %in {
          %p1 = arith.addi %p, %c1 : index
          %lo = memref.load %nptr[%p] : $npt
          %hi = memref.load %nptr[%p1] : $npt
          %mp = memref.load %m[%p] : $vt
          %invm = arith.divf %one, %mp : f64
          %xp = memref.load %X[%p, %c0] : $xt
          %yp = memref.load %X[%p, %c1] : $xt
          %f:2 = scf.for %k = %lo to %hi step %c1 iter_args(%fx = %zero, %fy = %zero)
              -> (f64, f64) {
            %j = memref.load %nbr[%k] : $nbt
            %xj = memref.load %X[%j, %c0] : $xt
            %yj = memref.load %X[%j, %c1] : $xt
            %dx = arith.subf %xj, %xp : f64
            %dy = arith.subf %yj, %yp : f64
            %dx2 = arith.mulf %dx, %dx : f64
            %dy2 = arith.mulf %dy, %dy : f64
            %d2 = arith.addf %dx2, %dy2 : f64
            %r2 = arith.addf %d2, %eps : f64
            %r = math.sqrt %r2 : f64
            %r3 = arith.mulf %r2, %r : f64
            %qj = memref.load %q[%j] : $vt
            %w = arith.divf %qj, %r3 : f64
            %gx = arith.mulf %dx, %w : f64
            %gy = arith.mulf %dy, %w : f64
            %nfx = arith.addf %fx, %gx : f64
            %nfy = arith.addf %fy, %gy : f64
            scf.yield %nfx, %nfy : f64, f64
          }
          %qp = memref.load %q[%p] : $vt
          %qm = arith.mulf %qp, %invm : f64
          %ax = arith.mulf %f#0, %qm : f64
          %ay = arith.mulf %f#1, %qm : f64
          memref.store %ax, %A[%p, %c0] : $xt
          memref.store %ay, %A[%p, %c1] : $xt
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, p),
        mt=f"memref<{p}xindex>",
        P=p,
        eps=f64(EPS),
        npt=f"memref<{p + 1}xindex>",
        nbt=f"memref<{entries(s)}xindex>",
        xt=memref((p, 2)),
        vt=memref((p,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    nptr, nbr = np.asarray(a["nptr"]), np.asarray(a["nbr"])
    X, q, m = a["X"], a["q"], a["m"]
    mask = np.asarray(a["mask"])
    rows = []
    for p in range(s["P"]):
        if not mask[p] & GROUPBIT:
            rows.append(a["A"][p])
            continue
        js = nbr[nptr[p] : nptr[p + 1]]
        d = X[js] - X[p]
        r2 = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + EPS
        w = q[js] / (r2 * anp.sqrt(r2))
        f = anp.sum(d * w[:, None], axis=0)
        rows.append(f * (q[p] * (1.0 / m[p])))
    return None, {"A": anp.stack(rows)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Neighbours drawn without repetition among the other particles; positions
    in the unit square, charges of either sign, masses from 0.5 to 2."""
    p = s["P"]
    lists = []
    for i, n in enumerate(neighbour_counts(s)):
        others = np.delete(np.arange(p), i)
        lists.append(np.sort(rng.choice(others, n, replace=False)))
    return {
        "nptr": np.concatenate([[0], np.cumsum(neighbour_counts(s))]),
        "nbr": np.concatenate(lists),
        "mask": np.arange(p) % 4,
        "X": rng.uniform(0.0, 1.0, (p, 2)),
        "q": rng.uniform(-1.0, 1.0, p),
        "m": rng.uniform(0.5, 2.0, p),
        "A": rng.uniform(-1.0, 1.0, (p, 2)),
    }


KERNEL = Kernel(
    key="nbgroup",
    sizes={"small": {"P": 6}, "paper": {"P": 768}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
