"""The one machine builder (`targets.machine`, `sim.models.model_machine`): the
order of its layers, the model's ways, and its refusals, checked against the
presets' own numbers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sim.models import UnsimulatedField, model_machine
from sim.simulator import SimulationError, check_schedulable
from targets.hardware import PRESETS, HardwareError, associativity_for
from targets.machine import build_machine, options_layer, setting_layer


def test_preset_alone_is_the_preset() -> None:
    assert build_machine("Tflow2k") == PRESETS["Tflow2k"]
    assert model_machine("cgra", "Tflow2k") == PRESETS["Tflow2k"]


def test_a_cache_size_takes_the_models_ways() -> None:
    layer = options_layer("--cache-bytes 4096", cache_bytes=4096)
    cgra = model_machine("cgra", "Enzyme32k", [layer])
    assert (cgra.cache.size_bytes, cgra.cache.assoc) == (4096, associativity_for(4096))
    salam = model_machine("salam", "Enzyme32k", [layer])
    assert (salam.cache.size_bytes, salam.cache.assoc) == (4096, 4)  # the cluster cache's ways


def test_ways_given_with_the_size_win() -> None:
    layer = options_layer("opts", cache_bytes=4096, assoc=8)
    assert model_machine("cgra", "Enzyme32k", [layer]).cache.assoc == 8


def test_later_layers_win() -> None:
    machine = build_machine(
        "Enzyme32k",
        [setting_layer("dram.latency_cycles=7"), setting_layer("dram.latency_cycles=9")],
    )
    assert machine.dram.latency_cycles == 9
    assert machine == replace(
        PRESETS["Enzyme32k"], dram=replace(PRESETS["Enzyme32k"].dram, latency_cycles=9)
    )


def test_refusals_name_their_source() -> None:
    with pytest.raises(HardwareError, match="unknown hardware preset 'Nope'"):
        build_machine("Nope")
    with pytest.raises(HardwareError, match=r"--set rows=100: rows must be at most 64"):
        build_machine("Enzyme32k", [setting_layer("rows=100")])
    with pytest.raises(UnsimulatedField, match="the salam model does not simulate rows"):
        model_machine("salam", "Enzyme32k", [setting_layer("rows=8")])


def test_a_machine_built_by_hand_is_checked_as_a_built_one() -> None:
    with pytest.raises(SimulationError, match="rows must be at most 64"):
        check_schedulable(replace(PRESETS["Enzyme32k"], rows=100))
