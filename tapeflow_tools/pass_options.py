"""
Checking the options of a `-p` pipeline before any pass runs, one option at a
time, so that a bad value is reported with the pass and the option it belongs to.

xDSL converts a whole pass spec at once and says "Incompatible types: given
('abc',), expected <class 'int'>" without naming either; and it accepts any
Python integer, so `spad-bytes=2^63` becomes an IR attribute that wraps around to
a negative number, later blamed on a line of the user's file. Here every integer
option of a TapeFlow pass must lie within `INT_OPTION_LIMIT` in magnitude, and a
boolean is not accepted where an integer is expected.
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any, get_type_hints

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec
from xdsl.utils.hints import type_repr

from tapeflow_tools.diagnostics import ToolError

INT_OPTION_LIMIT = 2**32
"""No integer option of ours (bytes of on-chip memory, unroll factors, grid sizes)
means anything near 2^32; a larger value is a typo, and beyond 2^63 it would wrap
around in a 64-bit IR attribute."""


def _options(pass_class: type[ModulePass]) -> dict[str, dataclasses.Field[Any]]:
    return {
        f.name.replace("_", "-"): f
        for f in dataclasses.fields(pass_class)
        if f.init and f.name != "name"
    }


def _shown(values: Any) -> str:
    items = values if isinstance(values, list | tuple) else [values]
    return ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in items) or "(nothing)"


def unknown_pass(name: str, known: list[str]) -> str:
    """The message for `-p` naming a pass that does not exist, with the closest
    known name (ours first among equals) when one is close."""
    close = difflib.get_close_matches(
        name, sorted(known, key=lambda n: not n.startswith("tapeflow-")), n=1
    )
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"-p: unknown pass '{name}'{hint} (tapeflow-opt --help lists them)"


def check_pass_options(pass_class: type[ModulePass], spec: ArgSpec, ours: bool) -> None:
    """Raise a `ToolError` naming the pass and the option for the first option of
    `spec` that `pass_class` does not have or cannot take; for our own passes
    (`ours`), also for an integer outside ±`INT_OPTION_LIMIT`."""
    options = _options(pass_class)
    hints = get_type_hints(pass_class)
    for key, values in spec.parameters.items():
        option = key.replace("_", "-")
        field = options.get(option)
        if field is None:
            known = ", ".join(options) or "none"
            close = difflib.get_close_matches(option, list(options), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ToolError(
                f"-p: pass '{spec.name}' has no option '{option}' (its options: {known}){hint}"
            )
        if hints.get(field.name) is int and any(isinstance(v, bool) for v in values):
            raise ToolError(
                f"-p: pass '{spec.name}', option '{option}' expects an integer, got "
                f"{_shown(values)}"
            )
    try:
        instance = pass_class.from_spec(spec)
    except ValueError as err:
        raise ToolError(_conversion_error(pass_class, spec, hints, err)) from None
    if not ours:
        return
    for option, field in options.items():
        value = getattr(instance, field.name)
        for number in value if isinstance(value, tuple) else (value,):
            if isinstance(number, int) and not isinstance(number, bool):
                if abs(number) > INT_OPTION_LIMIT:
                    raise ToolError(
                        f"-p: pass '{spec.name}', option '{option}' is {number}, out of "
                        "range: integer options of the TapeFlow passes lie within "
                        f"±2^32 ({INT_OPTION_LIMIT})"
                    )


def _conversion_error(
    pass_class: type[ModulePass], spec: ArgSpec, hints: dict[str, Any], err: ValueError
) -> str:
    """Which option xDSL could not convert, found by converting each alone (all
    our options have defaults; a pass with required options gets xDSL's words)."""
    if not pass_class.required_fields():
        for key, values in spec.parameters.items():
            try:
                pass_class.from_spec(ArgSpec(spec.name, {key: values}))
            except ValueError:
                expected = hints.get(key.replace("-", "_"))
                return (
                    f"-p: pass '{spec.name}', option '{key.replace('_', '-')}' expects "
                    f"{type_repr(expected)}, got {_shown(values)}"
                )
    words = str(err).removeprefix(f"{spec.name} ")  # xDSL names the pass itself
    return f"-p: pass '{spec.name}' {words}"


__all__ = ["INT_OPTION_LIMIT", "check_pass_options"]
