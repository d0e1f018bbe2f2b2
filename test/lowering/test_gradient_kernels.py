"""
Kernels of the kinds researchers bring (Enzyme-MLIR's own reverse-mode tests,
PolyBench kernels as Polygeist emits them, ML building blocks after LLaMA, Flax,
PyTorch and Darknet, scientific codes after Numerical Recipes), each written anew
under `kernels/` with its source named in a header comment, through every stage.

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
from stage_checks import (
    EnzymeStages,
    assert_dup_gradient,
    function_named,
    stage_tests,
)
from xdsl.dialects.builtin import MemRefType, ModuleOp

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_pipeline import TapeflowPipelinePass
from sim.simulator import prepare, simulate
from tapeflow_dialects import layer, region, stream
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import bind_arguments
from targets.hardware import configure

KERNELS = Path(__file__).parent / "kernels"
NAMES = sorted(p.stem for p in KERNELS.glob("*.mlir"))


def parse(name: str) -> ModuleOp:
    path = KERNELS / f"{name}.mlir"
    return LocatingParser(make_context(), path.read_text(), str(path)).parse_module()


def shapes(module: ModuleOp) -> list[tuple[int, ...]]:
    found = []
    for arg in function_named(module, "f").body.block.args:
        assert isinstance(arg.type, MemRefType), "the kernels take memrefs only"
        found.append(tuple(arg.type.get_shape()))
    return found


def _differentiated(name: str) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """The Enzyme stage and the caller's inputs (primal values and seeds, by the
    caller's argument positions)."""
    module = parse(name)
    TapeflowEnzymePass().apply(make_context(), module)
    module.verify()
    rng = np.random.default_rng(sum(map(ord, name)))
    given = {}
    for i, shape in enumerate(shapes(module)):
        given[f"arg{2 * i}"] = rng.uniform(-1.5, 1.5, shape)
        given[f"arg{2 * i + 1}"] = rng.uniform(-1.0, 1.0, shape)
    return module, given


enzyme_stage = EnzymeStages(_differentiated)


@pytest.mark.parametrize("name", NAMES)
def test_enzyme_gradient_equals_central_differences(name: str) -> None:
    module, _, _ = enzyme_stage(name)
    assert_dup_gradient(enzyme_stage, name, len(shapes(module)))


(
    test_raise_tape_keeps_the_values,
    test_pipeline_keeps_the_values,
    test_simulator_keeps_the_values,
    test_recompute_keeps_the_values,
) = stage_tests(enzyme_stage, NAMES)


def test_a_non_mirrored_cache_is_kept_and_the_rest_layered() -> None:
    """The loop-invariant cache read through remsi stays a region
    (marked with the reason); the two mirrored tapes are still tiled and streamed."""
    module, _, _ = enzyme_stage("invariant_cache_remsi")
    TapeflowPipelinePass(spad_bytes=64, stream="always").apply(make_context(), module)
    kept = [op for op in module.walk() if isinstance(op, region.AllocOp)]
    assert len(kept) == 1 and region.KEPT in kept[0].attributes
    assert "do not mirror" in kept[0].attributes[region.KEPT].data  # type: ignore[attr-defined]
    fwd = [
        op for op in module.walk() if isinstance(op, layer.LayerOp) and op.phase.data.value == "fwd"
    ]
    assert len(fwd) == 2
    assert len([op for op in module.walk() if isinstance(op, stream.AllocOp)]) == 2


def test_an_i1_slot_takes_one_word_everywhere() -> None:
    """A tape of an f64 and an i1 per iteration (8 iterations) is
    8 x 2 words = 128 bytes in the DRAM stream tape, in the scratchpad tiles the
    streams move, and in the simulator's stream traffic and tape size."""
    module, given, _ = enzyme_stage("branch_cached_condition")
    TapeflowPipelinePass(spad_bytes=64, stream="always").apply(make_context(), module)
    (alloc,) = [op for op in module.walk() if isinstance(op, stream.AllocOp)]
    assert alloc.bytes.value.data == 8 * 2 * 8

    module, given, _ = enzyme_stage("branch_cached_condition")
    hardware = configure("Tflow1k")
    tape_bytes = prepare(make_context(), module, "tapeflow", hardware)
    caller = function_named(module, "f_grad")
    report = simulate(module, "f_grad", bind_arguments(caller, given), hardware, tape_bytes).report
    assert tape_bytes == 8 * 2 * 8
    assert (report["streams"]["write_bytes"], report["streams"]["read_bytes"]) == (128, 128)
