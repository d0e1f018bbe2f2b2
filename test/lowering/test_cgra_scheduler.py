"""
The modulo scheduler of `tapeflow-to-cgra`, checked on random loop bodies by
independent means:

- every schedule it returns is legal, checked op by op from the IR: each op
  issues after its operands are computed and routed (latency plus one hop per
  mesh step), at most one op per PE and modulo slot, at most `ports` cache and
  `banks` scratchpad accesses per modulo slot, accesses of one buffer in program
  order, and every loop-carried value (iter_args and stores that later loads may
  read) reaches its next-iteration consumer in time;
- its recurrence bound equals a plain longest-path search run separately from
  each loop-carried edge (the definition in the pass's docstring, written out
  the simple way);
- `ii` is at least the resource bounds.

The bodies mix arithmetic of every latency class, loads and stores at the
iteration's element and at its neighbours (`i + 1`, `i - 1`, clamped to the
buffer: carried through memory, the clamped element repeating at the edge),
scalar buffers and loop-carried accumulators.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

from lowering.pipelines import hardware_pipeline, parse_pipeline
from lowering.scheduling.body import (
    LoopBody,
    accessed_buffer,
    is_store,
    memory_kind,
    placeable,
)
from lowering.scheduling.recurrence import recurrence_mii
from lowering.scheduling.scheduler import Scheduler, sinks_last
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import cgra, region, stream
from tapeflow_tools.context import make_context
from tapeflow_tools.frontend import parse_module_text
from targets.costs import op_latency
from targets.hardware import PRESETS, configure
from targets.machine import layered

N = 64
OPS = ["arith.addf", "arith.mulf", "arith.subf", "arith.divf", "arith.maximumf"]


def _random_body(seed: int, size: int) -> str:
    """A function whose one loop's body has about `size` ops."""
    rng = random.Random(seed)
    buffers = ["%a", "%b", "%c"]
    lines = []
    values = ["%x0", "%acc0", "%acc1"]
    n = 0

    def fresh() -> str:
        nonlocal n
        n += 1
        return f"%v{n}"

    indices = {"i": "%i"}
    lines.append("      %ip = arith.addi %i, %c1 : index")
    lines.append("      %im = arith.subi %i, %c1 : index")
    lines.append("      %ipc = arith.minui %ip, %clast : index")
    lines.append("      %imc = arith.maxsi %im, %c0 : index")
    indices.update(p="%ipc", m="%imc")
    for _ in range(size):
        kind = rng.random()
        if kind < 0.3:
            v = fresh()
            buf = rng.choice(buffers)
            idx = indices[rng.choice("iipm")]
            lines.append(f"      {v} = memref.load {buf}[{idx}] : memref<{N}xf64>")
            values.append(v)
        elif kind < 0.45:
            buf = rng.choice(buffers)
            idx = indices[rng.choice("iipm")]
            lines.append(f"      memref.store {rng.choice(values)}, {buf}[{idx}] : memref<{N}xf64>")
        elif kind < 0.5:
            v = fresh()
            lines.append(f"      {v} = memref.load %s[] : memref<f64>")
            values.append(v)
        elif kind < 0.55:
            lines.append(f"      memref.store {rng.choice(values)}, %s[] : memref<f64>")
        else:
            v = fresh()
            op = rng.choice(OPS)
            lhs, rhs = rng.choice(values[-8:]), rng.choice(values)
            lines.append(f"      {v} = {op} {lhs}, {rhs} : f64")
            values.append(v)
    acc0 = rng.choice(values[3:] or values)
    acc1 = rng.choice(values)
    body = "\n".join(lines)
    return f"""
func.func @f(%a: memref<{N}xf64>, %b: memref<{N}xf64>, %c: memref<{N}xf64>,
             %s: memref<f64>, %x0: f64) -> (f64, f64) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant {N} : index
  %clast = arith.constant {N - 1} : index
  %r:2 = scf.for %i = %c0 to %cn step %c1 iter_args(%acc0 = %x0, %acc1 = %x0) -> (f64, f64) {{
{body}
      scf.yield {acc0}, {acc1} : f64, f64
  }}
  func.return %r#0, %r#1 : f64, f64
}}
"""


def _body(seed: int, size: int) -> tuple[list[Operation], list[tuple[SSAValue, SSAValue]]]:
    module = parse_module_text(make_context(), _random_body(seed, size), f"body{seed}.mlir")
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    for op in list(loop.body.block.ops):
        if isinstance(op, arith.ConstantOp):
            op.detach()  # as the pass hoists them
    ops = list(loop.body.block.ops)
    terminator = ops.pop()
    carried = list(zip(loop.body.block.args[1:], terminator.operands, strict=True))
    return ops, carried


def _buffer(op: Operation) -> SSAValue | None:
    if isinstance(op, memref.LoadOp):
        return op.memref
    if isinstance(op, memref.StoreOp):
        return op.memref
    return None


def _edges(ops: list[Operation], hw) -> list[tuple[int, int, int]]:
    """(from, to, latency) within an iteration: operands, then per buffer a store
    before any later access (1 cycle) and a load before a later store (0)."""
    index = {op: n for n, op in enumerate(ops)}
    edges = []
    for n, op in enumerate(ops):
        for v in op.operands:
            if v.owner in index:
                edges.append((index[v.owner], n, op_latency(v.owner, hw)))
    for n, op in enumerate(ops):
        for m in range(n + 1, len(ops)):
            other = ops[m]
            if _buffer(op) is None or _buffer(op) is not _buffer(other):
                continue
            # Only the latest store (or load) before `other` orders it: a later one
            # of the same kind in between is ordered after this one already.
            if isinstance(op, memref.StoreOp):
                if not _same_kind_between(ops, n, m, memref.StoreOp):
                    edges.append((n, m, 1))
            elif isinstance(other, memref.StoreOp):
                if not _same_kind_between(ops, n, m, memref.LoadOp):
                    edges.append((n, m, 0))
    return edges


def _same_kind_between(ops: list[Operation], n: int, m: int, kind: type) -> bool:
    return any(
        isinstance(ops[k], kind) and _buffer(ops[k]) is _buffer(ops[n]) for k in range(n + 1, m)
    )


def _back_edges(ops, carried, hw) -> list[tuple[int, int, int]]:
    """(consumer, producer, extra): the next iteration's consumer waits `extra`
    cycles after the producer of this one issues."""
    index = {op: n for n, op in enumerate(ops)}
    back = []
    for arg, yielded in carried:
        if yielded.owner in index:
            for use in arg.uses:
                if use.operation in index:
                    back.append(
                        (index[use.operation], index[yielded.owner], op_latency(yielded.owner, hw))
                    )
    for load in ops:
        if not isinstance(load, memref.LoadOp):
            continue
        for store in ops:
            if not isinstance(store, memref.StoreOp) or store.memref is not load.memref:
                continue
            same = list(load.indices) == list(store.indices) and len(load.indices) > 0
            if not (same and reference_moves(load)):
                back.append((index[load], index[store], 1))
    return back


def _reference_affine(value: SSAValue) -> dict[object, int]:
    """`value` as {term: coefficient}, the constant under the term 1, read
    through index constants, additions, subtractions and multiplications by a
    constant; any other value is a term of its own."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return {1: owner.value.value.data}
    if isinstance(owner, arith.AddiOp | arith.SubiOp):
        sign = 1 if isinstance(owner, arith.AddiOp) else -1
        total = dict(_reference_affine(owner.lhs))
        for term, c in _reference_affine(owner.rhs).items():
            total[term] = total.get(term, 0) + sign * c
        return {term: c for term, c in total.items() if c}
    if isinstance(owner, arith.MuliOp):
        lhs, rhs = _reference_affine(owner.lhs), _reference_affine(owner.rhs)
        for a, b in ((lhs, rhs), (rhs, lhs)):
            if set(b) <= {1}:
                factor = b.get(1, 0)
                return {term: c * factor for term, c in a.items() if c * factor}
    return {value: 1}


def reference_moves(load: Operation) -> bool:
    """Whether the element `load` reads is another in every iteration of its
    `scf.for`: every index is a sum of multiples of the induction variable,
    counters (carried values yielded as themselves plus a non-zero constant),
    values defined outside the loop and a constant, and one index changes by a
    non-zero amount per iteration."""
    block = load.parent_block()
    loop = block.parent_op() if block is not None else None
    if not isinstance(loop, scf.ForOp):
        return False
    step = _reference_affine(loop.step)
    change: dict[object, int | None] = {block.args[0]: step[1] if set(step) == {1} else None}
    for arg, yielded in zip(block.args[1:], block.last_op.operands, strict=True):
        form = _reference_affine(yielded)
        if set(form) == {arg, 1} and form[arg] == 1:
            change[arg] = form[1]

    def outside(value: SSAValue) -> bool:
        node = value.owner
        while node is not None:
            if node is loop:
                return False
            node = node.parent
        return True

    moves = False
    for index in load.operands[1:]:
        steps = []
        for term, c in _reference_affine(index).items():
            if term == 1:
                continue
            if term in change:
                steps.append((c, change[term]))
            elif not outside(term):
                return False
        known = sum(c * step for c, step in steps if step is not None)
        unknown = [c for c, step in steps if step is None]
        if unknown:  # c * step + known, the step positive: non-zero if of one sign
            moves = moves or known == 0 or (known > 0) == (unknown[0] > 0)
        else:
            moves = moves or known != 0
    return moves


def _reference_mii(ops, carried, hw) -> int:
    edges = _edges(ops, hw)
    bound = 1
    for c, p, extra in _back_edges(ops, carried, hw):
        longest = {c: 0}
        for n in range(c, len(ops)):
            if n not in longest:
                continue
            for a, b, w in edges:
                if a == n:
                    longest[b] = max(longest.get(b, -1), longest[n] + w)
        if p in longest:
            bound = max(bound, longest[p] + extra)
    return bound


HARDWARE = [configure("Enzyme32k"), configure("Tflow1k", spad_bytes=512)]


@pytest.mark.parametrize("seed", range(24))
def test_recurrence_bound_matches_longest_paths(seed: int) -> None:
    ops, carried = _body(seed, 10 + 3 * seed)
    hw = HARDWARE[seed % 2]
    assert recurrence_mii(LoopBody.of(ops, hw), carried, hw) == _reference_mii(ops, carried, hw)


@pytest.mark.parametrize("seed", range(6))
def test_recurrence_bound_in_batches_of_one_source(seed: int, monkeypatch) -> None:
    """The sources go through the body in batches that keep the table under its
    size: a table too small for two columns takes one source at a time, and the
    bound is still the longest path's."""
    ops, carried = _body(300 + seed, 30 + 5 * seed)
    hw = HARDWARE[seed % 2]
    monkeypatch.setattr("lowering.scheduling.recurrence._TABLE_ENTRIES", 1)
    assert recurrence_mii(LoopBody.of(ops, hw), carried, hw) == _reference_mii(ops, carried, hw)


@pytest.mark.parametrize("seed", range(12))
def test_loop_body_reads_each_op_as_the_op_functions_do(seed: int) -> None:
    """`LoopBody.of` finds what an op's type decides once per type: each op's
    memory kind, buffer, store flag and latency are still those the per-op
    functions give."""
    ops, _ = _body(400 + seed, 20 + 3 * seed)
    _assert_read_per_op(ops, HARDWARE[seed % 2])


def test_loop_body_reads_placed_ops_by_their_opcode_and_path() -> None:
    """Placed ops (a kernel's, of one type whatever their opcode or memory
    path) keep the latency their opcode or path gives: trmm's kernels, streamed
    (scratchpad and cache accesses, adds and multiplies)."""
    ctx = make_context()
    module = parse_kernel(ctx, "trmm", "paper")
    hardware = layered(PRESETS["Tflow32k"], [], ["mapping.stream_by_cost=false"])
    parse_pipeline(hardware_pipeline("tapeflow", hardware)).apply(ctx, module)
    placed = [
        op
        for kernel in module.walk()
        if isinstance(kernel, cgra.KernelOp)
        for op in list(kernel.body.block.ops)[:-1]
    ]
    latencies = {op_latency(op, hardware) for op in placed if isinstance(op, cgra.ComputeOp)}
    assert len(latencies) > 1  # the type alone does not decide them
    _assert_read_per_op(placed, hardware)


def _assert_read_per_op(ops: list[Operation], hw) -> None:
    body = LoopBody.of(ops, hw)
    assert body.kinds == [memory_kind(op) for op in ops]
    assert body.buffers == [accessed_buffer(op) for op in ops]
    assert body.stores == [is_store(op) for op in ops]
    assert body.latencies == [op_latency(op, hw) for op in ops]


@pytest.mark.parametrize("seed", range(24))
def test_schedules_are_legal(seed: int) -> None:
    ops, carried = _body(100 + seed, 10 + 4 * seed)
    hw = HARDWARE[seed % 2]
    _assert_legal(ops, carried, hw, Scheduler(hw).schedule(ops, carried))


@pytest.mark.parametrize("seed", range(12))
def test_sequential_schedules_are_legal_and_sequential(seed: int) -> None:
    """Without the modulo schedule (`mapping.modulo_schedule` off): the same
    legality, every op on the first PE one after another in program order, and
    no iteration overlapping the next (ii is the schedule's length)."""
    ops, carried = _body(200 + seed, 10 + 4 * seed)
    hw = HARDWARE[seed % 2]
    hw = replace(hw, mapping=replace(hw.mapping, modulo_schedule=False))
    schedule = Scheduler(hw).schedule(ops, carried)
    _assert_legal(ops, carried, hw, schedule)
    cycles = [schedule.place[op][2] for op in ops]
    assert {schedule.place[op][:2] for op in ops} == {(0, 0)}
    assert all(a < b for a, b in zip(cycles, cycles[1:], strict=False))
    assert schedule.length == max(c + op_latency(op, hw) for c, op in zip(cycles, ops, strict=True))
    assert schedule.ii == max(schedule.length, cycles[-1] + 1)
    # Each op as soon as the PE is free and its operands are computed.
    finish = {op: c + op_latency(op, hw) for c, op in zip(cycles, ops, strict=True)}
    for n, op in enumerate(ops):
        ready = max(
            [
                cycles[n - 1] + 1 if n else 0,
                *(finish[v.owner] for v in op.operands if v.owner in finish),
            ]
        )
        assert cycles[n] == ready


def _assert_legal(ops: list[Operation], carried, hw, schedule) -> None:  # type: ignore[no-untyped-def]
    ii, place = schedule.ii, schedule.place
    assert set(place) == set(ops)
    index = {op: n for n, op in enumerate(ops)}
    hop = hw.latencies.hop

    def finish(op: Operation) -> int:
        return place[op][2] + op_latency(op, hw)

    # Resource bounds.
    cache_ops = sum(1 for o in ops if _buffer(o) is not None)
    pes = hw.rows * hw.cols
    assert ii >= -(-len(ops) // pes)
    assert ii >= -(-cache_ops // hw.cache.ports)
    assert ii >= _reference_mii(ops, carried, hw)
    # Operands computed and routed before use.
    for op in ops:
        row, col, cycle = place[op]
        assert cycle >= 0
        for v in op.operands:
            if v.owner in index:
                r, c, _ = place[v.owner]
                assert cycle >= finish(v.owner) + hop * (abs(r - row) + abs(c - col))
    # One op per PE and modulo slot; at most `ports` cache accesses per slot.
    slots = [(r, c, t % ii) for r, c, t in place.values()]
    assert len(slots) == len(set(slots))
    per_slot: dict[int, int] = {}
    for op in ops:
        if _buffer(op) is not None:
            per_slot[place[op][2] % ii] = per_slot.get(place[op][2] % ii, 0) + 1
    assert all(n <= hw.cache.ports for n in per_slot.values())
    # Program order of one buffer's accesses within the iteration.
    for a, b, w in _edges(ops, hw):
        if _buffer(ops[a]) is not None and _buffer(ops[b]) is not None and w <= 1:
            if isinstance(ops[a], memref.StoreOp):
                assert place[ops[b]][2] >= place[ops[a]][2] + 1
            else:
                assert place[ops[b]][2] >= place[ops[a]][2]
    # Loop-carried values arrive in time for the next iteration (ii later).
    for c, p, extra in _back_edges(ops, carried, hw):
        assert place[ops[c]][2] + ii >= place[ops[p]][2] + extra


def test_a_tile_s_scratchpad_stores_leave_the_recurrence_its_bound() -> None:
    # trmm's FWD loop, streamed: `B[i][j] += A[k][i] * B[k][j]` stores B[i][j],
    # which the next iteration's load of B[k][j] may read (k > i is not proven):
    # load (the cache hit, 2 cycles), fmul (4), fadd (5), the store, and the next
    # load a cycle after it: 12 cycles, the recurrence bound. Its two scratchpad
    # stores (A[k][i] and B[k][j] to the tile) feed nothing in the body; placed
    # in program order, before the fmul, they took the PE slots the recurrence's
    # ops wanted and the loop ran at 13.
    ctx = make_context()
    module = parse_kernel(ctx, "trmm", "paper")
    hardware = layered(PRESETS["Tflow32k"], [], ["mapping.stream_by_cost=false"])
    assert hardware.latencies.fmul == 4 and hardware.latencies.fadd == 5
    assert hardware.cache.hit_latency == 2
    parse_pipeline(hardware_pipeline("tapeflow", hardware)).apply(ctx, module)
    fwd = [
        op
        for op in module.walk()
        if isinstance(op, cgra.KernelOp)
        and isinstance(op.parent_op(), scf.ForOp)
        and any(isinstance(o, cgra.StoreOp) and o.path.data.value == "spad" for o in op.walk())
    ]
    assert len(fwd) == 1
    assert fwd[0].ii.value.data == 12
    assert not any(isinstance(o, stream.StoreOp) for o in module.walk())


def test_a_tile_s_body_keeps_the_cheaper_of_both_orders() -> None:
    # MTTKRP's FWD loop unrolled 8 times runs one trip a window, so its cost is
    # the schedule's length: its scratchpad stores placed last lowered `ii` but
    # lengthened the schedule. The scheduler prices both orders by the loop's
    # trip count, each order scheduled here on its own (no memo), and keeps the
    # cheaper; without a trip count, the smaller `ii`.
    ctx = make_context()
    module = parse_kernel(ctx, "mttkrp", "paper")
    hardware = layered(PRESETS["Tflow32k"], [], ["mapping.stream_by_cost=false"])
    spec = hardware_pipeline("tapeflow", hardware, unroll=8)
    parse_pipeline(spec.split(",tapeflow-to-cgra")[0]).apply(ctx, module)
    loops = [
        op
        for op in module.walk()
        if isinstance(op, scf.ForOp)
        and any(isinstance(o, stream.StoreOp) for o in op.body.block.ops)
    ]
    assert loops
    for loop in loops:
        block = loop.body.block
        ops = list(block.ops)[:-1]
        carried = list(zip(block.args[1:], block.ops.last.operands, strict=False))
        mine = Scheduler(hardware, memo=None)
        given = mine._schedule(ops, carried, True)
        last = mine._schedule(sinks_last(ops), carried, True)
        for trips in (1, 2, 1000):
            chosen = Scheduler(hardware, memo=None).schedule(ops, carried, trips=trips)
            costs = [(trips - 1) * s.ii + s.length for s in (given, last)]
            assert (trips - 1) * chosen.ii + chosen.length == min(costs)
        chosen = Scheduler(hardware, memo=None).schedule(ops, carried)
        assert (chosen.ii, chosen.length) == min((s.ii, s.length) for s in (given, last))


def test_placeable_and_memory_kind_per_class_are_the_per_op_rules() -> None:
    """`placeable` and `memory_kind` are answered once per op class: on every op
    of a kernel lowered for each variant (and the random bodies), the answers
    are the rules read op by op (no region; an access, a stream access, a
    yield, or an arith or math op; the memory by the access's class)."""
    ctx = make_context()
    ops: list[Operation] = []
    for variant in ("enzyme", "tapeflow"):
        module = parse_kernel(ctx, "trmm", "small")
        hardware = layered(PRESETS["Tflow32k"], [], [])
        passes = hardware_pipeline(variant, hardware).split(",tapeflow-to-cgra")[0]
        parse_pipeline(passes).apply(ctx, module)
        ops += list(module.walk())
    for seed in range(4):
        ops += _body(600 + seed, 30)[0]
    cache = (memref.LoadOp, memref.StoreOp, region.LoadOp, region.StoreOp)
    for op in ops:
        spad = isinstance(op, stream.LoadOp | stream.StoreOp)
        expected = not op.regions and (
            isinstance(op, (*cache, stream.LoadOp, stream.StoreOp, scf.YieldOp))
            or op.dialect_name() in ("arith", "math")
        )
        assert placeable(op) == expected
        assert memory_kind(op) == ("spad" if spad else "cache" if isinstance(op, cache) else None)
