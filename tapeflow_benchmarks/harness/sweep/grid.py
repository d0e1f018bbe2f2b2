"""
Expanding a sweep's grid: each variant's machine (preset, files, `set`, `spad`)
with every combination of the grid's values, and the point (`Point`) that
rebuilds each machine.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from sim.models import UnsimulatedField, model_machine, set_aside
from tapeflow_benchmarks.harness.points import Group, Point
from tapeflow_benchmarks.harness.sweep.plan import (
    SweepKernel,
    SweepVariant,
    value_at,
)
from tapeflow_tools.diagnostics import ToolError
from targets.energy import ENERGY_PRESETS
from targets.fields import dotted
from targets.hardware import PRESETS, Hardware, describe
from targets.hardware_files import HardwareDescriptionError
from targets.machine import Layer, merge_into, nested_key


def preset_named(where: str, name: str) -> Hardware:
    if name not in PRESETS:
        raise ToolError(
            f"{where}: unknown hardware preset '{name}' (choose from {', '.join(PRESETS)})"
        )
    return PRESETS[name]


def point_of(kernel: SweepKernel, variant: SweepVariant, model: str, hardware: Hardware) -> Point:
    """The point whose `hardware()` is `hardware`: the cache size, ways and
    energy preset at the point (a replay of the group's run), every other
    difference from the point's own machine (the preset as `model` simulates it,
    `Point.hardware` without settings) in the group's settings."""
    energy = (
        hardware.energy.name if ENERGY_PRESETS.get(hardware.energy.name) == hardware.energy else ""
    )
    size = hardware.cache.size_bytes
    spad = hardware.scratchpad.size_bytes if variant.variant == "tapeflow" else 0
    # The variant's default preset is left implicit, as the evaluation's points
    # leave it: the same machine is then the same point, and shares its cache entry.
    default = "Tflow32k" if variant.variant == "tapeflow" else "Enzyme32k"
    group = Group(
        kernel.name,
        kernel.size,
        variant.variant,
        spad,
        variant.unroll,
        model,
        "" if variant.preset == default else variant.preset,
        (),
        kernel.source,
    )
    bare = Point(group, size, energy).hardware()
    assoc = hardware.cache.assoc if hardware.cache.assoc != bare.cache.assoc else 0
    ours, theirs = dotted(describe(hardware)), dotted(describe(bare))
    settings = tuple(
        sorted(
            (key, value)
            for key, value in ours.items()
            if theirs.get(key) != value
            and key not in ("cache.size_bytes", "cache.assoc")
            and not (energy and key.startswith("energy."))
        )
    )
    point = Point(replace(group, settings=settings), size, energy, assoc)
    if point.hardware() != hardware:  # pragma: no cover - a bug in the split above
        raise AssertionError(f"{point.label()}: the point does not rebuild its hardware")
    return point


SPAD = "scratchpad.size_bytes"


def machines(
    path: Path,
    variants: list[SweepVariant],
    layers: list[tuple[dict[str, Any], str]],
    grid: dict[str, list[Any]],
    combos: list[tuple[Any, ...]],
    model: str,
    notes: list[str],
) -> list[tuple[SweepVariant, Hardware, dict[str, Any]]]:
    """Every variant's machine at every combination of the grid's values, with
    the swept keys' effective values: the variant's preset, the `layers`, its
    `spad`, then the combination. Over a scratchpad axis, a variant without
    streams runs on the machine without a scratchpad (it would leave it idle:
    one run, its SRAM the cache alone); a grid key the model runs alike at every
    value (`sim.models.set_aside`) is named. Both go to `notes`."""
    found: list[tuple[SweepVariant, Hardware, dict[str, Any]]] = []
    aside: dict[str, None] = {}
    for index, variant in enumerate(variants):
        idle = SPAD in grid and variant.variant != "tapeflow"
        reference = model_machine(model, variant.preset)
        if idle:
            notes.append(
                f"{path}: grid: {SPAD}: variants[{index}] ({variant.variant}) never uses the "
                "scratchpad: it runs once, without one, for every value (its sram_bytes is "
                "the cache alone)"
            )
        # The machine the model simulates (salam's clock, latencies, ways...),
        # then what the sweep changes, as `tapeflow-sim` layers them.
        spad: list[Layer] = []
        if variant.spad is not None:
            spad.append(
                ({"scratchpad": {"size_bytes": variant.spad}}, f"{path}: variants[{index}].spad")
            )
        for combo in combos:
            layer: dict[str, Any] = {}
            for key, value in zip(grid, combo, strict=True):
                merge_into(layer, nested_key(key, value))
            where = f"{path}: variants[{index}] ({variant.variant} on {variant.preset})"
            if combo:
                where = (
                    f"{path}: grid point "
                    + ", ".join(f"{k}={v}" for k, v in zip(grid, combo, strict=True))
                    + f" ({variant.variant} on {variant.preset})"
                )
            try:
                hardware = model_machine(model, variant.preset, [*layers, *spad, (layer, where)])
            except HardwareDescriptionError as err:
                raise ToolError(str(err)) from None
            except UnsimulatedField as err:
                raise ToolError(f"{where}: {err}") from None
            if variant.variant == "tapeflow" and hardware.scratchpad.size_bytes <= 0:
                raise ToolError(
                    f"{where}: the tapeflow variant needs a scratchpad, and this machine has "
                    "none (name a Tflow preset, or give the variant a spad)"
                )
            swept = {key: value_at(hardware, key) for key in grid}
            aside.update(
                dict.fromkeys(k for k in set_aside(model, hardware, reference) if k in grid)
            )
            if idle:
                hardware = replace(hardware, scratchpad=replace(hardware.scratchpad, size_bytes=0))
            found.append((variant, hardware, swept))
    for key in aside:
        notes.append(
            f"{path}: grid: {key}: the {model} model does not simulate {key} as given: it runs "
            "every value alike, so no number of the sweep reflects it (docs/DESIGN.md, "
            "Timing models)"
        )
    return found


__all__ = ["machines", "point_of", "preset_named"]
