"""Shared by the tests: each kernel's module after the real Enzyme, computed once."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from benchmarks.kernels import KERNELS
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.run import run_function

PRESET = "small"


@cache
def _differentiated(key: str) -> ModuleOp:
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

    def run(key: str, module: ModuleOp) -> dict[str, np.ndarray]:
        inputs = KERNELS[key].inputs(PRESET)
        return run_function(module, f"{key}_grad", {f"arg{i}": a for i, a in enumerate(inputs)})

    return run
