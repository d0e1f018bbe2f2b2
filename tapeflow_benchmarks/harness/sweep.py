"""
`tapeflow-bench --sweep FILE`: a grid of hardware parameters over kernels and
variants, described in a YAML file (the format is in docs/sweeps.md):

    name: dram-latency            # optional: the report's title
    preset: Tflow32k              # optional: the machine every point starts from
    hw: [base.yaml]               # optional: hardware files layered over it
    set: {clock_ghz: 1.5}         # optional: fixed dotted keys, over the files
    size: small                   # the size of the built-in kernels (default small)
    kernels:
      - logsum                    # a built-in kernel, at `size`
      - {name: nn, size: paper}
      - {name: mine, file: mine.mlir, function: mine_grad, inputs: mine.npz}
    variants:
      - enzyme
      - {variant: tapeflow, spad: 1024, unroll: 2}
    grid:                         # dotted hardware keys to lists of values
      cache.size_bytes: [1024, 4096, 32768]
      dram.latency_cycles: [100, 300]

Every kernel runs with every variant on every combination of the grid's values
(their cartesian product). Each point's machine is, in this order: the variant's
`preset` (else the file's, else the paper's preset for the variant: Tflow32k for
TapeFlow, Enzyme32k otherwise), the `hw` files, `set`, the variant's `spad`, and
the grid's values, each layer applied with `targets.hardware_files.apply` (so a
new cache size takes Table III's associativity unless `cache.assoc` is given).

The whole file is checked before anything runs, and every problem is reported
naming the sweep file and the key at fault (`kernels[2].inputs`, `grid:
dram.latency`): unknown keys at any level, unknown or mistyped hardware keys (with
their dotted path), hardware combinations that cannot exist, kernels and presets
that do not exist, MLIR files that cannot be read or parsed, a `function` that is
missing or names the primal, and an inputs archive that cannot be read or does not
fit the function's arguments. Paths are relative to the sweep file.

The results folder has the evaluation's layout: `results.json` (the sweep as read,
and every run with its swept values and its full report, whose `hardware` is the
whole effective machine), `csv/runs.csv` (one row per point, one column per swept
key, named by the dotted key), `figures/sweep.png` and `report.md`.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from sim.models import MODELS as TIMING_MODELS
from tapeflow_benchmarks.harness.points import Group, KernelSource, Point
from tapeflow_benchmarks.kernels import ALL_KERNELS as KERNELS
from tapeflow_benchmarks.kernels import PRESETS as SIZES
from tapeflow_tools.diagnostics import ToolError
from targets.energy import ENERGY_PRESETS
from targets.hardware import PRESETS, Hardware, associativity_for, describe
from targets.hardware_files import HardwareDescriptionError, apply, load_file

Report = dict[str, Any]

MODELS = tuple(TIMING_MODELS)
"""The timing models a sweep may name (`model:`, `sim.models`); the report records it."""
VARIANT_NAMES = ("enzyme", "aos", "tapeflow")
MAX_POINTS = 100_000
"""A grid larger than this is refused: it is almost certainly a typo."""
MAX_UNROLL = 1024
MAX_BYTES = 1 << 30


# ------------------------------------------------------------------- the file
def _models() -> dict[str, Any]:
    """The pydantic models of the file (built on first use: pydantic is imported
    only when a sweep is read)."""
    from pydantic import BaseModel, ConfigDict, Field

    Scalar = bool | int | float | str

    class Strict(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)

    class KernelEntry(Strict):
        name: str | None = None
        size: str | None = None
        file: str | None = None
        function: str | None = None
        inputs: str | None = None

    class VariantEntry(Strict):
        variant: Literal["enzyme", "aos", "tapeflow"]
        unroll: Annotated[int, Field(ge=1, le=MAX_UNROLL)] = 1
        spad: Annotated[int, Field(ge=0, le=MAX_BYTES)] | None = None
        preset: str | None = None

    class SweepFile(Strict):
        name: str | None = None
        model: str = "cgra"
        preset: str | None = None
        size: str = "small"
        hw: str | list[str] = Field(default_factory=list)
        settings: dict[str, Scalar] = Field(default_factory=dict, alias="set")
        kernels: Annotated[list[KernelEntry], Field(min_length=1)]
        variants: Annotated[list[VariantEntry], Field(min_length=1)]
        grid: dict[str, Annotated[list[Scalar], Field(min_length=1)]] = Field(default_factory=dict)

    return {"SweepFile": SweepFile, "KernelEntry": KernelEntry, "VariantEntry": VariantEntry}


def _loc(loc: Sequence[Any]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


def _fields_of(models: dict[str, Any], loc: Sequence[Any]) -> list[str]:
    """The keys allowed where `loc` points (for 'unknown key' messages)."""
    top = models["SweepFile"]
    names = [f.alias or n for n, f in top.model_fields.items()]
    if loc and loc[0] == "kernels":
        names = list(models["KernelEntry"].model_fields)
    elif loc and loc[0] == "variants":
        names = list(models["VariantEntry"].model_fields)
    return names


def _normalised(data: dict[str, Any]) -> dict[str, Any]:
    """Short forms spelled out: a kernel or variant given as a bare name."""
    data = dict(data)
    for key, field_name in (("kernels", "name"), ("variants", "variant")):
        items = data.get(key)
        if isinstance(items, list):
            data[key] = [{field_name: item} if isinstance(item, str) else item for item in items]
    return data


def _read(path: Path) -> Any:
    """The sweep file's content, validated for shape and types."""
    import yaml
    from pydantic import ValidationError

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ToolError(f"--sweep {path}: cannot read it: {err.strerror}") from None
    except UnicodeDecodeError:
        raise ToolError(f"--sweep {path}: is not a UTF-8 text file") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise ToolError(f"{where}: not valid YAML: {getattr(err, 'problem', None) or err}") from None
    if not isinstance(data, dict):
        raise ToolError(
            f"{path}: a sweep file is a mapping (kernels, variants, grid, ...), not "
            f"{'empty' if data is None else 'a ' + type(data).__name__}"
        )
    models = _models()
    try:
        return models["SweepFile"].model_validate(_normalised(data))
    except ValidationError as err:
        problems = []
        for e in err.errors():
            loc = _loc(e["loc"])
            if e["type"] == "extra_forbidden":
                where, _, key = loc.rpartition(".")
                known = ", ".join(_fields_of(models, e["loc"]))
                problems.append(
                    f"{where + ': ' if where else ''}unknown key '{key}' (known here: {known})"
                )
            elif e["type"] == "missing":
                problems.append(f"{loc}: missing")
            else:
                problems.append(f"{loc}: {e['msg'][0].lower()}{e['msg'][1:]} (got {_shown(e.get('input'))})")
        raise ToolError(f"{path}: " + "; ".join(problems)) from None


def _shown(value: Any) -> str:
    try:
        return json.dumps(value)[:60]
    except (TypeError, ValueError):
        return repr(value)[:60]


# ------------------------------------------------------------- what it names
@dataclass(frozen=True)
class SweepKernel:
    name: str
    size: str
    """'' for a user's kernel."""
    source: KernelSource | None = None
    inputs_path: str | None = None

    def describe(self) -> dict[str, Any]:
        if self.source is None:
            return {"name": self.name, "size": self.size}
        return {
            "name": self.name, "file": self.source.file, "function": self.source.function,
            "inputs": self.inputs_path, "digest": self.source.digest,
        }


@dataclass(frozen=True)
class SweepVariant:
    variant: str
    unroll: int
    spad: int | None
    preset: str


@dataclass
class Sweep:
    path: Path
    name: str
    model: str
    kernels: list[SweepKernel]
    variants: list[SweepVariant]
    grid: dict[str, list[Any]]
    """Each swept key with its values, after validation (in the file's order)."""
    definition: dict[str, Any]
    """The sweep as read (for results.json)."""
    points: dict[Point, dict[str, Any]] = field(default_factory=dict)
    """Every point, with its swept keys' effective values."""

    @property
    def keys(self) -> list[str]:
        return list(self.grid)


def _nested(key: str, value: Any) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    target = nested
    parts = key.split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = value
    return nested


def _merge(into: dict[str, Any], layer: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in layer.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value
    return into


def _flat(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flat(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


def value_at(hardware: Hardware, key: str) -> Any:
    """The value of dotted `key` in `hardware` (a section's `name` for a section,
    as `energy` gives the energy preset's name)."""
    data: Any = describe(hardware)
    for part in key.split("."):
        data = data[part]
    if isinstance(data, Mapping):
        return data.get("name")
    return data


def _user_kernel(where: str, entry: Any, base: Path, taken: set[str]) -> SweepKernel:
    """A user's kernel, checked as tapeflow-sim checks its FILE, --function and
    --inputs."""
    from xdsl.dialects import func
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from lowering.tapeflow_enzyme import TapeflowEnzymePass
    from tapeflow_tools.arguments import (
        bind_arguments,
        gradients_of,
        load_inputs,
        load_module,
    )
    from tapeflow_tools.context import make_context
    from tapeflow_tools.diagnostics import format_parse_error

    if entry.size is not None:
        raise ToolError(f"{where}.size: a size is for a built-in kernel; a file is read as it is")
    if entry.function is None:
        raise ToolError(f"{where}.function: missing (the gradient, or the caller of enzyme.autodiff, to run)")
    path = base / entry.file
    name = entry.name or Path(entry.file).stem
    if name in KERNELS:
        raise ToolError(
            f"{where}.name: '{name}' is a built-in kernel's name; name the file's kernel "
            "otherwise (name: ...)"
        )
    if name in taken:
        raise ToolError(f"{where}.name: a second kernel named '{name}'")
    if not path.is_file():
        raise ToolError(f"{where}.file: {path}: no such file")
    try:
        module = load_module(str(path))
    except ToolError as err:
        raise ToolError(f"{where}.file: {err}") from None
    except ParseError as err:
        raise ToolError(f"{where}.file: {format_parse_error(err)}") from None
    except DiagnosticException as err:
        raise ToolError(f"{where}.file: {err}") from None
    function = entry.function
    gradients = gradients_of(module, function)
    if gradients:
        raise ToolError(
            f"{where}.function: @{function} is the primal function, which "
            f"{', '.join('@' + g for g in gradients)} differentiates; a sweep runs a "
            "gradient: name one of those"
        )
    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    if function not in functions:  # perhaps Enzyme's diffe<name>: differentiate to see
        try:
            TapeflowEnzymePass().apply(make_context(), module)
        except Exception as err:  # noqa: BLE001 - Enzyme's own diagnostic, located
            raise ToolError(f"{where}.file: {err}") from None
        functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    if function not in functions:
        raise ToolError(
            f"{where}.function: no function @{function} in {path} (found: "
            f"{', '.join('@' + f for f in functions) or 'none'})"
        )
    inputs = b""
    inputs_path = None
    if entry.inputs is not None:
        inputs_path = str(base / entry.inputs)
        arrays = load_inputs(inputs_path, option=f"{where}.inputs")
        warnings: list[str] = []
        try:
            bind_arguments(functions[function], arrays, warnings.append)
        except ToolError as err:
            raise ToolError(f"{where}.inputs {inputs_path}: {err}") from None
        for warning in warnings:
            print(f"tapeflow-bench: warning: {where}.inputs {inputs_path}: {warning}")
        inputs = Path(inputs_path).read_bytes()
    text = path.read_text(encoding="utf-8")
    digest = hashlib.sha256()
    for part in (text.encode(), b"\0", function.encode(), b"\0", inputs):
        digest.update(part)
    source = KernelSource(str(path), function, digest.hexdigest(), text, inputs)
    return SweepKernel(name, "", source, inputs_path)


def _kernels(sweep_path: Path, spec: Any) -> list[SweepKernel]:
    base = sweep_path.parent
    found: list[SweepKernel] = []
    taken: set[str] = set()
    for index, entry in enumerate(spec.kernels):
        where = f"{sweep_path}: kernels[{index}]"
        if entry.file is not None:
            kernel = _user_kernel(where, entry, base, taken)
        else:
            if entry.name is None:
                raise ToolError(f"{where}: name a built-in kernel (name: ...) or give a file")
            for extra in ("function", "inputs"):
                if getattr(entry, extra) is not None:
                    raise ToolError(f"{where}.{extra}: only a user's kernel (with file: ...) has one")
            if entry.name not in KERNELS:
                raise ToolError(
                    f"{where}.name: unknown kernel '{entry.name}' (built-in: {', '.join(KERNELS)}; "
                    "a kernel of your own is given by file, function and inputs)"
                )
            size = entry.size or spec.size
            if size not in SIZES:
                what = f"{where}.size" if entry.size else f"{sweep_path}: size"
                raise ToolError(f"{what}: unknown size '{size}' (choose from {', '.join(SIZES)})")
            if entry.name in taken and any(k.size == size for k in found if k.name == entry.name):
                raise ToolError(f"{where}: {entry.name} at size {size} is named twice")
            kernel = SweepKernel(entry.name, size)
        taken.add(kernel.name)
        found.append(kernel)
    return found


def _preset(where: str, name: str) -> Hardware:
    if name not in PRESETS:
        raise ToolError(f"{where}: unknown hardware preset '{name}' (choose from {', '.join(PRESETS)})")
    return PRESETS[name]


def _point(
    kernel: SweepKernel, variant: SweepVariant, model: str, hardware: Hardware
) -> Point:
    """The point whose `hardware()` is `hardware`: the cache size, ways and
    energy preset at the point (a replay of the group's run), every other
    difference from the preset in the group's settings."""
    preset = PRESETS[variant.preset]
    energy = hardware.energy.name if ENERGY_PRESETS.get(hardware.energy.name) == hardware.energy else ""
    ours, theirs = _flat(describe(hardware)), _flat(describe(preset))
    settings = tuple(sorted(
        (key, value) for key, value in ours.items()
        if theirs.get(key) != value
        and key not in ("cache.size_bytes", "cache.assoc")
        and not (energy and key.startswith("energy."))
    ))
    size = hardware.cache.size_bytes
    assoc = hardware.cache.assoc if hardware.cache.assoc != associativity_for(size) else 0
    spad = hardware.scratchpad.size_bytes if variant.variant == "tapeflow" else 0
    # The variant's default preset is left implicit, as the evaluation's points
    # leave it: the same machine is then the same point, and shares its cache entry.
    default = "Tflow32k" if variant.variant == "tapeflow" else "Enzyme32k"
    group = Group(
        kernel.name, kernel.size, variant.variant, spad, variant.unroll, model,
        "" if variant.preset == default else variant.preset, settings, kernel.source,
    )
    point = Point(group, size, energy, assoc)
    if point.hardware() != hardware:  # pragma: no cover - a bug in the split above
        raise AssertionError(f"{point.label()}: the point does not rebuild its hardware")
    return point


def load_sweep(path: Path) -> Sweep:
    """The sweep in `path`, checked whole, with every point it names; a
    `ToolError` naming the file and the key otherwise."""
    spec = _read(path)
    if spec.model not in MODELS:
        raise ToolError(f"{path}: model: unknown timing model '{spec.model}' (choose from {', '.join(MODELS)})")
    if spec.preset is not None:
        _preset(f"{path}: preset", spec.preset)
    kernels = _kernels(path, spec)
    files = [spec.hw] if isinstance(spec.hw, str) else list(spec.hw)
    layers: list[tuple[dict[str, Any], str]] = []
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
        _merge(fixed, _nested(key, value))
    if fixed:
        layers.append((fixed, f"{path}: set"))
    grid = dict(spec.grid)

    variants = []
    for index, entry in enumerate(spec.variants):
        where = f"{path}: variants[{index}]"
        name = entry.preset or spec.preset or ("Tflow32k" if entry.variant == "tapeflow" else "Enzyme32k")
        _preset(f"{where}.preset" if entry.preset else f"{path}: preset", name)
        if entry.spad is not None and "scratchpad.size_bytes" in {**grid, **spec.settings}:
            raise ToolError(
                f"{where}.spad: the scratchpad size is also set by "
                f"{'grid' if 'scratchpad.size_bytes' in grid else 'set'}: scratchpad.size_bytes; give it once"
            )
        variants.append(SweepVariant(entry.variant, entry.unroll, entry.spad, name))
    if len(set(variants)) != len(variants):
        raise ToolError(f"{path}: variants: the same variant is named twice")

    # Each grid key and value alone, over the first variant's machine: an unknown
    # key or a mistyped value is reported with its own name.
    probe = PRESETS[variants[0].preset]
    for key, values in grid.items():
        for value in values:
            try:
                apply(probe, _nested(key, value), f"{path}: grid: {key}")
            except HardwareDescriptionError as err:
                message = str(err)
                if "unknown hardware key" in message or "section" in message or "should be" in message:
                    raise ToolError(message) from None
            if key in spec.settings:
                raise ToolError(f"{path}: grid: {key} is also given by set; give it once")
        if len(set(map(json.dumps, values))) != len(values):
            raise ToolError(f"{path}: grid: {key}: a value is given twice")
    combos = list(itertools.product(*grid.values())) if grid else [()]
    total = len(kernels) * len(variants) * len(combos)
    if total > MAX_POINTS:
        raise ToolError(
            f"{path}: the sweep has {total} points ({len(kernels)} kernels x {len(variants)} "
            f"variants x {len(combos)} grid combinations), more than {MAX_POINTS}"
        )

    sweep = Sweep(
        path, spec.name or path.stem, spec.model, kernels, variants, grid,
        definition={
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
        },
    )
    machines: list[tuple[SweepVariant, Hardware, dict[str, Any]]] = []
    for variant in variants:
        machine = PRESETS[variant.preset]
        for layer, source in layers:
            try:
                machine = apply(machine, layer, source)
            except HardwareDescriptionError as err:
                raise ToolError(str(err)) from None
        if variant.spad is not None:
            where = f"{path}: variants[{variants.index(variant)}].spad"
            try:
                machine = apply(machine, {"scratchpad": {"size_bytes": variant.spad}}, where)
            except HardwareDescriptionError as err:
                raise ToolError(str(err)) from None
        for combo in combos:
            layer: dict[str, Any] = {}
            for key, value in zip(grid, combo, strict=True):
                _merge(layer, _nested(key, value))
            where = f"{path}: variants[{variants.index(variant)}] ({variant.variant} on {variant.preset})"
            if combo:
                where = f"{path}: grid point " + ", ".join(
                    f"{k}={v}" for k, v in zip(grid, combo, strict=True)
                ) + f" ({variant.variant} on {variant.preset})"
            try:
                hardware = apply(machine, layer, where) if layer else machine
            except HardwareDescriptionError as err:
                raise ToolError(str(err)) from None
            if variant.variant == "tapeflow" and hardware.scratchpad.size_bytes <= 0:
                raise ToolError(
                    f"{where}: the tapeflow variant needs a scratchpad, and this machine has "
                    "none (name a Tflow preset, or give the variant a spad)"
                )
            machines.append((variant, hardware, {key: value_at(hardware, key) for key in grid}))
    # In the file's order: kernel, then variant, then the grid's combinations.
    for kernel in kernels:
        for variant, hardware, swept in machines:
            sweep.points.setdefault(_point(kernel, variant, spec.model, hardware), swept)
    return sweep


# ------------------------------------------------------------------- results
def ordered(sweep: Sweep, runs: dict[Point, Report]) -> list[tuple[Point, Report]]:
    """The runs in the sweep's order (kernel, variant, grid combination)."""
    return [(p, runs[p]) for p in sweep.points if p in runs]


def run_rows(sweep: Sweep, runs: dict[Point, Report]) -> list[dict[str, Any]]:
    """`runs.csv`: the point's fields, one column per swept key, then the numbers."""
    from tapeflow_benchmarks.harness.report import _point_fields, _run_row

    rows = []
    for point, report in ordered(sweep, runs):
        fields = _point_fields(point)
        row = _run_row(point, report)
        numbers = {k: v for k, v in row.items() if k not in fields}
        rows.append({**fields, **sweep.points[point], **numbers})
    return rows


def _table(rows: list[dict[str, Any]], keys: list[str]) -> str:
    from tapeflow_benchmarks.harness.report import markdown_table

    columns = ["kernel", "variant", "unroll", *keys, "cycles_total", "cycles_memory_stall",
               "cycles_stream_stall", "cache_hit_rate", "dram_total", "energy_onchip_pj", "layers"]
    if any("error" in r for r in rows):
        columns.append("error")
    return markdown_table(rows, columns)


def sizes_note(sweep: Sweep) -> str:
    """Which size each kernel runs at (for every figure and the report)."""
    parts = [f"{k.name} {k.size}" if k.size else f"{k.name} (its own inputs)" for k in sweep.kernels]
    return "sizes: " + ", ".join(parts)


def write_sweep(
    out: Path, meta: dict[str, Any], sweep: Sweep, runs: dict[Point, Report], formats: Sequence[str]
) -> list[Path]:
    """The results folder, replacing `out` as a whole once complete; returns the
    figures written."""
    from tapeflow_tools.atomic import atomic_directory

    with atomic_directory(out) as temp:
        names = _write_into(temp, meta, sweep, runs, formats)
    return [out / "figures" / name for name in names]


def _write_into(
    out: Path, meta: dict[str, Any], sweep: Sweep, runs: dict[Point, Report], formats: Sequence[str]
) -> list[str]:
    from tapeflow_benchmarks.harness.figures import save
    from tapeflow_benchmarks.harness.report import _point_fields

    (out / "csv").mkdir()
    (out / "figures").mkdir()
    rows = run_rows(sweep, runs)
    with (out / "csv" / "runs.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(dict.fromkeys(c for r in rows for c in r)))
        writer.writeheader()
        writer.writerows(rows)
    figures: list[str] = []
    figure = sweep_figure(sweep, rows)
    if figure is not None:
        figures = save(figure, out / "figures" / "sweep", formats)
    data = {
        "meta": meta,
        "sweep": sweep.definition,
        "runs": [
            {**_point_fields(p), "swept": sweep.points[p], "report": r}
            for p, r in ordered(sweep, runs)
        ],
    }
    (out / "results.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    lines = [
        f"# Sweep: {sweep.name}",
        "",
        f"Command: `{meta['command']}`  ",
        f"Sweep file: `{sweep.path}`; {sizes_note(sweep)}; timing model `{sweep.model}`.  ",
        f"{meta['points']} simulated points ({meta['cached']} from the cache, "
        f"{meta['computed_groups']} runs computed) in {meta['seconds']:.0f} s on "
        f"{meta['engine']}; code fingerprint `{meta['code']}`.",
        "",
        "Each point's whole machine (every hardware parameter, the model, variant, unroll, "
        "energy preset and package versions) is its report's `hardware` in `results.json`.",
        "",
        "## Grid",
        "",
    ]
    lines += [f"- `{key}`: {', '.join(map(str, values))}" for key, values in sweep.grid.items()] or [
        "- (no grid: one machine per variant)"
    ]
    lines += [""]
    if meta.get("failed"):
        lines += ["## Failed runs", ""] + [f"- {f}" for f in meta["failed"]] + [""]
    lines += ["## Runs", ""]
    if figures:
        lines += [f"![sweep](figures/{figures[0]})", ""]
    lines += ["Data: `csv/runs.csv` (one column per swept key).", "", _table(rows, sweep.keys)]
    (out / "report.md").write_text("\n".join(lines), encoding="utf-8")
    return figures


_STYLES = {"enzyme": "--", "aos": ":", "tapeflow": "-"}


def sweep_figure(sweep: Sweep, rows: list[dict[str, Any]]) -> Any:
    """One column per kernel; rows: total cycles, DRAM bytes, on-chip energy,
    against the first swept key; one line per variant and combination of the
    other keys (a first key that is not a number, such as `energy`, is drawn as
    categories in the grid's order). None without a grid or without a finished run."""
    from tapeflow_benchmarks.harness.figures import plt

    keys = sweep.keys
    ok = [r for r in rows if "error" not in r]
    if not keys or not ok:
        return None
    x_key, others = keys[0], keys[1:]
    numeric = all(isinstance(r[x_key], int | float) and not isinstance(r[x_key], bool) for r in ok)
    order = {str(v): i for i, v in enumerate(sweep.grid[x_key])}

    def x_of(r: dict[str, Any]) -> Any:
        return r[x_key] if numeric else str(r[x_key])

    def x_rank(r: dict[str, Any]) -> Any:
        return r[x_key] if numeric else order.get(str(r[x_key]), len(order))
    kernels = list(dict.fromkeys(k.name for k in sweep.kernels))
    measures = (("cycles_total", "total cycles"), ("dram_total", "DRAM bytes"),
                ("energy_onchip_pj", "on-chip energy (pJ)"))
    fig, axes = plt.subplots(
        len(measures), len(kernels), figsize=(4.2 * len(kernels) + 2.5, 3.0 * len(measures)),
        squeeze=False,
    )
    series_keys = ["variant", "unroll", *others]
    for col, kernel in enumerate(kernels):
        mine = [r for r in ok if r["kernel"] == kernel]
        series: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for r in mine:
            series.setdefault(tuple(r[k] for k in series_keys), []).append(r)
        for row, (measure, label) in enumerate(measures):
            ax = axes[row][col]
            for i, (name, points) in enumerate(sorted(series.items(), key=lambda s: str(s[0]))):
                points = sorted(points, key=x_rank)
                text = f"{name[0]}" + (f" x{name[1]}" if name[1] != 1 else "") + "".join(
                    f" {k}={v}" for k, v in zip(others, name[2:], strict=True)
                )
                ax.plot([x_of(r) for r in points], [r[measure] for r in points], marker="o",
                        linestyle=_STYLES.get(name[0], "-"), color=f"C{i % 10}", label=text)
            if row == 0:
                ax.set_title(kernel)
            if row == len(measures) - 1:
                ax.set_xlabel(x_key)
            if col == 0:
                ax.set_ylabel(label)
            values = [r[x_key] for r in mine]
            if numeric and values and min(values) > 0 and max(values) / min(values) >= 16:
                ax.set_xscale("log", base=2)
            ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.suptitle(f"Sweep {sweep.name} ({sizes_note(sweep)})")
    fig.tight_layout()
    return fig


__all__ = [
    "MAX_POINTS", "MODELS", "Sweep", "load_sweep", "run_rows", "sizes_note", "sweep_figure",
    "value_at", "write_sweep",
]
