"""
What a run compiles (its closures, generated functions and their namespaces,
the function scopes) holds no reference cycles: it is freed by reference
counting when the executor goes, and the cycle collector has nothing to find
after a run or a simulation (`sim.executor.FunctionScope`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from sim.errors import ExecutionError
from sim.executor import Executor
from sim.simulator import evaluate, execute, prepare, simulate
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_tools.context import make_context
from targets.hardware import configure

CASES = [
    ("logsum", "enzyme", "Enzyme32k"),
    ("logsum", "tapeflow", "Tflow2k"),
    ("pathfinder", "tapeflow", "Tflow2k"),
    ("lenet", "enzyme", "Enzyme32k"),
    ("nn", "tapeflow", "Tflow2k"),
]


@contextmanager
def _collector_off() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _cyclic_garbage(work: Callable[[], Any]) -> list[str]:
    """The types of the objects `work` leaves in reference cycles, found by a
    full collection (the collector off while it runs, so that none is
    collected before)."""
    gc.collect()
    with _collector_off():
        work()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            left = [type(o).__name__ for o in gc.garbage]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
    return left


@pytest.mark.usefixtures("collector_sees_this_test_only")
@pytest.mark.parametrize(("key", "variant", "preset"), CASES)
def test_a_run_leaves_no_cycles(key: str, variant: str, preset: str) -> None:
    """The fast path's (`tapeflow-run`'s and the simulator's; the closure
    executor alone, the reference, may build IR that holds cycles of its own)."""
    ctx = make_context()
    module = parse_kernel(ctx, key, "small")
    hardware = configure(preset)
    tape_bytes = prepare(ctx, module, variant, hardware)

    def run() -> None:
        Executor(module).run(f"{key}_grad", caller_arguments(module, key, "small"))

    def simulation() -> None:
        args = caller_arguments(module, key, "small")
        execution = execute(module, f"{key}_grad", args, hardware, tape_bytes, variant=variant)
        evaluate(execution)

    run()  # the first run's imports and caches aside
    simulation()
    assert _cyclic_garbage(run) == []
    assert _cyclic_garbage(simulation) == []


class _Node:
    """An object of the planted cycle below."""


@pytest.mark.usefixtures("collector_sees_this_test_only")
def test_a_planted_cycle_is_found_with_the_earlier_objects_set_aside() -> None:
    """The search above finds a cycle the work makes, with what the process held
    before the test in the collector's permanent generation, and nothing where
    the work makes none."""
    kept = _Node()  # an object from before the work, which the cycle holds

    def planted() -> None:
        a, b = _Node(), _Node()
        a.other, b.other, a.kept = b, a, kept

    assert _cyclic_garbage(planted).count("_Node") == 2
    assert _cyclic_garbage(lambda: [_Node() for _ in range(3)]) == []


def test_an_executor_runs_again_after_its_scopes_are_compiled() -> None:
    """A second run of one executor reuses its compiled functions (their scopes
    have forgotten their steps) and gives the same results as a new executor's."""
    ctx = make_context()
    module = parse_kernel(ctx, "logsum", "small")
    prepare(ctx, module, "enzyme", configure("Enzyme32k"))
    executor = Executor(module)
    first = executor.run("logsum_grad", caller_arguments(module, "logsum", "small"))
    compiled = dict(executor._compiled)
    second = executor.run("logsum_grad", caller_arguments(module, "logsum", "small"))
    fresh = Executor(module).run("logsum_grad", caller_arguments(module, "logsum", "small"))
    assert executor._compiled == compiled
    assert repr(first) == repr(second) == repr(fresh)


def test_a_compiled_function_without_its_executor_says_so() -> None:
    """A compiled function kept after its executor is freed cannot call the
    module's other functions: a clear error, not a crash."""
    ctx = make_context()
    module = parse_kernel(ctx, "logsum", "small")
    prepare(ctx, module, "enzyme", configure("Enzyme32k"))
    compiled = Executor(module).function("logsum_grad")  # the executor is freed here
    with pytest.raises(ExecutionError, match="after its executor was freed"):
        compiled(caller_arguments(module, "logsum", "small"))


def test_a_simulation_with_a_timeline_runs() -> None:
    """The timeline's collector holds the executor (its scratchpad): the run
    and its report as before."""
    ctx = make_context()
    module = parse_kernel(ctx, "pathfinder", "small")
    hardware = configure("Tflow2k")
    tape_bytes = prepare(ctx, module, "tapeflow", hardware)
    args = caller_arguments(module, "pathfinder", "small")
    result = simulate(
        module, "pathfinder_grad", args, hardware, tape_bytes, variant="tapeflow", timeline=True
    )
    assert result.timeline is not None
    assert result.report["ops"]["total"] > 0
