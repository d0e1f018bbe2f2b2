"""
`tapeflow-unroll` on the nine benchmark kernels at `small` size.

Unrolling changes the schedule, not the arithmetic: the unrolled module must verify
and leave exactly what the raised module leaves (primal outputs, shadows, returned
value). The executor reads a tape element wherever it was written, whatever the
load's `from` says, so equal gradients alone would not catch a wrong FWD-to-REV
link. Every run therefore goes through `witnessed`: each tape gets a twin tape into
which every store writes its own id, and each load reads the twin too and turns its
value into NaN unless the id found there is the one its `from` names. A wrong link
then poisons the gradient.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest
from stage_checks import differentiate
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import Float64Type, FloatAttr, IntegerAttr, ModuleOp
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.gradients import gradient_functions
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass
from lowering.tapeflow_regions import TapeflowRegionsPass
from lowering.tapeflow_unroll import TapeflowUnrollPass, unroll_module
from sim.simulator import prepare, simulate
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_dialects import region, tape
from tapeflow_tools.arguments import bind_arguments
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function
from targets.hardware import configure

PRESET = "small"
FACTORS = (2, 4)

# The factor of every unrolled loop, in program order, for each requested factor.
# A loop's factor divides its trip count and is shared by the loops it exchanges
# tape values with: nn's three-iteration max loop (REV) reads tapes written by a
# three- and a four-iteration FWD loop, so none of the three is unrolled; trip
# counts of 6 (matdescent) or 3 (lenet, massspring) take 3 when 4 is asked.
# gravity's inner loop runs over the H-1 = 7 slots of a folded pair of triangle
# rows (kernels/gravity.py): 7 is prime, so neither 2 nor 4 divides it and only
# full unrolling applies (test_gravity_unrolls_fully).
EXPECTED_FACTORS = {
    2: {
        "gravity": [],
        "nn": [2, 2, 2, 2, 2, 2],
        "logsum": [2, 2],
        "matdescent": [2, 2, 2, 2],
        "mttkrp": [2, 2],
        "somier": [2, 2],
        "lenet": [2, 2, 2, 2, 2, 2],
        "pathfinder": [2, 2, 2, 2, 2, 2],
        "massspring": [2, 2, 2, 2, 2, 2],
    },
    4: {
        "gravity": [],
        "nn": [4, 4, 4, 4, 4, 4],
        "logsum": [4, 4],
        "matdescent": [4, 3, 3, 4],
        "mttkrp": [2, 2],
        "somier": [2, 2],
        "lenet": [2, 2, 2, 3, 3, 3, 3, 3, 3, 2, 2, 2],
        "pathfinder": [4, 4, 4, 4, 4, 4],
        "massspring": [4, 4, 3, 3, 2, 2, 3, 4, 4],
    },
}


@cache
def _raised(key: str) -> ModuleOp:
    ctx = make_context()
    module = LocatingParser(ctx, KERNELS[key].mlir(PRESET), f"{key}.mlir").parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    TapeflowRaiseTapePass().apply(ctx, module)
    module.verify()
    return module


def raised(key: str) -> ModuleOp:
    return _raised(key).clone()


def unrolled(key: str, factor: int) -> tuple[ModuleOp, list[int]]:
    module = raised(key)
    (report,) = unroll_module(module, factor)
    module.verify()
    return module, report.factors


def witnessed(module: ModuleOp) -> ModuleOp:
    """A clone of `module` whose loads yield NaN when their `from` is wrong."""
    module = module.clone()
    f64 = Float64Type()
    allocs = [op for op in module.walk() if isinstance(op, tape.AllocOp | region.AllocOp)]
    for alloc in allocs:
        container = alloc.results[0]
        if isinstance(alloc, tape.AllocOp):
            twin = tape.AllocOp(tape.TapeType(container.type.get_shape(), f64), "witness")
        else:
            slots = len(container.type.slot_types())
            twin = region.AllocOp(region.RegionType(container.type.get_shape(), [f64] * slots))
        Rewriter.insert_op(twin, InsertPoint.after(alloc))
        twin_value = twin.results[0]
        for use in list(container.uses):
            user = use.operation
            slot = (
                [user.slot.value.data] if isinstance(user, region.StoreOp | region.LoadOp) else []
            )
            if isinstance(user, tape.StoreOp | region.StoreOp):
                ident = user.id.value.data
                mark = arith.ConstantOp(FloatAttr(float(ident), f64))
                store = type(user)(mark.result, twin_value, user.indices, *slot, ident)
                Rewriter.insert_op([mark, store], InsertPoint.after(user))
            elif isinstance(user, tape.LoadOp | region.LoadOp):
                ident = user.store.value.data
                found = type(user)(twin_value, user.indices, *slot, ident)
                want = arith.ConstantOp(FloatAttr(float(ident), f64))
                same = arith.CmpfOp(found.result, want.result, "oeq")
                nan = arith.ConstantOp(FloatAttr(math.nan, f64))
                checked = arith.SelectOp(same.result, user.result, nan.result)
                Rewriter.insert_op([found, want, same, nan, checked], InsertPoint.after(user))
                for other in list(user.result.uses):
                    if other.operation is not checked:
                        other.operation.operands[other.index] = checked.result
            elif isinstance(user, tape.FreeOp | region.FreeOp):
                Rewriter.insert_op(type(user)(twin_value), InsertPoint.after(user))
    module.verify()
    return module


def run(key: str, module: ModuleOp) -> dict[str, np.ndarray]:
    inputs = KERNELS[key].inputs(PRESET)
    given = {f"arg{i}": a.copy() for i, a in enumerate(inputs)}
    return run_function(witnessed(module), f"{key}_grad", given)


@cache
def reference(key: str) -> dict[str, np.ndarray]:
    return run(key, raised(key))


def assert_same(key: str, got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert set(got) == set(want)
    for name in want:
        np.testing.assert_allclose(
            got[name], want[name], rtol=1e-12, atol=0, err_msg=f"{key}: {name}"
        )


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("key", KERNELS)
def test_unrolled_gradient_equals_raised(key: str, factor: int) -> None:
    module, factors = unrolled(key, factor)
    assert factors == EXPECTED_FACTORS[factor][key]
    loops = [op for op in gradient_functions(module)[0].walk() if isinstance(op, scf.ForOp)]
    # The kernels' loops all step by 1: an unrolled loop steps by its factor.
    steps = [op.step.op.value.value.data for op in loops]  # type: ignore[attr-defined]
    assert sorted(s for s in steps if s > 1) == sorted(factors)
    assert_same(key, run(key, module), reference(key))


@pytest.mark.parametrize("factor", [7, 1 << 30])
def test_gravity_unrolls_fully(factor: int) -> None:
    """A factor at or above the trip count unrolls the loop completely (Fig. 18's
    full unrolling asks for any factor that large): gravity's FWD and REV loops
    over the 7 slots become 7 copies of their bodies, stepping by 7."""
    module, factors = unrolled("gravity", factor)
    assert factors == [7, 7]
    assert_same("gravity", run("gravity", module), reference("gravity"))


@pytest.mark.parametrize("key", KERNELS)
def test_unrolled_regions_gradient_equals_raised(key: str) -> None:
    """After tapeflow-regions, region stores and loads are unrolled the same way."""
    module = raised(key)
    TapeflowRegionsPass().apply(make_context(), module)
    assert any(isinstance(op, region.StoreOp) for op in module.walk())
    (report,) = unroll_module(module, 4)
    module.verify()
    assert report.factors == EXPECTED_FACTORS[4][key]
    assert_same(key, run(key, module), reference(key))


def _ids(module: ModuleOp) -> tuple[list[int], list[int]]:
    (gradient,) = gradient_functions(module)
    ops = list(gradient.walk())
    return (
        [op.id.value.data for op in ops if isinstance(op, tape.StoreOp)],
        [op.store.value.data for op in ops if isinstance(op, tape.LoadOp)],
    )


def test_rev_copy_reads_the_mirrored_fwd_copy() -> None:
    """logsum by 4: REV copy k of each load names FWD copy 3-k of its store."""
    module, _ = unrolled("logsum", 4)
    stores, loads = _ids(module)
    # Two tapes (ids 0 and 1); copies 1..3 of store 0 are 2..4, of store 1 are 5..7.
    assert stores == [0, 1, 2, 5, 3, 6, 4, 7]
    assert loads == [4, 7, 3, 6, 2, 5, 0, 1]


def test_witness_catches_a_wrong_link() -> None:
    module, _ = unrolled("logsum", 2)
    first_load = next(op for op in module.walk() if isinstance(op, tape.LoadOp))
    # Tape %1 is written by ids 0 (copy 0) and 2 (copy 1), tape %2 by 1 and 3: point
    # the first REV copy at the other FWD copy's store of the same tape.
    wrong = {0: 2, 2: 0, 1: 3, 3: 1}[first_load.store.value.data]
    first_load.properties["from"] = IntegerAttr(wrong, 64)
    module.verify()
    outputs = run("logsum", module)
    assert any(np.isnan(v).any() for v in outputs.values())


def test_factor_one_leaves_the_module_unchanged() -> None:
    module = raised("gravity")
    TapeflowUnrollPass(factor=1).apply(make_context(), module)
    assert str(module) == str(_raised("gravity"))


def test_stats_line(capsys: pytest.CaptureFixture[str]) -> None:
    module = raised("matdescent")
    TapeflowUnrollPass(factor=4, stats=True).apply(make_context(), module)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "tapeflow-unroll: @diffematdescent: 4 loops unrolled (factors 4, 3, 3, 4)\n"
    )
    module = raised("matdescent")
    TapeflowUnrollPass(factor=4).apply(make_context(), module)
    assert capsys.readouterr().err == ""


def test_no_gradient_function_is_an_error() -> None:
    module = LocatingParser(make_context(), KERNELS["logsum"].mlir(PRESET), "x.mlir").parse_module()
    with pytest.raises(PassFailedException, match="no gradient function"):
        TapeflowUnrollPass(factor=2).apply(make_context(), module)


def test_factor_below_one_is_an_error() -> None:
    with pytest.raises(PassFailedException, match="factor must be at least 1"):
        TapeflowUnrollPass(factor=0).apply(make_context(), raised("logsum"))


@pytest.mark.parametrize(
    "trips, asked, ran", [(32, 3, 2), (32, 4, 4), (12, 5, 4), (7, 4, 1), (16, 1024, 16)]
)
def test_the_report_records_the_factor_that_ran(trips: int, asked: int, ran: int) -> None:
    """`unroll` in the hardware record is what the loops ran with (the largest
    divisor of the trip count up to the factor asked, computed here by hand),
    `unroll_requested` what was asked, `unroll_factors` each loop's (FWD, REV)."""
    text = f"""
func.func @f(%x: memref<{trips}xf64>) -> f64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {trips} : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (f64) {{
    %xi = memref.load %x[%i] : memref<{trips}xf64>
    %e = math.exp %xi : f64
    %m = arith.mulf %acc, %e : f64
    scf.yield %m : f64
  }}
  return %s : f64
}}
func.func @f_grad(%x: memref<{trips}xf64>, %d: memref<{trips}xf64>) -> f64 {{
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %d, %seed) <{{activity = [#enzyme.activity<enzyme_dup>], \
ret_activity = [#enzyme.activity<enzyme_active>]}}> : (memref<{trips}xf64>, memref<{trips}xf64>, \
f64) -> f64
  return %r : f64
}}
"""
    module = differentiate(text)
    hardware = configure("Tflow2k")
    tape_bytes = prepare(make_context(), module, "tapeflow", hardware, asked)
    caller = next(
        f for f in module.ops if getattr(f, "sym_name", None) and f.sym_name.data == "f_grad"
    )
    args = bind_arguments(caller, {"arg0": np.linspace(0.0, 0.1, trips)})
    report = simulate(
        module, "f_grad", args, hardware, tape_bytes, variant="tapeflow", unroll=asked
    ).report
    assert report["hardware"]["unroll"] == ran
    assert report["hardware"]["unroll_requested"] == asked
    assert report["unroll_factors"] == ([ran, ran] if ran > 1 else ([1, 1] if asked > 1 else []))
