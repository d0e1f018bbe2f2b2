"""
What a report must record so that its numbers can be traced to the machine and the
software that produced them: the `hardware` record of `tapeflow-sim --json` and of each
run in `tapeflow-bench`'s `results.json`.

The record is the full effective hardware description as nested data (every field of
`targets.hardware.Hardware`, after presets, files and overrides: what `describe`
gives), plus how it was used: the timing model, the variant, the unroll factor
that ran and the one asked for, the energy preset's name, and the versions of the packages that
computed the numbers.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from importlib import metadata

from targets.fields import HARDWARE_FIELDS
from targets.hardware import Hardware, describe

PACKAGES = ("tapeflow", "xdsl", "enzyme-ad", "numpy")
"""The packages whose versions every report records."""


@cache
def versions() -> dict[str, str | None]:
    """Installed version of each of `PACKAGES` (None: not installed)."""
    found: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def hardware_record(
    hardware: Hardware,
    *,
    model: str,
    variant: str | None,
    unroll: int,
    unroll_requested: int | None = None,
    simulated: frozenset[str] = HARDWARE_FIELDS,
) -> dict[str, object]:
    """The `hardware` entry of a report: every field of `hardware` (the preset or
    description's name under `name`), then `model`, `not_simulated` (the fields
    outside `simulated`, the model's `fields`: their values are the preset's and
    no number depends on them), `variant`, `unroll` (the factor that ran),
    `unroll_requested` (the factor asked for; default the same), `energy_preset`
    and `versions`; plain JSON data (lists, not tuples), so that a record read
    back from a file equals the one computed."""
    requested = unroll if unroll_requested is None else unroll_requested
    # The cache's key carries the description's repr beside the machine: fields that
    # compare equal with different types (2 and 2.0, True and 1) are one key of
    # `Hardware`, but print differently in the record.
    text = _record_text(_shown(hardware), hardware, model, variant, unroll, requested, simulated)
    return _copy(_read(text))  # type: ignore[no-any-return]


@lru_cache(maxsize=256)
def _read(text: str) -> dict[str, object]:
    """A record's JSON text read back, once per text (`hardware_record` hands out
    copies: reading the text costs several times more than copying its data)."""
    return json.loads(text)  # type: ignore[no-any-return]


def _copy(value: object) -> object:
    """A copy of JSON data (dicts, lists and atoms), the atoms shared."""
    if type(value) is dict:
        return {key: _copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy(item) for item in value]
    return value


_SHOWN: dict[int, tuple[Hardware, str]] = {}
"""`repr` of each machine `_shown` was asked about, by identity (the machine
kept, so that its identity is not reused)."""


def _shown(hardware: Hardware) -> str:
    """`repr(hardware)`, made once per machine object: a frozen description
    prints the same every time, and printing one costs more than the rest of
    its record (a sweep evaluates one machine many times)."""
    known = _SHOWN.get(id(hardware))
    if known is not None:
        return known[1]
    if len(_SHOWN) >= 256:
        _SHOWN.clear()
    shown = repr(hardware)
    _SHOWN[id(hardware)] = (hardware, shown)
    return shown


@lru_cache(maxsize=256)
def _record_text(
    shown: str,
    hardware: Hardware,
    model: str,
    variant: str | None,
    unroll: int,
    unroll_requested: int,
    simulated: frozenset[str],
) -> str:
    """`hardware_record` as JSON text, made once per machine and use: a sweep
    evaluates one machine many times, and describing it costs more than reading
    the text back (a fresh record each time). `shown` is `repr(hardware)`, part of
    the key only."""
    del shown
    record = describe(hardware)
    record["model"] = model
    record["not_simulated"] = sorted(HARDWARE_FIELDS - simulated)
    record["variant"] = variant
    record["unroll"] = unroll
    record["unroll_requested"] = unroll_requested
    record["energy_preset"] = hardware.energy.name
    record["versions"] = dict(versions())
    return json.dumps(record)


__all__ = ["PACKAGES", "hardware_record", "versions"]
