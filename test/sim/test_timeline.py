"""
`--timeline`: the run as trace-event JSON (Chrome's trace-event format, which
Perfetto opens). Checked against the format's rules (each phase's required keys,
non-negative numeric times, integer pids and tids, numeric counter values, slices
of one track nested or disjoint) and against the report it was made with: the
windows tile the run, and the stalls, layers and streams add up to the report's
figures.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from sim.simulator import Simulation, prepare, simulate
from tapeflow_benchmarks.common import caller_arguments
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools.context import make_context
from targets.hardware import PRESETS
from targets.machine import layered

ROOT = Path(__file__).resolve().parents[2]
METADATA_NAMES = {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def check_trace_events(document: Any) -> list[dict[str, Any]]:
    """Raise AssertionError unless `document` follows the trace-event format (the
    JSON Object Format with the phases used here: X, C, M); returns the events."""
    assert isinstance(document, dict) and isinstance(document.get("traceEvents"), list)
    json.dumps(document, allow_nan=False)  # plain JSON: no NaN or infinity
    events = document["traceEvents"]
    slices: dict[tuple[int, int], list[tuple[float, float, str]]] = defaultdict(list)
    for event in events:
        assert isinstance(event, dict), event
        phase = event.get("ph")
        assert isinstance(event.get("name"), str) and event["name"], event
        assert isinstance(event.get("pid"), int) and not isinstance(event["pid"], bool), event
        if "tid" in event:
            assert isinstance(event["tid"], int) and not isinstance(event["tid"], bool), event
        if "args" in event:
            assert isinstance(event["args"], dict), event
        if phase == "X":
            assert {"ts", "dur", "tid"} <= set(event), event
            assert _number(event["ts"]) and event["ts"] >= 0, event
            assert _number(event["dur"]) and event["dur"] >= 0, event
            if "cat" in event:
                assert isinstance(event["cat"], str)
            slices[(event["pid"], event["tid"])].append(
                (event["ts"], event["ts"] + event["dur"], event["name"])
            )
        elif phase == "C":
            assert _number(event.get("ts")) and event["ts"] >= 0, event
            assert event.get("args") and all(_number(v) for v in event["args"].values()), event
        elif phase == "M":
            assert event["name"] in METADATA_NAMES, event
            assert "tid" in event and isinstance(event.get("args"), dict), event
        else:
            raise AssertionError(f"unexpected phase {phase!r} in {event}")
    # Complete events on one track nest or are disjoint (within float rounding).
    eps = 1e-9
    for track, spans in slices.items():
        stack: list[tuple[float, float, str]] = []
        for start, end, name in sorted(spans, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1][1] <= start + eps:
                stack.pop()
            if stack:
                assert end <= stack[-1][1] + eps, f"{name} overlaps {stack[-1][2]} on track {track}"
            stack.append((start, end, name))
    return events


def _simulate(
    differentiated: Callable[[str], ModuleOp],
    key: str,
    variant: str,
    preset: str,
    sets: list[str] = [],  # noqa: B006 - not mutated
) -> Simulation:
    hardware = layered(PRESETS[preset], [], sets)
    module = differentiated(key)
    tape_bytes = prepare(make_context(), module, variant, hardware)
    args = caller_arguments(module, key, "small")
    return simulate(
        module, f"{key}_grad", args, hardware, tape_bytes, variant=variant, timeline=True
    )


def _slices(
    events: list[dict[str, Any]], tid: int | None = None, cat: str | None = None
) -> list[dict[str, Any]]:
    return [
        e
        for e in events
        if e["ph"] == "X"
        and (tid is None or e["tid"] == tid)
        and (cat is None or cat in e.get("cat", "").split(","))
    ]


@pytest.mark.parametrize(
    ("key", "variant", "preset", "sets"),
    [
        ("nn", "tapeflow", "Tflow2k", []),
        ("pathfinder", "tapeflow", "Tflow1k", ["dram.latency_cycles=300"]),
        ("gravity", "enzyme", "Enzyme32k", ["clock_ghz=1.5"]),
        ("logsum", "aos", "Enzyme1k", []),
    ],
)
def test_the_timeline_is_valid_and_adds_up_to_the_report(
    key: str,
    variant: str,
    preset: str,
    sets: list[str],
    differentiated: Callable[[str], ModuleOp],
) -> None:
    result = _simulate(differentiated, key, variant, preset, sets)
    report, document = result.report, result.timeline
    assert document is not None
    events = check_trace_events(json.loads(json.dumps(document)))
    clock = report["hardware"]["clock_ghz"]
    assert document["otherData"]["clock_ghz"] == clock
    assert "microseconds" in document["otherData"]["time_unit"]
    cycles = report["cycles"]

    # The windows tile the run, back to back, FWD then REV, to cycles.total.
    windows = [e for e in _slices(events, tid=1) if e["cat"].startswith("window")]
    windows.sort(key=lambda e: e["args"]["start_cycle"])
    at = 0
    for w in windows:
        assert w["args"]["start_cycle"] == at
        assert w["args"]["cycles"] > 0
        # Times are the cycles at the clock, in microseconds, to the nanosecond.
        assert w["ts"] == pytest.approx(at / clock / 1000, abs=6e-4)
        at += w["args"]["cycles"]
        assert w["ts"] + w["dur"] == pytest.approx(at / clock / 1000, abs=1.1e-3)
        assert w["name"].split()[0] == w["args"]["phase"].upper()
    assert at == cycles["total"]
    for phase in ("fwd", "rev"):
        assert (
            sum(w["args"]["cycles"] for w in windows if w["args"]["phase"] == phase)
            == cycles[phase]
        )
    phases = [w["args"]["phase"] for w in windows]
    assert phases == sorted(phases, key=["fwd", "rev"].index)

    # The stalls are the report's.
    stalls = _slices(events, cat="stall")
    assert (
        sum(s["args"]["cycles"] for s in stalls if s["args"]["kind"] == "memory")
        == cycles["memory_stall"]
    )
    assert (
        sum(s["args"]["cycles"] for s in stalls if s["args"]["kind"] == "stream")
        == cycles["stream_stall"]
    )
    assert all(s["tid"] == 1 for s in stalls)

    # One slice per layer, FWD ones before REV ones, inside the run.
    layers = _slices(events, tid=2)
    assert len(layers) == report["layers"]
    fwd = [s for s in layers if s["args"]["phase"] == "fwd"]
    rev = [s for s in layers if s["args"]["phase"] == "rev"]
    if variant == "tapeflow":
        assert fwd and rev
        assert max(s["args"]["start_cycle"] + s["args"]["cycles"] for s in fwd) <= min(
            s["args"]["start_cycle"] for s in rev
        )
        assert sum(s["args"]["cycles"] for s in layers) <= cycles["total"]
    else:
        assert not layers

    # Streams on their own tracks, their bytes the report's.
    spills = _slices(events, cat="fwd")
    preloads = _slices(events, cat="rev")
    assert {s["tid"] for s in spills + preloads}.isdisjoint({1, 2})
    assert sum(s["args"]["bytes"] for s in spills) == report["streams"]["write_bytes"]
    assert sum(s["args"]["bytes"] for s in preloads) == report["streams"]["read_bytes"]
    latency = report["hardware"]["dram"]["latency_cycles"]
    per_cycle = report["hardware"]["dram"]["bandwidth_gbs"] / clock
    for s in spills + preloads:  # the latency and the bytes, and a wait for the channel
        assert s["args"]["cycles"] >= latency + s["args"]["bytes"] / per_cycle - 1e-3

    # Counters: scratchpad occupancy within the scratchpad, peaking at the report's peak;
    # the stream bandwidth integrates to the streamed bytes, the cache's to at most
    # its DRAM traffic (the final flush takes no time).
    occupancy = [
        e["args"]["bytes"] for e in events if e["ph"] == "C" and e["name"] == "scratchpad occupancy"
    ]
    assert occupancy and max(occupancy) == report["spad"]["peak_bytes"]
    assert max(occupancy) <= report["hardware"]["scratchpad"]["size_bytes"]
    bandwidth = [e for e in events if e["ph"] == "C" and e["name"] == "DRAM bandwidth"]
    times = [e["ts"] for e in bandwidth]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert bandwidth[-1]["args"] == {"cache_GBps": 0.0, "streams_GBps": 0.0}
    moved = {"cache_GBps": 0.0, "streams_GBps": 0.0}
    for now, later in zip(bandwidth, bandwidth[1:], strict=False):
        for column in moved:
            moved[column] += now["args"][column] * (later["ts"] - now["ts"]) * 1000  # GB/s x ns = B
    streamed = report["streams"]["write_bytes"] + report["streams"]["read_bytes"]
    assert moved["streams_GBps"] == pytest.approx(streamed, rel=0.02, abs=64)
    cache_bytes = report["dram_bytes"]["total"] - streamed
    missed = report["cache"]["misses"] * report["hardware"]["cache"]["line_bytes"]
    assert missed * 0.98 - 64 <= moved["cache_GBps"] <= cache_bytes * 1.02 + 64


def test_a_run_without_timeline_collects_nothing(differentiated: Callable[[str], ModuleOp]) -> None:
    hardware = PRESETS["Tflow2k"]
    module = differentiated("nn")
    tape_bytes = prepare(make_context(), module, "tapeflow", hardware)
    args = caller_arguments(module, "nn", "small")
    result = simulate(module, "nn_grad", args, hardware, tape_bytes, variant="tapeflow")
    assert result.timeline is None
    timed = _simulate(differentiated, "nn", "tapeflow", "Tflow2k")
    # Collecting changes nothing the report says, nor the values.
    strip = lambda r: {k: v for k, v in r.items() if k != "simulator"}  # noqa: E731
    assert strip(timed.report) == strip(result.report)
    for name, value in result.outputs.items():
        np.testing.assert_array_equal(timed.outputs[name], value)


@pytest.mark.parametrize("key", ["nn", "pathfinder"])
def test_the_fast_path_and_the_closures_mark_the_same_timeline(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    """Layer boundaries are marked by generated code on the fast path and by the
    closure steps otherwise (`sim/function_compiler.py`, `sim/instrument.py`): the
    same events either way."""
    hardware = PRESETS["Tflow2k"]
    module = differentiated(key)
    tape_bytes = prepare(make_context(), module, "tapeflow", hardware)
    timelines = []
    for fast in (True, False):
        args = caller_arguments(module, key, "small")
        result = simulate(
            module,
            f"{key}_grad",
            args,
            hardware,
            tape_bytes,
            fast,
            variant="tapeflow",
            timeline=True,
        )
        assert result.timeline is not None
        timelines.append(result.timeline["traceEvents"])
    assert timelines[0] == timelines[1]
    assert any(e.get("cat") == "layer" for e in timelines[0])


def test_tapeflow_sim_writes_the_timeline(tmp_path: Path) -> None:
    """`tapeflow-sim --timeline` (its entry point in this process, standard streams
    captured: the option is what is tested, not the installed command)."""
    from tapeflow_tools import tapeflow_sim

    inputs = KERNELS["nn"].inputs("small")
    np.savez(tmp_path / "in.npz", **{f"arg{i}": a for i, a in enumerate(inputs)})
    stderr = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(stderr):
        tapeflow_sim.main(
            [
                str(ROOT / "tapeflow_benchmarks" / "mlir" / "nn.small.mlir"),
                "--function",
                "nn_grad",
                "--variant",
                "tapeflow",
                "--preset",
                "Tflow2k",
                "--inputs",
                str(tmp_path / "in.npz"),
                "--json",
                str(tmp_path / "r.json"),
                "--timeline",
                str(tmp_path / "trace.json"),
            ]
        )
    assert "Traceback" not in stderr.getvalue()
    report = json.loads((tmp_path / "r.json").read_text())
    document = json.loads((tmp_path / "trace.json").read_text())
    events = check_trace_events(document)
    assert document["otherData"]["function"] == "nn_grad"
    assert document["otherData"]["hardware"]["name"] == "Tflow2k"
    # The trace is titled with the machine and the model that timed it.
    (title,) = [e["args"]["name"] for e in events if e["name"] == "process_name"]
    assert title == "simulated Tflow2k [cgra]"
    windows = [e for e in _slices(events, tid=1) if e["cat"].startswith("window")]
    assert sum(w["args"]["cycles"] for w in windows) == report["cycles"]["total"]
    assert [
        p.name for p in tmp_path.iterdir() if p.name.startswith(".")
    ] == []  # no temporaries left


@pytest.mark.parametrize(
    "document, message",
    [
        (
            {
                "traceEvents": [
                    {"name": "a", "ph": "X", "ts": 0, "dur": 2, "pid": 1, "tid": 1},
                    {"name": "b", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1},
                ]
            },
            "overlaps",
        ),
        ({"traceEvents": [{"name": "a", "ph": "X", "ts": -1, "dur": 2, "pid": 1, "tid": 1}]}, None),
        ({"traceEvents": [{"name": "a", "ph": "X", "ts": 0, "pid": 1, "tid": 1}]}, None),
        ({"traceEvents": [{"name": "c", "ph": "C", "ts": 0, "pid": 1, "args": {"v": "x"}}]}, None),
        (
            {"traceEvents": [{"name": "a", "ph": "X", "ts": 0, "dur": 1, "pid": "1", "tid": 1}]},
            None,
        ),
    ],
)
def test_the_checker_catches_what_it_checks(document: dict[str, Any], message: str | None) -> None:
    """The format checker itself refuses each rule broken."""
    with pytest.raises(AssertionError, match=message):
        check_trace_events(document)
