"""
Kernels of the kinds researchers bring (Enzyme-MLIR's own reverse-mode tests,
PolyBench kernels as Polygeist emits them), each written anew under `kernels/`
with its source named in a header comment, through every stage.

For each kernel:

- the Enzyme gradient equals central differences of the primal, run with the
  reference executor in f64 (the gradient of `L = sum(seed * outputs)`, the
  dot product of the shadows' initial values with the memrefs after the call);
- every later stage computes exactly the Enzyme stage's values (the reference
  executor on the Enzyme stage is the reference): raise-tape, then
  `tapeflow-pipeline{spad-bytes=64|512|4096 unroll=1|2}`, then the simulator's
  enzyme, aos and tapeflow variants (`sim.simulator`).

A kernel file holds the primal `@f` and its caller `@f_grad` (`enzyme.autodiff`,
or a gradient written at the Enzyme-gradient stage), all arguments dup memrefs of
f64: `@f_grad` takes (x0, dx0, x1, dx1, ...).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_pipeline import TapeflowPipelinePass
from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass
from sim.simulator import prepare, simulate
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import bind_arguments, run_function
from targets.hardware import configure

KERNELS = Path(__file__).parent / "kernels"
NAMES = sorted(p.stem for p in KERNELS.glob("*.mlir"))


def parse(name: str) -> ModuleOp:
    path = KERNELS / f"{name}.mlir"
    return LocatingParser(make_context(), path.read_text(), str(path)).parse_module()


def differentiated(name: str) -> ModuleOp:
    module = parse(name)
    TapeflowEnzymePass().apply(make_context(), module)
    module.verify()
    return module


def shapes(module: ModuleOp) -> list[tuple[int, ...]]:
    primal = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "f"
    )
    found = []
    for arg in primal.body.block.args:
        assert isinstance(arg.type, MemRefType), "the kernels take memrefs only"
        found.append(tuple(arg.type.get_shape()))
    return found


def inputs(name: str, module: ModuleOp) -> dict[str, np.ndarray]:
    """Primal values and seeds, by the caller's argument positions."""
    rng = np.random.default_rng(sum(map(ord, name)))
    given = {}
    for i, shape in enumerate(shapes(module)):
        given[f"arg{2 * i}"] = rng.uniform(-1.5, 1.5, shape)
        given[f"arg{2 * i + 1}"] = rng.uniform(-1.0, 1.0, shape)
    return given


def run_caller(module: ModuleOp, given: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return run_function(module, "f_grad", {k: v.copy() for k, v in given.items()})


def assert_exactly(got: dict[str, np.ndarray], want: dict[str, np.ndarray], label: str) -> None:
    assert set(got) == set(want), label
    for key, value in want.items():
        np.testing.assert_array_equal(got[key], value, err_msg=f"{label}: {key}")


_ENZYME: dict[str, tuple[ModuleOp, dict[str, np.ndarray], dict[str, np.ndarray]]] = {}


def enzyme_stage(name: str) -> tuple[ModuleOp, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(a fresh copy of the Enzyme stage, the inputs, the Enzyme stage's outputs)."""
    if name not in _ENZYME:
        module = differentiated(name)
        given = inputs(name, module)
        _ENZYME[name] = (module, given, run_caller(module, given))
    module, given, reference = _ENZYME[name]
    return module.clone(), given, reference


@pytest.mark.parametrize("name", NAMES)
def test_enzyme_gradient_equals_central_differences(name: str) -> None:
    module, given, reference = enzyme_stage(name)
    count = len(shapes(module))
    primal_args = {f"arg{i}": given[f"arg{2 * i}"] for i in range(count)}
    seeds = [given[f"arg{2 * i + 1}"] for i in range(count)]

    def loss(args: dict[str, np.ndarray]) -> float:
        out = run_function(module, "f", {k: v.copy() for k, v in args.items()})
        return float(sum(np.sum(seeds[i] * out[f"arg{i}"]) for i in range(count)))

    h = 1e-6
    for i in range(count):
        gradient = reference[f"arg{2 * i + 1}"]
        numeric = np.zeros_like(gradient)
        for where in np.ndindex(gradient.shape):
            up = {k: v.copy() for k, v in primal_args.items()}
            down = {k: v.copy() for k, v in primal_args.items()}
            up[f"arg{i}"][where] += h
            down[f"arg{i}"][where] -= h
            numeric[where] = (loss(up) - loss(down)) / (2 * h)
        np.testing.assert_allclose(
            gradient, numeric, rtol=1e-6, atol=1e-7, err_msg=f"{name}: d arg{i}"
        )


@pytest.mark.parametrize("name", NAMES)
def test_raise_tape_keeps_the_values(name: str) -> None:
    module, given, reference = enzyme_stage(name)
    TapeflowRaiseTapePass().apply(make_context(), module)
    module.verify()
    assert_exactly(run_caller(module, given), reference, f"{name} after tapeflow-raise-tape")


@pytest.mark.parametrize("unroll", [1, 2])
@pytest.mark.parametrize("spad_bytes", [64, 512, 4096])
@pytest.mark.parametrize("name", NAMES)
def test_pipeline_keeps_the_values(name: str, spad_bytes: int, unroll: int) -> None:
    module, given, reference = enzyme_stage(name)
    TapeflowPipelinePass(spad_bytes=spad_bytes, unroll=unroll).apply(make_context(), module)
    module.verify()
    label = f"{name} after tapeflow-pipeline{{spad-bytes={spad_bytes} unroll={unroll}}}"
    assert_exactly(run_caller(module, given), reference, label)


@pytest.mark.parametrize("variant", ["enzyme", "aos", "tapeflow"])
@pytest.mark.parametrize("name", NAMES)
def test_simulator_keeps_the_values(name: str, variant: str) -> None:
    module, given, reference = enzyme_stage(name)
    ctx = make_context()
    hardware = configure("Tflow1k")
    tape_bytes = prepare(ctx, module, variant, hardware)
    caller = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "f_grad"
    )
    args = bind_arguments(caller, {k: v.copy() for k, v in given.items()})
    result = simulate(module, "f_grad", args, hardware, tape_bytes)
    assert_exactly(result.outputs, reference, f"{name} on the simulator's {variant} variant")
    assert result.report["tape_bytes"] == tape_bytes


def test_a_non_mirrored_cache_is_kept_and_the_rest_layered() -> None:
    """Issue 12 item 3: the loop-invariant cache read through remsi stays a region
    (marked with the reason); the two mirrored tapes are still tiled and streamed."""
    from tapeflow_dialects import layer, region, stream

    module, _, _ = enzyme_stage("invariant_cache_remsi")
    TapeflowPipelinePass(spad_bytes=64).apply(make_context(), module)
    kept = [op for op in module.walk() if isinstance(op, region.AllocOp)]
    assert len(kept) == 1 and region.KEPT in kept[0].attributes
    assert "do not mirror" in kept[0].attributes[region.KEPT].data  # type: ignore[attr-defined]
    fwd = [
        op for op in module.walk() if isinstance(op, layer.LayerOp) and op.phase.data.value == "fwd"
    ]
    assert len(fwd) == 2
    assert len([op for op in module.walk() if isinstance(op, stream.AllocOp)]) == 2


def test_an_i1_slot_takes_one_word_everywhere() -> None:
    """Issue 12 item 4: a tape of an f64 and an i1 per iteration (8 iterations) is
    8 x 2 words = 128 bytes in the DRAM stream tape, in the scratchpad tiles the
    streams move, and in the simulator's stream traffic and tape size."""
    from tapeflow_dialects import stream

    module, given, _ = enzyme_stage("branch_cached_condition")
    TapeflowPipelinePass(spad_bytes=64).apply(make_context(), module)
    (alloc,) = [op for op in module.walk() if isinstance(op, stream.AllocOp)]
    assert alloc.bytes.value.data == 8 * 2 * 8

    module, given, _ = enzyme_stage("branch_cached_condition")
    hardware = configure("Tflow1k")
    tape_bytes = prepare(make_context(), module, "tapeflow", hardware)
    caller = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "f_grad"
    )
    report = simulate(module, "f_grad", bind_arguments(caller, given), hardware, tape_bytes).report
    assert tape_bytes == 8 * 2 * 8
    assert (report["streams"]["write_bytes"], report["streams"]["read_bytes"]) == (128, 128)
