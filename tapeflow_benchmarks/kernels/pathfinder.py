"""
PathFinder: dynamic programming over a grid (RiVEC), made differentiable with
doubles and a product.

For each row t in [0, R-1) and column n: `m = src[t][n]`, `m = min(m, src[t][n-1])`
if n > 0, `m = min(m, src[t][n+1])` if n < C-2 (the artifact's bound, kept), and
`dst[t+1][n] = wall[t+1][n] * m`. The two row buffers then swap roles, as the
pointer swap of the original does: row t is read from `src` for even t and from
`dst` for odd t, and row t+1 is written to the other one. src and wall are
differentiated; dst, an output, is passed with its shadow too (the values it
carries between rows are active).

The body is straight-line code, which is what a CGRA maps: the swap is the row
loop unrolled by two (src->dst, then dst->src; the last step peeled when R-1 is
odd), counting pairs with step 1, and a missing neighbour is the cell itself (the
index clamped with `arith.select`: `min(m, m) = m`, value and derivative alike).

Sizes: `small` R = 6, C = 8 (five row steps: two unrolled pairs and the peeled
step); `paper` R = 128, C = 256 (Table II); `artifact` the authors' program: R = C =
100, columns 1 .. 99, the column loop written unrolled by U = 16 before
differentiation (6 trips of 16 cells, then the 3 remaining cells in line).

Why each choice, and how the artifact size follows the authors' source:
docs/research/kernels.md, "PathFinder".
"""

from __future__ import annotations

from textwrap import indent

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.artifact import AUTHORS, ArtifactRun, MemoryMap, Recompute
from tapeflow_benchmarks.kernels.kernel import (
    Array,
    Kernel,
    Param,
    Sizes,
    index_constants,
    memref,
    render,
    unrolled_body,
)

_ROW_STEP = """
// row $t of %$read -> row $t + 1 of %$write
%${p}_next = arith.addi $t, %c1 : index
scf.for %n = %c0 to %c$C step %c1 {
  %${p}_n_minus = arith.subi %n, %c1 : index
  %${p}_has_left = arith.cmpi ugt, %n, %c0 : index
  %${p}_left = arith.select %${p}_has_left, %${p}_n_minus, %n : index
  %${p}_n_plus = arith.addi %n, %c1 : index
  %${p}_has_right = arith.cmpi ult, %n, %c$right_bound : index
  %${p}_right = arith.select %${p}_has_right, %${p}_n_plus, %n : index
  %${p}_m = memref.load %$read[$t, %n] : $ty
  %${p}_l = memref.load %$read[$t, %${p}_left] : $ty
  %${p}_r = memref.load %$read[$t, %${p}_right] : $ty
  %${p}_ml = arith.minimumf %${p}_m, %${p}_l : f64
  %${p}_mlr = arith.minimumf %${p}_ml, %${p}_r : f64
  %${p}_w = memref.load %wall[%${p}_next, %n] : $ty
  %${p}_v = arith.mulf %${p}_w, %${p}_mlr : f64
  memref.store %${p}_v, %$write[%${p}_next, %n] : $ty
}
"""


_CELL = """
%${p}_n_minus = arith.subi %${iv}, %c1 : index
%${p}_n_plus = arith.addi %${iv}, %c1 : index
%${p}_has_right = arith.cmpi ult, %${iv}, %c$right_bound : index
%${p}_right = arith.select %${p}_has_right, %${p}_n_plus, %${iv} : index
%${p}_m = memref.load %$read[$t, %${iv}] : $ty
%${p}_l = memref.load %$read[$t, %${p}_n_minus] : $ty
%${p}_r = memref.load %$read[$t, %${p}_right] : $ty
%${p}_ml = arith.minimumf %${p}_m, %${p}_l : f64
%${p}_mlr = arith.minimumf %${p}_ml, %${p}_r : f64
%${p}_w = memref.load %wall[%${p}_next, %${iv}] : $ty
%${p}_v = arith.mulf %${p}_w, %${p}_mlr : f64
memref.store %${p}_v, %$write[%${p}_next, %${iv}] : $ty
"""
"""One cell of the authors' row (`G:benchmarks/AD/pathfinder/hw/pathfinder.c` L31-52
at gem5-SALAM `a5e40f4be`): columns from 1, so the left neighbour always exists
(their `n > 0` test is always true) and the right one is taken while `n < C-2`."""


def _authors_row_step(prefix: str, t: str, read: str, write: str, s: Sizes) -> str:
    """One DP step as the authors' loop runs it: n = 1 .. C-1, unrolled by `U` by
    clang before their Enzyme (`unroll_count(16)`): `(C-1) // U` trips of `U`
    copies, then the remainder's copies in line, as LLVM unrolls a loop of
    constant trip count. `U` = 1 is their loop as written, for
    `tapeflow-unroll-primal` to unroll."""
    u, cells = s["U"], s["C"] - 1
    trips, rest = divmod(cells, u)
    values = dict(
        p=prefix,
        t=t,
        read=read,
        write=write,
        right_bound=s["C"] - 2,
        ty=memref((s["R"], s["C"])),
    )
    if u == 1:
        cell = render(_CELL, iv=f"{prefix}_n", **values).strip()
        return "\n".join(
            [
                f"%{prefix}_next = arith.addi {t}, %c1 : index",
                f"scf.for %{prefix}_n = %c1 to %c{s['C']} step %c1 {{",
                indent(cell, "  "),
                "}",
            ]
        )
    main, _ = unrolled_body(render(_CELL, iv=f"{prefix}_n", **values), f"{prefix}_n", u, first=1)
    text = [
        f"%{prefix}_next = arith.addi {t}, %c1 : index",
        f"scf.for %{prefix}_n_trip = %c0 to %c{trips} step %c1 {{",
        indent(main, "  "),
        "}",
    ]
    if rest:
        tail, _ = unrolled_body(
            render(_CELL, iv=f"{prefix}_r_n", **values), f"{prefix}_r_n", rest, counted=False
        )
        text += [f"%{prefix}_r_n = arith.constant {1 + trips * u} : index", tail]
    return "\n".join(text)


def _row_step(prefix: str, t: str, read: str, write: str, s: Sizes) -> str:
    """One DP step, reading row `t` of `read` and writing row t+1 of `write`."""
    return render(
        _ROW_STEP,
        p=prefix,
        t=t,
        read=read,
        write=write,
        C=s["C"],
        right_bound=s["C"] - 2,
        ty=memref((s["R"], s["C"])),
    ).strip()


def params(s: Sizes) -> tuple[Param, ...]:
    shape = (s["R"], s["C"])
    return (
        Param("src", shape, active=True, written=True),
        Param("wall", shape, active=True),
        Param("dst", shape, active=True, written=True),
    )


def body(s: Sizes) -> str:
    pairs, odd = divmod(s["R"] - 1, 2)
    last = 2 * pairs
    step = _authors_row_step if s.get("U") else _row_step
    peeled = step("last", f"%c{last}", "src", "dst", s) if odd else ""
    return render(
        """
        $consts
        scf.for %pair = %c0 to %c$pairs step %c1 {
          %t = arith.muli %pair, %c2 : index
          $even
          %t_odd = arith.addi %t, %c1 : index
          $odd
        }
        $peeled
        return
        """,
        consts=index_constants(
            *range(s.get("U", 2) + 1),
            pairs,
            *([last] if odd else []),
            *([(s["C"] - 1) // s["U"]] if s.get("U", 1) > 1 else [s["C"]]),
            s["C"] - 2,
        ),
        pairs=pairs,
        even=step("even", "%t", "src", "dst", s),
        odd=step("odd", "%t_odd", "dst", "src", s),
        peeled=peeled,
    )


def _min3(row: Array, c: int) -> Array:
    """The artifact's neighbourhood minimum of one row (left for n > 0, right for
    n < C-2)."""
    m = anp.concatenate([row[:1], anp.minimum(row[1:], row[:-1])])
    return anp.concatenate([anp.minimum(m[: c - 2], row[1 : c - 1]), m[c - 2 :]])


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    r, c = s["R"], s["C"]
    wall = a["wall"]
    rows = {name: [a[name][t] for t in range(r)] for name in ("src", "dst")}
    for t in range(r - 1):
        read, write = ("src", "dst") if t % 2 == 0 else ("dst", "src")
        row = wall[t + 1] * _min3(rows[read][t], c)
        if s.get("U"):  # the authors' columns start at 1: column 0 keeps its value
            row = anp.concatenate([rows[write][t + 1][:1], row[1:]])
        rows[write][t + 1] = row
    return None, {name: anp.stack(buffer) for name, buffer in rows.items()}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Positive costs in [1, 2) and walls in [0.9, 1.1): the products along 127 rows
    stay far from over- and underflow, and random doubles make exact ties in the
    minima (which would make the gradient ambiguous) practically impossible."""
    shape = (s["R"], s["C"])
    return {
        "src": rng.uniform(1.0, 2.0, shape),
        "wall": rng.uniform(0.9, 1.1, shape),
        "dst": rng.uniform(1.0, 2.0, shape),
    }


KERNEL = Kernel(
    key="pathfinder",
    sizes={
        "small": {"R": 6, "C": 8},
        "paper": {"R": 128, "C": 256},
        "artifact": {"R": 100, "C": 100, "U": 16},
    },
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
    artifact=ArtifactRun(
        memory_map=MemoryMap(
            {"src": 0x80C00000, "d_src": 0x80C13880, "wall": 0x80C27100, "dst": 0x80C3A980},
            f"{AUTHORS} benchmarks/AD/pathfinder/hw/pathfinder.c, top() (their wall_grad "
            "is a malloc, and so is our dst's shadow, which theirs lacks: both from the heap)",
        ),
        recompute=Recompute(
            f"{AUTHORS} benchmarks/AD/pathfinder/hw/live_vars.txt: their Enzyme caches the "
            "wall values and rebuilds each minimum by re-loading src (recompute-loads proves "
            "the src rows are not written again and keeps wall, which the store to dst at "
            "the same element may overwrite if the two are one array)",
            calibration=(
                "CALIBRATION: TapeFlow re-loads src too, to match one measurement: their "
                "binned run's reverse sweep makes 163,845 memory accesses besides the tape, "
                "about 16.7 a cell, where bins holding src would leave about 10 (ours: "
                "127,417 this way, 99,000 with src on the tape). Against it: an older sweep "
                "of another version of the kernel read 40,392 bin entries, about 4 a cell "
                "(docs/research/gem5-salam.md section 4)."
            ),
        ),
    ),
)
