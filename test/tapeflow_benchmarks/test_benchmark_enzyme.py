"""
The real Enzyme-MLIR accepts every benchmark kernel, at both presets.

This is the contract with the front end of the flow: each module must go through
Enzyme's gradient pipeline (the one `tapeflow-enzyme` runs by default) and come out
with the `diffe<key>` gradient function.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from tapeflow_benchmarks.kernels import KERNELS, PRESETS

PIPELINE = "enzyme,canonicalize,remove-unnecessary-enzyme-ops,canonicalize,enzyme-simplify-math,cse"


@pytest.fixture(scope="session")
def enzyme_call() -> ModuleType:
    """Enzyme's pass runner; importing it maps a ~0.5 GB library, so only once."""
    from enzyme_ad.jax import enzyme_call

    return enzyme_call


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("key", KERNELS)
def test_enzyme_differentiates_the_kernel(enzyme_call: ModuleType, key: str, preset: str) -> None:
    text = KERNELS[key].mlir(preset)
    try:
        _, result = enzyme_call.run_pass_pipeline([f"{key}_grad"], text, PIPELINE)
    except ValueError as err:
        pytest.fail(f"Enzyme rejected {key} ({preset}): {err}")
    assert f"func.func private @diffe{key}" in result
