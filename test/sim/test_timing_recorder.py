"""
`TimingRecorder.kernel_ran` (a kernel window recorded once its loop ran, while
the recorder is `idle`) against `kernel_loop` and `end_kernel_loop` around the
loop: the same windows, in a run that opens ops windows, layers and streams,
changes phase, and makes accesses before, inside and after its kernel loops.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np

from sim.cache import CacheResult
from sim.timing import TimingRecorder, recorded_columns, window_table
from sim.trace import MemoryTrace
from targets.costs import KernelProfile
from targets.hardware import configure

FIRST = KernelProfile(2, 9, Counter({"fadd": 2}), 3, 1)
SECOND = KernelProfile(1, 4, Counter({"fmul": 1, "fadd": 1}), 1, 0)


def _script(recorder: TimingRecorder, after: bool) -> list[str]:
    """Drive `recorder` through one run; kernel loops are recorded after they
    ran where `after` and the recorder is idle. Returns how each was recorded."""
    trace = recorder.trace
    how = []

    def access(count: int) -> None:
        for _ in range(count):
            trace.packed.append(64 << 2)

    def kernel(trips: int, profile: KernelProfile) -> None:
        if after and recorder.idle:
            access(3 * trips)
            recorder.kernel_ran(trips, profile)
            how.append("after")
        else:
            recorder.kernel_loop(trips, profile)
            access(3 * trips)
            recorder.end_kernel_loop()
            how.append("around")

    steps: list[Callable[[], None]] = [
        lambda: kernel(4, FIRST),  # idle from the start
        lambda: access(1),
        lambda: recorder.op(3, "fadd", "cache"),  # an ops window opens...
        lambda: kernel(2, SECOND),  # ...and is open when this loop starts
        lambda: kernel(5, FIRST),
        lambda: recorder.layer(12),
        lambda: kernel(1, SECOND),
        lambda: recorder.stream("fwd", 96),
        lambda: recorder.end_layer(),
        lambda: recorder.set_phase("rev"),
        lambda: kernel(3, SECOND),
        lambda: recorder.ops(7, (("fmul", 2),), 1, 0, 2),
        lambda: access(2),
        lambda: kernel(0, FIRST),
    ]
    for step in steps:
        step()
    recorder.finish()
    return how


def test_a_kernel_recorded_after_its_loop_is_the_same_window() -> None:
    hardware = configure("Enzyme32k")
    recorders = [TimingRecorder(MemoryTrace(), hardware) for _ in range(2)]
    ways = [_script(r, after) for r, after in zip(recorders, (False, True), strict=True)]
    assert ways[0] == ["around"] * 6
    assert ways[1] == ["after", "around", "after", "after", "after", "around"]  # ops windows open
    around, after = recorders
    for field in ("rows", "ops_windows", "kernel_rows", "phase_changes"):
        assert getattr(around, field) == getattr(after, field), field
    assert around.phases.tolist() == after.phases.tolist()
    assert around.tiles == after.tiles
    assert list(around.fu_totals.items()) == list(after.fu_totals.items())
    assert [vars_of(w) for w in around.windows] == [vars_of(w) for w in after.windows]


def test_the_windows_a_run_records() -> None:
    """`_script`'s windows, by hand: each starts where the one before it ended
    (the access made between kernel 0 and the ops window is the ops window's),
    kernels after `layer` are in layer 1, windows after `set_phase` in REV."""
    expected = [  # kind, phase, start, end, layer, trips
        ("kernel", "fwd", 0, 12, 0, 4),
        ("ops", "fwd", 12, 13, 0, 0),
        ("kernel", "fwd", 13, 19, 0, 2),
        ("kernel", "fwd", 19, 34, 0, 5),
        ("kernel", "fwd", 34, 37, 1, 1),
        ("ops", "fwd", 37, 37, 0, 0),  # the stream's
        ("kernel", "rev", 37, 46, 1, 3),
        ("ops", "rev", 46, 48, 0, 0),
        ("kernel", "rev", 48, 48, 1, 0),
    ]
    for after in (False, True):
        recorder = TimingRecorder(MemoryTrace(), configure("Enzyme32k"))
        _script(recorder, after)
        windows = [(w.kind, w.phase, w.start, w.end, w.layer, w.trips) for w in recorder.windows]
        assert windows == expected
        assert recorder.tiles == [[0, 12, 4, 6, 5, 96, 0]]  # no slab page opened


def test_the_recorded_columns_of_a_run_by_hand() -> None:
    """`recorded_columns` of `_script`'s run: each kernel window's profile values
    (FIRST: ii 2, length 9, 2 FU ops and 3 memory ops placed, 1 scratchpad op;
    SECOND: ii 1, length 4, 2 FU ops and 1 memory op) and what its trips make of
    them, by hand; the ops windows' 0s and their own counts."""
    kernel = [True, False, True, True, True, False, True, False, True]
    trips = [4, 0, 2, 5, 1, 0, 3, 0, 0]
    for after in (False, True):
        recorder = TimingRecorder(MemoryTrace(), configure("Enzyme32k"))
        _script(recorder, after)
        columns = recorded_columns(recorder)
        assert columns.ii.tolist() == [2, 0, 1, 2, 1, 0, 1, 0, 2]
        assert columns.length.tolist() == [9, 0, 4, 9, 4, 0, 4, 0, 9]
        assert columns.placed.tolist() == [5, 0, 3, 5, 3, 0, 3, 0, 5]
        assert columns.tiled.tolist() == [False] * 9
        assert columns.looped.tolist() == kernel
        table = columns.table
        assert table[:, -2].tolist() == trips
        # (trips - 1) * ii + length, 0 without trips; the ops windows' own latencies.
        assert table[:, 2].tolist() == [15, 0, 5, 17, 4, 0, 6, 7, 0]
        assert table[:, 3].tolist() == [0, 3, 0, 0, 0, 0, 0, 2, 0]  # access latency
        assert table[:, 7].tolist() == [4, 0, 0, 5, 0, 12, 0, 0, 0]  # scratchpad accesses
        assert table[:, 8].tolist() == [12, 1, 2, 15, 1, 0, 3, 1, 0]  # memory ops


def vars_of(window: object) -> dict[str, object]:
    slots = type(window).__slots__  # type: ignore[attr-defined]
    return {name: getattr(window, name) for name in slots}


def test_collecting_for_a_timeline_is_never_idle() -> None:
    recorder = TimingRecorder(MemoryTrace(), configure("Enzyme32k"))
    assert recorder.idle
    recorder.collect(lambda: 0)
    assert not recorder.idle
    recorder.op(3, "fadd", None)
    recorder.finish()
    assert not recorder.idle  # its windows sample the scratchpad as they start


def test_a_stream_counts_its_bytes_in_a_window_of_its_own_or_the_open_one() -> None:
    """A FWD stream reads its tile's entries out (spad accesses: bytes / 8) and
    writes DRAM; a REV one writes the entries and reads DRAM, bytes its layer
    waits for. With no window open it has a window of its own; after an op
    outside kernels it ends that op's window."""
    recorder = TimingRecorder(MemoryTrace(), configure("Enzyme32k"))
    recorder.trace.packed.extend([64 << 2] * 3)
    recorder.stream("fwd", 96)  # alone: accesses 0-3 are its window's
    recorder.op(2, "fadd", None)
    recorder.stream("rev", 40)  # ends the op's window
    recorder.finish()
    columns = ("start", "end", "compute", "spad_accesses", "memory_ops")
    streamed = ("stream_write_bytes", "stream_read_bytes", "rev_stream_bytes")
    got = [
        (w.kind, *(getattr(w, c) for c in columns + streamed), dict(w.fu)) for w in recorder.windows
    ]
    assert got == [
        ("ops", 0, 3, 0, 12, 0, 96, 0, 0, {}),
        ("ops", 3, 3, 2, 5, 0, 0, 40, 40, {"fadd": 1}),
    ]


def test_kernel_records_follow_the_rows_and_the_end_of_the_last() -> None:
    """The array the report reads is made once, yet never stale: a kernel loop
    that ends changes its row's end in place, a new loop adds a row."""
    trace = MemoryTrace()
    recorder = TimingRecorder(trace, configure("Enzyme32k"))
    recorder.kernel_loop(4, FIRST)
    assert recorder.kernel_records.tolist() == [[1, 4, -1]]
    trace.packed.extend([64 << 2] * 12)
    recorder.end_kernel_loop()
    assert recorder.kernel_records.tolist() == [[1, 4, 12]]
    trace.packed.extend([64 << 2] * 2)
    recorder.kernel_ran(2, SECOND)
    assert recorder.kernel_records.tolist() == [[1, 4, 12], [2, 2, 14]]
    assert recorder.fu_totals == Counter({"fadd": 4 * 2 + 2, "fmul": 2})


def test_window_counts_are_the_accesses_inside_each_window() -> None:
    """Each window's misses and write-backs (`window_table`, one search per
    window) against counting the positions inside each window's [start, end)."""
    hardware = configure("Enzyme32k")
    recorder = TimingRecorder(MemoryTrace(), hardware)
    _script(recorder, after=False)
    accesses = len(recorder.trace.packed)
    missed = np.array([0, 5, 12, 13, 20, 33, 34, 36, 40, 46, 47], dtype=np.int64)
    evicted = np.array([3, 13, 19, 36, 37, 45], dtype=np.int64)
    hit = np.ones(accesses, dtype=bool)
    hit[missed] = False
    cache = CacheResult(
        hit, evicted.size, evicted, evicted // 8, np.zeros(0, np.int64), missed.size
    )
    table = window_table(recorder, cache, hardware)
    spans = [(w.start, w.end) for w in recorder.windows]
    assert table.misses.tolist() == [sum(a <= p < b for p in missed) for a, b in spans]
    assert table.writebacks.tolist() == [sum(a <= p < b for p in evicted) for a, b in spans]
