"""Every op the simulator runs has a cost class, declared beside its meaning; an op
without one is refused, never timed as an integer op."""

from __future__ import annotations

import pytest
from xdsl.dialects import memref

import sim.impls  # noqa: F401  (registers every executor builder)
from sim.impls.registry import BUILDERS
from tapeflow_dialects.semantics import COST_CLASSES, OPS
from targets.costs import FU_CLASSES, OTHER_COST_CLASSES, UncostedOp, op_class
from targets.hardware import PRESETS


def test_every_op_of_the_semantics_table_declares_its_class() -> None:
    assert set(COST_CLASSES) == OPS
    assert set(COST_CLASSES.values()) <= set(FU_CLASSES)


def test_classes_by_hand() -> None:
    # The functional unit each kind of op runs on (Section V's FU latencies).
    expected = {
        "arith.addf": "fadd",
        "arith.cmpf": "fadd",
        "arith.mulf": "fmul",
        "math.fma": "fmul",
        "arith.divf": "fdiv",
        "math.sqrt": "sqrt",
        "math.exp": "transcendental",
        "math.powf": "transcendental",
        "arith.addi": "integer",
        "arith.select": "integer",
        "arith.index_cast": "integer",
        "math.absf": "integer",
        "scf.yield": "integer",
        "memref.dim": "integer",
    }
    assert {op: op_class(op) for op in expected} == expected


def test_every_op_the_executor_runs_in_a_timed_dialect_has_a_class() -> None:
    timed = [
        op.name
        for op in BUILDERS
        if op.name.split(".")[0] in ("arith", "math", "memref", "tape", "region", "stream")
    ]
    assert timed
    for name in timed:
        assert op_class(name) in FU_CLASSES, name


@pytest.mark.parametrize("op", ["arith.bitcast", "math.ctlz", "math.fpowi"])
def test_an_op_without_a_class_is_refused(op: str) -> None:
    assert op not in COST_CLASSES and op not in OTHER_COST_CLASSES
    with pytest.raises(UncostedOp, match=op):
        op_class(op)


def test_classes_have_latencies() -> None:
    hardware = PRESETS["Enzyme32k"]
    for cost_class in FU_CLASSES:
        assert getattr(hardware.latencies, cost_class) >= 1
    assert memref.DimOp.name in OTHER_COST_CLASSES
