"""
LU decomposition followed by the two triangular solves: PolyBench/C 4.2's
`linear-algebra/solvers/ludcmp` (no pivoting), its `w` kept in a register (as
`-mem2reg` leaves it):

    for (i = 0; i < N; i++) {
      for (j = 0; j < i; j++) {
        w = A[i][j];
        for (k = 0; k < j; k++) w -= A[i][k] * A[k][j];
        A[i][j] = w / A[j][j];
      }
      for (j = i; j < N; j++) {
        w = A[i][j];
        for (k = 0; k < i; k++) w -= A[i][k] * A[k][j];
        A[i][j] = w;
      }
    }
    for (i = 0; i < N; i++) {
      w = b[i];
      for (j = 0; j < i; j++) w -= A[i][j] * y[j];
      y[i] = w;
    }
    for (i = N - 1; i >= 0; i--) {         // written i = N - 1 - r, r = 0 .. N - 1
      w = y[i];
      for (j = i + 1; j < N; j++) w -= A[i][j] * x[j];
      x[i] = w / A[i][i];
    }

Four triangular nests in sequence: two in one outer body (the factorization, its
reductions in registers, unlike `lu`'s in memory), forward substitution, and back
substitution, whose outer loop runs downwards and whose inner loop starts past
the outer index. The divisions are PolyBench's own nonlinearities.

Sizes: `small` N = 5; `paper` N = 32 (a nest kernel).
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


def params(s: Sizes) -> tuple[Param, ...]:
    n = s["N"]
    return (
        Param("A", (n, n), active=True, written=True),
        Param("b", (n,), active=True),
        Param("x", (n,), active=True, written=True),
        Param("y", (n,), active=True, written=True),
    )


def body(s: Sizes) -> str:
    n = s["N"]
    return render(
        """
        $consts
        scf.for %i = %c0 to %c$N step %c1 {
          scf.for %j = %c0 to %i step %c1 {
            %w0 = memref.load %A[%i, %j] : $t
            %w = scf.for %k = %c0 to %j step %c1 iter_args(%acc = %w0) -> (f64) {
              %aik = memref.load %A[%i, %k] : $t
              %akj = memref.load %A[%k, %j] : $t
              %p = arith.mulf %aik, %akj : f64
              %d = arith.subf %acc, %p : f64
              scf.yield %d : f64
            }
            %ajj = memref.load %A[%j, %j] : $t
            %q = arith.divf %w, %ajj : f64
            memref.store %q, %A[%i, %j] : $t
          }
          scf.for %j = %i to %c$N step %c1 {
            %w0 = memref.load %A[%i, %j] : $t
            %w = scf.for %k = %c0 to %i step %c1 iter_args(%acc = %w0) -> (f64) {
              %aik = memref.load %A[%i, %k] : $t
              %akj = memref.load %A[%k, %j] : $t
              %p = arith.mulf %aik, %akj : f64
              %d = arith.subf %acc, %p : f64
              scf.yield %d : f64
            }
            memref.store %w, %A[%i, %j] : $t
          }
        }
        scf.for %i = %c0 to %c$N step %c1 {
          %w0 = memref.load %b[%i] : $v
          %w = scf.for %j = %c0 to %i step %c1 iter_args(%acc = %w0) -> (f64) {
            %aij = memref.load %A[%i, %j] : $t
            %yj = memref.load %y[%j] : $v
            %p = arith.mulf %aij, %yj : f64
            %d = arith.subf %acc, %p : f64
            scf.yield %d : f64
          }
          memref.store %w, %y[%i] : $v
        }
        scf.for %r = %c0 to %c$N step %c1 {
          %i = arith.subi %c$last, %r : index
          %i1 = arith.addi %i, %c1 : index
          %w0 = memref.load %y[%i] : $v
          %w = scf.for %j = %i1 to %c$N step %c1 iter_args(%acc = %w0) -> (f64) {
            %aij = memref.load %A[%i, %j] : $t
            %xj = memref.load %x[%j] : $v
            %p = arith.mulf %aij, %xj : f64
            %d = arith.subf %acc, %p : f64
            scf.yield %d : f64
          }
          %aii = memref.load %A[%i, %i] : $t
          %q = arith.divf %w, %aii : f64
          memref.store %q, %x[%i] : $v
        }
        return
        """,
        consts=index_constants(0, 1, n, n - 1),
        N=n,
        last=n - 1,
        t=memref((n, n)),
        v=memref((n,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    """Doolittle's factors packed in A (L's strict lower triangle below U's upper
    triangle), then L y = b and U x = y."""
    n, A, b = s["N"], a["A"], a["b"]
    L: list[list[Array]] = []
    U: list[list[Array]] = []
    for i in range(n):
        lrow: list[Array] = []
        for j in range(i):
            lrow.append((A[i, j] - sum(lrow[k] * U[k][j] for k in range(j))) / U[j][j])
        L.append(lrow)
        U.append([A[i, j] - sum(lrow[k] * U[k][j] for k in range(i)) for j in range(n)])
    y: list[Array] = []
    for i in range(n):
        y.append(b[i] - sum(L[i][j] * y[j] for j in range(i)))
    x: list[Array] = [None] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(U[i][j] * x[j] for j in range(i + 1, n))) / U[i][i]
    rows = [anp.stack([*L[i], *U[i][i:]]) for i in range(n)]
    return None, {"A": anp.stack(rows), "y": anp.stack(y), "x": anp.stack(x)}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A random matrix plus N times the identity: strictly diagonally dominant, so
    the pivots stay away from zero without pivoting."""
    n = s["N"]
    return {
        "A": rng.uniform(-1.0, 1.0, (n, n)) + n * np.eye(n),
        "b": rng.uniform(-1.0, 1.0, (n,)),
        "x": rng.uniform(-1.0, 1.0, (n,)),
        "y": rng.uniform(-1.0, 1.0, (n,)),
    }


KERNEL = Kernel(
    key="ludcmp",
    sizes={"small": {"N": 5}, "paper": {"N": 32}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
