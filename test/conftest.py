"""
Shared by the tests: each kernel's module after the real Enzyme, computed once.

The benchmark kernels, Enzyme and the tools are imported inside the fixtures, not
here, so that a test of the dialects or the passes alone needs none of them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import numpy as np
    from xdsl.dialects.builtin import ModuleOp

PRESET = "small"

try:  # the property tests' budgets: `pytest --hypothesis-profile=campaign` for the long run
    from hypothesis import settings

    settings.register_profile("default", max_examples=8, deadline=None, derandomize=True)
    settings.register_profile("campaign", max_examples=1000, deadline=None)
    settings.load_profile("default")
except ImportError:  # hypothesis is a test dependency; without it those tests are not collected
    pass


def _environment_stamp() -> tuple[tuple[str, int], ...]:
    """What the installed `xdsl.universe` entry points depend on: the import path's
    folders and their modification times (installing or removing a distribution
    adds or removes a `*.dist-info` folder in one of them)."""
    stamp = []
    for entry in sys.path:
        try:
            stamp.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            stamp.append((entry, -1))
    return tuple(stamp)


def _memoize_multiverse() -> None:
    """`Universe.get_multiverse()` (every xDSL and TapeFlow dialect and pass, found
    through the installed entry points) once per environment instead of at every
    call: `make_context` and every in-process `tapeflow-opt` or `xdsl-opt` call
    scan every installed distribution's metadata for it (some 5 ms each, thousands
    of times in a suite). Each call returns a fresh `Universe` of the same
    entries; a changed import path or installation makes it scan again."""
    from xdsl.universe import Universe

    scan = Universe.get_multiverse
    memo: dict[tuple[tuple[str, int], ...], Universe] = {}

    def get_multiverse() -> Universe:
        key = _environment_stamp()
        if key not in memo:
            memo.clear()
            memo[key] = scan()
        found = memo[key]
        return Universe(
            all_dialects=dict(found.all_dialects),
            all_passes=dict(found.all_passes),
            all_targets=dict(found.all_targets),
        )

    Universe.get_multiverse = staticmethod(get_multiverse)  # type: ignore[method-assign]


_memoize_multiverse()


@pytest.fixture(scope="session", autouse=True)
def _own_cache_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The tools' default caches (`tapeflow-bench`'s results under
    `$XDG_CACHE_HOME`) in this session's own folder, for the tests and the tools
    they start: parallel workers (`pytest -n auto`) and the user's cache stay apart."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache-home"))


@cache
def _differentiated(key: str) -> ModuleOp:
    from lowering.tapeflow_enzyme import TapeflowEnzymePass
    from tapeflow_benchmarks.kernels import ALL_KERNELS as KERNELS
    from tapeflow_tools.context import make_context
    from tapeflow_tools.diagnostics import LocatingParser

    ctx = make_context()
    module = LocatingParser(ctx, KERNELS[key].mlir(PRESET), f"{key}.mlir").parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    module.verify()
    return module


@pytest.fixture(scope="session")
def differentiated() -> Callable[[str], ModuleOp]:
    """`differentiated(key)`: a fresh copy of the kernel's Enzyme gradient module."""
    return lambda key: _differentiated(key).clone()


@pytest.fixture(scope="session")
def run_caller() -> Callable[[str, ModuleOp], dict[str, np.ndarray]]:
    """`run_caller(key, module)`: the caller's outputs on the kernel's inputs."""
    from tapeflow_benchmarks.kernels import ALL_KERNELS as KERNELS
    from tapeflow_tools.tapeflow_run import run_function

    def run(key: str, module: ModuleOp) -> dict[str, np.ndarray]:
        inputs = KERNELS[key].inputs(PRESET)
        return run_function(module, f"{key}_grad", {f"arg{i}": a for i, a in enumerate(inputs)})

    return run
