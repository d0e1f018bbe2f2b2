"""
A timing model whose cycles read only part of the machine (`cycles_key`: the
salam model reads the datapath's ports) has them made once per run, cache
replay and key (`sim.timing._summed_cycles`): every report must be the one a
fresh run reports on that machine alone, and the part the key leaves out must
change none of the model's cycles.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import sim.timing as timing
from sim.models import MODELS
from sim.models.salam.model import SALAM_MODEL
from sim.simulator import evaluate, execute, prepare
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_tools.context import make_context
from targets.energy import ENERGY_PRESETS
from targets.hardware import configure


def _machines(hardware: Any) -> list[Any]:
    """Machines one salam run serves that differ in what its cycles do not
    read: the scratchpad's size, the DRAM, the clock, the energy preset, and
    the cache (another replay)."""
    spad = hardware.scratchpad
    return [
        hardware,
        replace(hardware, scratchpad=replace(spad, size_bytes=spad.size_bytes * 4)),
        replace(hardware, dram=replace(hardware.dram, latency_cycles=400, bandwidth_gbs=4.0)),
        replace(hardware, clock_ghz=1.5, energy=ENERGY_PRESETS["cacti45"]),
        replace(hardware, cache=replace(hardware.cache, size_bytes=1024, assoc=4)),
        replace(
            hardware,
            cache=replace(hardware.cache, size_bytes=1024, assoc=4),
            scratchpad=replace(spad, size_bytes=spad.size_bytes * 2),
        ),
    ]


@pytest.mark.parametrize(("key", "variant"), [("pathfinder", "tapeflow"), ("lenet", "enzyme")])
def test_shared_cycles_give_each_machine_its_own_report(key: str, variant: str) -> None:
    ctx = make_context()
    module = parse_kernel(ctx, key, "small")
    preset = "Tflow2k" if variant == "tapeflow" else "Enzyme32k"
    hardware = MODELS["salam"].hardware(configure(preset))
    tape_bytes = prepare(ctx, module, variant, hardware, model="salam")

    def run() -> Any:
        args = caller_arguments(module, key, "small")
        return execute(
            module, f"{key}_grad", args, hardware, tape_bytes, variant=variant, model="salam"
        )

    shared = run()
    machines = _machines(hardware)
    for machine in machines:
        alone = evaluate(run(), machine)
        together = evaluate(shared, machine)
        for data in (alone, together):
            data.pop("simulator")
        assert repr(together) == repr(alone)
    # One set of cycles per cache replay: the first four machines share one.
    assert len(shared.recorder._summed) == 2  # noqa: SLF001


def test_what_the_salam_key_leaves_out_changes_no_cycles() -> None:
    """The salam model's cycles of one window table on machines that differ in
    everything `cycles_key` leaves out are the same, number for number."""
    ctx = make_context()
    module = parse_kernel(ctx, "pathfinder", "small")
    hardware = MODELS["salam"].hardware(configure("Tflow2k"))
    tape_bytes = prepare(ctx, module, "tapeflow", hardware, model="salam")
    args = caller_arguments(module, "pathfinder", "small")
    execution = execute(
        module, "pathfinder_grad", args, hardware, tape_bytes, variant="tapeflow", model="salam"
    )
    evaluate(execution)
    table = timing.window_table(execution.recorder, execution.replays[hardware.cache], hardware)
    reference = SALAM_MODEL.cycles(table, hardware)
    for machine in _machines(hardware)[1:4]:
        assert SALAM_MODEL.cycles_key(machine) == SALAM_MODEL.cycles_key(hardware)
        other = SALAM_MODEL.cycles(table, machine)
        for name in ("spent", "busy", "stream_stalled"):
            assert np.array_equal(getattr(other, name), getattr(reference, name))
        for name in ("memory_stall", "stream_stall", "config", "fill_drain", "prefetch_distance"):
            assert getattr(other, name) == getattr(reference, name)
