"""
The stage checks read a function in one walk (`lowering.ir.stages._survey`):
`stage_of`, `all_regions_kept` and `is_placed` answer what separate walks of the
function answered (written out plainly here), on real kernels' gradients after
every pass of each variant's pipeline, including the stages a pass refuses.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import memref
from xdsl.dialects.builtin import StringAttr

from lowering.ir import stages
from lowering.ir.gradients import gradient_functions
from lowering.ir.stages import Stage
from lowering.pipelines import hardware_pipeline, parse_pipeline
from sim.models import MODELS
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import cgra, layer, region, stream, tape
from tapeflow_dialects.enzyme import TAPE_BUFFER
from tapeflow_tools.context import make_context
from targets.hardware import configure


def _plain_stage(function) -> Stage:
    """`stage_of` as separate walks read it."""
    seen = {type(op) for op in function.walk()}
    marked = any(
        isinstance(op, memref.AllocOp) and TAPE_BUFFER in op.attributes for op in function.walk()
    )
    live = any(
        isinstance(op, region.AllocOp) and region.KEPT not in op.attributes
        for op in function.walk()
    )
    if stream.FwdOp in seen or stream.RevOp in seen:
        return Stage.STREAMS if live else Stage.BOUND
    if layer.LayerOp in seen:
        return Stage.LAYERS
    if live:
        return Stage.REGIONS
    if region.AllocOp in seen:
        return Stage.BOUND
    if seen & {tape.AllocOp, tape.StoreOp, tape.LoadOp, tape.FreeOp}:
        return Stage.TAPE
    if marked:
        return Stage.BASELINE
    return Stage.GRADIENT


def _plain_all_kept(function) -> bool:
    return (
        not any(
            isinstance(op, region.AllocOp) and region.KEPT not in op.attributes
            for op in function.walk()
        )
        and any(isinstance(op, region.AllocOp) for op in function.walk())
        and not any(isinstance(op, layer.LayerOp) for op in function.walk())
    )


def _plain_placed(function) -> bool:
    return any(isinstance(op, cgra.KernelOp) for op in function.walk())


def _check(module) -> int:
    checked = 0
    for function in gradient_functions(module):
        survey = stages._survey(function)
        assert stages.stage_of(function) is _plain_stage(function)
        assert stages._stage(survey) is _plain_stage(function)
        assert stages.all_regions_kept(function) is _plain_all_kept(function)
        assert stages._all_kept(survey) is _plain_all_kept(function)
        assert survey.placed is _plain_placed(function) is stages.is_placed(function)
        checked += 1
    return checked


@pytest.mark.parametrize(
    "kernel, variant",
    [
        ("logsum", "tapeflow"),
        ("pathfinder", "tapeflow"),
        ("nn", "enzyme"),
        ("lenet", "aos"),
        ("gravity", "tapeflow"),
    ],
)
def test_every_stage_of_a_pipeline(kernel, variant):
    ctx = make_context()
    module = parse_kernel(ctx, kernel, "small")
    preset = "Enzyme32k" if variant == "enzyme" else "Tflow32k"
    hardware = MODELS["cgra"].lowering_hardware(MODELS["cgra"].hardware(configure(preset)), 0)
    passes = parse_pipeline("tapeflow-enzyme," + hardware_pipeline(variant, hardware)).passes
    seen_stages = set()
    for each in passes:
        each.apply(ctx, module)
        assert _check(module)
        seen_stages |= {stages.stage_of(f) for f in gradient_functions(module)}
    if variant == "tapeflow":
        assert {Stage.TAPE, Stage.REGIONS} <= seen_stages


def test_every_region_kept_and_a_marked_buffer():
    # Regions all kept (the stage tapeflow-layers leaves when no region streams)
    # and a buffer marked as the tape: the flags the walk sets one by one.
    ctx = make_context()
    module = parse_kernel(ctx, "logsum", "small")
    hardware = MODELS["cgra"].lowering_hardware(MODELS["cgra"].hardware(configure("Tflow32k")), 0)
    passes = parse_pipeline("tapeflow-enzyme," + hardware_pipeline("tapeflow", hardware)).passes
    for each in passes:
        if each.name == "tapeflow-layers":
            break
        each.apply(ctx, module)
    for function in gradient_functions(module):
        for op in function.walk():
            if isinstance(op, region.AllocOp):
                op.attributes[region.KEPT] = StringAttr("kept for the test")
    assert _check(module)
    assert any(stages.all_regions_kept(f) for f in gradient_functions(module))
    for function in gradient_functions(module):
        for op in function.walk():
            if isinstance(op, region.AllocOp):
                del op.attributes[region.KEPT]
                break
        assert _check(module)
