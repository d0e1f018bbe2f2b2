"""
What the simulator's wrappers (`sim.instrument`) and its generated code ask of an
op, read from tables filled once per op class: `_kind`, the name an op's class is
known by, against the op's own name; `TimingRecorder.op_cost`, remembered by op
class, name and regions, against `targets.costs.unscheduled_op_cost` asked anew,
on two machines whose latencies differ (each recorder remembers its own machine's
costs: the second machine's are not the first one's, nor after a recorder is
given another machine).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from sim import timing
from sim.instrument import _kind
from sim.simulator import prepare
from sim.timing import TimingRecorder
from sim.trace import MemoryTrace
from tapeflow_tools.context import make_context
from targets.costs import OpCost, unscheduled_op_cost
from targets.hardware import Hardware, Latencies, configure

KIND_OF_NAME = {
    "scf.for": "for",
    "cgra.kernel": "kernel",
    "stream.fwd": "fwd",
    "stream.rev": "rev",
    "layer.layer": "layer",
    "memref.load": "load",
    "tape.load": "tape_load",
    "memref.store": "store",
    "tape.store": "tape_store",
    "enzyme.load": "cache_load",
    "enzyme.store": "cache_store",
    "region.load": "region_load",
    "region.store": "region_store",
}
"""The ops `sim.instrument` treats apart, by the name MLIR prints them with."""


def _ops(key: str, variant: str, differentiated: Callable[[str], ModuleOp]) -> list[Operation]:
    """Every op of `key`'s Enzyme gradient and of its `variant` lowering."""
    gradient = differentiated(key)
    lowered = differentiated(key)
    prepare(make_context(), lowered, variant, configure("Tflow2k"))
    return [*gradient.walk(), *lowered.walk()]


@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
@pytest.mark.parametrize("key", ["lenet", "logsum", "pathfinder"])
def test_op_class_tables_answer_as_asked_anew(
    key: str, variant: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    ops = _ops(key, variant, differentiated)
    kinds = {op.name: _kind(op) for op in ops}
    assert kinds == {name: KIND_OF_NAME.get(name) for name in kinds}
    assert {"for", "kernel", "load", None} <= set(kinds.values())

    base = configure("Tflow2k")
    slower = replace(base, latencies=Latencies(fadd=9, fmul=7, fdiv=31, integer=3))
    recorders = [TimingRecorder(MemoryTrace(), machine) for machine in (base, slower)]
    for recorder in recorders:  # each recorder's table filled by its own asks
        for op in ops:
            assert recorder.op_cost(op) == unscheduled_op_cost(op, recorder.hardware)
    differ = [op for op in ops if recorders[0].op_cost(op) != recorders[1].op_cost(op)]
    assert differ, "the machines' latencies differ: some op must cost differently"
    for op in differ:  # a remembered cost is its own machine's
        assert recorders[1].op_cost(op) == unscheduled_op_cost(op, slower)
    recorders[0].hardware = slower  # a recorder given another machine forgets the first's
    assert all(recorders[0].op_cost(op) == unscheduled_op_cost(op, slower) for op in differ)


def test_op_costs_shared_by_the_runs_on_one_machine_object(
    differentiated: Callable[[str], ModuleOp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recorder on a machine object an earlier recorder filled the table of
    answers from it without asking `unscheduled_op_cost` again, the costs it was
    asked for on that machine; a recorder on an equal machine of its own fills
    its own table (and answers alike), and one on a machine of other latencies
    its own costs."""
    ops = _ops("logsum", "enzyme", differentiated)
    base = configure("Tflow2k")
    first = TimingRecorder(MemoryTrace(), base)
    expected = [unscheduled_op_cost(op, base) for op in ops]
    assert [first.op_cost(op) for op in ops] == expected
    with monkeypatch.context() as patched:
        patched.setattr(timing, "unscheduled_op_cost", _not_asked)
        again = TimingRecorder(MemoryTrace(), base)
        assert [again.op_cost(op) for op in ops] == expected
    asked: list[Operation] = []

    def counted(op: Operation, hardware: Hardware) -> OpCost | None:
        asked.append(op)
        return unscheduled_op_cost(op, hardware)

    monkeypatch.setattr(timing, "unscheduled_op_cost", counted)
    equal = replace(base)  # equal, another object
    assert equal == base and equal is not base
    assert [TimingRecorder(MemoryTrace(), equal).op_cost(op) for op in ops] == expected
    assert asked  # its own table, filled by its own asks
    slower = replace(base, latencies=Latencies(fadd=9, fmul=7, fdiv=31, integer=3))
    costs = [TimingRecorder(MemoryTrace(), slower).op_cost(op) for op in ops]
    assert costs == [unscheduled_op_cost(op, slower) for op in ops] != expected


def _not_asked(op: Operation, hardware: Hardware) -> OpCost | None:
    raise AssertionError(f"{op.name}'s cost asked anew on a machine whose table has it")


KIND_OF_PLACED = {"cgra.op": "compute", "cgra.load": "load", "cgra.store": "store"}
"""The placed ops the salam model's plan and `kernel_profile` tell apart, by name."""


@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
@pytest.mark.parametrize("key", ["logsum", "pathfinder"])
def test_placed_op_kinds_and_kernel_profiles_answer_as_asked_anew(
    key: str, variant: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    """`lockstep.kind_of` (by op class) names each op as its name says, and
    `kernel_profile` (which knows a placed op's kind by class and reads an
    access's path once) gives each kernel's length, op mix and scratchpad count
    as `op_latency` and the ops' own classes give them, on two machines."""
    from collections import Counter

    from sim.models.salam import lockstep
    from tapeflow_dialects import cgra
    from tapeflow_dialects.cgra import MemPath
    from targets.costs import kernel_profile, op_class, op_latency

    ops = _ops(key, variant, differentiated)
    names = {"compute": lockstep.COMPUTE, "load": lockstep.LOAD, "store": lockstep.STORE}
    for op in ops:
        assert lockstep.kind_of(op) == names.get(KIND_OF_PLACED.get(op.name, ""), lockstep.OTHER)
    kernels = [op for op in ops if isinstance(op, cgra.KernelOp)]
    assert kernels
    base = configure("Tflow2k")
    slower = replace(base, latencies=Latencies(fadd=9, fmul=7, fdiv=31, integer=3))
    for machine in (base, slower):
        for kernel in kernels:
            placed = [o for o in kernel.body.block.ops if isinstance(o, cgra.PlacedOp)]
            length = max((o.cycle.value.data + op_latency(o, machine) for o in placed), default=0)
            fu = Counter(op_class(o.opcode.data) for o in placed if isinstance(o, cgra.ComputeOp))
            memory = [o for o in placed if not isinstance(o, cgra.ComputeOp)]
            spad = sum(
                isinstance(o, cgra.LoadOp | cgra.StoreOp) and o.path.data == MemPath.SPAD
                for o in memory
            )
            profile = kernel_profile(kernel, machine)
            assert (profile.length, dict(profile.fu_ops), profile.memory_ops, profile.spad_ops) == (
                length,
                dict(fu),
                len(memory),
                spad,
            )
