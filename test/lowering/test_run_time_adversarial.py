"""
Adversarial cases for the symbolic mirror proof of `lowering.layers.run_time`:
gradients (at the tape stage, edited from `run_time_adversarial/fptosi_tape.mlir`,
the tape of a trip count computed from data) whose REV computes its trip count,
or whose FWD its tape index, in a way that looks like FWD's to a proof that
forgets what an op's types say or what an index op depends on. The proof must
refuse each (the region stays in DRAM, read through the cache) and the pipeline
must compute the tape stage's bits (the reference executor runs the tape stage
itself):

- `narrow`: REV casts the cached count to `i8` and back (`index_cast` that
  narrows is not the same integer);
- `trunci`: FWD runs `trunci` of the count to `i16`, REV to `i8` (the same op of
  the same operand, another result type);
- `repeat_float` and `repeat_divsi`: FWD stores at `k - floor(k / 2)` (through
  `sitofp`, `mulf`, `fptosi`; through `divsi`), which repeats elements, and REV
  reads at that index of the mirrored `k`: an index whose atom depends on the
  loop's own variable is not injective for having a coefficient of 1.

And primal kernels (`run_time_adversarial/*.mlir`, each saying what it probes)
whose trip counts are computed from data FWD overwrites, carries, reads at two
iterations or compares, through Enzyme: kept as Enzyme's buffers or proven and
streamed, with the Enzyme stage's bits, which match central differences.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stage_checks import central_difference_gradients, differentiate, same_bits

from lowering.pipelines import parse_pipeline
from lowering.tapeflow_layers import layer_module
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

HERE = Path(__file__).parent / "run_time_adversarial"
TAPE = (HERE / "fptosi_tape.mlir").read_text()
SCALE = "%cst_2 = arith.constant 3.000000e+00 : f64"

REV_LOOP = """      %30 = scf.for %arg5_1 = %c0 to %28 step %c1 iter_args(%arg6_1 = %29) -> (f64) {
        %31 = arith.subi %28, %c1 : index"""
FWD_LOOP = """      %21 = arith.constant 0 : index
      %22 = arith.maxsi %20, %21 : index
      %23 = scf.for %arg5 = %c0 to %20 step"""
FLOOR_HALF = {
    "repeat_float": """        %ki = arith.index_cast K : index to i64
        %kf = arith.sitofp %ki : i64 to f64
        %kh = arith.mulf %kf, %half : f64
        %kq = arith.fptosi %kh : f64 to i64
        %q = arith.index_cast %kq : i64 to index
        %h = arith.subi K, %q : index
""",
    "repeat_divsi": """        %q = arith.divsi K, %c2 : index
        %h = arith.subi K, %q : index
""",
}


def _rev_bound(text: str, lines: str) -> str:
    """REV's inner loop runs to `%b28`, computed from the cached count `%28` by `lines`."""
    loop = REV_LOOP.replace("to %28", "to %b28").replace("subi %28", "subi %b28")
    return text.replace(REV_LOOP, lines + "\n" + loop)


def _variant(name: str) -> str:
    text = TAPE
    if name in ("narrow", "trunci"):
        # counts up to 271 (|x| * 300 + 1): past i8, within i16
        text = text.replace(SCALE, SCALE.replace("3.000000e+00", "3.000000e+02"))
    if name == "narrow":
        return _rev_bound(
            text,
            """      %n28 = arith.index_cast %28 : index to i8
      %b28 = arith.index_cast %n28 : i8 to index""",
        )
    if name == "trunci":
        text = _rev_bound(
            text,
            """      %i28 = arith.index_cast %28 : index to i64
      %n28 = arith.trunci %i28 : i64 to i8
      %e28 = arith.extsi %n28 : i8 to i64
      %b28 = arith.index_cast %e28 : i64 to index""",
        )
        return text.replace(
            FWD_LOOP,
            """      %i20 = arith.index_cast %20 : index to i64
      %n20 = arith.trunci %i20 : i64 to i16
      %e20 = arith.extsi %n20 : i16 to i64
      %b20 = arith.index_cast %e20 : i64 to index
"""
            + FWD_LOOP.replace("to %20", "to %b20"),
        )
    if name in FLOOR_HALF:
        # counts up to 9: rows of repeated elements
        text = text.replace(SCALE, SCALE.replace("3.000000e+00", "9.000000e+00"))
        text = text.replace(
            "%cst_3 = arith.constant 0.000000e+00 : f64",
            "%cst_3 = arith.constant 0.000000e+00 : f64\n"
            "    %half = arith.constant 5.000000e-01 : f64\n"
            "    %c2 = arith.constant 2 : index",
        )
        half = FLOOR_HALF[name]
        text = text.replace(
            "        tape.store %arg6, %14[%arg4, %arg5] id 1",
            half.replace("K", "%arg5") + "        tape.store %arg6, %14[%arg4, %h] id 1",
        )
        return text.replace(
            "        %33 = tape.load %14[%27, %32]",
            half.replace("K", "%32") + "        %33 = tape.load %14[%27, %h]",
        )
    assert name == "as_is"
    return text


NAMES = ["narrow", "trunci", "repeat_float", "repeat_divsi"]
REFUSED = {
    "narrow": "REV's loops do not run FWD's trip counts at mirrored iterations",
    "trunci": "REV's loops do not run FWD's trip counts at mirrored iterations",
    "repeat_float": "FWD may write some tape element more than once",
    "repeat_divsi": "FWD may write some tape element more than once",
}
INPUTS = {
    "arg0": np.array([0.9, 0.2, 0.7, 0.5]),
    "arg1": np.zeros(4),
    "arg2": np.zeros(4),
    "arg3": np.array([0.3, -0.8, 0.5, 1.1]),
}


def _parsed(name: str):
    return LocatingParser(make_context(), _variant(name), f"{name}.mlir").parse_module()


def _run(module) -> dict[str, np.ndarray]:
    return run_function(module, "fptosi_grad", {k: v.copy() for k, v in INPUTS.items()})


def _report(name: str):
    module = _parsed(name)
    form_regions(module)
    (report,) = layer_module(module, 64)
    return report


def test_the_edits_apply() -> None:
    for name in NAMES:
        assert _variant(name) != TAPE, name


def test_the_unedited_tape_is_streamed() -> None:
    report = _report("as_is")
    assert not report.kept, report.table()
    assert any(layer.run_time for layer in report.layers), report.table()


@pytest.mark.parametrize("name", NAMES)
def test_the_proof_refuses(name: str) -> None:
    report = _report(name)
    (kept,) = report.kept
    assert "!region.region<4x?, [f64]>" in kept.region, report.table()
    assert REFUSED[name] in kept.reason, report.table()


@pytest.mark.parametrize("spad", [64, 512])
@pytest.mark.parametrize("name", ["as_is", *NAMES])
def test_the_pipeline_computes_the_tape_stage_values(name: str, spad: int) -> None:
    want = _run(_parsed(name))
    module = _parsed(name)
    parse_pipeline(f"tapeflow-pipeline{{spad-bytes={spad}}}").apply(make_context(), module)
    module.verify()
    problem = same_bits(_run(module), want)
    assert problem is None, f"{name} at {spad} B: {problem}"


# Primal kernels whose trip counts are computed from data in ways FWD and REV
# could see differently (each file says what it probes). Where the data is
# overwritten or carried, Enzyme's per-iteration buffers have extents
# `tapeflow-raise-tape` cannot compute before the forward sweep: they stay
# Enzyme's buffers (DRAM). Otherwise the nested tape reaches the mirror proof,
# which proves it (REV loads the cached count, or recomputes it from cached
# values through index ops) and it is streamed.
KEPT_BY_RAISE = ["overwrite", "neighbours", "shared", "carried", "band", "select", "down"]
STREAMED = ["neighbours_y", "select_y", "down_y", "band_y"]
X = np.array([0.9, -0.35, 1.7, 0.05, -1.2])
"""Counts 3 x: 2.7, -1.05, 5.1, 0.15, -3.6, none within 1e-6 of an integer."""
Y = np.array([0.3, -0.2, 0.5, 0.1])
SEED_Y = np.array([0.3, -0.8, 0.5, 1.1])


def _primal_text(name: str) -> str:
    return (HERE / f"{name}.mlir").read_text()


def _primal_inputs() -> dict[str, np.ndarray]:
    return {"arg0": X.copy(), "arg1": np.zeros(5), "arg2": Y.copy(), "arg3": SEED_Y.copy()}


def _enzyme_stage(name: str):
    return differentiate(_primal_text(name), f"{name}.mlir")


def _gradient_report(name: str):
    module = _enzyme_stage(name)
    (raised,) = raise_module(module)
    form_regions(module)
    (report,) = layer_module(module, 64)
    return raised, report


@pytest.mark.parametrize("name", KEPT_BY_RAISE)
def test_counts_of_overwritten_or_carried_data_stay_enzyme_buffers(name: str) -> None:
    raised, report = _gradient_report(name)
    # (a band caches two values per step: two such buffers)
    assert {buffer for buffer, _ in raised.kept} == {
        "%alloc (memref<4xmemref<?xf64>>)",
        "%alloc (memref<?xf64>)",
    }, raised.table()
    assert any("not computable before the forward sweep" in why for _, why in raised.kept)
    assert not report.kept, report.table()


@pytest.mark.parametrize("name", STREAMED)
def test_counts_of_cached_data_are_proven_and_streamed(name: str) -> None:
    raised, report = _gradient_report(name)
    assert not raised.kept, raised.table()
    assert not report.kept, report.table()
    nested = [layer for layer in report.layers if "4x?" in layer.region]
    assert nested and all(layer.run_time for layer in nested), report.table()


@pytest.mark.parametrize("spad", [64, 512])
@pytest.mark.parametrize("name", KEPT_BY_RAISE + STREAMED)
def test_the_pipeline_computes_the_enzyme_values(name: str, spad: int) -> None:
    want = run_function(_enzyme_stage(name), f"{name}_grad", _primal_inputs())
    module = _enzyme_stage(name)
    parse_pipeline(f"tapeflow-pipeline{{spad-bytes={spad}}}").apply(make_context(), module)
    module.verify()
    problem = same_bits(run_function(module, f"{name}_grad", _primal_inputs()), want)
    assert problem is None, f"{name} at {spad} B: {problem}"


@pytest.mark.parametrize("name", KEPT_BY_RAISE + STREAMED)
def test_the_enzyme_gradient_matches_central_differences(name: str) -> None:
    got = run_function(_enzyme_stage(name), f"{name}_grad", _primal_inputs())
    primal = LocatingParser(make_context(), _primal_text(name), f"{name}.mlir").parse_module()
    seeds = [np.zeros(5), SEED_Y]
    dx, dy = central_difference_gradients(primal, name, [X.copy(), Y.copy()], seeds)
    np.testing.assert_allclose(got["arg1"], dx, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got["arg3"], dy, rtol=1e-6, atol=1e-7)
