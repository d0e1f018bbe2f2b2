"""
A report of few windows takes the windows' columns and the cgra model's cycles
in Python's arithmetic (`sim.timing.plain_windows`, `CgraModel.plain_cycles`):
every number must be the one numpy's path (the only path for many windows)
gives, on real runs and on random window tables.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import sim.timing as timing
from sim.models.base import PlainWindows, WindowTable
from sim.models.cgra import CGRA, configuration_loads, plain_configuration_loads
from sim.simulator import evaluate, execute, prepare
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_tools.context import make_context
from targets.energy import ENERGY_PRESETS
from targets.hardware import configure

RUNS = [
    ("logsum", "enzyme", "Enzyme32k", {}),
    ("logsum", "tapeflow", "Tflow2k", {}),
    ("pathfinder", "tapeflow", "Tflow2k", {}),
    ("pathfinder", "tapeflow", "Tflow2k", {"spad_bytes": 256}),
    ("atax", "tapeflow", "Tflow2k", {"spad_bytes": 512}),
    ("softmax", "tapeflow", "Tflow2k", {}),
    ("lenet", "enzyme", "Enzyme32k", {}),
]


def _both_ways(execution: Any, hardware: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """`evaluate` of `execution` on `hardware` by numpy's path, then by Python's
    (whatever the number of windows), without the simulator's own seconds."""
    reports = []
    for few in (-1, 1 << 40):
        monkeypatch.setattr(timing, "FEW_WINDOWS", few)
        execution.reports.clear()
        data = evaluate(execution, hardware)
        data.pop("simulator")
        reports.append(data)
    return reports


@pytest.mark.parametrize(("key", "variant", "preset", "options"), RUNS)
def test_a_report_of_few_windows_is_numpys(
    key: str, variant: str, preset: str, options: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = make_context()
    module = parse_kernel(ctx, key, "small")
    hardware = configure(preset, **options)
    # Every nest streamed as asked: other caches and DRAMs run the same lowering.
    hardware = replace(hardware, mapping=replace(hardware.mapping, stream_by_cost=False))
    tape_bytes = prepare(ctx, module, variant, hardware)
    args = caller_arguments(module, key, "small")
    execution = execute(module, f"{key}_grad", args, hardware, tape_bytes, variant=variant)
    assert execution.recorder.count > 1
    # Other caches and DRAMs than the run's: other misses, stalls and streams.
    for other in (
        hardware,
        replace(hardware, cache=replace(hardware.cache, size_bytes=1024, assoc=2)),
        replace(hardware, dram=replace(hardware.dram, latency_cycles=400)),
    ):
        numpy_report, plain_report = _both_ways(execution, other, monkeypatch)
        assert plain_report == numpy_report
        assert list(plain_report["ops"]["fu"]) == list(numpy_report["ops"]["fu"])


def _random_windows(rng: np.random.Generator, n: int) -> WindowTable:
    """A window table of `n` random windows (no layers run: no tiles), kernels
    of a few ids, some tiled and continuing the one before."""
    kernel_id = rng.integers(0, 4, n) * rng.integers(0, 2, n)
    kernel = kernel_id > 0
    trips = np.where(kernel, rng.integers(0, 50, n), 0)
    ii = np.where(kernel, rng.integers(1, 4, n), 0)
    length = np.where(kernel, ii + rng.integers(0, 20, n), 0)
    compute = np.where(kernel & (trips > 0), (trips - 1) * ii + length, rng.integers(0, 90, n))
    misses = rng.integers(0, 40, n)
    hits = rng.integers(0, 300, n)
    writebacks = rng.integers(0, 10, n)
    stream = rng.integers(0, 3, n) * 64
    layer = np.cumsum(rng.integers(0, 2, n))
    return WindowTable(
        kernel=kernel,
        compute=compute,
        access_latency=np.where(kernel, 0, rng.integers(0, 30, n)),
        hits=hits,
        misses=misses,
        writebacks=writebacks,
        dram_bytes=(misses + writebacks) * 64 + stream,
        rev_stream_bytes=np.zeros(n, dtype=np.int64),
        trips=trips,
        ii=ii,
        length=length,
        tiled=kernel & (rng.random(n) < 0.7),
        kernel_id=kernel_id,
        layer=layer,
        spad_accesses=np.zeros(n, dtype=np.int64),
        memory_ops=rng.integers(0, 5, n),
        stream_write_bytes=stream,
        stream_read_bytes=np.zeros(n, dtype=np.int64),
        rev=np.arange(n) >= n // 2,
        kernel_ops=kernel_id * 7 + kernel,
        looped=kernel & (rng.random(n) < 0.8),
        tiles=np.zeros((0, 7), dtype=np.int64),
        start=np.zeros(n, dtype=np.int64),
        end=np.zeros(n, dtype=np.int64),
        access_hit=np.zeros(0, dtype=bool),
        plans=(None,) * 4,
    )


def _plain(table: WindowTable) -> PlainWindows:
    return PlainWindows(
        **{
            name: getattr(table, name).tolist()
            for name in PlainWindows.__dataclass_fields__
            if name != "tiles"
        },
        tiles=[],
    )


@pytest.mark.parametrize("seed", range(40))
def test_the_cycles_of_random_windows_are_numpys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = _random_windows(rng, int(rng.integers(1, 40)))
    hardware = configure("Tflow2k")
    # A grid that holds two kernels' configurations at most: the LRU evicts.
    for grid in (hardware, replace(hardware, config_contexts=1, rows=2, cols=9)):
        for mshrs, latency in ((8, 100), (3, 37)):
            machine = replace(
                grid,
                cache=replace(grid.cache, mshrs=mshrs),
                dram=replace(grid.dram, latency_cycles=latency),
            )
            by_numpy = CGRA.cycles(table, machine)
            plain = CGRA.plain_cycles(_plain(table), machine)
            assert plain.spent == by_numpy.spent.tolist()
            assert (plain.memory_stall, plain.stream_stall) == (
                by_numpy.memory_stall,
                by_numpy.stream_stall,
            )
            assert (plain.config, plain.fill_drain, plain.prefetch_distance) == (
                by_numpy.config,
                by_numpy.fill_drain,
                by_numpy.prefetch_distance,
            )
            assert plain_configuration_loads(_plain(table), machine) == (
                configuration_loads(table, machine).tolist()
            )


def test_a_report_kept_by_machine_takes_each_machines_energy() -> None:
    """`evaluate` keeps one report per machine without its energy preset: a
    machine whose preset is the run's own, evaluated after one with another
    preset, reports its own energy (each as a fresh execution reports it)."""
    ctx = make_context()
    module = parse_kernel(ctx, "logsum", "small")
    hardware = configure("Enzyme32k")
    tape_bytes = prepare(ctx, module, "enzyme", hardware)
    other = replace(hardware, energy=ENERGY_PRESETS["cacti45"])
    assert other.energy != hardware.energy

    def fresh() -> Any:
        args = caller_arguments(module, "logsum", "small")
        return execute(module, "logsum_grad", args, hardware, tape_bytes, variant="enzyme")

    alone = {h.energy.name: evaluate(fresh(), h)["energy_pj"] for h in (hardware, other)}
    shared = fresh()
    assert evaluate(shared, other)["energy_pj"] == alone["cacti45"]
    assert evaluate(shared, hardware)["energy_pj"] == alone[hardware.energy.name]
    assert alone["cacti45"] != alone[hardware.energy.name]


@pytest.mark.parametrize(
    ("key", "spad_bytes"), [("pathfinder", 256), ("atax", 512), ("softmax", 2048)]
)
def test_cycles_without_transfers_are_the_same(key: str, spad_bytes: int) -> None:
    """The cgra model's cycles without the streams' `Transfer`s (what a report
    asks, `transfers=False`) are those with them, number for number, and the
    layer runs' rows kept for the run are `tiles.tolist()`; the transfers
    themselves are the same whether the rows were kept or converted anew."""
    ctx = make_context()
    module = parse_kernel(ctx, key, "small")
    hardware = configure("Tflow2k", spad_bytes=spad_bytes)
    hardware = replace(hardware, mapping=replace(hardware.mapping, stream_by_cost=False))
    tape_bytes = prepare(ctx, module, "tapeflow", hardware)
    args = caller_arguments(module, key, "small")
    execution = execute(module, f"{key}_grad", args, hardware, tape_bytes, variant="tapeflow")
    for other in (
        hardware,
        replace(hardware, cache=replace(hardware.cache, size_bytes=1024, assoc=2)),
        replace(hardware, dram=replace(hardware.dram, latency_cycles=400)),
    ):
        execution.reports.clear()
        evaluate(execution, other)
        cache = execution.replays[other.cache]
        table = timing.window_table(execution.recorder, cache, other)
        assert table.tiles.shape[0] > 1  # layers ran: there are streams to place
        assert table.tile_rows is not None
        assert table.tile_list() == table.tiles.tolist()
        assert all(type(v) is int for row in table.tile_list() for v in row)
        # A table given other tiles converts them, not the run's kept rows.
        fewer = table.tiles[:1].copy()
        assert replace(table, tiles=fewer).tile_list() == fewer.tolist()
        full = CGRA.cycles(table, other)
        bare = CGRA.cycles(table, other, transfers=False)
        anew = CGRA.cycles(replace(table, tile_rows=None), other)
        assert len(full.transfers) > 0 and bare.transfers == ()
        assert anew.transfers == full.transfers
        for name in ("spent", "busy", "stream_stalled"):
            assert getattr(bare, name).tolist() == getattr(full, name).tolist()
        for name in ("memory_stall", "stream_stall", "config", "fill_drain", "prefetch_distance"):
            assert getattr(bare, name) == getattr(full, name)
