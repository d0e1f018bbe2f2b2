"""
Kernel loops whose addresses are affine in the induction variable record each run
as one block of the trace (`sim.trace.DeferredLoop`): the trace, the timing
windows, the values and the errors are the closure executor's
(`Executor(fast=False)`, one record per access), on loops with run-time trip
counts, strides and offsets, nested in other loops and branches, with indices
that are not affine beside affine ones, and on runs that fail half-way.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sim import kernel_compiler
from sim import trace as trace_module
from sim.executor import Executor
from sim.timing import TimingRecorder
from sim.trace import DeferredLoop, MemoryTrace
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser, verify_located
from targets.hardware import configure


@pytest.fixture(autouse=True)
def _generated_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deferred records are the generated code's: every kernel loop here
    runs it from its first iteration, none from a table first
    (`sim.kernel_table`, whose runs record each access)."""
    monkeypatch.setattr(kernel_compiler, "TABLE", False)


LOOPS = """
func.func @strided(%m: memref<6x8xf64>, %out: memref<8xf64>, %lb: index, %ub: index,
                   %step: index, %scale: index, %row: index) -> f64 {
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %lb to %ub step %step iter_args(%a = %z) -> (f64) {
    %r = cgra.kernel 0 rows 4 cols 4 ii 4 -> f64 {
      %j = cgra.op "arith.subi"(%c7, %i) at 0, 0 cycle 0 : (index, index) -> index
      %k = cgra.op "arith.muli"(%i, %scale) at 0, 1 cycle 0 : (index, index) -> index
      %l = cgra.op "arith.addi"(%k, %c1) at 0, 2 cycle 1 : (index, index) -> index
      %v = cgra.load %m[%row, %j] cache at 1, 0 cycle 2 : memref<6x8xf64> -> f64
      %w = cgra.load %m[%l, %i] cache at 1, 1 cycle 2 : memref<6x8xf64> -> f64
      %x = cgra.load %out[%c1] cache at 1, 2 cycle 2 : memref<8xf64> -> f64
      %b = cgra.op "arith.addf"(%v, %w) at 2, 0 cycle 4 : (f64, f64) -> f64
      %c = cgra.op "arith.addf"(%b, %x) at 2, 1 cycle 5 : (f64, f64) -> f64
      cgra.store %c, %out[%j] cache at 2, 2 cycle 6 : f64, memref<8xf64>
      %d = cgra.op "arith.addf"(%a, %c) at 2, 3 cycle 6 : (f64, f64) -> f64
      cgra.yield %d : f64
    }
    scf.yield %r : f64
  }
  func.return %s : f64
}
func.func @gather(%m: memref<8xf64>, %idx: memref<8xindex>, %n: index, %d: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (f64) {
    %r = cgra.kernel 0 rows 4 cols 4 ii 4 -> f64 {
      %p = cgra.load %idx[%i] cache at 0, 0 cycle 0 : memref<8xindex> -> index
      %v = cgra.load %m[%p] cache at 0, 1 cycle 1 : memref<8xf64> -> f64
      %q = cgra.op "arith.divsi"(%p, %d) at 0, 2 cycle 2 : (index, index) -> index
      %w = cgra.load %m[%q] cache at 0, 3 cycle 3 : memref<8xf64> -> f64
      %b = cgra.op "arith.addf"(%v, %w) at 1, 0 cycle 4 : (f64, f64) -> f64
      cgra.store %b, %m[%i] cache at 1, 1 cycle 5 : f64, memref<8xf64>
      %c = cgra.op "arith.addf"(%a, %b) at 1, 2 cycle 5 : (f64, f64) -> f64
      cgra.yield %c : f64
    }
    scf.yield %r : f64
  }
  func.return %s : f64
}
func.func @nest(%m: memref<8x8xf64>, %n: index, %flip: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %o = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %u = arith.addi %o, %c1 : index
    %odd = arith.remsi %o, %c2 : index
    %left = arith.cmpi ult, %odd, %flip : index
    %t = scf.if %left -> (f64) {
      %r = scf.for %i = %c0 to %u step %c1 iter_args(%a = %acc) -> (f64) {
        %q = cgra.kernel 0 rows 4 cols 4 ii 4 -> f64 {
          %v = cgra.load %m[%o, %i] cache at 0, 0 cycle 0 : memref<8x8xf64> -> f64
          %b = cgra.op "arith.addf"(%a, %v) at 0, 1 cycle 1 : (f64, f64) -> f64
          cgra.store %b, %m[%i, %o] cache at 0, 2 cycle 2 : f64, memref<8x8xf64>
          cgra.yield %b : f64
        }
        scf.yield %q : f64
      }
      scf.yield %r : f64
    } else {
      %r = scf.for %i = %o to %n step %c2 iter_args(%a = %acc) -> (f64) {
        %q = cgra.kernel 1 rows 4 cols 4 ii 4 -> f64 {
          %v = cgra.load %m[%i, %i] cache at 0, 0 cycle 0 : memref<8x8xf64> -> f64
          %b = cgra.op "arith.mulf"(%a, %v) at 0, 1 cycle 1 : (f64, f64) -> f64
          cgra.yield %b : f64
        }
        scf.yield %q : f64
      }
      scf.yield %r : f64
    }
    %w = memref.load %m[%c0, %o] : memref<8x8xf64>
    %x = arith.addf %t, %w : f64
    scf.yield %x : f64
  }
  func.return %s : f64
}
func.func @failing(%m: memref<8xf64>, %n: index, %d: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (f64) {
    %r = cgra.kernel 0 rows 4 cols 4 ii 4 -> f64 {
      %v = cgra.load %m[%i] cache at 0, 0 cycle 0 : memref<8xf64> -> f64
      %j = cgra.op "arith.muli"(%i, %c2) at 0, 1 cycle 0 : (index, index) -> index
      %q = cgra.op "arith.divsi"(%c2, %d) at 0, 2 cycle 1 : (index, index) -> index
      %w = cgra.load %m[%j] cache at 0, 3 cycle 1 : memref<8xf64> -> f64
      %b = cgra.op "arith.addf"(%v, %w) at 1, 0 cycle 2 : (f64, f64) -> f64
      %k = cgra.op "arith.addi"(%q, %i) at 1, 1 cycle 2 : (index, index) -> index
      cgra.store %b, %m[%k] cache at 1, 2 cycle 3 : f64, memref<8xf64>
      %c = cgra.op "arith.addf"(%a, %b) at 1, 3 cycle 3 : (f64, f64) -> f64
      cgra.yield %c : f64
    }
    scf.yield %r : f64
  }
  func.return %s : f64
}
func.func @ub_later(%m: memref<8xf64>, %n: index, %d: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (f64) {
    %r = cgra.kernel 0 rows 4 cols 4 ii 4 -> f64 {
      %v = cgra.load %m[%i] cache at 0, 0 cycle 0 : memref<8xf64> -> f64
      %e = cgra.op "arith.subi"(%d, %i) at 0, 1 cycle 0 : (index, index) -> index
      %q = cgra.op "arith.divsi"(%c2, %e) at 0, 2 cycle 1 : (index, index) -> index
      %j = cgra.op "arith.addi"(%i, %c1) at 0, 3 cycle 1 : (index, index) -> index
      %w = cgra.load %m[%j] cache at 1, 0 cycle 2 : memref<8xf64> -> f64
      %b = cgra.op "arith.addf"(%v, %w) at 1, 1 cycle 3 : (f64, f64) -> f64
      cgra.store %b, %m[%i] cache at 1, 2 cycle 4 : f64, memref<8xf64>
      %c = cgra.op "arith.addf"(%a, %b) at 1, 3 cycle 4 : (f64, f64) -> f64
      cgra.yield %c : f64
    }
    scf.yield %r : f64
  }
  func.return %s : f64
}
func.func @selected(%m: memref<8xf64>, %out: memref<8xf64>, %lb: index, %ub: index,
                    %d: index, %e: index) -> f64 {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %lb to %ub step %c1 iter_args(%a = %z) -> (f64) {
    %r = cgra.kernel 0 rows 4 cols 4 ii 4 -> f64 {
      %p = cgra.op "arith.subi"(%i, %c1) at 0, 0 cycle 0 : (index, index) -> index
      %gt = cgra.op "arith.cmpi"(%i, %lb) at 0, 1 cycle 0
          attrs {predicate = 8 : i64} : (index, index) -> i1
      %l = cgra.op "arith.select"(%gt, %p, %i) at 0, 2 cycle 1 : (i1, index, index) -> index
      %q = cgra.op "arith.subi"(%i, %d) at 0, 3 cycle 0 : (index, index) -> index
      %u = cgra.op "arith.cmpi"(%q, %e) at 1, 0 cycle 1
          attrs {predicate = 6 : i64} : (index, index) -> i1
      %x = cgra.op "arith.select"(%u, %q, %i) at 1, 1 cycle 2 : (i1, index, index) -> index
      %lt = cgra.op "arith.cmpi"(%q, %e) at 1, 2 cycle 1
          attrs {predicate = 3 : i64} : (index, index) -> i1
      %y = cgra.op "arith.select"(%lt, %l, %x) at 1, 3 cycle 3 : (i1, index, index) -> index
      %v = cgra.load %m[%l] cache at 2, 0 cycle 2 : memref<8xf64> -> f64
      %w = cgra.load %m[%y] cache at 2, 1 cycle 4 : memref<8xf64> -> f64
      %b = cgra.op "arith.addf"(%v, %w) at 2, 2 cycle 5 : (f64, f64) -> f64
      cgra.store %b, %out[%x] cache at 2, 3 cycle 6 : f64, memref<8xf64>
      %c = cgra.op "arith.addf"(%a, %b) at 3, 0 cycle 6 : (f64, f64) -> f64
      cgra.yield %c : f64
    }
    scf.yield %r : f64
  }
  func.return %s : f64
}
"""


def _run(name: str, args: list[Any], fast: bool) -> tuple[tuple[Any, ...], tuple[int, int]]:
    """What running @name under the simulator's trace and timing shows: its
    results (or error), the trace, the windows and the arrays after the run;
    and the loops compiled to record their runs as blocks, and the runs they
    recorded so."""
    module = LocatingParser(make_context(), LOOPS, "loops.mlir").parse_module()
    verify_located(module)
    trace = MemoryTrace()
    timing = TimingRecorder(trace, configure("Enzyme32k"))
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    executor = Executor(module, trace, timing, fast=fast)
    try:
        result: Any = executor.run(name, args)
    except Exception as err:  # noqa: BLE001 - the error is what is compared
        result = (type(err).__name__, str(err))
    deferred = (len(trace.deferred), sum(len(runs) for _, runs, _ in trace.deferred))
    recorded = [a.tolist() for a in trace.arrays()]
    windows = [(w.kind, w.phase, w.start, w.end, w.trips) for w in timing.windows]
    arrays = [a.tobytes() for a in args if isinstance(a, np.ndarray)]
    return (result, recorded, windows, arrays), deferred


def _grid() -> np.ndarray:
    return np.arange(48.0).reshape(6, 8) / 7


CASES: dict[str, tuple[str, list[Any]]] = {
    "unit step": ("strided", [_grid(), np.zeros(8), 0, 3, 1, 2, 4]),
    "step of 2": ("strided", [_grid(), np.zeros(8), 1, 5, 2, 1, 0]),
    "one trip": ("strided", [_grid(), np.zeros(8), 2, 3, 1, 2, 5]),
    "no trips": ("strided", [_grid(), np.zeros(8), 3, 3, 1, 2, 5]),
    "run-time scale 0": ("strided", [_grid(), np.zeros(8), 0, 6, 1, 0, 1]),
    "index out of range half-way": ("strided", [_grid(), np.zeros(8), 0, 5, 1, 2, 4]),
    "gathered indices": ("gather", [np.arange(8.0), np.array([3, 1, 4, 1, 5, 0, 2, 6]), 8, 2]),
    "gathered index out of range": ("gather", [np.arange(8.0), np.array([3, 1, 9, 1]), 4, 2]),
    "division by zero in a gathered index": (
        "gather",
        [np.arange(8.0), np.array([3, 1, 4, 1]), 4, 0],
    ),
    "nested, both arms": ("nest", [np.arange(64.0).reshape(8, 8), 6, 1]),
    "nested, one arm": ("nest", [np.arange(64.0).reshape(8, 8), 5, 2]),
    "store out of range after loads": ("failing", [np.arange(8.0), 8, 1]),
    "second load out of range": ("failing", [np.arange(8.0), 6, 8]),
    "division by zero between accesses": ("failing", [np.arange(8.0), 3, 0]),
    "division by zero in iteration 3": ("ub_later", [np.arange(8.0), 6, 3]),
    "divisor never 0": ("ub_later", [np.arange(8.0), 6, 7]),
    # Indices selected by comparisons of the induction variable (PathFinder's
    # neighbours): unsigned of values that go negative, signed, nested.
    "selected indices": ("selected", [np.arange(8.0), np.zeros(8), 0, 8, 2, 3]),
    "selected, from 3": ("selected", [np.arange(8.0), np.zeros(8), 3, 8, 5, 1]),
    "selected index out of range half-way": (
        "selected",
        [np.arange(8.0), np.zeros(8), 1, 8, -2, 9],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_deferred_trace_is_the_closure_executors(case: str) -> None:
    name, args = CASES[case]
    fast, deferred = _run(name, args, fast=True)
    slow, _ = _run(name, args, fast=False)
    assert repr(fast) == repr(slow)
    failing = "range" in case or "zero" in case
    assert isinstance(fast[0][0], str) == failing  # an error is (its type, its message)
    loops, runs = deferred
    assert loops > 0  # compiled to record its runs as blocks
    assert (runs > 0) == (not failing and case != "no trips")  # a failing run records its own


def test_selected_indices_append_no_entries() -> None:
    """An index that the induction variable and invariants compute through
    comparisons and selects is computed from the run's record, like an affine
    one (`DeferredLoop.computed`): no access appends an entry of its own."""
    module = LocatingParser(make_context(), LOOPS, "loops.mlir").parse_module()
    trace = MemoryTrace()
    Executor(module, trace).run("selected", [np.arange(8.0), np.zeros(8), 0, 8, 2, 3])
    ((loop, runs, entries),) = trace.deferred
    assert all(e is not None for e in loop.computed) and len(runs) > 0 and len(entries) == 0
    # Per iteration i: m[l], m[y], out[x] with l = i - 1 if i > 0 else i,
    # x = i - 2 if (i - 2) mod 2^64 < 3 else i, y = l if i - 2 <= 3 else x.
    addresses = trace.arrays()[0]
    m, out = int(addresses[0]), int(addresses[2])  # at i = 0: m[0], m[0], out[0]
    expected = []
    for i in range(8):
        left = i - 1 if i > 0 else i
        x = i - 2 if 0 <= i - 2 < 3 else i
        y = left if i - 2 <= 3 else x
        expected += [m + 8 * left, m + 8 * y, out + 8 * x]
    assert addresses.tolist() == expected


def test_the_trace_is_recorded_once_however_often_it_is_read() -> None:
    # Reading the trace resolves what is deferred so far; a later run adds to it.
    module = LocatingParser(make_context(), LOOPS, "loops.mlir").parse_module()
    trace = MemoryTrace()
    executor = Executor(module, trace)
    args = [_grid(), np.zeros(8), 0, 4, 1, 1, 2]
    executor.run("strided", args)
    first = trace.arrays()[0].copy()
    assert np.array_equal(trace.arrays()[0], first)
    executor.run("strided", args)
    both = trace.arrays()[0]
    assert np.array_equal(both, np.concatenate([first, first]))
    # Per iteration: m[row, 7 - i], m[i + 1, i], out[1], out[7 - i]; m is 6x8.
    base_m = int(first[0]) - 8 * (2 * 8 + 7)
    expected = []
    for i in range(4):
        expected += [base_m + 8 * (2 * 8 + 7 - i), base_m + 8 * ((i + 1) * 8 + i)]
        expected += [int(first[2]), int(first[2]) + 8 * (6 - i)]
    assert first.tolist() == expected


@pytest.mark.parametrize(
    ("trips", "gaps"),
    [
        ([40, 40, 40], [5, 5, 5]),
        ([40, 40, 40], [5, 9, 5]),
        ([3, 3], [5, 5]),
        ([3, 3, 3], [5, 2, 5]),
        ([5, 40, 1], [5, 5, 5]),
    ],
)
@pytest.mark.parametrize("few", [0, trace_module.FEW_RUNS])
def test_deferred_runs_filled_by_hand(
    trips: list[int], gaps: list[int], few: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`DeferredLoop.fill` against its docstring's formula, entry by entry:
    long runs of one length (written a slice each) and short ones (written
    together), evenly spaced or not, and runs of different lengths; `gaps`
    other entries after each run. Two affine accesses
    (one a write, slopes `stride` and 2) and one that is not, whose entries were
    appended. The runs' last entries and changes computed in numpy (`few` 0)
    and with Python's integers (`DeferredLoop._affine_of_few`)."""
    monkeypatch.setattr(trace_module, "FEW_RUNS", few)
    loop = DeferredLoop(
        k=(0, 1, -1),
        base=(2, 3, -1),
        static=(0, 2, 0),
        slope=(((1, (4,)),), ((2, ()),), ()),
        columns=5,
    )
    rng = np.random.default_rng(len(trips))
    appended = rng.integers(0, 1 << 40, sum(trips))
    runs, expected, start, end = [], {}, 7, 0
    for n in trips:
        step, stride = int(rng.integers(1, 4)), int(rng.integers(1, 9))
        k0, k1, base0, base1 = (int(v) for v in rng.integers(100, 1000, 4))
        end += n
        runs += [start, step, n, end, k0, k1, base0 << 2, base1 << 2 | 1, stride]
        for t in range(n):
            back = (t - n + 1) * step
            at = start + 3 * t
            expected[at] = (k0 << 5) + (base0 << 2) + back * (stride << 5)
            expected[at + 1] = (k1 << 5) + (base1 << 2 | 1) + 2 + back * (2 << 5)
            expected[at + 2] = int(appended[end - n + t])
        start += 3 * n + gaps[len(runs) // 9 - 1]  # other entries between the runs
    packed = np.full(start, -1, dtype=np.int64)
    loop.fill(packed, np.array(runs, dtype=np.int64), appended)
    assert {i: int(v) for i, v in enumerate(packed) if v != -1} == expected


def test_markers_stand_for_their_runs_entries() -> None:
    """A deferred run is one marker entry of `MemoryTrace.packed`: `resolved`
    puts its entries in the marker's place, after the entries recorded before
    it, and `full_positions` turns lengths of `packed` read during the run into
    positions of the whole trace (by hand: one access of slope 1, entries
    `k << 5` with base 0)."""
    loop = DeferredLoop(k=(0,), base=(1,), static=(0,), slope=(((1, ()),),), columns=2)
    trace = MemoryTrace()
    runs, _ = trace.defer(loop)
    trace.packed.extend([11, 12])  # two accesses recorded one by one
    runs.fromlist([len(trace.packed), 1, 3, 0, 7, 0])  # a run of 3 trips, k = 7 last
    trace.packed.append(0)  # its marker
    trace.packed.append(13)
    runs.fromlist([len(trace.packed), 2, 2, 0, 20, 0])  # 2 trips of step 2, k = 20 last
    trace.packed.append(0)
    assert trace.resolved().tolist() == [11, 12, 5 << 5, 6 << 5, 7 << 5, 13, 18 << 5, 20 << 5]
    lengths = np.array([-1, 0, 2, 3, 4, 5], dtype=np.int64)
    assert trace.full_positions(lengths).tolist() == [-1, 0, 2, 5, 6, 8]
    assert len(trace) == 8
    trace.packed.append(14)  # recorded after it was resolved: resolved again
    assert trace.resolved().tolist()[-2:] == [20 << 5, 14]


def _random_trace(rng: np.random.Generator) -> MemoryTrace:
    """A trace of entries recorded one by one (random flags) and the runs of two
    deferred loops between them, as a run records them."""
    loops = [
        DeferredLoop(
            k=(0, 1), base=(2, 3), static=(0, 2), slope=(((1, ()),), ((3, ()),)), columns=4
        ),
        DeferredLoop(k=(0,), base=(1,), static=(2,), slope=(((2, ()),),), columns=2),
    ]
    trace = MemoryTrace()
    deferred = [trace.defer(loop)[0] for loop in loops]
    for _ in range(int(rng.integers(1, 30))):
        count = int(rng.integers(0, 5))
        trace.packed.extend(
            (int(a) << 2 | int(f))
            for a, f in zip(rng.integers(0, 1 << 20, count), rng.integers(0, 4, count), strict=True)
        )
        which = int(rng.integers(0, 3))
        if which == 2:
            continue
        k = [
            int(v) for v in rng.integers(40, 200, loops[which].columns - loops[which].columns // 2)
        ]
        bases = [
            int(b) << 2 | int(f)
            for b, f in zip(
                rng.integers(1 << 10, 1 << 20, len(k)), rng.integers(0, 2, len(k)), strict=True
            )
        ]
        step, trips = int(rng.integers(1, 3)), int(rng.integers(1, 12))
        deferred[which].fromlist([len(trace.packed), step, trips, 0, *k, *bases])
        trace.packed.append(0)  # the run's marker
    return trace


@pytest.mark.parametrize("seed", range(6))
def test_arrays_unpack_the_resolved_trace(seed: int) -> None:
    """`MemoryTrace.arrays` unpacks the resolved entries (`address << 2 | write
    << 1 | tape`) whether `resolved` was read first (kept) or not (computed anew
    and unpacked in place), and leaves an earlier `resolved` array as it was."""
    trace = _random_trace(np.random.default_rng(seed))
    if seed % 2:
        entries = trace.resolved()
        kept = entries.copy()
    else:
        entries = _random_trace(np.random.default_rng(seed)).resolved()
    expected = (
        [int(e) >> 2 for e in entries],
        [bool(int(e) >> 1 & 1) for e in entries],
        [bool(int(e) & 1) for e in entries],
    )
    addresses, writes, tape = trace.arrays()
    assert (addresses.tolist(), writes.tolist(), tape.tolist()) == expected
    assert trace.resolved().tolist() == entries.tolist()
    if seed % 2:
        assert np.array_equal(entries, kept)


def test_few_runs_entries_are_numpys(monkeypatch: pytest.MonkeyPatch) -> None:
    """`DeferredLoop._affine` of a few runs with Python's integers gives numpy's
    int64 results, on random records with values up to 2**62 (products and
    shifts past 64 bits: numpy wraps them, and the Python path, finding a value
    that does not fit, leaves them to numpy)."""
    loop = DeferredLoop(
        k=(0, -1, 1, 2),
        base=(3, -1, 4, 5),
        static=(2, 0, 0, 2),
        slope=(((3, (6,)), (-2, (6, 7))), (), ((1, ()),), ()),
        columns=8,
    )
    rng = np.random.default_rng(11)
    python = 0
    for _ in range(300):
        runs = int(rng.choice([1, 2, 5, trace_module.FEW_RUNS]))
        top = 1 << int(rng.choice([10, 30, 58, 62]))
        records = rng.integers(-top, top, (runs, 12))
        with monkeypatch.context() as patched:
            patched.setattr(trace_module, "FEW_RUNS", 0)
            expected = loop._affine(records)  # noqa: SLF001
        got = loop._affine(records)  # noqa: SLF001
        python += loop._affine_of_few(records, [0, 2, 3]) is not None  # noqa: SLF001
        assert got[0] == expected[0] == [0, 2, 3]
        assert got[1].dtype == got[2].dtype == np.int64
        assert got[1].tolist() == expected[1].tolist()
        assert got[2].tolist() == expected[2].tolist()
    assert 0 < python < 300  # both paths taken


def test_long_runs_written_as_progressions_are_numpys(monkeypatch: pytest.MonkeyPatch) -> None:
    """`DeferredLoop.fill` of long runs of affine accesses alone, each access's
    entries one progression (`trace._progressions`), gives the block path's
    entries: random records (one run or several, steps of either sign, slopes
    0 too) with values small and up to 2**58, whose entries leave 64 bits on
    some (the progressions then leave them to the block path, which wraps)."""
    loop = DeferredLoop(
        k=(0, 1, 2),
        base=(3, 4, 5),
        static=(2, 0, 0),
        slope=(((3, (6,)), (-2, (6, 7))), ((1, ()),), ()),
        columns=8,
    )
    rng = np.random.default_rng(5)
    default, never = trace_module.LONG_COLUMNS, 1 << 62
    written = 0
    for _ in range(60):
        runs = int(rng.choice([1, 3]))
        n = int(rng.choice([default, 1000]))
        top = 1 << int(rng.choice([10, 30, 50, 58]))
        values = rng.integers(-top, top, (runs, 8))
        values[:, 6:] = rng.integers(-9, 9, (runs, 2)) * (top >> 12)
        start = np.arange(runs) * (3 * n + 5) + 2
        records = np.column_stack(
            [start, rng.choice([-2, 1, 3], runs), np.full(runs, n), np.zeros(runs), values]
        ).astype(np.int64)
        packed = {}
        for long in (never, default):
            monkeypatch.setattr(trace_module, "LONG_COLUMNS", long)
            packed[long] = np.full(int(start[-1]) + 3 * n + 4, -1, dtype=np.int64)
            loop.fill(packed[long], records.copy(), np.zeros(0, dtype=np.int64))
        assert packed[never].tolist() == packed[default].tolist()
        _, last, slope = loop._affine(records)  # noqa: SLF001
        written += trace_module._progressions(  # noqa: SLF001
            np.zeros(int(start[-1]) + 3 * n, dtype=np.int64),
            records[:, 0],
            records[:, 1],
            last,
            slope,
            n,
            3,
        )
    assert 0 < written < 60  # both paths taken


@pytest.mark.parametrize("seed", range(8))
def test_few_entries_placed_as_numpy_places_them(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trace of few recorded entries has its markers' shifts and its entries'
    places computed in Python (`trace.FEW_ENTRIES`): the resolved entries, the
    positions of lengths read during the run and the loop runs are numpy's
    (random traces, with and without runs, of fewer and more entries than
    the threshold)."""
    rng = np.random.default_rng(100 + seed)
    found = {}
    for few in (0, 1 << 20):
        monkeypatch.setattr(trace_module, "FEW_ENTRIES", few)
        trace = _random_trace(np.random.default_rng(100 + seed))
        lengths = rng.integers(-1, len(trace.packed) + 1, 12)
        runs = trace.loop_runs()
        found[few] = (
            trace.resolved().tolist(),
            trace.full_positions(lengths).tolist(),
            trace.full_position_list(lengths.tolist()),
            [(r.start.tolist(), r.trips.tolist(), r.width, r.affine) for r in runs],
        )
        rng = np.random.default_rng(100 + seed)
    assert found[0] == found[1 << 20]
    # by hand, from the entries recorded: each marker stands for its run's entries
    trace = _random_trace(np.random.default_rng(100 + seed))
    marked = {}
    for loop, runs, _ in trace.deferred:
        columns = 4 + loop.columns
        for at, trips in zip(runs[::columns], runs[2::columns], strict=True):
            marked[at] = trips * len(loop.k)
    ones = [e for at, e in enumerate(trace.packed) if at not in marked]
    resolved = found[0][0]
    assert len(resolved) == len(trace.packed) + sum(n - 1 for n in marked.values())
    assert [e for at, e in enumerate(resolved) if at in _recorded_places(trace, marked)] == ones


def _recorded_places(trace: MemoryTrace, marked: dict[int, int]) -> set[int]:
    """The places in the whole trace of the entries recorded one by one."""
    places, at = set(), 0
    for n in range(len(trace.packed)):
        if n in marked:
            at += marked[n]
        else:
            places.add(at)
            at += 1
    return places
