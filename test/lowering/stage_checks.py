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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_pipeline import TapeflowPipelinePass
from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

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

    def loss(values: list[np.ndarray]) -> float:
        out = run_function(module, function, {f"arg{i}": v.copy() for i, v in enumerate(values)})
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
    from sim.simulator import execute, prepare
    from tapeflow_tools.arguments import bind_arguments
    from targets.hardware import configure

    hardware = configure("Tflow32k" if variant == "tapeflow" else "Enzyme32k")
    lowered = module.clone()
    tape_bytes = prepare(make_context(), lowered, variant, hardware)
    functions = {
        f.sym_name.data: f
        for f in lowered.walk()
        if hasattr(f, "sym_name") and f.name == "func.func"
    }
    args = bind_arguments(functions[function], {k: v.copy() for k, v in inputs.items()})  # type: ignore[arg-type]
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
