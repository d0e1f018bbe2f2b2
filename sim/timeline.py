"""
A simulated run as a timeline in the trace-event format (the JSON that Chrome's
`about:tracing` and Perfetto, https://ui.perfetto.dev, open): `tapeflow-sim
--timeline FILE`, or `simulate(..., timeline=True).timeline`. docs/timeline.md
shows how to read it and what each track and counter holds.

Everything in it is what `sim.timing.report` charged, laid out in time; nothing is
measured anew:

- track "windows": one slice per timing window that took cycles, back to back
  from cycle 0 to `cycles.total`, its stream stall (`stall: REV tile`) and memory
  stall (`stall: memory`) as child slices at its start and its end;
- track "layers": one slice per `layer.layer` run, from where it started to where
  it ended;
- tracks "FWD spills n" and "REV preloads n": each stream transfer as the report
  placed it (`sim.models.streams`), from its issue to its arrival; transfers that
  overlap go on separate tracks (lanes), so that each track's slices are disjoint;
- counters "scratchpad occupancy" and "DRAM bandwidth".

Time: simulated cycles at `clock_ghz`, in microseconds (the format's unit),
rounded to whole nanoseconds (what Perfetto keeps); every slice's `args` hold its
exact `start_cycle` and `cycles`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.execution import Execution
from sim.timing import WindowTimes, prefix_counts

PID = 1
TID_WINDOWS = 1
TID_LAYERS = 2
TID_SPILLS = 1_000
"""FWD spill lanes are TID_SPILLS, TID_SPILLS + 1, ... (a few at most: a lane is
free again once its transfer arrived)."""
TID_PRELOADS = 1_000_000
"""REV preload lanes are TID_PRELOADS, TID_PRELOADS + 1, ..."""


class _Clock:
    def __init__(self, clock_ghz: float):
        self.ghz = clock_ghz

    def ns(self, cycles: float) -> int:
        """Nanoseconds from cycle 0, rounded."""
        return int(round(cycles / self.ghz))

    def ns_fine(self, cycles: float) -> float:
        """Nanoseconds from cycle 0 to the picosecond: a rate's edges, whose
        integral must give back the bytes however short the transfers."""
        return round(cycles / self.ghz, 3)

    @staticmethod
    def us(ns: float) -> float:
        return ns / 1000


def _slice(
    name: str, cat: str, tid: int, start: float, end: float, clock: _Clock, args: dict[str, Any]
) -> dict[str, Any]:
    begin, finish = clock.ns(start), clock.ns(end)
    return {
        "name": name,
        "cat": cat,
        "ph": "X",
        "pid": PID,
        "tid": tid,
        "ts": clock.us(begin),
        "dur": clock.us(finish - begin),
        "args": args,
    }


def _lanes(intervals: Sequence[tuple[int, int]]) -> list[int]:
    """A lane for each (start, end) interval, in order, such that the intervals of
    one lane do not overlap (greedy: the first lane free by its start)."""
    ends: list[int] = []
    chosen = []
    for start, end in intervals:
        for lane, free_at in enumerate(ends):
            if free_at <= start:
                ends[lane] = end
                chosen.append(lane)
                break
        else:
            ends.append(end)
            chosen.append(len(ends) - 1)
    return chosen


def _metadata(tid: int, name: str, sort: int) -> list[dict[str, Any]]:
    return [
        {"name": "thread_name", "ph": "M", "pid": PID, "tid": tid, "args": {"name": name}},
        {
            "name": "thread_sort_index",
            "ph": "M",
            "pid": PID,
            "tid": tid,
            "args": {"sort_index": sort},
        },
    ]


def trace_events(
    execution: Execution,
    times: WindowTimes,
    report: dict[str, Any],
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The timeline of `execution` as `report` (`evaluate`'s, with the windows'
    `times` it charged) counts it: `{"traceEvents": [...], "otherData": {...}}`.
    `metadata` goes into `otherData` too."""
    recorder = execution.recorder
    hardware = execution.hardware
    clock = _Clock(hardware.clock_ghz)
    windows = recorder.windows
    spent = times.spent.astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(spent)]).astype(np.int64)
    total = int(starts[-1])
    line = hardware.cache.line_bytes
    latency = hardware.dram.latency_cycles
    bw = hardware.dram_bytes_per_cycle
    cache = execution.replays[hardware.cache]
    prefix_miss = prefix_counts(~cache.hit)

    events: list[dict[str, Any]] = [
        {
            "name": "process_name",
            "ph": "M",
            "pid": PID,
            "tid": 0,
            "args": {"name": f"simulated {hardware.name or 'hardware'} [{execution.model}]"},
        },
    ]
    events += _metadata(TID_WINDOWS, "windows", 0)
    events += _metadata(TID_LAYERS, "layers", 1)
    body: list[dict[str, Any]] = []

    # Windows, with their stalls nested inside.
    for i, w in enumerate(windows):
        cycles = int(spent[i])
        if cycles <= 0:
            continue
        start, end = int(starts[i]), int(starts[i + 1])
        stall = int(times.stream_stall[i])
        compute = int(times.compute[i])
        phase = w.phase.upper()
        kind = "kernel loop" if w.kind == "kernel" else "ops"
        args: dict[str, Any] = {
            "window": i,
            "phase": w.phase,
            "start_cycle": start,
            "cycles": cycles,
            "compute_cycles": compute,
            "misses": int(times.misses[i]),
            "writebacks": int(times.writebacks[i]),
        }
        if w.kind == "kernel":
            args["trips"] = w.trips
        if w.stream_write_bytes:
            args["spill_bytes"] = w.stream_write_bytes
        if w.rev_stream_bytes:
            args["preload_bytes"] = w.rev_stream_bytes
        body.append(
            _slice(f"{phase} {kind}", f"window,{w.kind}", TID_WINDOWS, start, end, clock, args)
        )
        if stall > 0:
            body.append(
                _slice(
                    "stall: REV tile",
                    "stall",
                    TID_WINDOWS,
                    start,
                    start + stall,
                    clock,
                    {"window": i, "start_cycle": start, "cycles": stall, "kind": "stream"},
                )
            )
        memory = cycles - stall - compute
        if memory > 0:
            at = start + stall + compute
            body.append(
                _slice(
                    "stall: memory",
                    "stall",
                    TID_WINDOWS,
                    at,
                    end,
                    clock,
                    {"window": i, "start_cycle": at, "cycles": memory, "kind": "memory"},
                )
            )

    # Layers, from the recorder's marks.
    def mark_time(window: int, compute_before: int, accesses_before: int) -> int:
        if window >= len(windows):
            return total
        start = int(starts[window])
        w = windows[window]
        if compute_before == 0 and accesses_before <= w.start:
            return start
        misses = int(prefix_miss[accesses_before] - prefix_miss[w.start])
        at = start + int(times.stream_stall[window]) + compute_before + misses * latency
        return min(at, int(starts[window + 1]))

    open_layers: list[tuple[str, int, int]] = []  # phase, number, start cycle
    numbers = {"fwd": 0, "rev": 0}
    marks = recorder.marks or []
    before = recorder.trace.full_positions(np.array([m[4] for m in marks], dtype=np.int64))
    for (what, phase, window, compute_before, _), accesses in zip(
        marks, before.tolist(), strict=True
    ):
        at = mark_time(window, compute_before, accesses)
        if what == "layer":
            numbers[phase] = numbers.get(phase, 0) + 1
            open_layers.append((phase, numbers[phase], at))
            continue
        phase, number, began = open_layers.pop()
        body.append(
            _slice(
                f"{phase.upper()} layer {number}",
                "layer",
                TID_LAYERS,
                began,
                at,
                clock,
                {"phase": phase, "layer": number, "start_cycle": began, "cycles": at - began},
            )
        )

    # Stream transfers, each on the first free lane of its direction.
    transfers: dict[str, list[tuple[float, float, int, int]]] = {"fwd": [], "rev": []}
    for t in times.transfers:
        transfers[t.direction].append((t.issued, t.done, t.nbytes, t.window))
    for direction, base, label in (
        ("fwd", TID_SPILLS, "FWD spills"),
        ("rev", TID_PRELOADS, "REV preloads"),
    ):
        found = transfers[direction]
        lanes = _lanes([(clock.ns(a), clock.ns(b)) for a, b, _, _ in found])
        for lane in sorted(set(lanes)):
            events += _metadata(base + lane, f"{label} {lane + 1}", base + lane)
        for (issued, arrived, nbytes, window), lane in zip(found, lanes, strict=True):
            body.append(
                _slice(
                    "spill" if direction == "fwd" else "preload",
                    f"stream,{direction}",
                    base + lane,
                    issued,
                    arrived,
                    clock,
                    {
                        "window": window,
                        "bytes": nbytes,
                        "start_cycle": round(issued, 3),
                        "cycles": round(arrived - issued, 3),
                    },
                )
            )

    # Counters.
    occupancy: list[tuple[int, int]] = []
    for window, entries in recorder.spad_samples or ():
        at = clock.ns(int(starts[min(window, len(windows))]))
        value = entries * 8
        if occupancy and occupancy[-1][0] == at:
            occupancy[-1] = (at, value)
        elif not occupancy or occupancy[-1][1] != value:
            occupancy.append((at, value))
    if not occupancy or occupancy[0][0] != 0:
        occupancy.insert(0, (0, 0))
    for at, value in occupancy:
        body.append(
            {
                "name": "scratchpad occupancy",
                "ph": "C",
                "pid": PID,
                "ts": clock.us(at),
                "args": {"bytes": value},
            }
        )

    changes: dict[float, list[float]] = {}

    def rate(begin: float, end: float, bytes_per_cycle: float, column: int) -> None:
        if end <= begin or bytes_per_cycle <= 0:
            return
        changes.setdefault(begin, [0.0, 0.0])[column] += bytes_per_cycle
        changes.setdefault(end, [0.0, 0.0])[column] -= bytes_per_cycle

    for i in range(len(windows)):
        nbytes = (int(times.misses[i]) + int(times.writebacks[i])) * line
        begin, end = float(starts[i] + times.stream_stall[i]), float(starts[i + 1])
        if nbytes and end > begin:
            rate(begin, end, nbytes / (end - begin), 0)
    for t in times.transfers:
        rate(t.moving, t.moving + t.nbytes / bw, bw, 1)
    level = [0.0, 0.0]
    samples: list[tuple[float, float, float]] = [(0.0, 0.0, 0.0)]
    for at in sorted(changes):
        level[0] += changes[at][0]
        level[1] += changes[at][1]
        ns = clock.ns_fine(at)
        gbs = tuple(round(max(0.0, v) * hardware.clock_ghz, 6) for v in level)
        if samples[-1][0] == ns:
            samples[-1] = (ns, *gbs)  # type: ignore[assignment]
        else:
            samples.append((ns, *gbs))  # type: ignore[arg-type]
    for ns, from_cache, from_streams in samples:
        body.append(
            {
                "name": "DRAM bandwidth",
                "ph": "C",
                "pid": PID,
                "ts": clock.us(ns),
                "args": {"cache_GBps": from_cache, "streams_GBps": from_streams},
            }
        )

    body.sort(key=lambda e: (e["ts"], -e.get("dur", 0.0)))
    other: dict[str, Any] = {
        "source": "tapeflow-sim (sim/timeline.py)",
        "time_unit": (
            f"simulated cycles at the hardware clock of {hardware.clock_ghz} GHz, in "
            "microseconds, rounded to whole nanoseconds; exact cycles in each slice's args"
        ),
        "clock_ghz": hardware.clock_ghz,
        "cycles": report["cycles"],
        "windows": len(windows),
        "layers": report["layers"],
        "hardware": report.get("hardware"),
    }
    if metadata:
        other.update(metadata)
    return {"traceEvents": events + body, "otherData": other}


__all__ = ["trace_events"]
