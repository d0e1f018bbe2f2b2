"""
Every stage of the flow computes, bit for bit, what the Enzyme stage computes.

`check_stages(text, function, inputs)` differentiates a primal module (text with an
`enzyme.autodiff` caller `function`) with the real Enzyme, runs the caller with the
reference executor (`tapeflow_tools.tapeflow_run.run_function`) on the result --
the reference values -- and then the same caller after each later stage:

- `tapeflow-raise-tape`;
- `tapeflow-pipeline{spad-bytes=S unroll=U}` for every S, U given;
- the simulator's three variants (`sim.simulator.prepare`, then `execute` with the
  fast path and the closure executor).

Each stage's outputs (primal outputs, shadows, returned values) must have the same
bytes as the reference's. The first stage that differs, crashes or emits IR its
executor rejects raises `StageFailure`, naming the stage, so a property test reports
which stage broke. Shared by the hand-written kernel tests and the random-kernel
property test.

The hand-written kernel suites (PolyBench's triangular kernels, while loops, the
kernels of `kernels/`) check each stage as a test of its own: `EnzymeStages`
differentiates each kernel once and hands out fresh copies with the reference
values, `stage_tests` makes the suite's tests of every later stage against them
(`assert_raise_tape_keeps`, `assert_pipeline_keeps`, `assert_simulator_keeps`),
and `assert_matches_central_differences` checks the Enzyme stage's gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_pipeline import TapeflowPipelinePass
from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass
from lowering.tapeflow_recompute_loads import TapeflowRecomputeLoadsPass
from sim.executor import Executor
from sim.simulator import execute, prepare, simulate
from tapeflow_tools.arguments import bind_arguments
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function
from targets.hardware import configure

SPAD_BYTES = (64, 512, 4096)
UNROLLS = (1, 2, 4)
VARIANTS = ("enzyme", "aos", "tapeflow")


class StageFailure(AssertionError):
    """A stage crashed or computed something else than the Enzyme stage."""

    def __init__(self, stage: str, what: str):
        super().__init__(f"{stage}: {what}")
        self.stage = stage
        self.what = what


def differentiate(text: str, name: str = "kernel.mlir") -> ModuleOp:
    ctx = make_context()
    module = LocatingParser(ctx, text, name).parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    module.verify()
    return module


def kernel_inputs(kernel: Any, preset: str) -> dict[str, np.ndarray]:
    """A benchmark kernel's caller arguments at `preset`, as `--inputs` names them."""
    return {f"arg{i}": a for i, a in enumerate(kernel.inputs(preset))}


def kernel_enzyme_outputs(kernel: Any, preset: str) -> dict[str, np.ndarray]:
    """A benchmark kernel's gradient at the Enzyme stage, run by the reference
    executor: what every later stage must give bit for bit."""
    module = differentiate(kernel.mlir(preset), f"{kernel.key}.mlir")
    return run_function(module, f"{kernel.key}_grad", kernel_inputs(kernel, preset))


def assert_kernel_gradient_is_the_reference(
    kernel: Any, preset: str, got: dict[str, np.ndarray]
) -> None:
    """`got` (`kernel_enzyme_outputs`) equals autograd's gradient of the kernel's
    numpy primal (`Kernel.expected`) and, for every shadow, central differences of
    that primal (`tapeflow_benchmarks.kernels.central_differences`)."""
    from tapeflow_benchmarks.kernels import central_differences

    inputs = kernel.inputs(preset)
    for name, value in kernel.expected(preset, inputs).items():
        np.testing.assert_allclose(got[name], value, rtol=1e-10, atol=1e-12, err_msg=name)
    numeric = central_differences(kernel.key, preset, inputs)
    for i, arg in enumerate(kernel.caller_args(preset)):
        if arg.is_shadow:
            np.testing.assert_allclose(
                got[f"arg{i}"], numeric[arg.param.name], rtol=1e-6, atol=1e-8, err_msg=arg.name
            )


def same_bits(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> str | None:
    """None if `got` holds exactly `want`'s values, else what differs."""
    if set(got) != set(want):
        return f"outputs {sorted(got)} instead of {sorted(want)}"
    for key, value in want.items():
        a = np.asarray(got[key])
        b = np.asarray(value)
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"{key}: {a.dtype}{a.shape} instead of {b.dtype}{b.shape}"
        if a.tobytes() != b.tobytes():
            flat_a, flat_b = a.reshape(-1), b.reshape(-1)
            where = next(
                i
                for i in range(flat_a.size)
                if flat_a[i : i + 1].tobytes() != flat_b[i : i + 1].tobytes()
            )
            return f"{key}[{where}] is {flat_a[where]!r}, the Enzyme stage's {flat_b[where]!r}"
    return None


def runner(
    module: ModuleOp, function: str
) -> Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """`run_function(module, function, inputs)` as a function of `inputs` that
    compiles `module` once for all its calls (one reference executor; each run
    starts from the globals' initial values), for loops that run one module many
    times, such as central differences."""
    executor = Executor(module)
    caller = executor.functions[function]

    def run(given: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        args = bind_arguments(caller, given)
        results = executor.run(function, args)
        outputs = {f"arg{i}": v for i, v in enumerate(args) if isinstance(v, np.ndarray)}
        outputs.update({f"result{i}": np.asarray(v) for i, v in enumerate(results)})
        return outputs

    return run


def central_difference_gradients(
    module: ModuleOp,
    function: str,
    args: list[np.ndarray],
    seeds: list[np.ndarray | None],
    h: float = 1e-6,
) -> list[np.ndarray | None]:
    """The gradient of `L = sum(seeds[i] * (args[i] after function(*args)))` with
    respect to each initial `args[i]` that has a seed (None for the others: index
    arguments), by central differences of the primal run with the reference
    executor."""

    run = runner(module, function)

    def loss(values: list[np.ndarray]) -> float:
        out = run({f"arg{i}": v.copy() for i, v in enumerate(values)})
        return float(sum(np.sum(s * out[f"arg{i}"]) for i, s in enumerate(seeds) if s is not None))

    gradients: list[np.ndarray | None] = []
    for i, arg in enumerate(args):
        if seeds[i] is None:
            gradients.append(None)
            continue
        numeric = np.zeros_like(arg)
        for where in np.ndindex(arg.shape):
            up = [a.copy() for a in args]
            down = [a.copy() for a in args]
            up[i][where] += h
            down[i][where] -= h
            numeric[where] = (loss(up) - loss(down)) / (2 * h)
        gradients.append(numeric)
    return gradients


def assert_matches_central_differences(
    primal: ModuleOp,
    args: list[np.ndarray],
    seeds: list[np.ndarray | None],
    gradients: list[np.ndarray],
    label: str,
) -> None:
    """`gradients` (the shadows of the seeded `args`, in order) equal central
    differences of `@f` in `primal` (`central_difference_gradients`) to within
    rtol 1e-6, atol 1e-7."""
    numeric = [g for g in central_difference_gradients(primal, "f", args, seeds) if g is not None]
    assert len(numeric) == len(gradients), label
    for i, (gradient, want) in enumerate(zip(gradients, numeric, strict=True)):
        np.testing.assert_allclose(
            gradient, want, rtol=1e-6, atol=1e-7, err_msg=f"{label}: d arg{i}"
        )


def assert_dup_gradient(stages: EnzymeStages, name: str, count: int) -> None:
    """For a kernel whose caller passes each of the primal's `count` buffers
    duplicated (`arg{2i}` the buffer, `arg{2i+1}` its seed and then its shadow),
    the Enzyme stage's shadows match central differences of `@f`."""
    module, given, reference = stages(name)
    assert_matches_central_differences(
        module,
        [given[f"arg{2 * i}"] for i in range(count)],
        [given[f"arg{2 * i + 1}"] for i in range(count)],
        [reference[f"arg{2 * i + 1}"] for i in range(count)],
        name,
    )


def _run(module: ModuleOp, function: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return run_function(module, function, {k: v.copy() for k, v in inputs.items()})


def _stage(
    label: str,
    reference: dict[str, np.ndarray],
    produce: Callable[[], dict[str, np.ndarray]],
) -> None:
    try:
        got = produce()
    except StageFailure:
        raise
    except Exception as err:  # a crash is a failure of that stage, named
        raise StageFailure(label, f"{type(err).__name__}: {err}") from err
    differs = same_bits(got, reference)
    if differs is not None:
        raise StageFailure(label, differs)


def _after(module: ModuleOp, passes: Iterable[ModulePass]) -> ModuleOp:
    lowered = module.clone()
    for p in passes:
        p.apply(make_context(), lowered)
        lowered.verify()
    return lowered


def _simulated(
    module: ModuleOp, function: str, inputs: dict[str, np.ndarray], variant: str, fast: bool
) -> dict[str, np.ndarray]:
    hardware = configure("Tflow32k" if variant == "tapeflow" else "Enzyme32k")
    lowered = module.clone()
    tape_bytes = prepare(make_context(), lowered, variant, hardware)
    caller = function_named(lowered, function)
    args = bind_arguments(caller, {k: v.copy() for k, v in inputs.items()})
    return execute(lowered, function, args, hardware, tape_bytes, fast=fast).outputs


@dataclass
class StageResults:
    enzyme: ModuleOp
    reference: dict[str, np.ndarray]


def check_stages(
    text: str,
    function: str,
    inputs: dict[str, np.ndarray],
    *,
    spad_bytes: Iterable[int] = SPAD_BYTES,
    unrolls: Iterable[int] = UNROLLS,
    variants: Iterable[str] = VARIANTS,
    closure_executor: bool = True,
) -> StageResults:
    """Raise `StageFailure` at the first stage that differs from Enzyme's."""
    try:
        enzyme = differentiate(text)
    except Exception as err:
        raise StageFailure("tapeflow-enzyme", f"{type(err).__name__}: {err}") from err
    try:
        reference = _run(enzyme, function, inputs)
    except Exception as err:
        raise StageFailure("run on the Enzyme stage", f"{type(err).__name__}: {err}") from err
    _stage(
        "tapeflow-raise-tape",
        reference,
        lambda: _run(_after(enzyme, [TapeflowRaiseTapePass()]), function, inputs),
    )
    for spad in spad_bytes:
        for unroll in unrolls:
            _stage(
                f"tapeflow-pipeline{{spad-bytes={spad} unroll={unroll}}}",
                reference,
                lambda spad=spad, unroll=unroll: _run(
                    _after(enzyme, [TapeflowPipelinePass(spad_bytes=spad, unroll=unroll)]),
                    function,
                    inputs,
                ),
            )
    for variant in variants:
        for fast in (True, False) if closure_executor else (True,):
            _stage(
                f"simulator {variant}" + ("" if fast else " (closure executor)"),
                reference,
                lambda variant=variant, fast=fast: _simulated(
                    enzyme, function, inputs, variant, fast
                ),
            )
    return StageResults(enzyme, reference)


def function_named(module: ModuleOp, name: str) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)


Stage = tuple[ModuleOp, dict[str, np.ndarray], dict[str, np.ndarray]]
"""A fresh copy of a kernel's Enzyme stage, its caller's inputs, and the caller's
outputs on the Enzyme stage (the reference every later stage must reproduce)."""


class EnzymeStages:
    """
    Each kernel differentiated once, by `make(name)` (the Enzyme stage and the
    caller's inputs), and its caller `function` run on it with the reference
    executor; calling it with a name returns a `Stage` whose module is a fresh
    copy, so a test may lower it.
    """

    def __init__(
        self,
        make: Callable[[str], tuple[ModuleOp, dict[str, np.ndarray]]],
        function: str = "f_grad",
    ):
        self.make = make
        self.function = function
        self.cache: dict[str, Stage] = {}

    def __call__(self, name: str) -> Stage:
        if name not in self.cache:
            module, given = self.make(name)
            self.cache[name] = (module, given, _run(module, self.function, given))
        module, given, reference = self.cache[name]
        return module.clone(), given, reference


def _assert_same(got: dict[str, np.ndarray], want: dict[str, np.ndarray], label: str) -> None:
    differs = same_bits(got, want)
    assert differs is None, f"{label}: {differs}"


def assert_raise_tape_keeps(stages: EnzymeStages, name: str) -> None:
    """After `tapeflow-raise-tape` the caller computes the Enzyme stage's bits."""
    module, given, reference = stages(name)
    TapeflowRaiseTapePass().apply(make_context(), module)
    module.verify()
    _assert_same(
        _run(module, stages.function, given), reference, f"{name} after tapeflow-raise-tape"
    )


def assert_pipeline_keeps(stages: EnzymeStages, name: str, spad_bytes: int, unroll: int) -> None:
    """After `tapeflow-pipeline{spad-bytes unroll}` the caller computes the Enzyme
    stage's bits."""
    module, given, reference = stages(name)
    TapeflowPipelinePass(spad_bytes=spad_bytes, unroll=unroll).apply(make_context(), module)
    module.verify()
    _assert_same(
        _run(module, stages.function, given),
        reference,
        f"{name} after tapeflow-pipeline{{spad-bytes={spad_bytes} unroll={unroll}}}",
    )


def assert_recompute_keeps(stages: EnzymeStages, name: str) -> None:
    """After `tapeflow-recompute-loads` the caller computes the Enzyme stage's bits,
    and so does the simulator's enzyme variant that runs it (as the evaluation does
    for the authors' programs)."""
    module, given, reference = stages(name)
    TapeflowRecomputeLoadsPass().apply(make_context(), module)
    module.verify()
    label = f"{name} after tapeflow-recompute-loads"
    _assert_same(_run(module, stages.function, given), reference, label)
    module, given, reference = stages(name)
    machine = configure("Enzyme32k")
    tape_bytes = prepare(make_context(), module, "enzyme", machine, recompute=True)
    caller = function_named(module, stages.function)
    args = bind_arguments(caller, {k: v.copy() for k, v in given.items()})
    result = simulate(module, stages.function, args, machine, tape_bytes)
    _assert_same(result.outputs, reference, f"{label}, on the simulator's enzyme variant")


def assert_simulator_keeps(
    stages: EnzymeStages, name: str, variant: str, hardware: str = "Tflow1k"
) -> None:
    """The simulator's `variant` computes the Enzyme stage's bits, and its report
    gives the tape size `prepare` laid out."""
    module, given, reference = stages(name)
    machine = configure(hardware)
    tape_bytes = prepare(make_context(), module, variant, machine)
    caller = function_named(module, stages.function)
    args = bind_arguments(caller, {k: v.copy() for k, v in given.items()})
    result = simulate(module, stages.function, args, machine, tape_bytes)
    _assert_same(result.outputs, reference, f"{name} on the simulator's {variant} variant")
    assert result.report["tape_bytes"] == tape_bytes


def stage_tests(
    stages: EnzymeStages, names: Sequence[str], unrolls: Sequence[int] = (1, 2)
) -> tuple[Callable[..., None], Callable[..., None], Callable[..., None], Callable[..., None]]:
    """The four per-stage tests of a kernel suite, parametrized over `names`:
    raise-tape, `tapeflow-pipeline{spad-bytes unroll}` (every `SPAD_BYTES`, the
    `unrolls` given), the simulator's `VARIANTS`, and `tapeflow-recompute-loads`.
    A suite binds them to module-level `test_*` names for pytest to collect."""

    @pytest.mark.parametrize("name", names)
    def raise_tape(name: str) -> None:
        assert_raise_tape_keeps(stages, name)

    @pytest.mark.parametrize("unroll", unrolls)
    @pytest.mark.parametrize("spad_bytes", SPAD_BYTES)
    @pytest.mark.parametrize("name", names)
    def pipeline(name: str, spad_bytes: int, unroll: int) -> None:
        assert_pipeline_keeps(stages, name, spad_bytes, unroll)

    @pytest.mark.parametrize("variant", VARIANTS)
    @pytest.mark.parametrize("name", names)
    def simulator(name: str, variant: str) -> None:
        assert_simulator_keeps(stages, name, variant)

    @pytest.mark.parametrize("name", names)
    def recompute(name: str) -> None:
        assert_recompute_keeps(stages, name)

    return raise_tape, pipeline, simulator, recompute
