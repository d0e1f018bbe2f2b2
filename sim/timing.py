"""
The timing, traffic and energy model of the simulator.

While the executor computes values it reports, through a `TimingRecorder`, the
program as a sequence of *windows*: a run of a loop whose body is a `cgra.kernel`
(N iterations issued every `ii` cycles, each taking `length` cycles), or a stretch
of ops outside kernels, which issue one after another, each waiting its latency.
Each window knows which memory accesses (of the address trace) it made, which
stream transfers it started, and which sweep (FWD or REV) it belongs to. After the
run the trace goes through the cache model, and a timing model (`sim.models`)
gives each window its cycles.

`cycles.memory_stall` is the part of the total spent waiting for the cache and
DRAM beyond the windows' compute, `cycles.stream_stall` the
part spent waiting for REV tiles: together, what the memory system costs.

DRAM traffic is the missed lines, the written-back dirty lines and the streamed
tiles, each byte credited to the buffer it belongs to (`dram_traffic`: primal,
shadow or tape); energy is per event (`targets.energy`).
"""

from __future__ import annotations

import dataclasses
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np
from xdsl.ir import Operation

from sim.cache import CacheResult
from sim.models import WindowTable, get_model
from sim.models.base import Cycles, PlainCycles, PlainWindows, distinct
from sim.models.streams import Transfer
from sim.trace import DRAM_ROLES, PRIMAL, SHADOW, TAPE, AccessRoles, MemoryTrace
from targets.costs import KernelPlanner, KernelProfile, OpCost, unscheduled_op_cost
from targets.hardware import Hardware

_NO_KERNEL = KernelProfile(0, 0, Counter(), 0, 0)
"""`TimingRecorder.profiles[0]`: what ops windows read as their kernel."""


class Window:
    """One window of the run: a kernel loop, or a stretch of ops outside kernels
    (`TimingRecorder.windows` makes them from the recorded columns)."""

    __slots__ = (
        "kind",
        "phase",
        "start",
        "end",
        "compute",
        "access_latency",
        "spad_accesses",
        "memory_ops",
        "stream_write_bytes",
        "stream_read_bytes",
        "rev_stream_bytes",
        "layer",
        "trips",
        "kernel",
        "profile",
        "_fu",
        "_trips",
    )

    def __init__(
        self,
        kind: str,
        phase: str,
        start: int,
        fu: dict[str, int] | None = None,
        trips: int | None = None,
    ):
        self.kind = kind
        """'kernel' or 'ops'."""
        self.phase = phase
        self.start = start
        """First access of the trace made in the window."""
        self.end = -1
        self.compute = 0
        """Cycles of the window's ops: a kernel loop's `(N-1)*ii + length`, the
        latencies of ops outside kernels other than memory accesses."""
        self.access_latency = 0
        """Ops outside kernels: the latencies of their memory accesses (what a
        schedule-less machine charges for them; a model may charge each access's
        own time instead)."""
        self.spad_accesses = 0
        self.memory_ops = 0
        self.stream_write_bytes = 0
        self.stream_read_bytes = 0
        self.rev_stream_bytes = 0
        """Bytes of the REV stream that must arrive before this window starts."""
        self.trips = 0 if trips is None else trips
        """A kernel loop's iterations."""
        self.layer = 0
        """Layers started before this window (`TimingRecorder.layers`)."""
        self.profile: KernelProfile | None = None
        """A kernel loop's kernel (one iteration of it)."""
        self.kernel = 0
        """A kernel loop's index in `TimingRecorder.profiles` (0 for ops)."""
        self._fu: dict[str, int] = {} if fu is None else fu
        self._trips = trips

    @property
    def fu(self) -> Counter[str]:
        """FU ops by class. A kernel window keeps its kernel's per-iteration
        counts and its trip count, and multiplies them only when asked."""
        if self._trips is None:
            return Counter(self._fu)
        return Counter({k: v * self._trips for k, v in self._fu.items()})


_COLUMN_NAMES = (
    "start",
    "end",
    "compute",
    "access_latency",
    "stream_write_bytes",
    "stream_read_bytes",
    "rev_stream_bytes",
    "spad_accesses",
    "memory_ops",
    "layer",
    "trips",
    "kernel",
)
_COLUMNS = len(_COLUMN_NAMES)
_END, _COMPUTE, _ACCESS, _WRITE, _READ, _REV, _SPAD, _MEMOPS = range(1, 9)
_KERNEL_COLUMNS = 3
"""A kernel window's record: its kernel, trips and end (-1 while it runs). The
rest of its row follows from its kernel's profile, the windows before it (its
start is where the window before it ended) and the layers and phase changes
recorded with their first window (`_table`)."""


class _OpsWindow:
    """The open window of ops outside kernels, counted here until it closes
    (then its row of `TimingRecorder.rows` gets the counts)."""

    __slots__ = (
        "index",
        "row",
        "phase",
        "compute",
        "access_latency",
        "spad_accesses",
        "memory_ops",
        "stream_write_bytes",
        "stream_read_bytes",
        "rev_stream_bytes",
        "fu",
    )

    def __init__(self, index: int, row: int, phase: str, fu: dict[str, int]) -> None:
        self.index = index
        self.row = row
        """Its row of `TimingRecorder.rows`."""
        self.phase = phase
        self.compute = self.access_latency = self.spad_accesses = self.memory_ops = 0
        self.stream_write_bytes = self.stream_read_bytes = self.rev_stream_bytes = 0
        self.fu = fu


@dataclass
class TimingRecorder:
    """The run as windows, recorded as columns: `rows` holds one row of
    `_COLUMN_NAMES` per ops window, `kernel_rows` a short record per kernel
    window (a run has hundreds of thousands: each costs the least Python here,
    one list extension, and numpy completes the rows, `recorded_columns`),
    `phase_changes` the sweeps; `windows` makes objects of them (for tests and
    timelines; the report reads the columns)."""

    trace: MemoryTrace
    hardware: Hardware
    phase: str = "fwd"
    rows: array = field(default_factory=lambda: array("q"))
    """Every ops window's row of `_COLUMN_NAMES`, in the order they opened."""
    ops_windows: array = field(default_factory=lambda: array("q"))
    """The window index of each row of `rows`."""
    kernel_rows: list[int] = field(default_factory=list)
    """Every kernel window's record (`_KERNEL_COLUMNS`), in the order they opened."""
    phase_changes: list[tuple[int, int]] = field(default_factory=list)
    """(first window, sweep as an index into `phase_names`) of each phase set."""
    layers: int = 0
    spad_peak_entries: int = 0
    slabs: list[tuple[int | None, int]] = field(default_factory=list)
    """Slabs the stream tapes allocated as they grew: (simulated base address,
    bytes), in allocation order."""
    tape_high_water_bytes: int = 0
    """The most bytes the stream tapes held at once (set after the run)."""
    _open: _OpsWindow | None = None
    marks: list[tuple[str, str, int, int, int]] | None = None
    """Only when collecting for a timeline (`collect`): each layer's start and end
    as (`"layer"` or `"end_layer"`, phase, window, compute cycles of the window
    before it, accesses before it); `window` is the open ops window, or the next
    window if none is open (then with 0 cycles and its first access)."""
    spad_samples: list[tuple[int, int]] | None = None
    """Only when collecting: (window, scratchpad entries full) at the start of
    each window, and (len(windows), entries) at the end of the run."""
    tiles: list[list[int]] = field(default_factory=list)
    """Every layer run, in order, as [rev, tile entries, first window, first window
    after it, window that ends with its stream (-1: none), bytes streamed, cycles
    of DRAM pages its FWD stream opens (`slab`)]: what the timing model needs to
    place the streams in time (`sim.models.streams`). A layer starts and ends a
    window, so its windows are its own."""
    planner: KernelPlanner | None = None
    """The timing model's plan of each kernel (`TimingModel.kernel_plan`), kept
    in its profile (`KernelProfile.plan`); None: no plans."""
    unplaced: int = 0
    """Ops a CGRA could have placed (compute and memory accesses) that ran outside
    any `cgra.kernel`, one after another: 0 when the compiler placed everything."""

    def __post_init__(self) -> None:
        self._accesses = self.trace.packed  # len() of it: accesses so far (`full_positions`)
        self._fu_order: dict[str, None] = {}  # classes in the order they first ran
        self._ops_fu: dict[str, int] = {}  # ops outside kernels, by class
        self._kernel_index: dict[int, int] = {}  # id(fu): its index in `profiles`
        self._cells: dict[int, list[int]] = {}  # id(fu): `kernel_cell`
        self._window_fu: dict[int, dict[str, int]] = {}  # ops window: its FU ops
        self._op_costs = _op_costs(self.hardware)  # `op_cost`'s
        self._costs_of = self.hardware  # the machine `_op_costs` holds the costs on
        self.profiles: list[KernelProfile] = [_NO_KERNEL]
        """Every kernel run so far; a window's `kernel` column indexes it (0: not a kernel)."""
        self.phase_names: list[str] = ["fwd", "rev"]
        self._probe: Callable[[], int] | None = None
        self._columns: tuple[int, RecordedColumns] | None = None
        self._summed: dict[tuple[Any, ...], tuple[CacheResult, int, _Summed]] = {}
        """`report`'s sums of the windows' cycles (`_summed_cycles`), by the
        cache replay's identity and what the timing model's cycles read of the
        machine besides (`cycles_key`), with the replay and the window count
        they were made for."""
        self._kernel_records: tuple[tuple[int, int], np.ndarray] | None = None
        self._in_layer: list[list[int]] = []
        self.idle = True
        """No ops window is open and nothing is collected for a timeline: a
        kernel loop may be recorded after it ran (`kernel_ran`)."""
        self.set_phase(self.phase)

    def op_cost(self, op: Operation) -> OpCost | None:
        """`targets.costs.unscheduled_op_cost` of `op` on `hardware`, found once per
        op class, op name and whether the op has regions (what it depends on) and
        machine (`_op_costs`: each run on that machine object finds it there)."""
        if self._costs_of is not self.hardware:  # another machine given since
            self._op_costs, self._costs_of = _op_costs(self.hardware), self.hardware
        key = (type(op), op.name, bool(op.regions))
        if key not in self._op_costs:
            self._op_costs[key] = unscheduled_op_cost(op, self.hardware)
        return self._op_costs[key]

    @property
    def count(self) -> int:
        """Windows so far."""
        return len(self.ops_windows) + len(self.kernel_rows) // _KERNEL_COLUMNS

    @property
    def kernel_records(self) -> np.ndarray:
        """`kernel_rows` as an array, one row of `_KERNEL_COLUMNS` per kernel
        window, made once for the report's table and `fu_totals` (anew when the
        rows grew or the last one ended: `end_kernel_loop` is the only change
        in place)."""
        rows = self.kernel_rows
        key = (len(rows), rows[-1] if rows else 0)
        cached = self._kernel_records
        if cached is None or cached[0] != key:
            array = np.fromiter(rows, dtype=np.int64, count=len(rows))
            cached = self._kernel_records = (key, array.reshape(-1, _KERNEL_COLUMNS))
        return cached[1]

    @property
    def phases(self) -> np.ndarray:
        """Per window: its sweep, as an index into `phase_names`."""
        first, codes = np.array(self.phase_changes, dtype=np.int64).reshape(-1, 2).T
        windows = np.arange(self.count, dtype=np.int64)
        return codes[np.searchsorted(first, windows, side="right") - 1].astype(np.int8)

    @property
    def _covered(self) -> int:
        """Accesses before this belong to a window (where the last window ended);
        a new window starts here, so an access recorded just before its op opens
        the window is still counted."""
        # Ends never decrease; only the last kernel window may still be running.
        rows = self.kernel_rows
        n = len(rows)
        last = rows[-1] if n else 0
        before = rows[-1 - _KERNEL_COLUMNS] if n > _KERNEL_COLUMNS else 0
        ops = self.rows[-_COLUMNS + _END] if self.rows else 0
        return max(0, ops, last, before)

    @property
    def windows(self) -> list[Window]:
        """The windows so far as objects (made anew on each call)."""
        table = _table(self)
        made = []
        for index, code in enumerate(self.phases.tolist()):
            row = [int(v) for v in table[index]]
            kernel = row[-1]
            profile = self.profiles[kernel] if kernel else None
            phase = self.phase_names[code]
            if profile is not None:
                w = Window("kernel", phase, row[0], profile.fu_ops, row[-2])
                w.profile = profile
            else:
                w = Window("ops", phase, row[0], self._window_fu.get(index, {}))
            for name, value in zip(_COLUMN_NAMES[1:], row[1:], strict=True):
                setattr(w, name, value)
            open_ = self._open
            if open_ is not None and open_.index == index:
                w.end = -1
                for name in _OpsWindow.__slots__[2:-1]:
                    setattr(w, name, getattr(open_, name))
            made.append(w)
        return made

    def collect(self, probe: Callable[[], int]) -> None:
        """Also record what a timeline shows (`marks`, `spad_samples`), with
        `probe` telling the scratchpad entries full; call before the run. A run
        that does not collect pays only a test per window."""
        self.marks = []
        self.spad_samples = []
        self._probe = probe
        self.idle = False

    def _sample(self) -> None:
        if self.spad_samples is not None and self._probe is not None:
            self.spad_samples.append((self.count, self._probe()))

    def _mark(self, what: str) -> None:
        if self.marks is not None:
            w = self._open  # always the last window when open
            if w is None:
                self.marks.append((what, self.phase, self.count, 0, self._covered))
            else:
                index = self.count - 1
                self.marks.append((what, self.phase, index, w.compute, len(self._accesses)))

    @property
    def fu_totals(self) -> Counter[str]:
        """FU ops by class over all windows, classes in the order they first ran
        (the order the energy sum adds them in)."""
        totals: Counter[str] = Counter(dict.fromkeys(self._fu_order, 0))
        for cls, count in self._ops_fu.items():
            totals[cls] += count
        rows = self.kernel_rows
        if len(rows) <= FEW_WINDOWS * _KERNEL_COLUMNS:  # a few: their trips summed in Python
            summed = [0] * len(self.profiles)
            for n in range(0, len(rows), _KERNEL_COLUMNS):
                summed[rows[n]] += rows[n + 1]
            trips: Any = summed
        else:
            kernels = self.kernel_records
            trips = np.bincount(kernels[:, 0], weights=kernels[:, 1], minlength=len(self.profiles))
        for index in self._kernel_index.values():
            for cls, count in self.profiles[index].fu_ops.items():
                totals[cls] += count * int(trips[index])
        return totals

    def _ops_window(self) -> _OpsWindow:
        w = self._open
        if w is None or w.phase != self.phase:
            if w is not None:
                self._close()
            if self.spad_samples is not None:
                self._sample()
            index = self.count
            fu: dict[str, int] = {}
            self._window_fu[index] = fu
            w = self._open = _OpsWindow(index, len(self.ops_windows), self.phase, fu)
            self.idle = False
            self.rows.extend((self._covered, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            self.ops_windows.append(index)
        return w

    def _close(self) -> None:
        w = self._open
        if w is not None:
            base = w.row * _COLUMNS
            rows = self.rows
            rows[base + _END] = len(self._accesses)
            rows[base + _COMPUTE] = w.compute
            rows[base + _ACCESS] = w.access_latency
            rows[base + _WRITE] = w.stream_write_bytes
            rows[base + _READ] = w.stream_read_bytes
            rows[base + _REV] = w.rev_stream_bytes
            rows[base + _SPAD] = w.spad_accesses
            rows[base + _MEMOPS] = w.memory_ops
            if not w.fu:
                del self._window_fu[w.index]
            self._open = None
            self.idle = self.spad_samples is None

    def set_phase(self, phase: str) -> None:
        self._close()
        self.phase = phase
        if phase not in self.phase_names:
            self.phase_names.append(phase)
        self.phase_changes.append((self.count, self.phase_names.index(phase)))

    def op(self, latency: int, fu_class: str | None, memory: str | None) -> None:
        """One op outside kernels ran."""
        w = self._ops_window()
        if fu_class is not None or memory is not None:
            self.unplaced += 1
        if memory is None:
            w.compute += latency
        else:
            w.access_latency += latency
        if fu_class is not None:
            w.fu[fu_class] = w.fu.get(fu_class, 0) + 1
            if fu_class in self._ops_fu:
                self._ops_fu[fu_class] += 1
            else:
                self._ops_fu[fu_class] = 1
                self._fu_order.setdefault(fu_class)
        if memory is not None:
            w.memory_ops += 1
            if memory == "spad":
                w.spad_accesses += 1

    def ops(
        self,
        latency: int,
        fu: tuple[tuple[str, int], ...],
        memory_ops: int,
        spad: int,
        access_latency: int = 0,
    ) -> None:
        """Several ops outside kernels ran, one after another (the same as calling
        `op` for each: `fu` lists the classes in the order they first ran;
        `latency` is the other ops' latencies, `access_latency` the memory
        accesses')."""
        w = self._ops_window()
        w.compute += latency
        w.access_latency += access_latency
        self.unplaced += memory_ops + sum(count for _, count in fu)
        if fu:
            window_fu, totals = w.fu, self._ops_fu
            for cls, count in fu:
                window_fu[cls] = window_fu.get(cls, 0) + count
                if cls in totals:
                    totals[cls] += count
                else:
                    totals[cls] = count
                    self._fu_order.setdefault(cls)
        w.memory_ops += memory_ops
        w.spad_accesses += spad

    def kernel_loop(self, trips: int, profile: KernelProfile) -> None:
        """A loop of `trips` iterations of the kernel `profile` describes is about
        to run (`end_kernel_loop` when it has)."""
        if self._open is not None:
            self._close()
        if self.spad_samples is not None:
            self._sample()
        kernel = self._kernel_index.get(id(profile.fu_ops))
        if kernel is None:
            kernel = self._add_kernel(profile)
        self.kernel_rows += (kernel, trips, -1)

    def end_kernel_loop(self) -> None:
        """The kernel loop `kernel_loop` started has run."""
        self.kernel_rows[-1] = len(self._accesses)

    def kernel_ran(self, trips: int, profile: KernelProfile) -> None:
        """`kernel_loop` and `end_kernel_loop` at once, after the loop ran: only
        while `idle` (then `kernel_loop` neither closes a window nor samples; a
        loop that fails must be given to `kernel_loop`, unended)."""
        kernel = self._kernel_index.get(id(profile.fu_ops))
        if kernel is None:
            kernel = self._add_kernel(profile)
        self.kernel_rows += (kernel, trips, len(self._accesses))

    def kernel_cell(self, profile: KernelProfile) -> list[int]:
        """A cell that holds `profile`'s index in `profiles` once it ran (-1
        before): code generated for a kernel loop records a run of a kernel
        that ran before as `kernel_ran` does, extending `kernel_rows` itself by
        (index, trips, len(trace.packed)), and calls `kernel_ran` otherwise."""
        return self._cells.setdefault(id(profile.fu_ops), [-1])

    def _add_kernel(self, profile: KernelProfile) -> int:
        kernel = self._kernel_index[id(profile.fu_ops)] = len(self.profiles)
        self.kernel_cell(profile)[0] = kernel
        self.profiles.append(profile)
        for cls in profile.fu_ops:
            self._fu_order.setdefault(cls)
        return kernel

    def stream(self, direction: str, nbytes: int) -> None:
        # The stream engine reads (FWD) or writes (REV) the tile's entries.
        spad = nbytes // 8
        written, read = (nbytes, 0) if direction == "fwd" else (0, nbytes)
        if self._open is None and self.spad_samples is None:
            # A window of the stream alone (a layer's end closed the one before):
            # its row as `_ops_window` opens it and `_close` completes it.
            index = self.count
            end = len(self._accesses)
            self.rows.extend((self._covered, end, 0, 0, written, read, read, spad, 0, 0, 0, 0))
            self.ops_windows.append(index)
        else:
            w = self._ops_window()
            w.spad_accesses += spad
            w.stream_write_bytes += written
            w.stream_read_bytes += read
            w.rev_stream_bytes += read
            self._close()
            index = self.count - 1
        if self._in_layer:
            tile = self._in_layer[-1]
            tile[4] = index
            tile[5] += nbytes

    def layer(self, entries: int = 0, rev: bool = False) -> None:
        """A layer whose tile holds `entries` scratchpad entries starts (in REV if
        `rev`)."""
        self.layers += 1
        self._close()
        tile = [int(rev), entries, self.count, -1, -1, 0, 0]
        self.tiles.append(tile)
        self._in_layer.append(tile)
        if self.marks is not None:
            self._mark("layer")

    def end_layer(self) -> None:
        """A layer's body ended."""
        self._close()
        if self._in_layer:
            self._in_layer.pop()[3] = self.count
        if self.marks is not None:
            self._mark("end_layer")

    def slab(self, nbytes: int, base: int | None) -> None:
        """A slab tape grew by one slab of `nbytes` at simulated address `base`.
        Mechanism: the stream engine opens one more DRAM page (row) for it, one
        DRAM access latency (`hardware.dram.latency_cycles`) before the FWD
        stream that needed it may write there; the slab is linked, nothing is
        copied. The engine drains FWD streams while the CGRA runs on, so the page
        delays that stream (its tile's entries stay taken until it is out:
        `sim.models.streams`), not the layer's windows; a stream outside any
        layer waits for it in its own window."""
        self.slabs.append((base, nbytes))
        latency = self.hardware.dram.latency_cycles
        if self._in_layer:
            self._in_layer[-1][6] += latency
            return
        w = self._ops_window()
        w.compute += latency

    def finish(self) -> None:
        self._close()
        if self.spad_samples is not None:
            self._sample()


_OP_COSTS: dict[int, tuple[Hardware, dict[tuple[type, str, bool], OpCost | None]]] = {}
"""`TimingRecorder.op_cost`'s table of each machine object asked about, by
identity (the machine kept, so that its identity is not reused): a frozen
machine's costs do not change, and a sweep or a benchmark runs one machine
object many times."""


def _op_costs(hardware: Hardware) -> dict[tuple[type, str, bool], OpCost | None]:
    """The op cost table of `hardware` (`_OP_COSTS`), made empty the first time."""
    known = _OP_COSTS.get(id(hardware))
    if known is not None and known[0] is hardware:
        return known[1]
    if len(_OP_COSTS) >= 256:
        _OP_COSTS.clear()
    table: dict[tuple[type, str, bool], OpCost | None] = {}
    _OP_COSTS[id(hardware)] = (hardware, table)
    return table


def prefix_counts(flags: np.ndarray) -> np.ndarray:
    """prefix[i]: how many of flags[:i] are set."""
    return np.concatenate([[0], np.cumsum(flags, dtype=np.int64)])


def _counts_in(positions: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per window, how many of the sorted `positions` (accesses, not negative)
    are in [start, end). Each window but the first starts where the windows
    before it ended (`_table`), so the count before its start is the largest
    before their ends: one search per window, not two."""
    before_end = np.searchsorted(positions, end)
    before_start = np.empty_like(before_end)
    if end.size:
        before_start[0] = np.searchsorted(positions, start[0])
        np.maximum.accumulate(before_end[:-1], out=before_start[1:])
    return before_end - before_start


@dataclass(frozen=True)
class RecordedColumns:
    """What the recorded windows give, whatever the cache: one array per column
    (`recorded_columns`)."""

    table: np.ndarray
    """One row per window, the columns of `_COLUMN_NAMES`."""
    ii: np.ndarray
    length: np.ndarray
    tiled: np.ndarray
    looped: np.ndarray
    placed: np.ndarray
    rev: np.ndarray
    phase: np.ndarray
    """Per window, its sweep as an index into `phase_names`."""
    phase_names: tuple[str, ...]
    tiles: np.ndarray
    plans: tuple[Any, ...]

    @cached_property
    def tile_rows(self) -> list[list[int]]:
        """`tiles` as Python rows, made once (`WindowTable.tile_list`)."""
        return self.tiles.tolist()  # type: ignore[no-any-return]


_II, _LENGTH, _SPAD_OPS, _MEMORY_OPS, _TILED, _LOOPED, _PLACED = range(7)


def _profile_columns(profiles: list[KernelProfile]) -> np.ndarray:
    """The kernel profiles' values (`TimingRecorder.profiles`) as one array of
    seven rows, column p profile p's: ii, length, scratchpad ops, memory ops,
    tiled and looped (0 or 1) and placed ops (FU and memory). The windows'
    columns are gathered from it in one step, each row contiguous."""
    return np.array(
        [
            (
                p.ii,
                p.length,
                p.spad_ops,
                p.memory_ops,
                p.tiled,
                p.looped,
                sum(p.fu_ops.values()) + p.memory_ops,
            )
            for p in profiles
        ],
        dtype=np.int64,
    ).T.copy()


def _table(recorder: TimingRecorder, profile_columns: np.ndarray | None = None) -> np.ndarray:
    """One row of `_COLUMN_NAMES` per window: the ops windows' rows as recorded,
    the kernel windows' completed from their kernels' profiles, every window's
    start where the last window before it that ended did (a window still
    running has end -1). Stored column by column (each column contiguous).
    `profile_columns`: `_profile_columns` of the recorder's profiles, if made."""
    count = recorder.count
    columns = np.zeros((_COLUMNS, count), dtype=np.int64)
    ops_index = np.frombuffer(recorder.ops_windows, dtype=np.int64)
    ops = np.frombuffer(recorder.rows, dtype=np.int64).reshape(-1, _COLUMNS)
    columns[:, ops_index] = ops.T
    is_kernel = np.ones(count, dtype=bool)
    is_kernel[ops_index] = False
    index = np.flatnonzero(is_kernel)
    kernel, trips, end = recorder.kernel_records.T
    if profile_columns is None:
        profile_columns = _profile_columns(recorder.profiles)
    ii, length, spad_ops, memory_ops = profile_columns[_II : _MEMORY_OPS + 1, kernel]
    tiles = recorder.tiles
    firsts = np.fromiter(map(itemgetter(2), tiles), dtype=np.int64, count=len(tiles))
    columns[_END, index] = end
    columns[_COMPUTE, index] = np.where(trips > 0, (trips - 1) * ii + length, 0)
    columns[_SPAD, index] = spad_ops * trips
    columns[_MEMOPS, index] = memory_ops * trips
    columns[_COLUMNS - 3, index] = np.searchsorted(firsts, index, side="right")  # layers before
    columns[_COLUMNS - 2, index] = trips
    columns[_COLUMNS - 1, index] = kernel
    columns[_END] = recorder.trace.full_positions(columns[_END])
    columns[0] = recorder.trace.full_positions(columns[0])
    if count:
        columns[0, 1:] = np.maximum.accumulate(np.maximum(columns[_END, :-1], 0))
    return columns.T


def _tile_array(tiles: list[list[int]]) -> np.ndarray:
    """The layer runs' rows (`TimingRecorder.tiles`, 7 integers each) as one
    array: read through one flat iterator (`np.array` of a list of lists
    inspects every row for its shape first, nearly twice the time on LeNet's
    454 k rows)."""
    return np.fromiter(chain.from_iterable(tiles), dtype=np.int64, count=7 * len(tiles)).reshape(
        -1, 7
    )


def recorded_columns(recorder: TimingRecorder) -> RecordedColumns:
    """The recorder's windows as arrays, built once per finished run and reused by
    every evaluation of it (each cache and energy preset)."""
    count = recorder.count
    cached = recorder._columns  # noqa: SLF001 - the recorder's own memo
    if cached is not None and cached[0] == count:
        return cached[1]
    profiles = recorder.profiles
    by_profile = _profile_columns(profiles)
    table = _table(recorder, by_profile)
    kernel = table[:, _COLUMNS - 1]
    per_window = by_profile[:, kernel]  # each column contiguous
    codes = recorder.phases
    columns = RecordedColumns(
        table=table,
        ii=per_window[_II],
        length=per_window[_LENGTH],
        tiled=per_window[_TILED].astype(bool),
        looped=per_window[_LOOPED].astype(bool) & (kernel > 0),
        placed=per_window[_PLACED],
        rev=codes == recorder.phase_names.index("rev"),
        phase=codes,
        phase_names=tuple(recorder.phase_names),
        tiles=_tile_array(recorder.tiles),
        plans=tuple(p.plan for p in profiles),
    )
    recorder._columns = (count, columns)  # noqa: SLF001
    return columns


def window_table(recorder: TimingRecorder, cache: CacheResult, hardware: Hardware) -> WindowTable:
    """The recorded windows as columns, with what the cache replay found in each
    (what a timing model costs, `sim.models`)."""
    line = hardware.cache.line_bytes
    recorded = recorded_columns(recorder)
    table = recorded.table
    (
        start,
        end,
        compute,
        access_latency,
        stream_write,
        stream_read,
        rev_bytes,
        spad,
        memops,
        layer_of,
        trips,
        kernel,
    ) = table.T
    misses = _counts_in(cache.missed_at, start, end)
    writebacks = _counts_in(cache.evicted_at, start, end)
    return WindowTable(
        kernel=kernel > 0,
        compute=compute,
        access_latency=access_latency,
        hits=end - start - misses,
        misses=misses,
        writebacks=writebacks,
        dram_bytes=(misses + writebacks) * line + stream_write + stream_read,
        rev_stream_bytes=rev_bytes,
        trips=trips,
        ii=recorded.ii,
        length=recorded.length,
        tiled=recorded.tiled,
        kernel_id=kernel,
        layer=layer_of,
        spad_accesses=spad,
        memory_ops=memops,
        stream_write_bytes=stream_write,
        stream_read_bytes=stream_read,
        kernel_ops=recorded.placed,
        looped=recorded.looped,
        rev=recorded.rev,
        tiles=recorded.tiles,
        start=start,
        end=end,
        access_hit=cache.hit,
        plans=recorded.plans,
        tile_rows=lambda tiles: recorded.tile_rows if tiles is recorded.tiles else None,
    )


FEW_WINDOWS = 64
"""Up to this many windows, `report` takes the windows' columns and a model's
cycles (`plain_windows`, `plain_cycles`) in Python's arithmetic: numpy's calls
on a few entries, tens in the table and the cycle model, cost more than the
arithmetic itself. Measured (the least of 60 reports of one run, warm): 5
windows 91 us against numpy's 227 us, 46 windows 282 against 321, 86 windows
418 against 370; after a run, whose Python leaves the caches cold, each numpy
call costs several times more (docs/research/executor.md, "Where a
simulation's time goes beside the run")."""


def _plain_table(recorder: TimingRecorder) -> list[list[int]]:
    """`_table` as Python rows (the same numbers): a report of few windows."""
    width = _COLUMNS
    recorded = recorder.rows
    table: list[list[int]] = [[] for _ in range(recorder.count)]
    for row, index in enumerate(recorder.ops_windows):
        table[index] = list(recorded[row * width : (row + 1) * width])
    firsts = [tile[2] for tile in recorder.tiles]
    profiles, kernel_rows = recorder.profiles, recorder.kernel_rows
    n = 0
    for index, row in enumerate(table):
        if row:
            continue
        kernel, trips, end = kernel_rows[n : n + _KERNEL_COLUMNS]
        n += _KERNEL_COLUMNS
        p = profiles[kernel]
        compute = (trips - 1) * p.ii + p.length if trips > 0 else 0
        layers = bisect_right(firsts, index)
        table[index] = [0, end, compute, 0, 0, 0, 0, p.spad_ops * trips]
        table[index] += [p.memory_ops * trips, layers, trips, kernel]
    if not table:
        return table
    full = recorder.trace.full_position_list([table[0][0]] + [row[_END] for row in table])
    table[0][0] = full[0]
    reached = 0
    for row, end in zip(table, full[1:], strict=True):
        row[_END] = end
    for before, row in zip(table, table[1:], strict=False):
        reached = max(reached, before[_END])
        row[0] = reached
    return table


def plain_windows(
    recorder: TimingRecorder, cache: CacheResult, hardware: Hardware
) -> tuple[PlainWindows, list[list[int]], list[int]]:
    """`window_table` of a run of few windows as Python lists (the same
    numbers), with its table's rows (`_table`) and each window's sweep (as
    `TimingRecorder.phases`)."""
    table = _plain_table(recorder)
    count = len(table)
    firsts, codes = [c[0] for c in recorder.phase_changes], [c[1] for c in recorder.phase_changes]
    phase = [codes[bisect_right(firsts, w) - 1] for w in range(count)]
    rev_code = recorder.phase_names.index("rev")
    profiles = recorder.profiles
    kernels = [profiles[row[-1]] for row in table]
    starts = [row[0] for row in table]
    ends = [row[_END] for row in table]
    bounds = [starts[0], *ends] if count else []
    missed = _plain_counts_in(cache.missed_at, bounds)
    written = _plain_counts_in(cache.evicted_at, bounds)
    line = hardware.cache.line_bytes
    windows = PlainWindows(
        compute=[row[_COMPUTE] for row in table],
        access_latency=[row[_ACCESS] for row in table],
        hits=[e - s - m for s, e, m in zip(starts, ends, missed, strict=True)],
        misses=missed,
        writebacks=written,
        dram_bytes=[
            (m + b) * line + row[_WRITE] + row[_READ]
            for m, b, row in zip(missed, written, table, strict=True)
        ],
        trips=[row[-2] for row in table],
        ii=[p.ii for p in kernels],
        length=[p.length for p in kernels],
        tiled=[bool(p.tiled) for p in kernels],
        kernel_id=[row[-1] for row in table],
        layer=[row[-3] for row in table],
        rev=[code == rev_code for code in phase],
        kernel_ops=[sum(p.fu_ops.values()) + p.memory_ops for p in kernels],
        looped=[bool(p.looped) and row[-1] > 0 for p, row in zip(kernels, table, strict=True)],
        tiles=[list(tile) for tile in recorder.tiles],
    )
    return windows, table, phase


def _plain_counts_in(positions: np.ndarray, bounds: list[int]) -> list[int]:
    """`_counts_in` of few windows, `bounds` the first window's start and every
    window's end: one search for them all."""
    if not bounds:
        return []
    found = np.searchsorted(positions, bounds).tolist()
    counts = [found[1] - found[0]]
    before = found[1]  # the most before the ends of the windows so far
    for at in found[2:]:
        counts.append(at - before)
        before = max(before, at)
    return counts


@dataclass(frozen=True)
class WindowTimes:
    """What `report` charged each window (arrays in window order, in cycles), for
    a timeline (`sim.timeline`): the same numbers the report sums."""

    spent: np.ndarray
    """Cycles of the window, its stream stall included."""
    compute: np.ndarray
    """Cycles of its issue and latencies alone."""
    misses: np.ndarray
    writebacks: np.ndarray
    stream_stall: np.ndarray
    """Cycles it waited for its REV tile (at its start)."""
    transfers: tuple[Transfer, ...]
    """Each stream transfer (`sim.models.streams.Transfer`), in issue order."""


def dram_traffic(
    addresses: np.ndarray, roles: np.ndarray | AccessRoles, cache: CacheResult, line: int
) -> list[int]:
    """The bytes of the cache's DRAM traffic credited to each role (`DRAM_ROLES`).

    Each line belongs to one buffer: the role of the first access to it (lines are
    a buffer's own at the default 64 B placement; where buffers are packed, a line
    they share goes to the first one touched). A miss's fetch is its line's, and so
    is a write-back, whether an eviction (whichever access evicted it) or the
    final flush."""
    shift = line.bit_length() - 1
    victims = cache.evicted
    written = np.concatenate([victims, cache.flushed])
    # A line's first access misses (the cache starts empty), and every line
    # written back was fetched: the misses alone name every line and its owner.
    missed_at = cache.missed_at
    missed = addresses[missed_at] >> shift
    low = int(missed.min()) if missed.size else 0
    span = int(missed.max()) - low + 1 if missed.size else 0
    if span <= 4 * missed.size + (1 << 20):
        # Lines numbered densely from the lowest: each line's first access is
        # the smallest index that names it.
        # (The owners as `intp`, which `bincount` counts without a conversion.)
        missed -= low
        first = np.full(span, addresses.size, dtype=np.int64)
        np.minimum.at(first, missed, missed_at)
        touched = first < addresses.size
        owner = np.zeros(span, dtype=np.intp)
        owner[touched] = roles[first[touched]]
        fetched = np.bincount(owner[missed], minlength=len(DRAM_ROLES))
        back = np.bincount(owner[written - low], minlength=len(DRAM_ROLES))
    else:
        known, first, inverse = np.unique(missed, return_index=True, return_inverse=True)
        owner = roles[missed_at[first]]
        fetched = np.bincount(owner[inverse], minlength=len(DRAM_ROLES))
        back = np.bincount(owner[np.searchsorted(known, written)], minlength=len(DRAM_ROLES))
    return [int(n) * line for n in fetched + back]


def _timed(
    recorder: TimingRecorder,
    columns: WindowTable,
    hardware: Hardware,
    timing_model: Any,
    on_windows: Callable[[WindowTimes], None] | None,
    cycles: dict[str, int],
    hits: dict[str, int],
    misses: dict[str, int],
) -> Cycles:
    """The model's cycles of the windows (`columns`, `window_table`'s), with
    each sweep's cycles, hits and misses summed into `cycles`, `hits` and
    `misses`; `on_windows` hears what each window was charged."""
    recorded = recorded_columns(recorder)
    phase, phase_names = recorded.phase, recorded.phase_names
    m, window_hits = columns.misses, columns.hits
    timed: Cycles = timing_model.cycles(columns, hardware, transfers=on_windows is not None)
    spent = timed.spent
    if on_windows is not None:
        on_windows(
            WindowTimes(
                spent.copy(),
                timed.busy,
                m,
                columns.writebacks,
                timed.stream_stalled,
                timed.transfers,
            )
        )
    unknown = {phase_names[c] for c in distinct(phase).tolist()} - set(cycles)
    if unknown:
        raise KeyError(unknown.pop())
    for name in cycles:
        mask = phase == phase_names.index(name)
        cycles[name] = int(spent[mask].sum())
        hits[name] = int(window_hits[mask].sum())
        misses[name] = int(m[mask].sum())
    return timed


@dataclass(frozen=True)
class _Summed:
    """What `report` reads of a timing model's cycles of many windows: the
    cycles, hits and misses of each sweep, the scratchpad and memory ops and
    stream bytes of all windows, and the model's `Cycles` with its per-window
    arrays left out (`timed`: only its totals are read) unless a timeline asked
    for them."""

    cycles: dict[str, int]
    hits: dict[str, int]
    misses: dict[str, int]
    totals: tuple[int, int, int, int]
    timed: Cycles


def _summed_cycles(
    recorder: TimingRecorder,
    cache: CacheResult,
    hardware: Hardware,
    timing_model: Any,
    on_windows: Callable[[WindowTimes], None] | None,
) -> _Summed:
    """`_timed` of `recorder`'s windows under `cache` on `hardware`, summed. A
    model whose cycles read only part of the machine (`cycles_key`: the salam
    model reads the datapath's ports alone) gives every machine that agrees on
    that part and on the line size (the windows' DRAM bytes) the same cycles
    from one replay: they are made once per run, replay and key (a sweep's
    points that differ in what that model does not time share one run). A
    timeline (`on_windows`) is told every window's charges, so its call is
    made anew."""
    keyed = getattr(timing_model, "cycles_key", None)
    key: tuple[Any, ...] | None = None
    if keyed is not None and on_windows is None:
        key = (id(cache), hardware.cache.line_bytes, timing_model.name, keyed(hardware))
        found = recorder._summed.get(key)  # noqa: SLF001 - the recorder's own memo
        if found is not None and found[0] is cache and found[1] == recorder.count:
            return found[2]
    cycles = {"fwd": 0, "rev": 0}
    hits = {"fwd": 0, "rev": 0}
    misses = {"fwd": 0, "rev": 0}
    columns = window_table(recorder, cache, hardware)
    timed = _timed(recorder, columns, hardware, timing_model, on_windows, cycles, hits, misses)
    totals = (
        int(columns.spad_accesses.sum()),
        int(columns.memory_ops.sum()),
        int(columns.stream_read_bytes.sum()),
        int(columns.stream_write_bytes.sum()),
    )
    if key is None:
        return _Summed(cycles, hits, misses, totals, timed)
    empty = np.zeros(0, dtype=np.int64)
    kept = dataclasses.replace(timed, spent=empty, busy=empty, stream_stalled=empty, transfers=())
    summed = _Summed(cycles, hits, misses, totals, kept)
    recorder._summed[key] = (cache, recorder.count, summed)  # noqa: SLF001
    return summed


def report(
    recorder: TimingRecorder,
    cache: CacheResult,
    roles: np.ndarray | AccessRoles,
    hardware: Hardware,
    tape_bytes: int,
    model: str = "cgra",
    on_windows: Callable[[WindowTimes], None] | None = None,
) -> dict[str, object]:
    """The simulator's JSON report (stable keys, see DESIGN.md), but for its
    `hardware` record, which `sim.simulator.evaluate` adds. `model` names the
    timing model (`sim.models.MODELS`) that turns the windows into cycles;
    `roles` gives each access's role (`MemoryTrace.roles`), whom its line's
    traffic is credited to (`dram_traffic`); `on_windows`, if given, hears what
    each window was charged."""
    timing_model = get_model(model)
    line = hardware.cache.line_bytes
    if isinstance(roles, AccessRoles):  # the trace's addresses, unpacked already
        addresses = roles.addresses
    else:
        addresses = recorder.trace.resolved() >> 2
    plain = getattr(timing_model, "plain_cycles", None)
    cycles = {"fwd": 0, "rev": 0}
    hits = {"fwd": 0, "rev": 0}
    misses = {"fwd": 0, "rev": 0}
    timed: Cycles | PlainCycles
    if plain is not None and on_windows is None and recorder.count <= FEW_WINDOWS:
        windows, table, phase_list = plain_windows(recorder, cache, hardware)
        timed = plain(windows, hardware)
        phase_names = recorder.phase_names
        unknown = {phase_names[c] for c in phase_list} - set(cycles)
        if unknown:
            raise KeyError(unknown.pop())
        for name in cycles:
            code = phase_names.index(name)
            chosen = [w for w, c in enumerate(phase_list) if c == code]
            cycles[name] = sum(timed.spent[w] for w in chosen)
            hits[name] = sum(windows.hits[w] for w in chosen)
            misses[name] = sum(windows.misses[w] for w in chosen)
        spad_accesses = sum(row[_SPAD] for row in table)
        memory_ops = sum(row[_MEMOPS] for row in table)
        stream_read = sum(row[_READ] for row in table)
        stream_write = sum(row[_WRITE] for row in table)
    else:
        summed = _summed_cycles(recorder, cache, hardware, timing_model, on_windows)
        timed = summed.timed
        cycles, hits, misses = dict(summed.cycles), dict(summed.hits), dict(summed.misses)
        spad_accesses, memory_ops, stream_read, stream_write = summed.totals
    stall_memory, stall_stream = timed.memory_stall, timed.stream_stall
    fu: Counter[str] = Counter(recorder.fu_totals)
    total_hits, total_misses = cache.hits, cache.misses
    accesses = total_hits + total_misses
    read = cache.miss_lines * line + stream_read
    write = cache.writebacks * line + stream_write
    by_role = dram_traffic(addresses, roles, cache, line)
    by_role[TAPE] += stream_read + stream_write
    assert sum(by_role) == read + write  # every byte credited once
    data: dict[str, Any] = {
        "model": model,
        "cycles": {
            "fwd": cycles["fwd"],
            "rev": cycles["rev"],
            "total": cycles["fwd"] + cycles["rev"],
            "memory_stall": stall_memory,
            "stream_stall": stall_stream,
            "config": timed.config,
            "fill_drain": timed.fill_drain,
        },
        "ops": {
            "total": sum(fu.values()) + memory_ops,
            "fu": dict(fu),
            "memory": memory_ops,
            "unplaced": recorder.unplaced,
        },
        "cache": {
            "hits": total_hits,
            "misses": total_misses,
            "hit_rate": total_hits / accesses if accesses else 0.0,
            "fwd": {"hits": hits["fwd"], "misses": misses["fwd"]},
            "rev": {"hits": hits["rev"], "misses": misses["rev"]},
        },
        "dram_bytes": {
            "read": read,
            "write": write,
            "primal": by_role[PRIMAL],
            "shadow": by_role[SHADOW],
            "tape": by_role[TAPE],
            "total": read + write,
        },
        "spad": {"accesses": spad_accesses, "peak_bytes": recorder.spad_peak_entries * 8},
        "streams": {
            "write_bytes": stream_write,
            "read_bytes": stream_read,
            "prefetch_distance": timed.prefetch_distance,
        },
        "sram_bytes": hardware.sram_bytes,
        "layers": recorder.layers,
        "tape_bytes": tape_bytes,
        "slabs": len(recorder.slabs),
        "tape_high_water_bytes": recorder.tape_high_water_bytes,
    }
    timing_model.add_counts(data, hardware)
    data["energy_pj"] = energy_pj(data, hardware)
    return data


def energy_pj(data: dict[str, Any], hardware: Hardware) -> dict[str, float]:
    """The energy of the run `data` (a `report` without its energy) reports, by
    `hardware.energy`: what the counts cost, so that another energy preset needs
    no other number of the run (`sim.simulator.evaluate` reuses the rest)."""
    energy = hardware.energy
    cache, dram = data["cache"], data["dram_bytes"]
    e_cache = (cache["hits"] + cache["misses"]) * energy.cache_pj(hardware.cache.size_bytes)
    e_spad = data["spad"]["accesses"] * energy.spad_pj
    e_fu = sum(count * energy.op_pj(cls) for cls, count in data["ops"]["fu"].items())
    e_dram = (
        dram["read"] * 8 * energy.dram_read_pj_per_bit
        + dram["write"] * 8 * energy.dram_write_pj_per_bit
    )
    return {
        "cache": e_cache,
        "spad": e_spad,
        "fu": e_fu,
        "dram": e_dram,
        "onchip": e_cache + e_spad + e_fu,
    }
