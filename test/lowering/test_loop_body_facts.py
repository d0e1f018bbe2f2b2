"""
`LoopBody.of` (the body as the modulo scheduler reads it) finds, for real
kernels' loop bodies and the scheduler tests' random bodies, exactly what a
plain reading of its rules finds op by op: each op's operands made in the
body (by position), the stores through which an iteration may feed the next's
loads (`carried_memory`) and each access's key (`access_keys`). The reference
below is that plain reading (every op's operands through `op.operands`, each
op's class tested with `isinstance`, ops compared by equality, an index's
change per iteration read from its defining ops).

Hand-computed loops then fix which load/store pairs at one element are carried
(`a[c] += x[i]`, a scatter `a[idx[i]]`, `a[2i+1]`, a counter, a 2-D element),
and that the schedule issues the next iteration's load after the store.
"""

from __future__ import annotations

import pytest
from test_cgra_scheduler import HARDWARE, _body, reference_moves
from xdsl.dialects import memref, scf
from xdsl.ir import Operation, SSAValue

from lowering.ir.index_offsets import LinearForms
from lowering.scheduling.body import LoopBody, is_store
from lowering.scheduling.scheduler import Scheduler
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
            loads[op] = (buffer, frozenset(s for s in same if _reference_same(op, s)))
    return stores, loads


def _reference_same(load: Operation, store: Operation) -> bool:
    """A load and a store at identical indices that never feed one another
    across iterations: a region's struct is the iteration's own (and two slots
    of it never meet); a buffer's element is when the indices move with the
    iteration (`reference_moves`)."""
    if not load.operands[1:]:
        return isinstance(load, region.LoadOp) and load.slot != store.slot
    if isinstance(load, region.LoadOp):
        return True
    return reference_moves(load)


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


LOOP = """
func.func @f(%a: memref<64xf64>, %m: memref<8x64xf64>, %x: memref<64xf64>,
             %idx: memref<64xindex>, %c: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c30 = arith.constant 30 : index
  %r:3 = scf.for %i = %c0 to %c30 step STEP
      iter_args(%j = %c0, %d = %c30, %q = %c0) -> (index, index, index) {
    %k = memref.load %idx[%i] : memref<64xindex>
    %t = arith.muli %i, %c2 : index
    %u = arith.addi %t, %c1 : index
    %z = arith.subi %i, %i : index
    %jd = arith.addi %j, %d : index
    %ic = arith.addi %i, %c : index
    %ij = arith.addi %i, %j : index
    %id = arith.addi %i, %d : index
    %v = memref.load BUFFER[INDEX] : TYPE
    %w = memref.load %x[%i] : memref<64xf64>
    %s = arith.addf %v, %w : f64
    memref.store %s, BUFFER[INDEX] : TYPE
    %jn = arith.addi %j, %c1 : index
    %dn = arith.subi %d, %c1 : index
    scf.yield %jn, %dn, %k : index, index, index
  }
  return
}"""
"""`a[INDEX] += x[i]` for 30 iterations of `i`, beside a counter `j` (0, 1, 2,
...), a count-down `d` (30, 29, ...) and `q`, the index the iteration before
loaded (`idx[i-1]`)."""

CASES = [
    # (index, buffer, step, carried: worked out by hand)
    ("%c", "a", "%c1", True),  # a[c] every iteration: a reduction through memory
    ("%k", "a", "%c1", True),  # a[idx[i]]: idx may repeat an element (a scatter)
    ("%q", "a", "%c1", True),  # a[idx[i-1]], through a carried value: likewise
    ("%z", "a", "%c1", True),  # a[i - i] = a[0]
    ("%jd", "a", "%c1", True),  # a[j + d] = a[30]: j grows as d shrinks
    ("%u", "a", "%c1", False),  # a[2i+1]: 1, 3, 5, ...
    ("%i", "a", "%c1", False),  # a[i]
    ("%ic", "a", "%c1", False),  # a[i + c]: c fixed, i moving
    ("%j", "a", "%c1", False),  # a[j], j = 0, 1, 2, ...: a counter
    ("%ij", "a", "%c1", False),  # a[i + j] = a[2i]
    ("%i", "a", "%n", False),  # a[i] by a step known only to be positive
    ("%ij", "a", "%n", False),  # a[i + j], i by n > 0, j by 1: by n + 1 > 1
    ("%jd", "a", "%n", True),  # a[j + d] = a[30] whatever the step
    ("%id", "a", "%c1", True),  # a[i + d] = a[30]
    ("%id", "a", "%c2", False),  # a[i + d]: i by 2, d by -1: 30, 31, 32, ...
    ("%id", "a", "%n", True),  # a[i + d]: by n - 1, none for n = 1
    ("%ic", "a", "%n", False),  # a[i + c] by n
    ("%i, %c", "m", "%c1", False),  # m[i][c]: a row per iteration
    ("%c, %i", "m", "%c1", False),  # m[c][i]: a column per iteration
    ("%c, %c", "m", "%c1", True),  # m[c][c]
    ("%k, %i", "m", "%c1", True),  # m[idx[i]][i]: a data-dependent index
]


@pytest.mark.parametrize(("index", "buffer", "step", "carried"), CASES)
def test_which_pairs_at_one_element_are_carried(
    index: str, buffer: str, step: str, carried: bool
) -> None:
    """A store at the element a load of the body reads feeds a later
    iteration's load unless the element provably moves with the iteration
    (worked out by hand per case); where it feeds it, the schedule issues the
    next iteration's load (the load's cycle plus `ii`) after the store."""
    from tapeflow_tools.diagnostics import LocatingParser
    from targets.hardware import PRESETS

    kind = "memref<64xf64>" if buffer == "a" else "memref<8x64xf64>"
    text = LOOP.replace("BUFFER", f"%{buffer}").replace("INDEX", index)
    text = text.replace("TYPE", kind).replace("STEP", step)
    module = LocatingParser(make_context(), text, "carried.mlir").parse_module()
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    ops = list(loop.body.block.ops)[:-1]
    load = next(op for op in ops if isinstance(op, memref.LoadOp) and op.memref.name_hint == buffer)
    store = next(op for op in ops if isinstance(op, memref.StoreOp))
    for hardware in HARDWARE:
        facts = LoopBody.of(ops, hardware)
        assert (store not in facts.memory.loads[load][1]) is carried
        _check(ops, hardware)
    block = loop.body.block
    values = list(zip(block.args[1:], block.last_op.operands, strict=True))
    schedule = Scheduler(PRESETS["Enzyme1k"], memo=None).schedule(ops, values, trips=30)
    if carried:
        assert schedule.place[load][2] + schedule.ii > schedule.place[store][2]
