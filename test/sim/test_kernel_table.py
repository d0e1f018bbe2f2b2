"""
A kernel loop run from its table of steps (`sim.kernel_table`) computes what its
generated function and the closure executor compute: the same outputs bit for
bit, the same trace, the same report, the same errors; and a loop that switches
from its table to its generated function half-way does too.

Each comparison runs one lowered module four ways: the closure executor
(`fast=False`, the reference), the generated functions alone (`TABLE` off), every
kernel loop from its table for good (`TABLE_OPS` 1, `TABLE_ITERATIONS` never
reached), and every kernel loop switching to its generated function after its
first iteration (`TABLE_ITERATIONS` 1). The decision made before a loop runs
(`kernel_table.iterations_per_call`) is checked on its own, against the
iterations the loops run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import sim.kernel_compiler as kernel_compiler
import sim.kernel_table as kernel_table
from sim.kernel_table import TableKernel
from sim.models import MODELS
from sim.simulator import prepare, simulate
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.tapeflow_run import bind_arguments
from targets.hardware import configure

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lowering"))

WAYS = ("closures", "generated", "table", "switch")


@contextmanager
def _way(way: str) -> Iterator[None]:
    """Kernel loops run `way` (see the module docstring) within the block."""
    saved = (
        kernel_compiler.TABLE,
        kernel_table.TABLE_OPS,
        kernel_table.TABLE_ITERATIONS,
        kernel_table.FORESEEN,
    )
    kernel_compiler.TABLE = way in ("table", "switch", "foreseen")
    kernel_table.TABLE_OPS = 1
    kernel_table.TABLE_ITERATIONS = {"switch": 1, "foreseen": 2}.get(way, 1 << 62)
    kernel_table.FORESEEN = way == "foreseen"
    try:
        yield
    finally:
        (
            kernel_compiler.TABLE,
            kernel_table.TABLE_OPS,
            kernel_table.TABLE_ITERATIONS,
            kernel_table.FORESEEN,
        ) = saved


@contextmanager
def _tables() -> Iterator[list[TableKernel]]:
    """The table steps made within the block."""
    made: list[TableKernel] = []
    init = TableKernel.__init__

    def counted(self: TableKernel, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    TableKernel.__init__ = counted  # type: ignore[method-assign]
    try:
        yield made
    finally:
        TableKernel.__init__ = init  # type: ignore[method-assign]


def _function(module: ModuleOp, name: str) -> Any:
    named = (f for f in module.ops if getattr(f, "sym_name", None) is not None)
    return next(f for f in named if f.sym_name.data == name)  # type: ignore[attr-defined]


def _runs(
    module: ModuleOp,
    name: str,
    inputs: dict[str, np.ndarray],
    hardware: Any,
    tape_bytes: int,
    model: str,
    ways: tuple[str, ...] = WAYS,
) -> dict[str, tuple[Any, ...]]:
    """Per way: the outputs' bytes, the trace's arrays, the report (or the error)
    and how many table steps ran and switched."""
    seen: dict[str, tuple[Any, ...]] = {}
    for way in ways:
        with _tables() as made, _way(way):
            args = bind_arguments(_function(module, name), {k: v.copy() for k, v in inputs.items()})
            fast = way != "closures"
            try:
                result = simulate(module, name, args, hardware, tape_bytes, fast=fast, model=model)
            except Exception as err:  # noqa: BLE001 - the error is what is compared
                seen[way] = (type(err).__name__, str(err)), (), {}, (0, 0)
                continue
        outputs = {
            k: (np.asarray(v).dtype.str, np.asarray(v).shape, np.asarray(v).tobytes())
            for k, v in result.outputs.items()
        }
        assert result.trace is not None
        trace = tuple(a.tobytes() for a in result.trace.arrays())
        report = {k: v for k, v in result.report.items() if k != "simulator"}
        report["accesses"] = result.report["simulator"]["accesses"]
        switched = sum(t.code is not None for t in made)
        seen[way] = outputs, trace, report, (len(made), switched)
    return seen


def _assert_same(seen: dict[str, tuple[Any, ...]]) -> None:
    reference = seen["closures"][:3]
    for way in WAYS[1:]:
        assert repr(seen[way][:3]) == repr(reference), way  # repr: nan == nan


@pytest.mark.parametrize("model", ["cgra", "salam"])
@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
@pytest.mark.parametrize("key", ["logsum", "pathfinder", "massspring", "nn"])
def test_a_fully_unrolled_kernel_from_its_table_computes_the_same(
    key: str, variant: str, model: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    module = differentiated(key)
    preset = "Tflow2k" if variant == "tapeflow" else "Enzyme32k"
    hardware = MODELS[model].hardware(configure(preset))
    tape_bytes = prepare(make_context(), module, variant, hardware, unroll=1 << 30, model=model)
    inputs = {f"arg{i}": a for i, a in enumerate(KERNELS[key].inputs("small"))}
    seen = _runs(module, f"{key}_grad", inputs, hardware, tape_bytes, model)
    _assert_same(seen)
    assert not isinstance(seen["closures"][0], tuple)  # it runs through
    tables, switched = seen["table"][3]
    assert tables > 0 and switched == 0  # the table ran every kernel loop
    assert seen["switch"][3][0] == tables
    assert seen["generated"][3] == (0, 0)


def test_a_fully_unrolled_body_runs_in_few_steps(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    """The table of a fully unrolled body runs its compute ops and memref
    accesses a run of consecutive ones per step (`sim.kernel_table._fused`),
    which the comparisons above then check op for op: on PathFinder's Enzyme
    gradient, far fewer steps than placed ops, every placed op in one."""
    module = differentiated("pathfinder")
    hardware = MODELS["cgra"].hardware(configure("Enzyme32k"))
    tape_bytes = prepare(make_context(), module, "enzyme", hardware, unroll=1 << 30, model="cgra")
    inputs = {f"arg{i}": a for i, a in enumerate(KERNELS["pathfinder"].inputs("small"))}
    with _tables() as made, _way("table"):
        args = bind_arguments(_function(module, "pathfinder_grad"), inputs)
        simulate(module, "pathfinder_grad", args, hardware, tape_bytes, model="cgra")
    placed = sum(kernel_table.placed_count(t.loop) for t in made)
    steps = [s for t in made for s in t.steps]
    fused = [s for s in steps if getattr(s, "__name__", "") == "fused"]
    assert made and len(steps) * 4 < placed
    assert sum(len(s.ops) for s in fused) + len(steps) - len(fused) == placed


def test_a_loop_that_runs_on_switches_to_its_generated_code_half_way() -> None:
    """A loop run once from its table, then again past `TABLE_ITERATIONS`: the
    second run is its generated function's, with the closure executor's values
    and trace over both runs."""
    from test_fast_path import KERNEL_LOOPS

    from sim.executor import Executor
    from sim.trace import MemoryTrace
    from tapeflow_tools.diagnostics import LocatingParser, verify_located

    outcomes = []
    for way in ("closures", "switch"):
        module = LocatingParser(make_context(), KERNEL_LOOPS, "loops.mlir").parse_module()
        verify_located(module)
        trace = MemoryTrace()
        array = np.arange(1.0, 5.0)
        with _tables() as made, _way(way):
            kernel_table.TABLE_ITERATIONS = 2
            executor = Executor(module, trace, fast=way != "closures")
            results = [executor.run("memref_sum", [array, 1, 3])]  # two iterations
            if way == "switch":
                (loop,) = made
                assert loop.code is None and loop.left == 0
            results.append(executor.run("memref_sum", [array, 1, 4]))  # three more
            if way == "switch":
                assert loop.code is not None
        outcomes.append((results, array.tobytes(), [a.tobytes() for a in trace.arrays()]))
    assert repr(outcomes[0]) == repr(outcomes[1])


@pytest.mark.parametrize("key", ["logsum", "pathfinder", "massspring", "nn"])
def test_the_iterations_foreseen_are_those_the_loops_run(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    """`iterations_per_call` of every kernel loop (fully unrolled and not, both
    variants) where it is known is the number of iterations the loop runs in
    the gradient's one call, counted as it runs; and with the decision made
    before the run (`FORESEEN`, `TABLE_ITERATIONS` 2), the loops foreseen to
    run at least two iterations take no table, the others do, and the run
    computes what the closure executor computes."""
    known = at_once = 0
    for variant, unroll in (("enzyme", 1), ("enzyme", 1 << 30), ("tapeflow", 1 << 30)):
        module = differentiated(key)
        preset = "Tflow2k" if variant == "tapeflow" else "Enzyme32k"
        hardware = MODELS["cgra"].hardware(configure(preset))
        tape_bytes = prepare(make_context(), module, variant, hardware, unroll=unroll)
        inputs = {f"arg{i}": a for i, a in enumerate(KERNELS[key].inputs("small"))}
        counted: dict[int, list[Any]] = {}
        call = TableKernel.__call__

        def counting(
            self: TableKernel,
            fr: Any,
            counted: dict[int, list[Any]] = counted,
            call: Callable[[TableKernel, Any], None] = call,
        ) -> None:
            entry = counted.setdefault(id(self), [self.loop, 0])
            if self.once:
                entry[1] += 1
            else:
                lb, ub, st = self.bounds  # type: ignore[misc]
                entry[1] += len(range(fr[lb], fr[ub], fr[st]))
            call(self, fr)

        TableKernel.__call__ = counting  # type: ignore[method-assign]
        try:
            with _tables() as made, _way("table"):
                args = bind_arguments(_function(module, f"{key}_grad"), inputs)
                simulate(module, f"{key}_grad", args, hardware, tape_bytes, model="cgra")
        finally:
            TableKernel.__call__ = call  # type: ignore[method-assign]
        for loop, iterations in counted.values():
            foreseen = kernel_table.iterations_per_call(loop)
            if foreseen is not None:
                assert foreseen == iterations, (variant, unroll, loop.name)
                known += 1
        foreseen_ones = {
            id(t.loop) for t in made if (kernel_table.iterations_per_call(t.loop) or 0) >= 2
        }
        at_once += len(foreseen_ones)
        seen = _runs(
            module, f"{key}_grad", inputs, hardware, tape_bytes, "cgra", ("closures", "foreseen")
        )
        assert repr(seen["foreseen"][:3]) == repr(seen["closures"][:3])
        assert seen["foreseen"][3][0] == len(made) - len(foreseen_ones)
    assert known > 0 and at_once > 0


def test_the_fallbacks_of_a_table_behave_as_the_closure_executor() -> None:
    """The hand-written loops of test_fast_path (indices out of range, entries
    never written, a freed region, a row outside a tile...) from their tables."""
    from test_fast_path import CASES, _outcome

    for case, (name, args) in CASES.items():
        for mode in ("timed", "traced", "plain"):
            slow = _outcome(name, args, False, mode)
            for way in ("table", "switch"):
                with _way(way):
                    fast = _outcome(name, args, True, mode)
                assert repr(fast) == repr(slow), (case, mode, way)


hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, note, reject, settings  # noqa: E402
from random_kernels import RandomKernel, kernels  # noqa: E402
from stage_checks import differentiate  # noqa: E402

UPSTREAM = (
    "'tensor.insert' op failed to verify that scalar type matches",
    "does not dominate this use",
    "'scf.yield' op must be the last operation in the parent block",
)
"""What Enzyme-MLIR 0.0.16 says when it rejects its own output
(test/lowering/test_random_kernels.py, UPSTREAM_REJECTIONS)."""


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kernels())
def test_random_kernels_from_their_tables_compute_the_same(kernel: RandomKernel) -> None:
    note(kernel.text)
    try:
        gradient = differentiate(kernel.text)
    except Exception as err:
        if any(u in str(err) for u in UPSTREAM):
            reject()
        raise
    tables = 0
    for variant, unroll in (("enzyme", 1 << 30), ("tapeflow", 1), ("tapeflow", 1 << 30)):
        module = gradient.clone()
        hardware = configure("Tflow2k" if variant == "tapeflow" else "Enzyme32k")
        tape_bytes = prepare(make_context(), module, variant, hardware, unroll=unroll)
        seen = _runs(module, "k_grad", kernel.inputs, hardware, tape_bytes, "cgra")
        _assert_same(seen)
        tables += seen["table"][3][0]
    assert tables > 0  # kernel loops ran from their tables
