"""A run's kernels share their functions' adjoints (`FunctionAdjoints`, the salam
model's `planner`): the same lockstep schedules as finding them anew for each
kernel, with the adjoints found once per gradient function."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import Float64Type

import sim.models.salam.enzyme_llvm as enzyme_llvm
from sim.models import get_model
from sim.models.salam.enzyme_llvm import FunctionAdjoints
from sim.models.salam.lockstep import kernel_schedule
from sim.models.salam.machine import SALAM
from sim.simulator import prepare
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import cgra
from tapeflow_tools.context import make_context
from targets.hardware import configure


def test_shared_adjoints_give_every_kernel_the_same_schedule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx = make_context()
    module = parse_kernel(ctx, "logsum", "small")
    hardware = get_model("salam").hardware(configure("Enzyme32k"))
    assert hardware.datapath.adjoint_additions
    prepare(ctx, module, "enzyme", hardware, unroll=1 << 30, model="salam")
    kernels = [op for op in module.walk() if isinstance(op, cgra.KernelOp)]
    alone = [kernel_schedule(k, hardware, SALAM) for k in kernels]
    built = []
    found = enzyme_llvm._Adjoints.__init__  # noqa: SLF001 -- counted, not changed

    def counted(self: object, function: object) -> None:
        built.append(function)
        found(self, function)  # type: ignore[arg-type]

    monkeypatch.setattr(enzyme_llvm._Adjoints, "__init__", counted)  # noqa: SLF001
    shared = FunctionAdjoints()
    together = [kernel_schedule(k, hardware, SALAM, shared) for k in kernels]
    assert together == alone
    assert len(kernels) > len(set(built)) >= 1  # several kernels, one walk per function
    assert len(built) == len(set(built))


def test_an_added_fadd_is_the_constructors() -> None:
    """`_fadd` makes its op with `create` from a template's properties: the op
    the full constructor makes, and a new one each time."""
    made = enzyme_llvm._fadd()
    built = cgra.ComputeOp("arith.addf", [], [Float64Type()], (0, 0), 0)
    assert made.properties == built.properties
    assert made.attributes == built.attributes == {}
    assert [r.type for r in made.results] == [r.type for r in built.results]
    assert list(made.operands) == list(built.operands) == []
    assert made.opcode.data == "arith.addf" and made.cycle.value.data == 0
    assert made.pe() == (0, 0)
    other = enzyme_llvm._fadd()
    assert other is not made and other.results[0] is not made.results[0]
