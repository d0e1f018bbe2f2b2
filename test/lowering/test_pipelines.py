"""
The variants' pipelines are spelled once (lowering/pipelines.py) and every user
runs that string: `tapeflow-opt -p tapeflow-variant{...}`, the simulator's
`prepare` and the benchmarks. Every IR transform is a registered pass with its own
FileCheck tests, and `tapeflow-to-cgra` schedules for the hardware it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path

import pytest
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr

from lowering import get_all_passes
from lowering.ir.facts import TAPE_BYTES, TIMING_MODEL
from lowering.ir.gradients import gradient_functions
from lowering.ir.stages import Stage, stage_of
from lowering.layers.records import layer_census
from lowering.pipelines import (
    VARIANTS,
    PipelineError,
    hardware_pipeline,
    lowering_passes,
    parse_pipeline,
    variant_pipeline,
)
from lowering.tapeflow_layers import layer_module
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from lowering.tapeflow_spad_bind import bind_module
from lowering.tapeflow_streams import stream_module
from lowering.tapeflow_to_cgra import TapeflowToCgraPass
from lowering.tapeflow_unroll import TapeflowUnrollPass, unroll_module
from lowering.tapeflow_variant import TapeflowVariantPass
from sim.kernel_compiler import is_kernel_loop
from sim.simulator import SimulationError, prepare
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_dialects import cgra
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from targets.hardware import PRESETS, configure
from targets.scheduling import HARDWARE_OPTIONS, hardware_options, mapping_options

ROOT = Path(__file__).resolve().parents[2]
GRADIENT = ROOT / "test" / "filecheck" / "passes" / "Inputs" / "gradient.mlir"
CGRA = (
    "tapeflow-to-cgra{rows=4 cols=4 fadd=5 fmul=4 fdiv=16 sqrt=16 transcendental=30 "
    "integer=1 hop=1 cache-hit-latency=2 cache-ports=2 spad-latency=1 spad-banks=8 "
    "place-straight-line=true disambiguate=true modulo-schedule=true}"
)


def gradient() -> ModuleOp:
    return LocatingParser(make_context(), GRADIENT.read_text(), str(GRADIENT)).parse_module()


def test_the_three_variants_spelled_out() -> None:
    tflow = PRESETS["Tflow32k"]
    assert hardware_pipeline("enzyme", tflow) == (
        f"tapeflow-enzyme,tapeflow-mark-tape-buffers,tapeflow-mark-rev-start,{CGRA}"
    )
    assert hardware_pipeline("enzyme", tflow, unroll=4) == (
        "tapeflow-enzyme,tapeflow-raise-tape,tapeflow-unroll{factor=4},tapeflow-pack-tapes,"
        f"tapeflow-sink-tape,tapeflow-mark-rev-start,{CGRA}"
    )
    assert hardware_pipeline("aos", tflow, unroll=2) == (
        "tapeflow-enzyme,tapeflow-raise-tape,tapeflow-unroll{factor=2},tapeflow-regions,"
        f"tapeflow-pack-tapes,tapeflow-mark-rev-start,{CGRA}"
    )
    assert hardware_pipeline("tapeflow", tflow) == (
        "tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,"
        "tapeflow-layers{spad-bytes=512 tiles-in-flight=2 loop-tiles-in-flight=4},"
        f"tapeflow-streams,tapeflow-spad-bind,tapeflow-pack-tapes,tapeflow-mark-rev-start,{CGRA}"
    )


def test_tapeflow_pipeline_is_the_tapeflow_variants_lowering() -> None:
    from lowering.tapeflow_pipeline import TapeflowPipelinePass

    spec = TapeflowPipelinePass(spad_bytes=64, unroll=2, stats=True).pipeline_spec()
    assert spec == ",".join(lowering_passes("tapeflow", spad_bytes=64, unroll=2, stats=True))
    assert spec in variant_pipeline("tapeflow", spad_bytes=64, unroll=2, stats=True)
    assert TapeflowPipelinePass().pipeline_spec(raised=True) == (
        "tapeflow-regions,tapeflow-layers{spad-bytes=512},tapeflow-streams,tapeflow-spad-bind,"
        "tapeflow-pack-tapes"
    )


def test_every_variant_string_parses_into_registered_passes() -> None:
    for variant in VARIANTS:
        for unroll in (1, 3):
            spec = hardware_pipeline(variant, PRESETS["Tflow2k"], unroll, stats=True)
            names = [p.name for p in parse_pipeline(spec).passes]
            assert names[0] == "tapeflow-enzyme"
            assert names[-2:] == ["tapeflow-mark-rev-start", "tapeflow-to-cgra"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: lowering_passes("soa"), "unknown variant 'soa'"),
        (lambda: lowering_passes("aos", unroll=0), "option unroll must be at least 1, got 0"),
        (lambda: lowering_passes("enzyme", raised=True), "starts from Enzyme's cache buffers"),
    ],
)
def test_pipeline_errors_name_the_option(call: Callable[[], object], message: str) -> None:
    with pytest.raises(PipelineError, match=message):
        call()


def test_every_pass_has_its_module_and_its_filecheck_tests() -> None:
    for name, factory in get_all_passes().items():
        cls = factory()
        assert cls.name == name
        assert cls.__module__ == f"lowering.{name.replace('-', '_')}"
        tests = ROOT / "test" / "filecheck" / "passes" / name
        assert sorted(tests.glob("*.mlir")), f"no FileCheck test for {name}"


def test_hardware_options_cover_what_scheduling_reads() -> None:
    """Every option sets one field; giving all of a hardware's values gives that
    hardware's scheduling numbers back, whatever the preset."""
    custom = replace(
        PRESETS["Enzyme1k"],
        rows=3,
        cols=5,
        latencies=replace(
            PRESETS["Enzyme1k"].latencies,
            fadd=7,
            fmul=6,
            fdiv=20,
            sqrt=21,
            transcendental=40,
            integer=2,
            hop=3,
        ),
        cache=replace(PRESETS["Enzyme1k"].cache, hit_latency=4, ports=1),
        scratchpad=replace(PRESETS["Enzyme1k"].scratchpad, latency=2, banks=4),
    )
    options = hardware_options(custom)
    assert set(options) == set(HARDWARE_OPTIONS)
    assert options == {
        "rows": 3,
        "cols": 5,
        "fadd": 7,
        "fmul": 6,
        "fdiv": 20,
        "sqrt": 21,
        "transcendental": 40,
        "integer": 2,
        "hop": 3,
        "cache_hit_latency": 4,
        "cache_ports": 1,
        "spad_latency": 2,
        "spad_banks": 4,
    }
    scheduled = TapeflowToCgraPass(preset="Tflow32k", **options).hardware()
    assert (scheduled.rows, scheduled.cols) == (3, 5)
    assert scheduled.latencies == custom.latencies
    assert (scheduled.cache.hit_latency, scheduled.cache.ports) == (4, 1)
    assert (scheduled.scratchpad.latency, scheduled.scratchpad.banks) == (2, 4)
    # The pass's defaults are its preset's.
    assert TapeflowToCgraPass(preset="Tflow2k").hardware() == PRESETS["Tflow2k"]
    assert {f.name for f in fields(TapeflowVariantPass)} >= set(HARDWARE_OPTIONS)


def _kernel_iis(module: ModuleOp) -> list[int]:
    return [k.ii.value.data for k in module.walk() if isinstance(k, cgra.KernelOp)]


@pytest.mark.parametrize("fmul", [4, 13])
def test_the_simulator_schedules_for_the_hardware_it_simulates(
    fmul: int, differentiated: Callable[[str], ModuleOp]
) -> None:
    """logsum's FWD loop carries its product through one fmul, so its ii is the
    fmul latency; its REV loop carries an fmul and an fsub recurrence, so its ii is
    the longer of the two. On a 2x3 grid, every kernel says so."""
    hardware = configure("Enzyme32k", rows=2, cols=3)
    hardware = replace(hardware, latencies=replace(hardware.latencies, fmul=fmul))
    module = differentiated("logsum")
    prepare(make_context(), module, "enzyme", hardware)
    loops = [
        k.ii.value.data
        for k in module.walk()
        if isinstance(k, cgra.KernelOp) and is_kernel_loop(k.parent_op())
    ]
    assert loops == [fmul, max(fmul, hardware.latencies.fadd)]
    kernels = [k for k in module.walk() if isinstance(k, cgra.KernelOp)]
    assert all((k.rows.value.data, k.cols.value.data) == (2, 3) for k in kernels)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("unroll", [1, 2])
def test_the_simulator_and_tapeflow_variant_run_the_same_pipeline(
    variant: str, unroll: int, differentiated: Callable[[str], ModuleOp]
) -> None:
    hardware = configure("Tflow2k", rows=3, cols=2)
    simulated = differentiated("nn")
    prepare(make_context(), simulated, variant, hardware, unroll)
    optimized = differentiated("nn")
    TapeflowVariantPass(
        variant=variant,
        spad_bytes=512,
        unroll=unroll,
        **hardware_options(hardware),
        **mapping_options(hardware),
        tiles_in_flight=hardware.mapping.tiles_in_flight,
        loop_tiles_in_flight=hardware.mapping.loop_tiles_in_flight,
    ).apply(make_context(), optimized)
    # The simulator also records the tape it measured (`tapeflow-measure-tape`).
    (function,) = gradient_functions(simulated)
    raised = sum(r.bytes for r in raise_module(differentiated("nn")))
    assert function.attributes.pop(TAPE_BYTES) == IntegerAttr(raised, 64)
    assert function.attributes.pop(TIMING_MODEL) == StringAttr("cgra")
    assert str(simulated) == str(optimized)


def test_the_simulator_refuses_a_lowered_module(differentiated: Callable[[str], ModuleOp]) -> None:
    module = differentiated("logsum")
    raise_module(module)
    with pytest.raises(SimulationError, match="already lowered"):
        prepare(make_context(), module, "aos", configure("Enzyme32k"))


def test_each_pass_moves_the_gradient_one_stage() -> None:
    module = gradient()
    (function,) = gradient_functions(module)
    assert stage_of(function) is Stage.GRADIENT
    steps = [
        ("tapeflow-raise-tape", Stage.TAPE),
        ("tapeflow-regions", Stage.REGIONS),
        ("tapeflow-layers{spad-bytes=16 stream=always}", Stage.LAYERS),
        ("tapeflow-streams", Stage.STREAMS),
        ("tapeflow-spad-bind", Stage.BOUND),
    ]
    for spec, stage in steps:
        parse_pipeline(spec).apply(make_context(), module)
        assert stage_of(function) is stage, spec
    baseline = gradient()
    parse_pipeline("tapeflow-mark-tape-buffers").apply(make_context(), baseline)
    assert stage_of(gradient_functions(baseline)[0]) is Stage.BASELINE


def test_a_huge_unroll_factor_is_capped_by_the_trip_count() -> None:
    """The factor is the largest divisor of the trip count up to the request, found
    without counting up to the request."""
    module = gradient()
    raise_module(module)
    (report,) = unroll_module(module, 10**11)
    assert report.factors == [4, 4]  # both loops of 4 iterations, fully unrolled
    again = gradient()
    raise_module(again)
    TapeflowUnrollPass(factor=4).apply(make_context(), again)
    assert str(module) == str(again)


@pytest.mark.parametrize("key", KERNELS)
def test_the_layer_census_counts_what_the_layers_pass_made(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    """The benchmarks read the layer count off the final IR; it must equal the
    count tapeflow-layers reports when it cuts the layers."""
    module = differentiated(key)
    raise_module(module)
    form_regions(module)
    (report,) = layer_module(module, 128)
    stream_module(module)
    bind_module(module)
    census = layer_census(gradient_functions(module)[0])
    assert (census.pairs, census.executed) == (len(report.layers), report.dynamic_layers)


def test_recompute_runs_right_after_differentiation() -> None:
    spec = variant_pipeline("enzyme", recompute=True)
    assert spec.startswith("tapeflow-enzyme,tapeflow-recompute-loads,tapeflow-mark-tape-buffers,")
    assert "tapeflow-recompute-loads" not in variant_pipeline("enzyme")
