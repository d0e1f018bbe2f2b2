"""
The one way a machine is built: a preset (`targets.hardware.PRESETS`), as the
timing model simulates it, then layers of changes in order, later ones winning.
A layer is plain nested data (what a hardware file holds, a `--set`, a sweep's
settings, the size options) with the source its messages name; a cache size
given in a layer without its ways takes the machine's ways for that size.

`tapeflow-sim`, `tapeflow-bench`, sweeps, the Python API (through
`sim.models.model_machine`, which adds the model) and the scheduling pass's
hardware file all build machines here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from targets.energy import ENERGY_PRESETS
from targets.fields import dotted, field_values
from targets.hardware import PRESETS, Hardware, HardwareError, associativity_for
from targets.hardware_files import (
    HardwareDescriptionError,
    apply,
    load_file,
    parse_assignment,
)

Layer = tuple[Mapping[str, Any], str]
"""Fields to change (nested as in a hardware file) and where they come from."""


def nested_key(key: str, value: Any) -> dict[str, Any]:
    """`{"a": {"b": value}}` for the dotted `key` "a.b"."""
    head, _, rest = key.partition(".")
    return {head: nested_key(rest, value) if rest else value}


def merge_into(into: dict[str, Any], layer: Mapping[str, Any]) -> dict[str, Any]:
    """`into` with every field of `layer` (winning), sections merged key by key."""
    for key, value in layer.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            merge_into(into[key], value)
        else:
            into[key] = value
    return into


def file_layer(path: str) -> Layer:
    """A hardware file (YAML or JSON) as a layer."""
    return load_file(path), str(path)


def setting_layer(text: str) -> Layer:
    """A `key=value` setting (`--set`) as a layer."""
    return parse_assignment(text), f"--set {text}"


def options_layer(
    source: str,
    *,
    cache_bytes: int | None = None,
    assoc: int | None = None,
    spad_bytes: int | None = None,
    energy: str | None = None,
) -> Layer:
    """The size options (cache size and ways, scratchpad size, energy preset) as
    one layer: a cache size takes the machine's ways unless `assoc` is given."""
    fields = {
        "cache.size_bytes": cache_bytes,
        "cache.assoc": assoc,
        "scratchpad.size_bytes": spad_bytes,
        "energy": energy,
    }
    layer: dict[str, Any] = {}
    for key, value in fields.items():
        if value is not None:
            merge_into(layer, nested_key(key, value))
    return layer, source


def _replaced(obj: Any, key: str, value: Any) -> Any:
    head, _, rest = key.partition(".")
    return replace(obj, **{head: _replaced(getattr(obj, head), rest, value) if rest else value})


def _typed(
    hardware: Hardware, layer: Mapping[str, Any], source: str, ways: Callable[[int], int]
) -> Hardware | None:
    """`hardware` with `layer` set field by field, when every value already has
    its field's type (the size options, a sweep's settings): no parser needed, so
    the core install runs without the hardware-file libraries. None where a value
    needs reading (a string, a section, another type): `apply` reads it."""
    changes = dotted(layer)
    current = field_values(hardware)
    for key, value in changes.items():
        if key == "energy":
            if not isinstance(value, str):
                return None
            if value not in ENERGY_PRESETS:
                raise HardwareDescriptionError(
                    f"{source}: energy: unknown energy preset '{value}' "
                    f"(choose from {', '.join(ENERGY_PRESETS)})"
                )
        elif key not in current or type(current[key]) is not type(value):
            return None
    for key, value in changes.items():
        hardware = _replaced(hardware, key, ENERGY_PRESETS[value] if key == "energy" else value)
    size = changes.get("cache.size_bytes")
    if size is not None and "cache.assoc" not in changes and size > 0:
        hardware = _replaced(hardware, "cache.assoc", ways(size))
    try:
        hardware.validate()
    except HardwareError as err:
        raise HardwareDescriptionError(f"{source}: {err}") from None
    return hardware


def build_machine(
    preset: str | Hardware,
    layers: Sequence[Layer] = (),
    *,
    simulated: Callable[[Hardware], Hardware] | None = None,
    ways: Callable[[int], int] = associativity_for,
) -> Hardware:
    """The machine: `preset` (a name or a machine), as `simulated` turns it into
    the machine a timing model simulates, then each layer in order (a cache size
    without its ways takes `ways(size)`). Errors (`HardwareError`) name the
    layer's source and the key."""
    if isinstance(preset, str):
        if preset not in PRESETS:
            raise HardwareError(
                f"unknown hardware preset '{preset}'; choose from {', '.join(PRESETS)}"
            )
        preset = PRESETS[preset]
    hardware = preset if simulated is None else simulated(preset)
    for layer, source in layers:
        if layer:
            typed = _typed(hardware, layer, source, ways)
            hardware = apply(hardware, layer, source, ways) if typed is None else typed
    return hardware


def layered(
    hardware: Hardware,
    files: Sequence[str] = (),
    sets: Sequence[str] = (),
    ways: Callable[[int], int] = associativity_for,
) -> Hardware:
    """`hardware` with each file, then each `--set key=value`, applied in order:
    `build_machine` with file and setting layers."""
    layers = [*(file_layer(str(f)) for f in files), *(setting_layer(t) for t in sets)]
    return build_machine(hardware, layers, ways=ways)


__all__ = [
    "Layer",
    "build_machine",
    "file_layer",
    "layered",
    "merge_into",
    "nested_key",
    "options_layer",
    "setting_layer",
]
