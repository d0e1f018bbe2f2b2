"""
PolyBench/C 4.2's triangular kernels: loop nests whose inner
trip counts depend on outer indices, three and four deep, for which Enzyme-MLIR
caches into buffers of per-iteration buffers nested as deep as the nest
(`memref<5xmemref<?xmemref<?xf64>>>` for lu). Each kernel is written anew under
`polybench/`, its source named in its header.

For each kernel (11 checks, plus the primal):

- the primal computes what PolyBench's C loops compute (a Python transcription
  of them, or numpy's factorizations);
- the Enzyme gradient equals central differences of the primal (the gradient
  of `L = sum(seed * outputs)`);
- every later stage computes exactly the Enzyme stage's values: raise-tape,
  `tapeflow-pipeline{spad-bytes=64|512|4096 unroll=1|2}`, and the simulator's
  enzyme, aos and tapeflow variants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from stage_checks import (
    EnzymeStages,
    assert_dup_gradient,
    function_named,
    stage_tests,
)
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_raise_tape import raise_module
from tapeflow_dialects import tape
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

FOLDER = Path(__file__).parent / "polybench"
ALPHA, BETA = 1.5, 1.2  # PolyBench's init_array values
Q = DYNAMIC_INDEX


def _dominant(rng: np.random.Generator, n: int) -> np.ndarray:
    """A diagonally dominant matrix: LU without pivoting stays well conditioned."""
    return rng.uniform(-1, 1, (n, n)) + n * np.eye(n)


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    m = rng.uniform(-1, 1, (n, n))
    return m @ m.T + n * np.eye(n)


def lu(A: np.ndarray) -> None:
    n = len(A)
    for i in range(n):
        for j in range(i):
            for k in range(j):
                A[i, j] -= A[i, k] * A[k, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            for k in range(i):
                A[i, j] -= A[i, k] * A[k, j]


def ludcmp(A: np.ndarray, b: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
    lu(A)
    n = len(b)
    for i in range(n):
        y[i] = b[i] - sum(A[i, j] * y[j] for j in range(i))
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(A[i, j] * x[j] for j in range(i + 1, n))) / A[i, i]


def cholesky(A: np.ndarray) -> None:
    lower = np.linalg.cholesky(A)
    A[np.tril_indices(len(A))] = lower[np.tril_indices(len(A))]


def trisolv(L: np.ndarray, x: np.ndarray, b: np.ndarray) -> None:
    for i in range(len(b)):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def syrk(C: np.ndarray, A: np.ndarray) -> None:
    low = np.tril(np.ones(C.shape, dtype=bool))
    C[low] = (BETA * C + ALPHA * A @ A.T)[low]


def syr2k(C: np.ndarray, A: np.ndarray, B: np.ndarray) -> None:
    low = np.tril(np.ones(C.shape, dtype=bool))
    C[low] = (BETA * C + ALPHA * (A @ B.T + B @ A.T))[low]


def trmm(A: np.ndarray, B: np.ndarray) -> None:
    strictly_lower = np.tril(A, -1)
    B[:] = ALPHA * (B + strictly_lower.T @ B)


def symm(C: np.ndarray, A: np.ndarray, B: np.ndarray) -> None:
    m, n = C.shape
    for i in range(m):
        for j in range(n):
            temp2 = 0.0
            for k in range(i):
                C[k, j] += ALPHA * B[i, j] * A[i, k]
                temp2 += B[k, j] * A[i, k]
            C[i, j] = BETA * C[i, j] + ALPHA * B[i, j] * A[i, i] + ALPHA * temp2


def gramschmidt(A: np.ndarray, R: np.ndarray, Q: np.ndarray) -> None:
    n = A.shape[1]
    for k in range(n):
        R[k, k] = np.sqrt(A[:, k] @ A[:, k])
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, n):
            R[k, j] = Q[:, k] @ A[:, j]
            A[:, j] -= Q[:, k] * R[k, j]


def durbin(r: np.ndarray, y: np.ndarray) -> None:
    n = len(r)
    z = np.zeros(n)
    y[0] = -r[0]
    beta, alpha = 1.0, -r[0]
    for k in range(1, n):
        beta = (1 - alpha * alpha) * beta
        s = sum(r[k - i - 1] * y[i] for i in range(k))
        alpha = -(r[k] + s) / beta
        for i in range(k):
            z[i] = y[i] + alpha * y[k - i - 1]
        y[:k] = z[:k]
        y[k] = alpha


def lu_batched(A: np.ndarray) -> None:
    for matrix in A:
        lu(matrix)


def tri4(A: np.ndarray) -> None:
    n = len(A)
    for i in range(n):
        for j in range(i):
            for k in range(j):
                for m in range(k):
                    A[i, j] -= A[i, m] * A[m, k] * A[k, j] * 0.5


@dataclass(frozen=True)
class Kernel:
    inputs: Callable[[np.random.Generator], list[np.ndarray]]
    """The primal arguments (PolyBench's init_array, scaled for conditioning)."""
    reference: Callable[..., None]
    """PolyBench's computation, in place on the arguments."""


def _uniform(*shapes: tuple[int, ...]) -> Callable[[np.random.Generator], list[np.ndarray]]:
    return lambda rng: [rng.uniform(-1, 1, s) for s in shapes]


KERNELS = {
    "lu": Kernel(lambda rng: [_dominant(rng, 5)], lu),
    "ludcmp": Kernel(
        lambda rng: [_dominant(rng, 5), *(rng.uniform(-1, 1, 5) for _ in range(3))], ludcmp
    ),
    "cholesky": Kernel(lambda rng: [_spd(rng, 5)], cholesky),
    "trisolv": Kernel(
        lambda rng: [_dominant(rng, 6), rng.uniform(-1, 1, 6), rng.uniform(-1, 1, 6)], trisolv
    ),
    "syrk": Kernel(_uniform((5, 5), (5, 3)), syrk),
    "syr2k": Kernel(_uniform((5, 5), (5, 3), (5, 3)), syr2k),
    "trmm": Kernel(_uniform((5, 5), (5, 3)), trmm),
    "symm": Kernel(_uniform((5, 3), (5, 5), (5, 3)), symm),
    "gramschmidt": Kernel(
        lambda rng: [rng.uniform(-1, 1, (4, 3)) + np.eye(4, 3) * 2, *_uniform((3, 3), (4, 3))(rng)],
        gramschmidt,
    ),
    "durbin": Kernel(lambda rng: [rng.uniform(-0.3, 0.3, 6), rng.uniform(-1, 1, 6)], durbin),
    "lu_batched": Kernel(
        lambda rng: [np.stack([_dominant(rng, 4), _dominant(rng, 4)])], lu_batched
    ),
    "tri4": Kernel(lambda rng: [_dominant(rng, 5)], tri4),
}
NAMES = sorted(KERNELS)
assert set(NAMES) == {p.stem for p in FOLDER.glob("*.mlir")}


def _primal_inputs(name: str) -> list[np.ndarray]:
    return KERNELS[name].inputs(np.random.default_rng(sum(map(ord, name))))


def _differentiated(name: str) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """The Enzyme stage and the caller's inputs: the primal's, each with a seed."""
    path = FOLDER / f"{name}.mlir"
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    TapeflowEnzymePass().apply(make_context(), module)
    module.verify()
    rng = np.random.default_rng(7)
    given: dict[str, np.ndarray] = {}
    for i, value in enumerate(_primal_inputs(name)):
        given[f"arg{2 * i}"] = value
        given[f"arg{2 * i + 1}"] = rng.uniform(-1, 1, value.shape)
    return module, given


enzyme_stage = EnzymeStages(_differentiated)


def _primal_shapes(module: ModuleOp) -> list[tuple[int, ...]]:
    return [
        tuple(a.type.get_shape())
        for a in function_named(module, "f").body.block.args
        if isinstance(a.type, MemRefType)
    ]


@pytest.mark.parametrize("name", NAMES)
def test_the_primal_computes_polybench(name: str) -> None:
    module, given, _ = enzyme_stage(name)
    count = len(_primal_shapes(module))
    args = [given[f"arg{2 * i}"].copy() for i in range(count)]
    got = run_function(module, "f", {f"arg{i}": a.copy() for i, a in enumerate(args)})
    KERNELS[name].reference(*args)
    for i, want in enumerate(args):
        np.testing.assert_allclose(
            got[f"arg{i}"], want, rtol=1e-12, atol=1e-12, err_msg=f"{name}: arg{i}"
        )


@pytest.mark.parametrize("name", NAMES)
def test_the_enzyme_gradient_equals_central_differences(name: str) -> None:
    module, _, _ = enzyme_stage(name)
    assert_dup_gradient(enzyme_stage, name, len(_primal_shapes(module)))


(
    test_raise_tape_keeps_the_values,
    test_pipeline_keeps_the_values,
    test_simulator_keeps_the_values,
    test_recompute_keeps_the_values,
) = stage_tests(enzyme_stage, NAMES)


@pytest.mark.parametrize(
    ("name", "shape"), [("lu", (5, Q, Q)), ("lu_batched", (2, 4, Q, Q)), ("tri4", (5, Q, Q, Q))]
)
def test_a_chain_of_per_iteration_caches_is_one_value_tape(
    name: str, shape: tuple[int, ...]
) -> None:
    """lu's `i, j < i, k < j` nest: Enzyme's buffer of buffers of buffers becomes
    one f64 tape indexed by i, j and k; tri4's four-deep chain one indexed by four
    indices. No buffer of handles is left, and no tape holds one."""
    module, _, _ = enzyme_stage(name)
    (report,) = raise_module(module)
    assert not report.kept, report.kept
    tapes = [op.tape.type for op in module.walk() if isinstance(op, tape.AllocOp)]
    assert any(t.get_shape() == shape for t in tapes)
    assert all(not isinstance(t.element_type, MemRefType) for t in tapes)
    assert not [
        op
        for op in module.walk()
        if any(
            isinstance(r.type, MemRefType) and isinstance(r.type.element_type, MemRefType)
            for r in op.results
        )
    ]
