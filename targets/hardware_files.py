"""
The hardware described in files and on the command line.

A description is nested data shaped like `targets.hardware.Hardware`, the same
shape `describe` writes into every report:

    {"dram": {"latency_cycles": 321}, "cache": {"size_bytes": 4096}}

A file (`--hw FILE`) may give any subset of it: a `.json` file is read as JSON,
any other as YAML 1.2, which includes every JSON document
(`targets.structured_text`: `1e2` is a number, tabs may indent JSON, a key given
twice is refused with both places). A `--set key.path=value` gives one field (the
value is read as YAML 1.2: `4096`, `2.5`, `1e2`, `true`, `cacti45`). They are layered over a preset
in the order given, later layers winning. Two conveniences, as the command-line options have them:

- `energy` may be the name of an energy preset (`paper`, `cacti45`) instead of the
  full table;
- a layer that changes `cache.size_bytes` but not `cache.assoc` gives the cache
  the associativity of the paper's Table III for that size.

Keys are checked against the description (an unknown key is an error naming it and
the keys allowed there), values by type with pydantic (strictly: `"321"` is not
an integer), NaN and infinities refused, and the result by `Hardware.validate`
(each field within its domain, `targets.field_domains`). PyYAML reads the files and
pydantic checks them: both are well-kept libraries, and neither is needed until a
description is read.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from targets.energy import ENERGY_PRESETS
from targets.field_domains import non_finite
from targets.hardware import (
    NOT_IN_SALAM,
    Hardware,
    HardwareError,
    associativity_for,
    describe,
)


class HardwareDescriptionError(HardwareError):
    """A hardware file or `--set` that does not describe hardware; says where."""


_NEEDS = "hardware descriptions need PyYAML and pydantic: pip install 'tapeflow[hw]'"


def _yaml() -> Any:
    """`targets.structured_text` (YAML 1.2 and JSON), which needs PyYAML."""
    try:
        from targets import structured_text
    except ImportError:
        raise HardwareDescriptionError(_NEEDS) from None
    return structured_text


def load_file(path: str | Path) -> dict[str, Any]:
    """The nested description in a YAML or JSON file."""
    text_formats = _yaml()
    try:
        data = text_formats.load_path(path)
    except OSError as err:
        raise HardwareDescriptionError(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise HardwareDescriptionError(f"{path} is not a UTF-8 text file") from None
    except text_formats.StructuredTextError as err:
        raise HardwareDescriptionError(str(err)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise HardwareDescriptionError(
            f"{path}: a hardware description is a mapping of sections "
            f"(cache, dram, ...), not a {type(data).__name__}"
        )
    return data


def parse_assignment(text: str) -> dict[str, Any]:
    """`key.path=value` as a one-field description."""
    key, sep, value = text.partition("=")
    parts = key.strip().split(".")
    if not sep or not all(parts):
        raise HardwareDescriptionError(
            f"--set '{text}': expected key.path=value, for example dram.latency_cycles=321"
        )
    parsed = _yaml().load_scalar(value) if value.strip() else None
    if parsed is None:
        raise HardwareDescriptionError(f"--set '{text}': no value after '='")
    nested: dict[str, Any] = {parts[-1]: parsed}
    for part in reversed(parts[:-1]):
        nested = {part: nested}
    return nested


def _merge(into: dict[str, Any], layer: Mapping[str, Any], path: list[str], source: str) -> None:
    for key, value in layer.items():
        dotted = ".".join([*path, str(key)])
        if key not in into:
            known = ", ".join(sorted(into))
            why = NOT_IN_SALAM.get(str(key)) if path == ["datapath"] else None
            raise HardwareDescriptionError(
                f"{source}: unknown hardware key '{dotted}' (known here: {known})"
                + (f": the authors' gem5-SALAM datapath has {why}" if why else "")
            )
        if key == "energy" and not path and isinstance(value, str):
            if value not in ENERGY_PRESETS:
                raise HardwareDescriptionError(
                    f"{source}: energy: unknown energy preset '{value}' "
                    f"(choose from {', '.join(ENERGY_PRESETS)})"
                )
            into[key] = describe(ENERGY_PRESETS[value])  # type: ignore[arg-type]
        elif isinstance(into[key], dict):
            if not isinstance(value, Mapping):
                raise HardwareDescriptionError(
                    f"{source}: '{dotted}' is a section ({', '.join(sorted(into[key]))}), "
                    f"not a single value"
                )
            _merge(into[key], value, [*path, str(key)], source)
        else:
            if isinstance(value, Mapping):
                raise HardwareDescriptionError(f"{source}: '{dotted}' is a value, not a section")
            whole = isinstance(value, float) and value.is_integer()
            if whole and isinstance(into[key], int) and not isinstance(into[key], bool):
                value = int(value)  # JSON has one number type: 1e2 is the integer 100
            into[key] = value


def apply(
    hardware: Hardware,
    layer: Mapping[str, Any],
    source: str,
    ways: Callable[[int], int] = associativity_for,
) -> Hardware:
    """`hardware` with the fields `layer` gives changed; `source` names the layer in
    messages (a file name, or `--set key=value`). A cache size given without its
    ways takes `ways(size)`: the machine's rule (Table III's by default; a timing
    model's `ways` for the machine it simulates)."""
    try:
        from pydantic import TypeAdapter, ValidationError
    except ImportError:
        raise HardwareDescriptionError(_NEEDS) from None

    merged = copy.deepcopy(describe(hardware))
    _merge(merged, layer, [], source)  # type: ignore[arg-type]
    infinite = non_finite(merged)
    if infinite:
        raise HardwareDescriptionError(f"{source}: {infinite}")
    cache_layer = layer.get("cache")
    if (
        isinstance(cache_layer, Mapping)
        and "size_bytes" in cache_layer
        and "assoc" not in cache_layer
    ):
        size = merged["cache"]["size_bytes"]  # type: ignore[index]
        if isinstance(size, int) and size > 0:
            merged["cache"]["assoc"] = ways(size)  # type: ignore[index]
    try:
        result = TypeAdapter(Hardware).validate_json(json.dumps(merged), strict=True)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg'].lower()} "
            f"(got {json.dumps(_at(merged, e['loc']))})"
            for e in err.errors()
        )
        raise HardwareDescriptionError(f"{source}: {problems}") from None
    except ValueError as err:  # a value JSON cannot hold (nan, inf)
        raise HardwareDescriptionError(f"{source}: {err}") from None
    try:
        result.validate()
    except HardwareError as err:
        raise HardwareDescriptionError(f"{source}: {err}") from None
    return result


def _at(data: Any, loc: Sequence[Any]) -> Any:
    for key in loc:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data
