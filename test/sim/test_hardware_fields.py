"""
Every field of the hardware description reaches the simulated run: changed through
a hardware layer (`--set`/`--hw`, `targets.hardware_files`), each moves the report
the way its mechanism says (sim/timing.py, lowering/tapeflow_to_cgra.py), and the
report's `hardware` record is the whole effective description.

The expected directions come from the mechanisms, not from runs: fewer FUs, longer
latencies, fewer ports or banks lengthen the schedule of a kernel that uses them
(each case names such a kernel); a smaller cache adds capacity misses, a direct-
mapped one conflict misses, where the working set exceeds it; DRAM latency, fewer
MSHRs and less bandwidth lengthen memory-bound windows; a smaller scratchpad cuts
more layers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields, replace

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from sim.cache import simulate_cache
from sim.simulator import Execution, evaluate, execute, prepare
from tapeflow_benchmarks.common import caller_arguments
from tapeflow_tools.context import make_context
from targets.fields import DATAPATH_FIELDS
from targets.hardware import PRESETS, Hardware, describe
from targets.machine import layered
from targets.provenance import PACKAGES, hardware_record


def _run(
    differentiated: Callable[[str], ModuleOp], key: str, variant: str, preset: str, sets: list[str]
) -> tuple[Execution, dict]:  # type: ignore[type-arg]
    hardware = layered(PRESETS[preset], [], sets)
    module = differentiated(key)
    tape_bytes = prepare(make_context(), module, variant, hardware)
    args = caller_arguments(module, key, "small")
    execution = execute(module, f"{key}_grad", args, hardware, tape_bytes, variant=variant)
    return execution, evaluate(execution)


def _leaves(data: dict, prefix: str = "") -> set[str]:  # type: ignore[type-arg]
    found: set[str] = set()
    for key, value in data.items():
        if isinstance(value, dict):
            found |= _leaves(value, f"{prefix}{key}.")
        else:
            found.add(f"{prefix}{key}")
    return found


def _cycles(report: dict) -> int:  # type: ignore[type-arg]
    return int(report["cycles"]["total"])


# (setting, kernel, variant, preset, base settings, what must grow)
CASES: list[tuple[str, str, str, str, list[str], str]] = [
    ("rows=1", "gravity", "enzyme", "Enzyme32k", ["cols=1"], "cycles"),
    ("cols=1", "gravity", "enzyme", "Enzyme32k", ["rows=1"], "cycles"),
    ("latencies.fadd=20", "gravity", "enzyme", "Enzyme32k", [], "cycles"),
    ("latencies.fmul=20", "gravity", "enzyme", "Enzyme32k", [], "cycles"),
    ("latencies.fdiv=60", "gravity", "enzyme", "Enzyme32k", [], "cycles"),
    ("latencies.sqrt=60", "massspring", "enzyme", "Enzyme32k", [], "cycles"),
    ("latencies.transcendental=90", "nn", "enzyme", "Enzyme32k", [], "cycles"),
    ("latencies.integer=3", "gravity", "enzyme", "Enzyme32k", [], "cycles"),
    ("latencies.hop=4", "gravity", "enzyme", "Enzyme32k", [], "cycles"),
    ("cache.hit_latency=6", "gravity", "enzyme", "Enzyme32k", [], "cycles"),
    ("cache.ports=1", "gravity", "enzyme", "Enzyme32k", [], "cycles"),
    ("cache.size_bytes=1024", "nn", "enzyme", "Enzyme32k", [], "misses"),
    ("cache.assoc=1", "nn", "enzyme", "Enzyme1k", [], "misses"),
    ("cache.mshrs=1", "nn", "enzyme", "Enzyme32k", [], "cycles"),
    ("scratchpad.size_bytes=256", "pathfinder", "tapeflow", "Tflow2k", [], "layers"),
    ("scratchpad.latency=4", "nn", "tapeflow", "Tflow2k", [], "cycles"),
    ("scratchpad.banks=1", "pathfinder", "tapeflow", "Tflow2k", [], "cycles"),
    ("dram.latency_cycles=400", "nn", "enzyme", "Enzyme32k", [], "cycles"),
    ("dram.bandwidth_gbs=2.0", "mttkrp", "tapeflow", "Tflow2k", [], "cycles"),
    # Bytes per cycle are the bandwidth over the clock: a faster clock, with the
    # same DRAM, makes a bandwidth-bound run take more cycles.
    ("clock_ghz=4.0", "mttkrp", "tapeflow", "Tflow2k", ["dram.bandwidth_gbs=2.0"], "cycles"),
    # Page-aligned buffers all start in set 0 of a small cache: the arrays one
    # iteration reads together conflict in a 2-way cache where packed ones do not.
    ("placement.alignment=4096", "nn", "enzyme", "Enzyme1k", [], "misses"),
    # A kernel switch loads the kernel's configuration, a cycle per placed op.
    ("config_cycles_per_op=8", "gravity", "enzyme", "Enzyme32k", [], "cycles"),
    # A grid that keeps no configuration reloads one at every switch.
    ("config_contexts=0", "gravity", "enzyme", "Enzyme32k", [], "cycles"),
    # Loop tiles of an eighth of the scratchpad (the default is a quarter): more layers.
    ("mapping.loop_tiles_in_flight=8", "matdescent", "tapeflow", "Tflow2k", [], "layers"),
    # Straight-line layers of a quarter (the default is a half): more layers.
    ("mapping.tiles_in_flight=4", "somier", "tapeflow", "Tflow2k", [], "layers"),
    # Streams issued one layer ahead wait longer for LeNet's REV tiles. (The small
    # MTTKRP's REV is one layer an iteration, each long enough to hide the next one's
    # preload either way.)
    ("mapping.runahead=false", "lenet", "tapeflow", "Tflow2k", [], "stream_stall"),
    # Straight-line runs outside kernel loops then run op by op.
    ("mapping.place_straight_line=false", "nn", "tapeflow", "Tflow2k", [], "unplaced"),
    # Accesses of one buffer whose indices differ by constants then wait for each other.
    ("mapping.disambiguate=false", "somier", "enzyme", "Enzyme32k", [], "cycles"),
    # Without the cost model every nest is streamed: with free misses and 4 cache
    # ports, streaming logsum's tape saves 16 port cycles, less than its 2 tiles'
    # bookkeeping, so the cost model keeps it.
    (
        "mapping.stream_by_cost=false",
        "logsum",
        "tapeflow",
        "Tflow2k",
        ["dram.latency_cycles=0", "cache.ports=4"],
        "layers",
    ),
    # Without the modulo schedule, iterations no longer overlap.
    ("mapping.modulo_schedule=false", "gravity", "enzyme", "Enzyme32k", [], "cycles"),
]


@pytest.mark.parametrize(
    ("setting", "key", "variant", "preset", "base", "grows"), CASES, ids=[c[0] for c in CASES]
)
def test_each_field_moves_the_report_its_way(
    setting: str,
    key: str,
    variant: str,
    preset: str,
    base: list[str],
    grows: str,
    differentiated: Callable[[str], ModuleOp],
) -> None:
    _, before = _run(differentiated, key, variant, preset, base)
    _, after = _run(differentiated, key, variant, preset, [*base, setting])
    path, _, value = setting.partition("=")
    record = after["hardware"]
    for part in path.split("."):
        record = record[part]
    assert str(record).lower() == value.lower() or float(record) == float(value)  # type: ignore[arg-type]
    if grows == "cycles":
        assert _cycles(after) > _cycles(before)
    elif grows == "misses":
        assert after["cache"]["misses"] > before["cache"]["misses"]
    elif grows == "stream_stall":
        assert after["cycles"]["stream_stall"] > before["cycles"]["stream_stall"]
    elif grows == "unplaced":
        assert after["ops"]["unplaced"] > before["ops"]["unplaced"] == 0
    else:
        assert after["layers"] > before["layers"]


def test_the_cases_cover_every_field() -> None:
    """Each leaf of the description is exercised above, or below (line size, LRU
    policy, energy, name: not a time)."""
    covered = {c[0].partition("=")[0] for c in CASES}
    covered |= {"cache.line_bytes", "cache.lru_on_write", "name", "placement.base"}
    # A program's memory map: test_memory_map.py places arguments and the heap.
    covered |= {"placement.heap"}
    # The lockstep datapath's fields are salam's alone, which test_models.py moves
    # (units of a class, the scheduling threshold) and cgra refuses.
    covered |= DATAPATH_FIELDS
    energy = describe(PRESETS["Tflow2k"])["energy"]
    covered |= {f"energy.{f}" for f in _leaves(energy)}  # type: ignore[arg-type]
    assert _leaves(describe(PRESETS["Tflow2k"])) == covered  # type: ignore[arg-type]


def test_line_size_policy_and_energy_reach_the_cache_and_the_energy(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    """Evaluated on one execution: each cache replays the run's own trace (the
    reference being `sim.cache.simulate_cache`, validated against pycachesim), and
    the energy preset prices the same events."""
    execution, base = _run(differentiated, "nn", "enzyme", "Enzyme32k", [])
    for setting in ("cache.line_bytes=128", "cache.lru_on_write=false", "energy=cacti45"):
        hardware = layered(execution.hardware, [], [setting])
        report = evaluate(execution, hardware)
        replay = simulate_cache(execution.addresses, execution.writes, hardware.cache)
        assert report["cache"]["misses"] == replay.misses
        assert report["dram_bytes"]["read"] == replay.miss_lines * hardware.cache.line_bytes
        assert report["hardware"]["cache"] == describe(hardware)["cache"]
        if setting.startswith("energy"):
            assert report["hardware"]["energy_preset"] == "cacti45"
            assert report["energy_pj"]["cache"] != base["energy_pj"]["cache"]
            per_access = hardware.energy.cache_pj(hardware.cache.size_bytes)
            accesses = report["cache"]["hits"] + report["cache"]["misses"]
            assert report["energy_pj"]["cache"] == pytest.approx(accesses * per_access)
    line = evaluate(execution, layered(execution.hardware, [], ["cache.line_bytes=128"]))
    assert line["dram_bytes"]["read"] % 128 == 0


def test_the_record_is_the_whole_effective_machine(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    sets = ["name=mine", "dram.latency_cycles=321", "cache.size_bytes=4096", "energy=cacti45"]
    execution, report = _run(differentiated, "logsum", "tapeflow", "Tflow2k", sets)
    record = report["hardware"]
    hardware: Hardware = execution.hardware
    description = json.loads(json.dumps(describe(hardware)))  # as JSON holds it
    assert {k: record[k] for k in description} == description
    assert record["name"] == "mine" and record["dram"]["latency_cycles"] == 321
    assert record["cache"]["size_bytes"] == 4096 and record["cache"]["assoc"] == 2
    assert record["model"] == "cgra" and record["variant"] == "tapeflow" and record["unroll"] == 1
    assert record["energy_preset"] == "cacti45"
    assert set(record["versions"]) == set(PACKAGES)
    assert record["versions"]["numpy"] == np.__version__
    # cgra simulates every field but the lockstep datapath's.
    assert record["not_simulated"] == sorted(DATAPATH_FIELDS)
    assert record["unroll_requested"] == 1
    # Every parameter; `converted_for` is not one (the record's `model` says it).
    parameters = {f.name for f in fields(Hardware)} - {"converted_for"}
    assert set(record) == parameters | {
        "model",
        "not_simulated",
        "variant",
        "unroll",
        "unroll_requested",
        "energy_preset",
        "versions",
    }


def test_moving_the_base_by_a_whole_cache_changes_no_count(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    """`placement.base` moves every buffer by the same amount: by a multiple of the
    cache's size every address keeps its set and its line offset, so the counts
    stay; only the record names the new base."""
    size = PRESETS["Enzyme1k"].cache.size_bytes
    _, before = _run(differentiated, "nn", "enzyme", "Enzyme1k", [])
    _, after = _run(
        differentiated, "nn", "enzyme", "Enzyme1k", [f"placement.base={4096 + 64 * size}"]
    )
    assert after["hardware"]["placement"]["base"] == 4096 + 64 * size
    for key in ("cycles", "cache", "dram_bytes"):
        assert after[key] == before[key]


@pytest.mark.parametrize("preset", ["Enzyme32k", "Tflow2k"])
def test_a_record_asked_again_is_equal_and_its_own(preset: str) -> None:
    """The record of one machine and use, asked twice, is the same data and two
    objects: changing one (a caller's to keep) leaves the next one as it was.
    Against the description made by hand (`describe`, through JSON)."""
    hardware = PRESETS[preset]
    kwargs = {"model": "cgra", "variant": "enzyme", "unroll": 2}
    first = hardware_record(hardware, **kwargs)  # type: ignore[arg-type]
    description = json.loads(json.dumps(describe(hardware)))
    assert {k: first[k] for k in description} == description
    assert first["unroll"] == first["unroll_requested"] == 2
    first["cache"]["size_bytes"] = -1
    first["versions"]["numpy"] = "changed"
    again = hardware_record(hardware, **kwargs)  # type: ignore[arg-type]
    assert again["cache"] == description["cache"]
    assert again["versions"]["numpy"] == np.__version__
    assert hardware_record(hardware, **kwargs, unroll_requested=4)["unroll_requested"] == 4  # type: ignore[arg-type]


def test_a_record_shows_the_values_of_its_own_machine() -> None:
    """Two machines equal as data but written with other types (a bandwidth of 20
    and of 20.0) each get the record of their own values, whichever is asked
    first: the JSON text is what `describe` gives for each."""
    base = PRESETS["Enzyme32k"]
    whole = replace(base, dram=replace(base.dram, bandwidth_gbs=20))
    real = replace(base, dram=replace(base.dram, bandwidth_gbs=20.0))
    assert whole == real
    kwargs = {"model": "cgra", "variant": "enzyme", "unroll": 1}
    for hardware in (whole, real, whole):
        text = json.dumps(hardware_record(hardware, **kwargs)["dram"])  # type: ignore[arg-type]
        assert text == json.dumps(describe(hardware)["dram"])


def test_records_of_many_machines_each_show_their_own() -> None:
    """The repr a record's key carries is made once per machine object
    (`_shown`, by identity, the machine kept): past its bound of 256 machines it
    starts again, and every machine, new or asked again, gets its own values."""
    base = PRESETS["Enzyme32k"]
    kwargs = {"model": "cgra", "variant": "enzyme", "unroll": 1}
    machines = [replace(base, dram=replace(base.dram, latency_cycles=n)) for n in range(300)]
    machines.append(replace(base, dram=replace(base.dram, bandwidth_gbs=20)))
    machines.append(replace(base, dram=replace(base.dram, bandwidth_gbs=20.0)))
    for hardware in (*machines, *machines[::-1]):
        record = hardware_record(hardware, **kwargs)  # type: ignore[arg-type]
        assert json.dumps(record["dram"]) == json.dumps(describe(hardware)["dram"])
