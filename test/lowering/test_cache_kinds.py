"""
Kernels whose caches are not plain f64 memref buffers go through every stage.

Each kernel in `inputs/caches/` (its source named in its header) makes Enzyme-MLIR
cache something else: tensors (`enzyme.cache_use_tensor`, flat and nested with
insert_slice/extract_slice), memref handles (memref<6xmemref<6xf64>>), index
values loaded from memory the kernel overwrites, i1/f16/f32/i32 values, and the
snapshots and per-block buffers of checkpointing. For each:

- every stage computes exactly the Enzyme stage's values (`stage_checks`);
- the shadows equal central differences of the primal (run by the reference
  executor, an independent use of it: no derivative code), or for f16 inputs,
  whose rounding defeats finite differences, the hand-derived derivative;
- the caches are raised to tapes where they are tapes (the tensor caches among
  them, also where an outer loop in memref mode caches them in a memref of
  tensors), the rest kept with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from stage_checks import check_stages, differentiate, runner

from lowering.ir.gradients import gradient_functions
from lowering.tapeflow_raise_tape import raise_module
from tapeflow_tools.tapeflow_run import run_function

INPUTS = Path(__file__).parent / "inputs" / "caches"


@dataclass
class Arg:
    value: np.ndarray
    seed: np.ndarray | None = None
    """The shadow's initial value (its seed) for a duplicated argument; None: const."""


@dataclass
class Case:
    file: str
    args: list[Arg]
    kept: list[str] = field(default_factory=list)
    """One substring of each buffer raise-tape keeps (and its reason); every other
    cache of Enzyme's -- each top-level memref.alloc, each tensor cache (one
    tensor.insert each) -- is raised."""
    checked_by_differences: list[int] | None = None
    """Primal arguments whose shadows are checked by central differences (all
    duplicated ones if None)."""
    step: float = 1e-6
    tolerance: float = 1e-6

    def inputs(self) -> dict[str, np.ndarray]:
        given: dict[str, np.ndarray] = {}
        for arg in self.args:
            given[f"arg{len(given)}"] = arg.value
            if arg.seed is not None:
                given[f"arg{len(given)}"] = arg.seed
        return given

    def shadow_keys(self) -> dict[int, str]:
        keys, position = {}, 0
        for a, arg in enumerate(self.args):
            position += 1
            if arg.seed is not None:
                keys[a] = f"arg{position}"
                position += 1
        return keys


def _rng(n: int) -> np.random.Generator:
    return np.random.default_rng(1000 + n)


def _uniform(n: int, shape: tuple[int, ...], lo: float = 0.5, hi: float = 1.5) -> np.ndarray:
    return _rng(n).uniform(lo, hi, shape)


def _seed(n: int, shape: tuple[int, ...]) -> np.ndarray:
    return _rng(n + 500).uniform(-1.0, 1.0, shape)


def _f16(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float16).astype(np.float64)


def _f32(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32).astype(np.float64)


CASES = {
    "tensor-loop": Case("tensor-loop.mlir", [Arg(_uniform(1, (8,)), _seed(1, (8,)))]),
    "tensor-nest": Case(
        "tensor-nest.mlir",
        [Arg(_uniform(2, (4, 5)), _seed(2, (4, 5))), Arg(_uniform(3, (5,)), _seed(3, (5,)))],
    ),
    "tensor-in-memref-loop": Case(
        "tensor-in-memref-loop.mlir",
        [Arg(_uniform(14, (3, 4)), _seed(14, (3, 4))), Arg(_uniform(15, (4,)), _seed(15, (4,)))],
    ),
    "handle-cache": Case(
        "handle-cache.mlir",
        [Arg(_uniform(4, (6,)), _seed(4, (6,)))],
        # the handles are the shadow's, not buffers the forward sweep allocates
        kept=[
            "memref<6xmemref<6xf64>>): holds buffers that are not allocated in the forward sweep"
        ],
    ),
    "index-gather": Case(
        "index-gather.mlir",
        [
            Arg(_uniform(5, (5,)), _seed(5, (5,))),
            Arg(np.array([4, 0, 2, 2, 1, 3])),
            Arg(_uniform(6, (6,)), _seed(6, (6,))),
        ],
    ),
    "index-gather-tensor": Case(
        "index-gather-tensor.mlir",
        [
            Arg(_uniform(5, (5,)), _seed(5, (5,))),
            Arg(np.array([4, 0, 2, 2, 1, 3])),
            Arg(_uniform(6, (6,)), _seed(6, (6,))),
        ],
    ),
    "row-subview-tensor": Case(
        "row-subview-tensor.mlir",
        [Arg(_uniform(7, (3, 4)), _seed(7, (3, 4))), Arg(np.array([2, 0, 2]))],
    ),
    "select-buffer-tensor": Case(
        "select-buffer-tensor.mlir",
        [
            Arg(_uniform(8, (4,)), _seed(8, (4,))),
            Arg(_uniform(9, (4,)), _seed(9, (4,))),
            Arg(np.array([0.7, 1.3, 0.9, 1.4])),
        ],
    ),
    "mixed-precision": Case(
        "mixed-precision.mlir",
        [
            Arg(_f16(_uniform(10, (4,))), _f16(_seed(10, (4,)))),
            Arg(_f32(_uniform(11, (4,))), _f32(_seed(11, (4,)))),
            Arg(np.array([3, 1, 0, 2])),
            Arg(_uniform(12, (4,)), _seed(12, (4,))),
        ],
        checked_by_differences=[1, 3],
        step=1e-3,
        tolerance=1e-4,
    ),
    "checkpointing-two-trips": Case(
        "checkpointing-two-trips.mlir",
        [
            Arg(_uniform(16, (4,)), _seed(16, (4,))),
            Arg(_uniform(17, (4,)), _seed(17, (4,))),
            Arg(np.array([0, 3, 0, 2, 0])),
        ],
        kept=[
            "used by 'memref.copy'",
            *["allocated inside a loop"] * 4,
        ],
    ),
    "checkpointing": Case(
        "checkpointing.mlir",
        [Arg(_uniform(13, (6,)), _seed(13, (6,)))],
        kept=[
            "memref<3x6xf64>): used by 'memref.copy'",
            "allocated inside a loop",
            "allocated inside a loop",
        ],
    ),
}


def _text(case: Case) -> str:
    return (INPUTS / case.file).read_text()


def objective(
    run: Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]],
    case: Case,
    values: list[np.ndarray],
) -> float:
    """The primal's result (`run`: the primal `@k` run on its arguments) plus each
    duplicated argument's final value weighted by its shadow seed: what the
    shadows after the call differentiate."""
    out = run({f"arg{a}": v.copy() for a, v in enumerate(values)})
    total = float(out["result0"])
    for a, arg in enumerate(case.args):
        if arg.seed is not None:
            total += float(np.sum(out[f"arg{a}"] * arg.seed))
    return total


def central_differences(module, case: Case, a: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    values = [arg.value for arg in case.args]
    run = runner(module, "k")
    numeric = np.empty_like(values[a])
    for index in np.ndindex(values[a].shape):
        step = case.step * max(abs(values[a][index]), 1.0)
        ends = []
        for sign in (1, -1):
            moved = [v.copy() for v in values]
            moved[a][index] += sign * step
            ends.append(objective(run, case, moved))
        numeric[index] = (ends[0] - ends[1]) / (2 * step)
    return numeric


@pytest.mark.parametrize("key", CASES)
def test_every_stage_and_the_gradient(key: str) -> None:
    case = CASES[key]
    results = check_stages(_text(case), "k_grad", case.inputs())
    shadows = case.shadow_keys()
    checked = case.checked_by_differences
    for a in shadows if checked is None else checked:
        numeric = central_differences(results.enzyme, case, a)
        got = results.reference[shadows[a]]
        error = np.linalg.norm(got - numeric) / np.linalg.norm(numeric)
        assert error < case.tolerance, (
            f"{key}: shadow of arg {a} is {error:.1e} from central differences"
        )


def test_f16_shadow_is_the_hand_derivative() -> None:
    """mixed-precision.mlir: L = sum_i (h_i^2 s_i^2) y_{p_i}^2 + <seeds, finals>, so
    dL/dh_i = 2 h_i s_i^2 y_{p_i}^2 + seed_i (h is not written), up to the f16 and
    f32 roundings of the kernel (f16 has an 11-bit significand)."""
    case = CASES["mixed-precision"]
    results = check_stages(_text(case), "k_grad", case.inputs(), spad_bytes=(), variants=())
    h, s, p, y = (arg.value for arg in case.args)
    want = 2 * h * s**2 * y[p] ** 2 + case.args[0].seed
    np.testing.assert_allclose(results.reference["arg1"], want, rtol=5e-3)


@pytest.mark.parametrize("key", CASES)
def test_raise_tape_raises_the_tapes_and_keeps_the_rest(key: str) -> None:
    case = CASES[key]
    module = differentiate(_text(case))
    (enzyme_gradient,) = gradient_functions(module)
    body = enzyme_gradient.body.block
    caches = sum(
        1
        for op in enzyme_gradient.walk()
        if op.name == "tensor.insert"
        or (
            op.name == "memref.alloc"
            and op.parent_block() is body
            # a memref of tensors holds a tensor cache per outer iteration: one tape
            and "tensor<" not in str(op.results[0].type)
        )
    )
    (report,) = raise_module(module)
    module.verify()
    reasons = [f"{b}: {r}" for b, r in report.kept]
    assert len(reasons) == len(case.kept), report.table()
    for expected in case.kept:
        assert any(expected in r for r in reasons), report.table()
    nested = sum(1 for r in reasons if "allocated inside a loop" in r)
    assert len(report.tapes) == caches - (len(case.kept) - nested), report.table()
    (gradient,) = gradient_functions(module)
    assert not any(op.name.startswith("tensor.") for op in gradient.walk()), (
        "every tensor cache is raised"
    )


def test_tensor_chains_not_in_cache_shape_stay_and_compute_the_same() -> None:
    """The FileCheck test's hand-written gradient (tensor-kept.mlir): one chain is
    raised, two stay tensors; dx[r] = seed*x[r]^2 + x[r]^2 + x[r]^2 by hand."""
    from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass
    from tapeflow_tools.context import make_context
    from tapeflow_tools.diagnostics import LocatingParser

    path = Path(__file__).parents[1] / "filecheck/passes/tapeflow-raise-tape/tensor-kept.mlir"
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    TapeflowRaiseTapePass().apply(make_context(), module)
    module.verify()
    x = np.array([1.0, 2.0, 3.0, 4.0])
    out = run_function(module, "diffef", {"arg0": x, "arg1": np.zeros(4), "arg2": np.array(1.5)})
    np.testing.assert_array_equal(out["arg1"], 1.5 * x**2 + 2 * x**2)
    assert float(out["result0"]) == float(np.sum(x**2))
