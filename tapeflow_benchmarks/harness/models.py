"""
The timing models the evaluation can run, and the one place where the harness
hands its model to the simulator.

A point is simulated under one timing model (issue: two machine models):
- `cgra`: the pipelined CGRA of `sim/timing.py` (today's model, the default);
- `salam`: the authors' gem5-SALAM machine (100 MHz lockstep datapath, free tape
  bins; docs/research/gem5-salam.md).

The names come from one list, the simulator's registry `sim.models.MODELS` when the
simulator has one; until then only `cgra` exists (the model the simulator has
always run) and `salam` is refused with a message saying it is not built yet.

`bound` is the hook (`harness/runner.py` calls it once per group): it gives the
simulator's `prepare`, `execute` and `evaluate` with the model bound, for each of
them that takes a `model` argument. Until the simulator takes one, every function
runs as it is, and only `DEFAULT` may be asked for.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import partial
from typing import Any

DEFAULT = "cgra"
"""The model a point runs under when none is named (today's simulator)."""

PLANNED = ("cgra", "salam")
"""The models issue 14 defines, in the order reports show them."""


def _registry() -> tuple[str, ...]:
    try:
        from sim.models import MODELS  # type: ignore[import-not-found]
    except ImportError:
        return (DEFAULT,)
    names = tuple(MODELS)
    return tuple(sorted(names, key=lambda n: (PLANNED.index(n) if n in PLANNED else len(PLANNED), n)))


MODELS: tuple[str, ...] = _registry()
"""The models this build can simulate: the one list every option is checked against."""


class UnknownModel(ValueError):
    """A model name not in `MODELS`; the message says what exists."""


def check(names: list[str]) -> list[str]:
    """`names` if every one is in `MODELS`, else `UnknownModel` naming the bad ones."""
    bad = [n for n in names if n not in MODELS]
    if bad:
        pending = [n for n in bad if n in PLANNED]
        other = [n for n in bad if n not in PLANNED]
        parts = []
        if other:
            parts.append(f"unknown model(s) {', '.join(other)}")
        if pending:
            parts.append(
                f"model(s) {', '.join(pending)} not built into this simulator yet "
                "(sim.models has no such entry)"
            )
        raise UnknownModel(f"{'; '.join(parts)}; choose from {', '.join(MODELS)}")
    if not names:
        raise UnknownModel(f"choose at least one model from {', '.join(MODELS)}")
    return list(dict.fromkeys(names))


def bound(model: str, *functions: Callable[..., Any]) -> list[Callable[..., Any]]:
    """`functions` (the simulator's entry points), each with `model=model` bound
    if it takes a `model` argument, else as it is. If none takes one, the
    simulator has a single model, `DEFAULT`, and any other is refused."""
    takes = ["model" in inspect.signature(f).parameters for f in functions]
    if model != DEFAULT and not any(takes):
        raise UnknownModel(
            f"the simulator's {', '.join(f.__name__ for f in functions)} take no timing "
            f"model, so only '{DEFAULT}' can run, not '{model}'"
        )
    return [partial(f, model=model) if t else f for f, t in zip(functions, takes, strict=True)]


__all__ = ["DEFAULT", "MODELS", "PLANNED", "UnknownModel", "bound", "check"]
