"""
`LoopBody.of` (the body as the modulo scheduler reads it) finds, for real
kernels' loop bodies and the scheduler tests' random bodies, exactly what a
plain reading of its rules finds op by op: each op's operands made in the
body (by position), the stores through which an iteration may feed the next's
loads (`carried_memory`) and each access's key (`access_keys`). The reference
below is that plain reading (every op's operands through `op.operands`, each
op's class tested with `isinstance`, ops compared by equality).
"""

from __future__ import annotations

import pytest
from test_cgra_scheduler import HARDWARE, _body
from xdsl.dialects import memref, scf
from xdsl.ir import Operation, SSAValue

from lowering.ir.index_offsets import LinearForms
from lowering.scheduling.body import LoopBody, _same_iteration_element, is_store
from sim.models import MODELS
from sim.simulator import prepare
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import region
from tapeflow_dialects.container_ops import SlotAccess
from tapeflow_tools.context import make_context
from targets.hardware import configure


def _reference_inputs(ops: list[Operation]) -> list[list[int]]:
    index = {op: n for n, op in enumerate(ops)}
    return [[index[v.owner] for v in op.operands if v.owner in index] for op in ops]


def _reference_memory(ops: list[Operation]) -> tuple[object, object]:
    stores: dict[SSAValue, list[Operation]] = {}
    at: dict[tuple[SSAValue, tuple[SSAValue, ...]], list[Operation]] = {}
    for op in ops:
        if isinstance(op, memref.StoreOp | region.StoreOp):
            stores.setdefault(op.operands[1], []).append(op)
            at.setdefault((op.operands[1], tuple(op.operands[2:])), []).append(op)
    loads = {}
    for op in ops:
        if isinstance(op, memref.LoadOp | region.LoadOp) and op.operands[0] in stores:
            buffer = op.operands[0]
            same = at.get((buffer, tuple(op.operands[1:])), ())
            loads[op] = (buffer, frozenset(s for s in same if _same_iteration_element(op, s)))
    return stores, loads


def _reference_keys(ops: list[Operation], buffers: list[SSAValue | None], disambiguate: bool):
    forms = LinearForms()
    keys = []
    for op, buffer in zip(ops, buffers, strict=True):
        if buffer is None:
            keys.append(None)
        elif not disambiguate:
            keys.append((buffer, (), ()))
        else:
            indices = op.operands[2:] if is_store(op) else op.operands[1:]
            slot = op.slot_index if isinstance(op, SlotAccess) else None
            key = forms.key(list(indices), slot)
            keys.append(((buffer, key.slot), key.symbolic, key.offsets))
    return keys


def _check(ops: list[Operation], hardware) -> None:  # type: ignore[no-untyped-def]
    body = LoopBody.of(ops, hardware)
    assert body.inputs == _reference_inputs(ops)
    stores, loads = _reference_memory(ops)
    assert list(body.memory.stores.items()) == list(stores.items())  # type: ignore[attr-defined]
    assert list(body.memory.loads.items()) == list(loads.items())  # type: ignore[attr-defined]
    assert body.keys == _reference_keys(ops, body.buffers, hardware.mapping.disambiguate)
    assert body.stores == [is_store(op) for op in ops]


def test_random_bodies() -> None:
    carried = 0
    for seed in range(12):
        ops, _ = _body(500 + seed, 10 + 4 * seed)
        for hardware in HARDWARE:
            _check(ops, hardware)
        carried += bool(LoopBody.of(ops, HARDWARE[0]).memory.loads)
    assert carried >= 3  # loads a store of the iteration before may feed


def _unlowered_loops(
    kernel: str, variant: str, unroll: int
) -> tuple[list[list[Operation]], object]:
    """The innermost loop bodies of the kernel after every pass but the placement
    (`tapeflow-to-cgra` made to stop before placing)."""
    import lowering.tapeflow_to_cgra as to_cgra

    ctx = make_context()
    module = parse_kernel(ctx, kernel, "small")
    preset = "Tflow32k" if variant == "tapeflow" else "Enzyme32k"
    hardware = MODELS["cgra"].hardware(configure(preset))
    bodies: list[list[Operation]] = []
    original = to_cgra.lower_module

    def capture(module, hw):  # type: ignore[no-untyped-def]
        for op in module.walk():
            if isinstance(op, scf.ForOp) and not any(
                isinstance(o, scf.ForOp) for o in op.body.walk()
            ):
                bodies.append(list(op.body.block.ops)[:-1])
        return original(module, hw)

    to_cgra.lower_module = capture
    try:
        prepare(ctx, module, variant, hardware, unroll)
    finally:
        to_cgra.lower_module = original
    return bodies, hardware


@pytest.mark.parametrize(
    ("kernel", "variant", "unroll"),
    [("pathfinder", "tapeflow", 8), ("nn", "aos", 2), ("logsum", "enzyme", 4)],
)
def test_kernel_bodies(kernel: str, variant: str, unroll: int) -> None:
    bodies, hardware = _unlowered_loops(kernel, variant, unroll)
    assert bodies
    for ops in bodies:
        _check(ops, hardware)
