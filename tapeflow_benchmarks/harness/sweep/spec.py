"""
Reading a sweep file: YAML parsed and its shape and types checked (pydantic),
short forms spelled out. What the names in it mean is checked by
`sweep/load.py`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from lowering.pipelines import VARIANTS
from lowering.tapeflow_unroll import MAX_UNROLL
from sim.models import DEFAULT_MODEL
from tapeflow_tools.diagnostics import ToolError
from targets.field_domains import DOMAINS

_SPAD = DOMAINS["scratchpad.size_bytes"]


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
        addresses: str | dict[str, int | str] | None = None

    class VariantEntry(Strict):
        variant: Literal[VARIANTS]  # type: ignore[valid-type]
        unroll: Annotated[int, Field(ge=1, le=MAX_UNROLL)] = 1
        spad: Annotated[int, Field(ge=int(_SPAD.low), le=int(_SPAD.high))] | None = None
        preset: str | None = None

    class SweepFile(Strict):
        name: str | None = None
        model: str = DEFAULT_MODEL
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


def read_spec(path: Path) -> Any:
    """The sweep file's content, validated for shape and types."""
    from pydantic import ValidationError

    from targets.structured_text import StructuredTextError, load_path

    try:
        data = load_path(path)  # YAML 1.2 (JSON included); a key given twice is refused
    except OSError as err:
        raise ToolError(f"--sweep {path}: cannot read it: {err.strerror}") from None
    except UnicodeDecodeError:
        raise ToolError(f"--sweep {path}: is not a UTF-8 text file") from None
    except StructuredTextError as err:
        raise ToolError(str(err)) from None
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
                problems.append(
                    f"{loc}: {e['msg'][0].lower()}{e['msg'][1:]} (got {_shown(e.get('input'))})"
                )
        raise ToolError(f"{path}: " + "; ".join(problems)) from None


def _shown(value: Any) -> str:
    try:
        return json.dumps(value)[:60]
    except (TypeError, ValueError):
        return repr(value)[:60]


__all__ = ["read_spec"]
