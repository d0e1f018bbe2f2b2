"""
Somier: spring forces on a 3-D grid of masses (RiVEC), as the authors' artifact
wrote it.

Positions `X[3][N][N][N]` and forces `F[3][N][N][N]` (component first). For every
interior point (i, j, k in [1, N-1)) and each of three neighbours (i-1, j, k),
(i+1, j, k), (i, j-1, k): `d = X[:, nb] - X[:, here]`, `dl = d.d`,
`f = 0.25 * K * (dl - 1)` with K = 10, and `F[c][nb] += f * d_c / dl` for each
component c (a read-modify-write at the neighbour). The artifact's three
neighbours and no square root are used (either is a faithful somier; RiVEC's
original has six neighbours and a root). X is differentiated; F is an output
updated in place, so after the gradient its shadow still holds its seed.

Sizes: `small` N = 4 (8 interior points); `paper` N = 8 (Table II, "8x8x8": 216
interior points); `artifact` the authors' program (`benchmarks/AD/somier/hw/somier.c`):
N = 10 (512 interior points), no unroll pragma at their commit, and the point's own
position loaded again in each neighbour block (`reload_self`): 36 accesses per point
forward, as theirs. Their F is constant, with the primal pointer standing for its
shadow in their Enzyme fork (section 8.4); here F keeps a shadow of its own, the
nearest defined program.
"""

from __future__ import annotations

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.artifact import AUTHORS, ArtifactRun, MemoryMap
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

STIFFNESS = 10.0
NEIGHBOURS = ((-1, 0, 0), (1, 0, 0), (0, -1, 0))
"""Offsets (di, dj, dk) of the neighbours that receive a force, in loop order."""

_NEIGHBOUR = """
// neighbour $n: $where
$indices
$loads
%n${n}_dd0 = arith.mulf %n${n}_d0, %n${n}_d0 : f64
%n${n}_dd1 = arith.mulf %n${n}_d1, %n${n}_d1 : f64
%n${n}_dd2 = arith.mulf %n${n}_d2, %n${n}_d2 : f64
%n${n}_dd01 = arith.addf %n${n}_dd0, %n${n}_dd1 : f64
%n${n}_dl = arith.addf %n${n}_dd01, %n${n}_dd2 : f64
%n${n}_stretch = arith.subf %n${n}_dl, %one : f64
%n${n}_f = arith.mulf %quarter_k, %n${n}_stretch : f64
$updates
"""

_UPDATE = """
%n${n}_fd$c = arith.mulf %n${n}_f, %n${n}_d$c : f64
%n${n}_q$c = arith.divf %n${n}_fd$c, %n${n}_dl : f64
%n${n}_F$c = memref.load %F[%c$c, $at] : $t
%n${n}_Fnew$c = arith.addf %n${n}_F$c, %n${n}_q$c : f64
memref.store %n${n}_Fnew$c, %F[%c$c, $at] : $t
"""


_DISTANCE = """
%n${n}_x$c = memref.load %X[%c$c, $at] : $t
%n${n}_d$c = arith.subf %n${n}_x$c, %x$c : f64
"""
"""One component of the distance, from the point's position loaded once per point."""

_RELOADED_DISTANCE = """
%n${n}_x$c = memref.load %X[%c$c, $at] : $t
%n${n}_s$c = memref.load %X[%c$c, %i, %j, %k] : $t
%n${n}_d$c = arith.subf %n${n}_x$c, %n${n}_s$c : f64
"""
"""One component as the authors' source computes it, `X[c][nb] - X[c][p]`, the
point's own position loaded again in every neighbour block
(`G:benchmarks/AD/somier/hw/somier.c` L45-174 at gem5-SALAM `a5e40f4be`)."""


def _neighbour(n: int, offset: tuple[int, int, int], t: str, reload: bool = False) -> str:
    """One neighbour's force: its index, distance, force and the three updates;
    `reload`: the point's position loaded again in the block."""
    ops: list[str] = []
    names: list[str] = []
    where: list[str] = []
    for axis, delta in zip("ijk", offset, strict=True):
        if delta == 0:
            names.append(f"%{axis}")
            where.append(axis)
        else:
            names.append(f"%n{n}_{axis}")
            op = "arith.addi" if delta > 0 else "arith.subi"
            ops.append(f"%n{n}_{axis} = {op} %{axis}, %c1 : index")
            where.append(f"{axis}{delta:+d}")
    at = ", ".join(names)
    updates = "".join(render(_UPDATE, n=n, c=c, at=at, t=t) for c in range(3))
    distance = _RELOADED_DISTANCE if reload else _DISTANCE
    loads = [render(distance, n=n, c=c, at=at, t=t) for c in range(3)]
    if not reload:  # the three loads first, then the three differences
        loads = [
            "".join(x.splitlines(True)[0] for x in loads),
            "".join(x.splitlines(True)[1] for x in loads),
        ]
    return render(
        _NEIGHBOUR,
        n=n,
        where=f"({', '.join(where)})",
        indices="\n".join(ops),
        loads="".join(loads).strip(),
        at=at,
        updates=updates.strip(),
        t=t,
    )


def params(s: Sizes) -> tuple[Param, ...]:
    n = s["N"]
    return (
        Param("X", (3, n, n, n), active=True),
        Param("F", (3, n, n, n), active=True, written=True),
    )


def body(s: Sizes) -> str:
    n = s["N"]
    t = memref((3, n, n, n))
    reload = bool(s.get("reload_self"))
    return render(
        """
        $consts
        %one = arith.constant 1.0 : f64
        %quarter_k = arith.constant $quarter_k : f64
        scf.for %i = %c1 to %c$last step %c1 {
          scf.for %j = %c1 to %c$last step %c1 {
            scf.for %k = %c1 to %c$last step %c1 {
              $here
              $neighbours
            }
          }
        }
        return
        """,
        consts=index_constants(0, 1, 2, n - 1),
        last=n - 1,
        quarter_k=f64(0.25 * STIFFNESS),
        t=t,
        here=""
        if reload
        else "\n".join(f"%x{c} = memref.load %X[%c{c}, %i, %j, %k] : {t}" for c in range(3)),
        neighbours="\n".join(
            _neighbour(i, off, t, reload).strip() for i, off in enumerate(NEIGHBOURS)
        ),
    )


def _place(block: Array, offset: tuple[int, int, int], n: int) -> Array:
    """A (3, n-2, n-2, n-2) block of interior values moved by `offset` into an
    (3, n, n, n) array of zeros: the scatter `F[:, here + offset] += block`."""
    widths = [(0, 0)] + [(1 + d, 1 - d) for d in offset]
    return anp.pad(block, widths, mode="constant")


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    n = s["N"]
    x = a["X"]
    here = x[:, 1 : n - 1, 1 : n - 1, 1 : n - 1]
    forces = a["F"]
    for di, dj, dk in NEIGHBOURS:
        nb = x[:, 1 + di : n - 1 + di, 1 + dj : n - 1 + dj, 1 + dk : n - 1 + dk]
        d = nb - here
        dl = anp.sum(d * d, axis=0)
        f = 0.25 * STIFFNESS * (dl - 1.0)
        forces = forces + _place(f * d / dl, (di, dj, dk), n)
    return None, {"F": forces}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Masses on the unit grid, each moved by up to 0.15 per axis: squared spring
    lengths stay within about [0.5, 1.7], never near the 0 the force divides by."""
    n = s["N"]
    grid = np.stack(np.meshgrid(*[np.arange(n, dtype=float)] * 3, indexing="ij"))
    return {
        "X": grid + rng.uniform(-0.15, 0.15, (3, n, n, n)),
        "F": rng.standard_normal((3, n, n, n)),
    }


KERNEL = Kernel(
    key="somier",
    sizes={"small": {"N": 4}, "paper": {"N": 8}, "artifact": {"N": 10, "reload_self": 1}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
    artifact=ArtifactRun(
        memory_map=MemoryMap(
            {"X": 0x80C00000, "F": 0x80C05DC0, "d_X": 0x80C0BB80, "d_F": 0x80C11940},
            f"{AUTHORS} benchmarks/AD/somier/hw/somier.c, top(): X, F, X_grad, F_grad "
            "(their F_grad is unused, as their F is constant: F's shadow sits there)",
        )
    ),
)
