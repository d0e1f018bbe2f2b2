"""
The executor's fast path (kernel loops compiled to Python, `sim/kernel_compiler.py`)
against its reference, the closure executor (`Executor(fast=False)`): the same
output bits, the same address trace, the same report, and the same errors.
Every kernel loop here runs its generated code from its first iteration: none
starts from a table (`sim/kernel_table.py`, compared in test_kernel_table.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp

from sim import kernel_compiler
from sim.cache import simulate_cache
from sim.executor import Executor
from sim.models import MODELS
from sim.simulator import prepare, simulate
from sim.timing import TimingRecorder, report
from sim.trace import MemoryTrace
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_dialects import cgra
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser, verify_located
from tapeflow_tools.tapeflow_run import bind_arguments
from targets.hardware import configure

PRESET_OF = {"enzyme": "Enzyme32k", "aos": "Enzyme32k", "tapeflow": "Tflow2k"}


@pytest.fixture(autouse=True)
def _generated_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """No kernel starts from a table: the generated code is what is compared."""
    monkeypatch.setattr(kernel_compiler, "TABLE", False)


def _function(module: ModuleOp, name: str) -> Any:
    named = (f for f in module.ops if getattr(f, "sym_name", None) is not None)
    return next(f for f in named if f.sym_name.data == name)  # type: ignore[attr-defined]


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("variant", ["enzyme", "aos", "tapeflow"])
@pytest.mark.parametrize("key", KERNELS)
def test_compiled_kernel_loops_change_nothing(
    key: str, variant: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    module = differentiated(key)
    hardware = configure(PRESET_OF[variant])
    tape_bytes = prepare(make_context(), module, variant, hardware)
    assert any(isinstance(op, cgra.KernelOp) for op in module.walk())
    function = _function(module, f"{key}_grad")
    inputs = KERNELS[key].inputs("small")
    runs = {}
    for fast in (True, False):
        args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
        runs[fast] = simulate(module, f"{key}_grad", args, hardware, tape_bytes, fast=fast)
    fast, slow = runs[True], runs[False]
    assert set(fast.outputs) == set(slow.outputs)
    for name in slow.outputs:
        assert _same_bits(np.asarray(fast.outputs[name]), np.asarray(slow.outputs[name])), name
    assert fast.trace is not None and slow.trace is not None
    for mine, theirs in zip(fast.trace.arrays(), slow.trace.arrays(), strict=True):
        assert _same_bits(mine, theirs)
    fast_report = {k: v for k, v in fast.report.items() if k != "simulator"}
    slow_report = {k: v for k, v in slow.report.items() if k != "simulator"}
    assert fast_report == slow_report
    assert fast.report["simulator"]["accesses"] == slow.report["simulator"]["accesses"]
    # Without trace and timing (tapeflow-run), too.
    plain = {}
    for mode in (True, False):
        args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
        results = Executor(module, fast=mode).run(f"{key}_grad", args)
        plain[mode] = [np.asarray(v) for v in (*args, *results)]
    for mine, theirs in zip(plain[True], plain[False], strict=True):
        assert _same_bits(mine, theirs)


@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
@pytest.mark.parametrize("key", ["logsum", "pathfinder", "massspring"])
def test_both_paths_report_the_same_under_salam(
    key: str, variant: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    """The `salam` model reads other window fields (lockstep steps, the memory
    accesses' latencies kept apart): the fast path must record them alike."""
    module = differentiated(key)
    hardware = MODELS["salam"].hardware(configure(PRESET_OF[variant]))
    tape_bytes = prepare(make_context(), module, variant, hardware, model="salam")
    function = _function(module, f"{key}_grad")
    inputs = KERNELS[key].inputs("small")
    reports = []
    for fast in (True, False):
        args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
        result = simulate(
            module, f"{key}_grad", args, hardware, tape_bytes, fast=fast, model="salam"
        )
        reports.append({k: v for k, v in result.report.items() if k != "simulator"})
    assert reports[0] == reports[1]
    assert reports[0]["model"] == "salam"


def _per_window(
    recorder: TimingRecorder, hit: np.ndarray, evicts: np.ndarray, hardware: Any
) -> dict[str, Any]:
    """The report's window sums under the `cgra` model, window by window in
    program time (the simulator computes the windows' costs all at once and
    places the streams with a tree of added cycles), from the rules as
    sim/models/cgra.py and sim/models/streams.py state them."""
    line, bw = hardware.cache.line_bytes, hardware.dram_bytes_per_cycle
    latency, mshrs, ports = hardware.dram.latency_cycles, hardware.cache.mshrs, hardware.cache.ports
    capacity = hardware.scratchpad.size_bytes // 8
    cycles = {"fwd": 0, "rev": 0}
    hits = {"fwd": 0, "rev": 0}
    misses = {"fwd": 0, "rev": 0}
    fu: Counter[str] = Counter()
    spad = memory_ops = stream_read = stream_write = 0
    starts = {t[2]: t for t in recorder.tiles}  # first window -> its layer
    ends: dict[int, list[list[int]]] = {}  # first window after a layer -> layers
    streams = {t[4]: t for t in recorder.tiles if t[4] >= 0}  # stream window -> layer
    for t in recorder.tiles:
        ends.setdefault(t[3], []).append(t)
    resident: list[list[Any]] = []  # [freed at, entries, layer], in the order taken
    channel = last_issue = 0.0
    rev_start: float | None = None
    previous_kernel = None  # the last kernel window of a loop seen
    last_kernel = None  # the last kernel window seen
    held: list[tuple[Any, int]] = []  # configurations the grid holds, least recent first
    words = hardware.rows * hardware.cols * hardware.config_contexts
    stalled = False  # the scratchpad stalled since it
    now = 0.0

    def free(entries: int, at: float) -> float:
        """When `entries` entries are free, from `at` on (forgetting the tiles
        freed by then)."""
        while resident and (
            resident[0][0] <= at or sum(r[1] for r in resident) + entries > capacity
        ):
            at = max(at, resident.pop(0)[0])
        return at

    for index, w in enumerate(recorder.windows):
        for t in ends.get(index, []):  # REV tiles and unstreamed ones are freed at the end
            if t[0] or t[4] < 0:
                for r in resident:
                    if r[2] is t:
                        r[0] = now
        if w.phase == "rev" and rev_start is None:
            rev_start = now
        waited = 0
        t = starts.get(index)
        if t is not None and not (t[0] and t[4] >= 0):  # a tile taken as its layer starts
            waited = int(np.ceil(free(t[1], now) - now))
            stalled = stalled or waited > 0
            now += waited
            resident.append([float("inf"), t[1], t])
        h = int(np.count_nonzero(hit[w.start : w.end]))
        m = int(np.count_nonzero(~hit[w.start : w.end]))
        wb = int(np.count_nonzero(evicts[w.start : w.end]))
        dram = (m + wb) * line + w.stream_write_bytes + w.stream_read_bytes
        if w.kind == "kernel":
            p, last = w.profile, previous_kernel
            compute = w.compute
            continues = (
                last is not None
                and p.tiled
                and last.profile.tiled
                and last.profile is p
                and w.layer == last.layer + 1
                and w.trips > 0
                and last.trips > 0
            )
            if continues and not stalled:
                compute = w.trips * p.ii  # the previous tile's drain overlaps this fill
            ports_time = -(-m // mshrs) * latency + -(-h // ports)
            spent = int(np.ceil(max(compute, max(dram / bw, ports_time))))
            if last_kernel is None or last_kernel.kernel != w.kernel:  # a switch
                size = sum(p.fu_ops.values()) + p.memory_ops
                kept = [h for h in held if h[0] == w.kernel]
                if kept:
                    held.remove(kept[0])
                    held.append(kept[0])
                else:
                    spent += hardware.config_cycles_per_op * size
                    if size <= words:
                        while sum(n for _, n in held) + size > words:
                            held.pop(0)
                        held.append((w.kernel, size))
            last_kernel = w
            if p.looped:
                previous_kernel, stalled = w, False
        else:
            spent = w.compute + w.access_latency + m * latency
        now += spent
        spent += waited
        layer = streams.get(index)
        if layer is not None:
            transfer = layer[5] / bw
            if layer[0]:  # the REV tile, issued as soon as its entries are free
                assert rev_start is not None
                issue = free(layer[1], max(last_issue, rev_start))
                arrival = max(issue + latency, channel) + transfer
                channel, last_issue = arrival, issue
                wait = int(np.ceil(max(0.0, arrival - now)))
                stalled = stalled or wait > 0
                spent += wait
                now += wait
                resident.append([float("inf"), layer[1], layer])
            else:  # the FWD tile is read out once its layer ends
                channel = max(channel, now) + transfer
                for r in resident:
                    if r[2] is layer:
                        r[0] = channel
        cycles[w.phase] += spent
        hits[w.phase] += h
        misses[w.phase] += m
        fu.update(w.fu)
        spad += w.spad_accesses
        memory_ops += w.memory_ops
        stream_read += w.stream_read_bytes
        stream_write += w.stream_write_bytes
    return {
        "cycles": cycles,
        "hits": hits,
        "misses": misses,
        "fu": list(fu.items()),
        "spad": spad,
        "memory": memory_ops,
        "streams": (stream_write, stream_read),
    }


@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
@pytest.mark.parametrize("key", ["nn", "lenet", "massspring"])
def test_the_report_sums_the_windows_as_one_at_a_time(
    key: str, variant: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    module = differentiated(key)
    hardware = configure(PRESET_OF[variant])
    tape_bytes = prepare(make_context(), module, variant, hardware)
    function = _function(module, f"{key}_grad")
    inputs = KERNELS[key].inputs("small")
    args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
    trace = MemoryTrace()
    recorder = TimingRecorder(trace, hardware)
    Executor(module, trace, recorder).run(f"{key}_grad", args)
    recorder.finish()
    addresses, writes, tape = trace.arrays()
    cache = simulate_cache(addresses, writes, hardware.cache)
    data: Any = report(recorder, cache, trace.roles(addresses, tape), hardware, tape_bytes)
    expected = _per_window(recorder, cache.hit, cache.evicts_dirty, hardware)
    assert any(w.rev_stream_bytes for w in recorder.windows) == (variant == "tapeflow")
    assert {k: data["cycles"][k] for k in ("fwd", "rev")} == expected["cycles"]
    assert {k: data["cache"][k]["hits"] for k in ("fwd", "rev")} == expected["hits"]
    assert {k: data["cache"][k]["misses"] for k in ("fwd", "rev")} == expected["misses"]
    assert list(data["ops"]["fu"].items()) == expected["fu"]
    assert data["spad"]["accesses"] == expected["spad"]
    assert data["ops"]["memory"] == expected["memory"]
    assert (data["streams"]["write_bytes"], data["streams"]["read_bytes"]) == expected["streams"]


# ------------------------------------------- kernel loops that take the fallbacks

KERNEL_LOOPS = """
func.func @memref_sum(%m: memref<4xf64>, %lb: index, %ub: index) -> f64 {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %lb to %ub step %c1 iter_args(%a = %z) -> (f64) {
    %r = cgra.kernel 0 rows 4 cols 4 ii 4 -> f64 {
      %j = cgra.op "arith.subi"(%i, %c1) at 0, 0 cycle 0 : (index, index) -> index
      %v = cgra.load %m[%j] cache at 0, 1 cycle 1 : memref<4xf64> -> f64
      %b = cgra.op "arith.addf"(%a, %v) at 0, 2 cycle 3 : (f64, f64) -> f64
      cgra.store %b, %m[%i] cache at 0, 3 cycle 3 : f64, memref<4xf64>
      cgra.yield %b : f64
    }
    scf.yield %r : f64
  }
  func.return %s : f64
}
func.func @region_sum(%n: index, %k: index, %free: i1) -> f64 {
  %r = region.alloc : !region.region<4, [f64, f64]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %z = arith.constant 0.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    cgra.kernel 0 rows 4 cols 4 ii 4 {
      cgra.store %one, %r[%i] cache slot 1 at 0, 0 cycle 0 : f64, !region.region<4, [f64, f64]>
      cgra.yield
    }
    scf.yield
  }
  scf.if %free {
    region.free %r : !region.region<4, [f64, f64]>
  }
  %s = scf.for %i = %c0 to %k step %c1 iter_args(%a = %z) -> (f64) {
    %t = cgra.kernel 1 rows 4 cols 4 ii 4 -> f64 {
      %v = cgra.load %r[%i] cache slot 1 at 0, 0 cycle 0 : !region.region<4, [f64, f64]> -> f64
      %b = cgra.op "arith.addf"(%a, %v) at 0, 1 cycle 1 : (f64, f64) -> f64
      cgra.yield %b : f64
    }
    scf.yield %t : f64
  }
  func.return %s : f64
}
func.func @constants(%x: f64) -> (f64, f64, f64, i1) {
  %nan = arith.constant 0x7FF8000000000000 : f64
  %inf = arith.constant 0x7FF0000000000000 : f64
  %nz = arith.constant -0.0 : f64
  %t = arith.constant true
  %a = arith.addf %x, %nan : f64
  %b = arith.mulf %x, %inf : f64
  %c = arith.mulf %x, %nz : f64
  func.return %a, %b, %c, %t : f64, f64, f64, i1
}
func.func @tile_sum(%n: index, %k: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f64
  %z = arith.constant 0.0 : f64
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 2 capacity 64 : !layer.spad<3x2>
    scf.for %i = %c0 to %n step %c1 {
      cgra.kernel 0 rows 4 cols 4 ii 4 {
        %f = cgra.op "arith.index_cast"(%i) at 0, 0 cycle 0 : (index) -> i64
        %g = cgra.op "arith.sitofp"(%f) at 0, 1 cycle 0 : (i64) -> f64
        %h = cgra.op "arith.mulf"(%g, %two) at 0, 2 cycle 0 : (f64, f64) -> f64
        cgra.store %h, %tile[%i] spad slot 1 at 0, 3 cycle 0 : f64, !layer.spad<3x2>
        cgra.yield
      }
      scf.yield
    }
    layer.barrier
  }
  %s = layer.layer 1 rev partner 0 -> f64 {
    %tile = layer.salloc base 2 capacity 64 : !layer.spad<3x2>
    %t = scf.for %i = %c0 to %k step %c1 iter_args(%a = %z) -> (f64) {
      %u = cgra.kernel 1 rows 4 cols 4 ii 4 -> f64 {
        %v = cgra.load %tile[%i] spad slot 1 at 0, 0 cycle 0 : !layer.spad<3x2> -> f64
        %b = cgra.op "arith.addf"(%a, %v) at 0, 1 cycle 1 : (f64, f64) -> f64
        cgra.yield %b : f64
      }
      scf.yield %u : f64
    }
    layer.barrier %t : f64
  }
  func.return %s : f64
}
"""


def _outcome(name: str, args: list[Any], fast: bool, mode: str = "timed") -> tuple[Any, ...]:
    """What running @name shows: its results (or error), the trace, the arrays
    after the run, the executor's stats and the timing windows. `mode`: 'timed'
    (trace and timing, as the simulator runs), 'traced' (trace only) or 'plain'
    (neither, as tapeflow-run runs)."""
    module = LocatingParser(make_context(), KERNEL_LOOPS, "loops.mlir").parse_module()
    verify_located(module)
    trace = MemoryTrace() if mode != "plain" else None
    timing = None
    if trace is not None and mode == "timed":
        timing = TimingRecorder(trace, configure("Tflow2k"))
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    executor = Executor(module, trace, timing, fast=fast)
    try:
        result: Any = executor.run(name, args)
    except Exception as err:  # noqa: BLE001 - the error is what is compared
        result = (type(err).__name__, str(err))
    if fast:
        assert executor._compiled[name].__name__ == "fast_call"  # the generated function ran
    recorded = [a.tolist() for a in trace.arrays()] if trace is not None else []
    windows = [
        (w.kind, w.phase, w.start, w.end, w.compute, dict(w.fu), w.memory_ops)
        for w in (timing.windows if timing is not None else [])
    ]
    arrays = [a.tobytes() for a in args if isinstance(a, np.ndarray)]
    return result, recorded, arrays, executor.stats, windows


CASES = {
    "in range": ("memref_sum", [np.arange(1.0, 5.0), 1, 4]),
    "no trips": ("memref_sum", [np.arange(1.0, 5.0), 3, 1]),
    "negative index is out of bounds": ("memref_sum", [np.arange(1.0, 5.0), 0, 3]),
    "index past the end": ("memref_sum", [np.arange(1.0, 5.0), 2, 6]),
    "region read": ("region_sum", [3, 3, False]),
    "region entry never written": ("region_sum", [2, 3, False]),
    "region index out of range": ("region_sum", [4, 5, False]),
    "region freed": ("region_sum", [3, 3, True]),
    "constants without literals": ("constants", [2.0]),
    "tile read": ("tile_sum", [3, 3]),
    "tile entry never written": ("tile_sum", [2, 3]),
    "row outside the tile": ("tile_sum", [4, 3]),
}


@pytest.mark.parametrize("mode", ["timed", "traced", "plain"])
@pytest.mark.parametrize("case", CASES)
def test_fallbacks_behave_as_the_closure_executor(case: str, mode: str) -> None:
    name, args = CASES[case]
    fast = _outcome(name, args, True, mode)
    slow = _outcome(name, args, False, mode)
    assert repr(fast) == repr(slow)  # repr: nan == nan
    if case in ("in range", "region read", "tile read"):
        assert not isinstance(fast[0][0], str)  # these run through
    if case in (
        "index past the end",
        "region entry never written",
        "region freed",
        "tile entry never written",
        "row outside the tile",
    ):
        assert isinstance(fast[0][0], str)  # these raise


REV_SWEEP = """
func.func @rev(%m: memref<4xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.load %m[%c1] : memref<4xf64>
  %y = arith.addf %x, %x : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %y) -> (f64) {
    %v = memref.load %m[%i] : memref<4xf64>
    %b = arith.mulf %a, %v : f64
    scf.yield %b : f64
  }
  %buffer = memref.alloc() : memref<2xf64>
  memref.store %s, %buffer[%c0] : memref<2xf64>
  %view = memref.subview %m[1] [2] [1] : memref<4xf64> to memref<2xf64, strided<[1], offset: 1>>
  %w = memref.load %view[%c1] : memref<2xf64, strided<[1], offset: 1>>
  %t = arith.cmpf ogt, %w, %s : f64
  %u = scf.if %t -> (f64) {
    scf.yield %w : f64
  } else {
    scf.yield %s : f64
  }
  memref.dealloc %buffer : memref<2xf64>
  func.return %u : f64
}
"""


@pytest.mark.parametrize("marked", range(13))
def test_the_rev_sweep_starts_where_the_closure_executor_starts_it(marked: int) -> None:
    # The simulator marks the first op of the REV sweep; whatever op that is,
    # the windows on either side of it are the same on both paths.
    from xdsl.dialects.builtin import UnitAttr

    from tapeflow_dialects.enzyme import REV_START

    outcomes = []
    for fast in (True, False):
        module = LocatingParser(make_context(), REV_SWEEP, "rev.mlir").parse_module()
        verify_located(module)
        function = _function(module, "rev")
        op = list(function.body.block.ops)[marked]
        op.attributes[REV_START] = UnitAttr()
        trace = MemoryTrace()
        timing = TimingRecorder(trace, configure("Enzyme32k"))
        executor = Executor(module, trace, timing, fast=fast)
        result = executor.run("rev", [np.arange(1.0, 5.0), 3])
        timing.finish()
        windows = [
            (w.kind, w.phase, w.start, w.end, w.compute, dict(w.fu), w.memory_ops)
            for w in timing.windows
        ]
        recorded = [a.tolist() for a in trace.arrays()]
        outcomes.append((result, recorded, windows, timing.phase, op.name))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][3] == "rev"


def test_kernel_loops_alike_but_for_their_frame_slots_share_one_source(
    differentiated: Callable[[str], ModuleOp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A constant put first in every function shifts each later value's frame
    slot by one: the kernel loops' sources stay the same (their slots are bound
    when the code is made), and both modules compute the same bits."""
    module = differentiated("logsum")
    prepare(make_context(), module, "enzyme", configure("Enzyme32k"))
    shifted = module.clone()
    for function in shifted.ops:
        if isinstance(function, func.FuncOp) and not function.is_declaration:
            block = function.body.block
            block.insert_op_before(arith.ConstantOp.from_int_and_width(7, 64), block.first_op)
    sources: list[list[str]] = []
    compile_source = kernel_compiler.compiled_code

    def recorded(source: str, filename: str) -> Any:
        sources[-1].append(source)
        return compile_source(source, filename)

    monkeypatch.setattr(kernel_compiler, "compiled_code", recorded)
    outputs = []
    for each in (module, shifted):
        sources.append([])
        function = _function(each, "logsum_grad")
        inputs = KERNELS["logsum"].inputs("small")
        args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
        results = Executor(each).run("logsum_grad", args)
        outputs.append([np.asarray(v) for v in (*args, *results)])
    assert len(sources[0]) >= 2  # kernel loops and kernels run once
    assert sources[0] == sources[1]
    assert not any(re.search(r"fr\[\d", source) for source in sources[0])  # no slot numbers
    for mine, theirs in zip(*outputs, strict=True):
        assert _same_bits(mine, theirs)


def test_equal_hoisted_address_lines_are_one() -> None:
    """`hoist` names a line's text once: the same text again is the first
    name, no new line; another text (an index that differs) is a line of its own."""
    from types import SimpleNamespace

    from sim.kernel_compiler import _KernelLoopSource

    source = SimpleNamespace(hoisted=[], hoisted_as={})
    first = _KernelLoopSource.hoist(source, "h0", "b0_o + x1 * b0_s0")  # type: ignore[arg-type]
    again = _KernelLoopSource.hoist(source, "h3", "b0_o + x1 * b0_s0")  # type: ignore[arg-type]
    other = _KernelLoopSource.hoist(source, "h4", "b0_o + x2 * b0_s0")  # type: ignore[arg-type]
    assert (first, again, other) == ("h0", "h0", "h4")
    assert source.hoisted == ["h0 = b0_o + x1 * b0_s0", "h4 = b0_o + x2 * b0_s0"]


@pytest.mark.parametrize("model", ["cgra", "salam"])
def test_a_fully_unrolled_kernel_shares_its_hoisted_lines_and_computes_the_same(
    model: str, differentiated: Callable[[str], ModuleOp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fully unrolled, pathfinder's accesses repeat the invariant part of their
    indices: each such line is computed once, every fallback is one call, and
    outputs, trace and report are the closure executor's."""
    module = differentiated("pathfinder")
    hardware = MODELS[model].hardware(configure("Enzyme32k"))
    tape_bytes = prepare(make_context(), module, "enzyme", hardware, unroll=1 << 30, model=model)
    sources: list[str] = []
    compile_source = kernel_compiler.compiled_code

    def recorded(source: str, filename: str) -> Any:
        sources.append(source)
        return compile_source(source, filename)

    monkeypatch.setattr(kernel_compiler, "compiled_code", recorded)
    function = _function(module, "pathfinder_grad")
    inputs = KERNELS["pathfinder"].inputs("small")
    runs = {}
    for fast in (True, False):
        args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
        runs[fast] = simulate(
            module, "pathfinder_grad", args, hardware, tape_bytes, fast=fast, model=model
        )
    hoisted = [
        m.groups() for s in sources for m in re.finditer(r"^ +(h\d+) = (.*)$", s, re.MULTILINE)
    ]
    used = [m for s in sources for m in re.findall(r"= (h\d+) \+ ", s)]
    assert hoisted and len(used) > len(hoisted)  # several accesses read one line
    for source in sources:
        texts = re.findall(r"^ +h\d+ = (.*)$", source, re.MULTILINE)
        assert len(texts) == len(set(texts))
        assert not re.search(r"^ {12,}fr\[_s\d+\] = ", source, re.MULTILINE)  # fallbacks: calls
    fast, slow = runs[True], runs[False]
    for name in slow.outputs:
        assert _same_bits(np.asarray(fast.outputs[name]), np.asarray(slow.outputs[name])), name
    assert fast.trace is not None and slow.trace is not None
    for mine, theirs in zip(fast.trace.arrays(), slow.trace.arrays(), strict=True):
        assert _same_bits(mine, theirs)
    assert {k: v for k, v in fast.report.items() if k != "simulator"} == {
        k: v for k, v in slow.report.items() if k != "simulator"
    }
