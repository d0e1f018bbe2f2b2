"""
The TapeFlow dialects. Each module is one dialect and imports nothing from the
passes (`lowering`) or the simulator (`sim`), so other xDSL tools can load them
alone.
"""

from collections.abc import Callable
from functools import partial
from importlib import import_module

from xdsl.ir import Dialect

_DIALECTS = {
    "enzyme": "Enzyme",
    "tape": "Tape",
    "region": "Region",
    "layer": "Layer",
    "stream": "Stream",
    "cgra": "Cgra",
}
"""Dialect name -> the `Dialect` object's name in `tapeflow_dialects.<name>`."""


def _load(name: str) -> Dialect:
    return getattr(import_module(f"tapeflow_dialects.{name}"), _DIALECTS[name])


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Factories for every TapeFlow dialect, keyed by name (imported lazily)."""
    return {name: partial(_load, name) for name in _DIALECTS}
