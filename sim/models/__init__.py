"""
The timing models: how the simulator turns a recorded run into cycles.

One run (`sim.simulator.execute`) records values, the address trace and the timing
windows (`sim.timing.TimingRecorder`); the cache model replays the trace. A timing
model then decides what each window costs. Everything else in the report (cache
hits and misses, DRAM bytes, scratchpad accesses, energy) is counted the same way
under every model, from the same trace and windows.

`MODELS` maps each name `--model` accepts to its model:

- `cgra` (`sim/models/cgra.py`): the project's pipelined CGRA (modulo-scheduled
  kernel loops at 2 GHz, misses overlapped with compute, timed streams);
- `salam` (`sim/models/salam.py`): the authors' gem5-SALAM machine (100 MHz
  datapath issuing in lockstep groups, inner-loop iterations overlapping, two
  ports with a read and a write slot each, free tape bins); its parameters are in
  `targets/salam.py`, its issue rules in `targets/lockstep.py`.

A model has three parts (`TimingModel`):

- `hardware(preset)`: the machine it simulates, given a hardware preset (or
  description): `cgra` keeps it, `salam` puts in the authors' clock, latencies,
  cache ways, per-access costs and array placement. Callers apply it before
  `prepare`/`execute` and before `evaluate` of another cache size;
- `lowering_hardware(hardware, tape_bytes)`: the hardware the variant's passes
  are given (`salam` lowers TapeFlow with a scratchpad as large as the tape,
  since its bins have no capacity);
- `cycles(windows, hardware)`: each window's cycles, and the memory and stream
  stalls among them.
"""

from __future__ import annotations

from sim.models.base import Cycles, TimingModel, WindowTable
from sim.models.cgra import CGRA
from sim.models.salam import SALAM_MODEL
from targets.fields import HARDWARE_FIELDS, unsimulated
from targets.hardware import Hardware

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
    "MODELS",
    "TimingModel",
    "UnknownModel",
    "UnsimulatedField",
    "check_simulated",
    "WindowTable",
    "check_models",
    "get_model",
]
