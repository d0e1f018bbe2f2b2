"""
`load_sweep`: a sweep file read (`spec.read_spec`), every name in it checked
(model, presets, kernels, hardware files, variants, grid keys and values), and
its grid expanded into points (`grid.py`). Every problem is a `ToolError` naming
the file and the key at fault; nothing runs before the whole file passes.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from sim.models import MODELS
from tapeflow_benchmarks.harness.sweep.grid import machines, point_of, preset_named
from tapeflow_benchmarks.harness.sweep.kernels import sweep_kernels
from tapeflow_benchmarks.harness.sweep.plan import (
    Sweep,
    SweepKernel,
    SweepVariant,
)
from tapeflow_benchmarks.harness.sweep.spec import read_spec
from tapeflow_tools.diagnostics import ToolError
from tapeflow_tools.memory_map import check_kept
from targets.fields import dotted
from targets.hardware import PRESETS, describe
from targets.hardware_files import HardwareDescriptionError, apply, load_file
from targets.machine import merge_into, nested_key

MAX_POINTS = 100_000
"""A grid larger than this is refused: it is almost certainly a typo."""

Layers = list[tuple[dict[str, Any], str]]
"""Hardware layers over each variant's preset, each with where it comes from."""


def _hardware_layers(path: Path, spec: Any) -> tuple[list[str], Layers]:
    """The `hw` files (as named) and the layers they and `set` make, in order."""
    files = [spec.hw] if isinstance(spec.hw, str) else list(spec.hw)
    layers: Layers = []
    for index, name in enumerate(files):
        where = f"{path}: hw" + (f"[{index}]" if not isinstance(spec.hw, str) else "")
        file = path.parent / name
        if not file.is_file():
            raise ToolError(f"{where}: {file}: no such file")
        try:
            layers.append((load_file(file), f"{where}: {file}"))
        except HardwareDescriptionError as err:
            raise ToolError(f"{where}: {err}") from None
    fixed: dict[str, Any] = {}
    for key, value in spec.settings.items():
        merge_into(fixed, nested_key(key, value))
    if fixed:
        layers.append((fixed, f"{path}: set"))
    return files, layers


def _variants(path: Path, spec: Any, grid: dict[str, list[Any]]) -> list[SweepVariant]:
    variants = []
    for index, entry in enumerate(spec.variants):
        where = f"{path}: variants[{index}]"
        name = (
            entry.preset
            or spec.preset
            or ("Tflow32k" if entry.variant == "tapeflow" else "Enzyme32k")
        )
        preset_named(f"{where}.preset" if entry.preset else f"{path}: preset", name)
        if entry.spad is not None and "scratchpad.size_bytes" in {**grid, **spec.settings}:
            raise ToolError(
                f"{where}.spad: the scratchpad size is also set by "
                f"{'grid' if 'scratchpad.size_bytes' in grid else 'set'}: "
                "scratchpad.size_bytes; give it once"
            )
        variants.append(SweepVariant(entry.variant, entry.unroll, entry.spad, name))
    if len(set(variants)) != len(variants):
        raise ToolError(f"{path}: variants: the same variant is named twice")
    return variants


def _check_grid(path: Path, spec: Any, grid: dict[str, list[Any]], probe: Any) -> None:
    """Each grid key and value alone, over the first variant's machine `probe`:
    an unknown key or a mistyped value is reported with its own name."""
    for key, values in grid.items():
        for value in values:
            try:
                apply(probe, nested_key(key, value), f"{path}: grid: {key}")
            except HardwareDescriptionError as err:
                message = str(err)
                if (
                    "unknown hardware key" in message
                    or "section" in message
                    or "should be" in message
                ):
                    raise ToolError(message) from None
            if key in spec.settings:
                raise ToolError(f"{path}: grid: {key} is also given by set; give it once")
        if len(set(map(json.dumps, values))) != len(values):
            raise ToolError(f"{path}: grid: {key}: a value is given twice")
    _check_overlaps(path, spec, grid, probe)


def _fields_set(probe: Any, key: str, value: Any) -> set[str]:
    """The dotted fields of the machine that setting `key` to `value` writes: the
    key itself, or every field of the section it names (`energy: cacti45` sets
    the whole energy table)."""
    flat = dotted(describe(probe))
    if key in flat:
        return {key}
    inside = {k for k in flat if k.startswith(key + ".")}
    return inside or {key}


def _check_overlaps(path: Path, spec: Any, grid: dict[str, list[Any]], probe: Any) -> None:
    """Two axes (or an axis and `set`, or two `set` keys) that write one field
    would collapse points silently (the later one wins at every point): refused
    with both names."""
    fixed_keys = list(spec.settings)
    for n, fixed in enumerate(fixed_keys):
        for other in fixed_keys[n + 1 :]:
            shared = sorted(
                _fields_set(probe, fixed, spec.settings[fixed])
                & _fields_set(probe, other, spec.settings[other])
            )
            if shared:
                raise ToolError(
                    f"{path}: set: {fixed} and {other} set the same field "
                    f"({', '.join(shared[:3])}{', ...' if len(shared) > 3 else ''}); give it once"
                )
    writes = {key: _fields_set(probe, key, values[0]) for key, values in grid.items()}
    keys = list(writes)
    for n, key in enumerate(keys):
        for other in keys[n + 1 :]:
            shared = sorted(writes[key] & writes[other])
            if shared:
                first, second = sorted((key, other), key=len)
                raise ToolError(
                    f"{path}: grid: {first} and {second} set the same field "
                    f"({', '.join(shared[:3])}{', ...' if len(shared) > 3 else ''}); give each "
                    "field one axis"
                )
        for fixed, value in spec.settings.items():
            if fixed == key:
                continue  # reported above as "also given by set"
            shared = sorted(writes[key] & _fields_set(probe, fixed, value))
            if shared:
                raise ToolError(
                    f"{path}: grid: {key} and set: {fixed} set the same field "
                    f"({', '.join(shared[:3])}{', ...' if len(shared) > 3 else ''}); give each "
                    "field once"
                )


def _definition(
    path: Path,
    spec: Any,
    files: list[str],
    kernels: list[SweepKernel],
    variants: list[SweepVariant],
    grid: dict[str, list[Any]],
) -> dict[str, Any]:
    """The sweep as read (for results.json)."""
    return {
        "file": str(path),
        "name": spec.name or path.stem,
        "model": spec.model,
        "preset": spec.preset,
        "hw": files,
        "set": dict(spec.settings),
        "kernels": [k.describe() for k in kernels],
        "variants": [
            {"variant": v.variant, "unroll": v.unroll, "spad": v.spad, "preset": v.preset}
            for v in variants
        ],
        "grid": grid,
    }


def load_sweep(path: Path) -> Sweep:
    """The sweep in `path`, checked whole, with every point it names; a
    `ToolError` naming the file and the key otherwise."""
    spec = read_spec(path)
    if spec.model not in MODELS:
        raise ToolError(
            f"{path}: model: unknown timing model '{spec.model}' (choose from {', '.join(MODELS)})"
        )
    if spec.preset is not None:
        preset_named(f"{path}: preset", spec.preset)
    kernels = sweep_kernels(path, spec)
    files, layers = _hardware_layers(path, spec)
    grid = dict(spec.grid)
    variants = _variants(path, spec, grid)
    _check_grid(path, spec, grid, PRESETS[variants[0].preset])
    combos = list(itertools.product(*grid.values())) if grid else [()]
    total = len(kernels) * len(variants) * len(combos)
    if total > MAX_POINTS:
        raise ToolError(
            f"{path}: the sweep has {total} points ({len(kernels)} kernels x {len(variants)} "
            f"variants x {len(combos)} grid combinations), more than {MAX_POINTS}"
        )
    sweep = Sweep(
        path,
        spec.name or path.stem,
        spec.model,
        kernels,
        variants,
        grid,
        definition=_definition(path, spec, files, kernels, variants, grid),
    )
    expanded = machines(path, variants, layers, grid, combos, spec.model, sweep.notes)
    for index, kernel in enumerate(kernels):
        if kernel.source is not None and kernel.source.addresses:
            for variant, hardware, _ in expanded:
                where = (
                    f"{path}: kernels[{index}].addresses ({variant.variant} on {variant.preset})"
                )
                check_kept(hardware, where)
    # In the file's order: kernel, then variant, then the grid's combinations.
    for kernel in kernels:
        for variant, hardware, swept in expanded:
            sweep.rows.append((point_of(kernel, variant, spec.model, hardware), swept))
    return sweep


__all__ = ["MAX_POINTS", "load_sweep"]
