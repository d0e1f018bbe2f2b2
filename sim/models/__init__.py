"""
The timing models: how the simulator turns a recorded run into cycles.

One run (`sim.simulator.execute`) records values, the address trace and the timing
windows (`sim.timing.TimingRecorder`); the cache model replays the trace; a timing
model decides what each window costs. Everything else in the report (cache hits
and misses, DRAM bytes, scratchpad accesses, energy) is counted the same way under
every model. `MODELS` maps each name `--model` accepts to its model:

- `cgra` (`sim/models/cgra.py`): the project's pipelined CGRA;
- `salam` (`sim/models/salam/`): the authors' gem5-SALAM machine.

A model (`TimingModel`) says which hardware fields it simulates (`fields`), turns a
preset into the machine it simulates (`hardware`, `ways`), gives the hardware the
variant's passes and the run see (`lowering_hardware`, `run_hardware`), plans each
kernel before the run (`kernel_plan`), costs the windows (`cycles`) and adds the
numbers only it has to the report (`add_counts`). `model_machine` builds the
machine a model simulates from a preset and layers of changes: the one way the
tools, the bench, sweeps and the Python API build one.
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.models.base import Cycles, TimingModel, WindowTable
from sim.models.cgra import CGRA
from sim.models.salam.model import SALAM_MODEL
from targets.fields import HARDWARE_FIELDS, field_values, unsimulated
from targets.hardware import Hardware
from targets.machine import Layer, build_machine

MODELS: dict[str, TimingModel] = {m.name: m for m in (CGRA, SALAM_MODEL)}
"""Every timing model by the name `--model` takes."""

DEFAULT_MODEL = "cgra"


class UnknownModel(ValueError):
    """A model name not in `MODELS`; the message lists them."""


class UnsimulatedField(ValueError):
    """A hardware field changed that the chosen model does not simulate."""


def check_simulated(name: str, hardware: Hardware, reference: Hardware) -> None:
    """Raise `UnsimulatedField` if `hardware` changes, from `reference` (the
    preset as the model simulates it), a field model `name` does not read: the
    run would report it as applied while no number depends on it."""
    model = get_model(name)
    ignored = unsimulated(hardware, reference, model.fields)
    if ignored:
        raise UnsimulatedField(
            f"the {name} model does not simulate {', '.join(ignored)}: "
            f"{'it changes' if len(ignored) == 1 else 'they change'} none of its numbers "
            f"(it ignores {', '.join(sorted(HARDWARE_FIELDS - model.fields))}); "
            f"leave {'it' if len(ignored) == 1 else 'them'} at the preset's value, or "
            "choose a model that simulates it"
        )


def model_machine(
    model: str, preset: str | Hardware, layers: Sequence[Layer] = (), checked: bool = True
) -> Hardware:
    """The machine `model` simulates: `preset` as the model simulates it, then
    each layer (`targets.machine.build_machine`, a cache size taking the model's
    ways); `UnsimulatedField` where the layers change a field the model does
    not simulate (unless not `checked`: a machine rebuilt from settings that were
    checked when they were given), `HardwareError` naming the layer where one is
    bad."""
    timing = get_model(model)
    hardware = build_machine(preset, layers, simulated=timing.hardware, ways=timing.ways)
    if layers and checked:
        check_simulated(model, hardware, build_machine(preset, simulated=timing.hardware))
    return hardware


class ForeignMachine(ValueError):
    """A machine given to a model that did not build it: converted for another
    model, or a preset the model would have had to convert first."""


def check_machine(name: str, hardware: Hardware) -> None:
    """Raise `ForeignMachine` unless `hardware` is a machine model `name` simulates:
    one its `TimingModel.hardware` converted (`Hardware.converted_for`), or, for
    a model that converts nothing (`cgra`), one no model converted. A preset
    given as it is to `salam` (`configure("Tflow32k")`) keeps the CGRA's FU
    latencies, ways and placement and would be timed as neither machine."""
    model = get_model(name)
    made_for = hardware.converted_for
    if made_for == name or (not made_for and model.hardware(hardware) == hardware):
        return
    raise ForeignMachine(
        f"{hardware.name} is "
        + (f"the {made_for} model's machine" if made_for else "not converted")
        + f", and the {name} model runs only its own: build it with "
        f"model_machine({name!r}, preset, layers), or MODELS[{name!r}].hardware(machine)"
    )


def set_aside(model: str, hardware: Hardware, reference: Hardware) -> list[str]:
    """The fields changed from `reference` (the preset as `model` simulates it)
    that the model's run does not see as given (`TimingModel.run_hardware` sets
    them to one value: `salam`'s scratchpad size, since its bins hold the whole
    tape): a run would not reflect them, though the model reads the field."""
    timing = get_model(model)
    ours, theirs = field_values(hardware), field_values(reference)
    ran = field_values(timing.run_hardware(hardware))
    return sorted(k for k in ours if ours[k] != theirs.get(k) and ran[k] != ours[k])


def get_model(name: str) -> TimingModel:
    try:
        return MODELS[name]
    except KeyError:
        raise UnknownModel(
            f"unknown timing model '{name}'; choose from {', '.join(MODELS)}"
        ) from None


def check_models(names: list[str]) -> list[str]:
    """`names` (a `--model` list) without repeats, if every one is in `MODELS`;
    else `UnknownModel` naming the bad ones."""
    bad = [n for n in names if n not in MODELS]
    if bad:
        raise UnknownModel(f"unknown model(s) {', '.join(bad)}; choose from {', '.join(MODELS)}")
    if not names:
        raise UnknownModel(f"choose at least one model from {', '.join(MODELS)}")
    return list(dict.fromkeys(names))


__all__ = [
    "Cycles",
    "DEFAULT_MODEL",
    "ForeignMachine",
    "MODELS",
    "TimingModel",
    "UnknownModel",
    "UnsimulatedField",
    "check_machine",
    "check_simulated",
    "WindowTable",
    "check_models",
    "get_model",
    "model_machine",
    "set_aside",
]
