"""
Kernels with loops of run-time trip count pass every stage: triangular
SYRK (PolyBench, a nest whose inner trip count is the outer index) and logsum
over a run-time length `n` (a loop bounded by an argument, on a buffer of dynamic
shape).

- The Enzyme stage's gradient equals autograd's on the numpy primal
  (`Kernel.expected`) and central differences of that primal.
- Every later stage -- the raised tape, `tapeflow-pipeline` at 64, 512 and 4096
  bytes with unroll 1 and 2, and the simulator's enzyme, aos and tapeflow
  variants -- computes exactly the Enzyme stage's values (the passes move tape
  data, never arithmetic).
- What each kernel's tape becomes is checked too: logsum's loop is strip-mined
  with a run-time number of tiles and streamed through a slab tape; SYRK's
  triangle is strip-mined within each outer iteration (where a tile fits).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from stage_checks import (
    assert_kernel_gradient_is_the_reference,
    kernel_enzyme_outputs,
    kernel_inputs,
    same_bits,
)
from xdsl.dialects.builtin import ModuleOp

from lowering.pipelines import parse_pipeline
from lowering.tapeflow_layers import layer_module
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from sim.simulator import prepare, simulate
from tapeflow_benchmarks.kernels import EXTRA_KERNELS
from tapeflow_dialects import region, stream, tape
from tapeflow_tools.context import make_context
from tapeflow_tools.frontend import parse_module_text
from tapeflow_tools.tapeflow_run import bind_arguments, run_function
from targets.hardware import configure

PRESET = "small"
KEYS = list(EXTRA_KERNELS)


def _inputs(key: str) -> dict[str, np.ndarray]:
    return kernel_inputs(EXTRA_KERNELS[key], PRESET)


@cache
def _enzyme_outputs(key: str) -> dict[str, np.ndarray]:
    return kernel_enzyme_outputs(EXTRA_KERNELS[key], PRESET)


def _assert_same(got: dict[str, np.ndarray], key: str, stage: str) -> None:
    problem = same_bits(got, _enzyme_outputs(key))
    assert problem is None, f"{key} at {stage}: {problem}"


@pytest.mark.parametrize("key", KEYS)
def test_the_enzyme_gradient_equals_autograd_and_central_differences(key: str) -> None:
    assert_kernel_gradient_is_the_reference(EXTRA_KERNELS[key], PRESET, _enzyme_outputs(key))


@pytest.mark.parametrize("key", KEYS)
def test_the_raised_tape_computes_the_enzyme_values(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    module = differentiated(key)
    reports = raise_module(module)
    module.verify()
    tapes = [op.tape.type for op in module.walk() if isinstance(op, tape.AllocOp)]
    assert tapes and all(not t.is_static() for t in tapes)  # sized at run time
    # A trip count that is an argument: no count before the run. syrk_tri's
    # triangle (N = 8, M = 4) is counted packed: i+1 entries per row, so
    # 4 * (1 + ... + 8) = 144 for each of the two [i, k, j] tapes, 36 for [i, j].
    packed = {"syrk_tri": 144 + 144 + 36}
    if key in packed:
        assert [r.values for r in reports if r.tapes] == [packed[key]]
    else:
        assert all(r.dynamic == len(r.tapes) for r in reports if r.tapes)
    _assert_same(run_function(module, f"{key}_grad", _inputs(key)), key, "raise")


@pytest.mark.parametrize("unroll", [1, 2])
@pytest.mark.parametrize("spad", [64, 512, 4096])
@pytest.mark.parametrize("key", KEYS)
def test_every_pipeline_computes_the_enzyme_values(
    key: str, spad: int, unroll: int, differentiated: Callable[[str], ModuleOp]
) -> None:
    module = differentiated(key)
    parse_pipeline(f"tapeflow-pipeline{{spad-bytes={spad} unroll={unroll}}}").apply(
        make_context(), module
    )
    module.verify()
    _assert_same(
        run_function(module, f"{key}_grad", _inputs(key)), key, f"pipeline {spad} B x{unroll}"
    )


@pytest.mark.parametrize("unroll", [1, 2])
@pytest.mark.parametrize("variant", ["enzyme", "aos", "tapeflow"])
@pytest.mark.parametrize("key", KEYS)
def test_every_simulated_variant_computes_the_enzyme_values(
    key: str, variant: str, unroll: int, differentiated: Callable[[str], ModuleOp]
) -> None:
    hardware = configure("Tflow2k" if variant == "tapeflow" else "Enzyme32k")
    module = differentiated(key)
    tape_bytes = prepare(make_context(), module, variant, hardware, unroll)
    caller = next(
        f for f in module.ops if getattr(f, "sym_name", None) and f.sym_name.data == f"{key}_grad"
    )
    args = bind_arguments(caller, {k: v.copy() for k, v in _inputs(key).items()})
    result = simulate(module, f"{key}_grad", args, hardware, tape_bytes)
    _assert_same(result.outputs, key, f"simulator {variant} x{unroll}")
    report = result.report
    assert report["cycles"]["total"] > 0
    if variant != "tapeflow":
        assert report["slabs"] == report["tape_high_water_bytes"] == 0


def test_logsum_n_is_strip_mined_at_run_time_and_streams_through_slabs(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    key = "logsum_n"
    n = EXTRA_KERNELS[key].sizes[PRESET]["n"]
    module = differentiated(key)
    raise_module(module)
    form_regions(module)
    (report,) = layer_module(module, 64)
    assert not report.kept
    (record,) = report.layers
    assert record.run_time and record.tiled and (record.rows, record.slots) == (4, 2)
    # In the simulator: tiles of 4 iterations, ceil(13 / 4) = 4 of them, the last
    # of one iteration; every FWD tile is pushed before REV pops one, so the
    # tape's high-water mark is the whole tape, n iterations of 2 entries.
    hardware = configure("Tflow2k", spad_bytes=64)
    module = differentiated(key)
    prepare(make_context(), module, "tapeflow", hardware)
    assert any(op.slab_bytes for op in module.walk() if isinstance(op, stream.AllocOp))
    caller = next(
        f for f in module.ops if getattr(f, "sym_name", None) and f.sym_name.data == f"{key}_grad"
    )
    args = bind_arguments(caller, {k: v.copy() for k, v in _inputs(key).items()})
    result = simulate(module, f"{key}_grad", args, hardware, 0)
    _assert_same(result.outputs, key, "simulator tapeflow 64 B")
    assert result.report["tape_high_water_bytes"] == n * 2 * 8
    assert result.report["slabs"] == 1  # 208 bytes fit one 4096-byte slab
    assert (
        result.report["streams"]["write_bytes"]
        == result.report["streams"]["read_bytes"]
        == n * 2 * 8
    )


def test_syrk_tri_is_strip_mined_per_outer_iteration(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    """The triangle's inner loops (trip count i + 1) are cut into tiles at run
    time within each run of the loops around them (their REV mirrors proven for
    all i), at every scratchpad size: 2 values per iteration in the accumulation
    nest, 1 in the activation loop."""
    module = differentiated("syrk_tri")
    raise_module(module)
    form_regions(module)
    regions = [op.region.type for op in module.walk() if isinstance(op, region.AllocOp)]
    assert regions and all(not r.is_static() for r in regions)
    (report,) = layer_module(module.clone(), 512)
    assert not report.kept
    assert len(report.layers) == 2 and all(r.run_time for r in report.layers)
    (small,) = layer_module(module, 64)
    assert not small.kept
    assert [(r.rows, r.slots, r.tile_iterations) for r in small.layers] == [(4, 2, 4), (8, 1, 8)]


def test_a_triangular_nest_with_a_run_time_bound_is_layered() -> None:
    """PolyBench's upper-triangle shape (`j = i+1 .. n`) with `n` an argument:
    both trip counts are run-time values and REV's inner lower bound is computed
    from the mirrored outer index; proven, layered, and equal to Enzyme's values."""
    from pathlib import Path

    from lowering.tapeflow_enzyme import TapeflowEnzymePass
    from tapeflow_tools.frontend import parse_module_text

    path = Path(__file__).resolve().parents[1] / "sim" / "dynamic_kernels" / "triangular.mlir"
    ctx = make_context()
    module = parse_module_text(ctx, path.read_text(), str(path))
    TapeflowEnzymePass().apply(ctx, module)
    rng = np.random.default_rng(5)
    n = 7
    A, C, seed = rng.uniform(-1, 1, (n, 4)), rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, (n, n))
    inputs = {"arg0": A, "arg2": C, "arg3": seed, "arg4": np.array(n), "arg1": np.zeros((n, 4))}
    want = run_function(module.clone(), "tri_grad", {k: v.copy() for k, v in inputs.items()})
    staged = module.clone()
    raise_module(staged)
    form_regions(staged)
    (report,) = layer_module(staged, 512)
    assert not report.kept and report.layers[0].run_time
    for spad in (64, 512, 4096):
        lowered = module.clone()
        parse_pipeline(f"tapeflow-pipeline{{spad-bytes={spad}}}").apply(make_context(), lowered)
        got = run_function(lowered, "tri_grad", {k: v.copy() for k, v in inputs.items()})
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value, err_msg=f"{spad} B: {name}")


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 8, 9])
def test_every_trip_count_streams_exactly_in_tiles_of_four(n: int) -> None:
    # test/filecheck's run-time-loops: region %a is strip-mined into tiles of 4
    # iterations at 64 B, REV's tile loop running over each tile's end from the
    # first, partial tile's end, (n - 1) rem 4 + 1, to that plus n. Every trip
    # count from none to two tiles and one over, the first REV tile partial or
    # whole, computes the region stage's dx bit for bit, and dx is what the
    # function computes, worked out by hand: dx[i] = x[i] (region %b's loops),
    # plus x[i] * sin(x[i]) (region %a's).
    path = Path(__file__).parents[1] / "filecheck/passes/tapeflow-layers/Inputs/run-time-loops.mlir"
    ctx = make_context()
    x = np.random.default_rng(n).standard_normal(n)
    given = {"arg0": x, "arg1": np.zeros(n), "arg2": np.array(n)}
    regions = parse_module_text(ctx, path.read_text(), str(path))
    expected = run_function(regions, "diffeg", {k: v.copy() for k, v in given.items()})
    streamed = parse_module_text(ctx, path.read_text(), str(path))
    spec = "tapeflow-layers{spad-bytes=64},tapeflow-streams,tapeflow-spad-bind"
    parse_pipeline(spec).apply(ctx, streamed)
    assert sum(isinstance(op, stream.RevOp) for op in streamed.walk()) == 1
    got = run_function(streamed, "diffeg", {k: v.copy() for k, v in given.items()})
    assert same_bits(got, expected) is None
    np.testing.assert_allclose(got["arg1"], x + x * np.sin(x), rtol=1e-12)
