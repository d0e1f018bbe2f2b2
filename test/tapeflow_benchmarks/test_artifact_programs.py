"""
The `artifact` preset: the authors' programs (`sfu-arch/gem5-SALAM`, commit `a5e40f4be`,
`benchmarks/AD/<kernel>/hw/<kernel>.c`; docs/research/kernels.md),
checked at every stage of the flow on the authors' machine.

Each kernel's gradient after the real Enzyme (the Enzyme-gradient stage, run by
the reference executor) and after each variant's passes under the `salam` model
(run by the simulator) must equal the autograd reference of its numpy primal
(`Kernel.expected`), computed independently of any MLIR. The unrolled-before-AD
programs also carry the tape the authors' Enzyme kept where Enzyme-MLIR keeps the
same (logsum: one running product per unrolled trip and the eight exponentials,
11,250 values, as their `live_vars.txt` lists).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from sim.models import MODELS
from sim.simulator import prepare, simulate
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.tapeflow_run import run_function
from targets.hardware import configure

ARTIFACT = ("gravity", "logsum", "matdescent", "mttkrp", "nn", "pathfinder", "somier")
"""The kernels of the authors' gem5-SALAM cache sweeps."""

PRESET_OF = {"enzyme": "Enzyme32k", "tapeflow": "Tflow2k"}


@cache
def _differentiated(key: str) -> ModuleOp:
    ctx = make_context()
    module = parse_kernel(ctx, key, "artifact")
    TapeflowEnzymePass().apply(ctx, module)
    module.verify()
    return module


@cache
def _prepared(key: str, variant: str) -> tuple[ModuleOp, int]:
    """The Enzyme gradient after `variant`'s passes for the authors' machine (not to
    be changed: tests simulate copies) and its tape's bytes, as `prepare` lays them out."""
    module = _differentiated(key).clone()
    hardware = MODELS["salam"].hardware(configure(PRESET_OF[variant]))
    recompute = KERNELS[key].recomputes("artifact", variant)
    tape_bytes = prepare(
        make_context(), module, variant, hardware, model="salam", recompute=recompute
    )
    return module, tape_bytes


def check(key: str, outputs: dict[str, np.ndarray]) -> None:
    kernel = KERNELS[key]
    expected = kernel.expected("artifact", kernel.inputs("artifact"))
    for name, want in expected.items():
        scale = max(1.0, float(np.max(np.abs(want))))
        np.testing.assert_allclose(
            outputs[name], want, rtol=1e-9, atol=1e-9 * scale, err_msg=f"{key} {name}"
        )


@pytest.mark.parametrize("key", ARTIFACT)
def test_the_enzyme_gradient_equals_the_reference(key: str) -> None:
    inputs = KERNELS[key].inputs("artifact")
    outputs = run_function(
        _differentiated(key).clone(), f"{key}_grad", {f"arg{i}": a for i, a in enumerate(inputs)}
    )
    check(key, outputs)


@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
@pytest.mark.parametrize("key", ARTIFACT)
def test_each_variant_on_the_authors_machine_equals_the_reference(key: str, variant: str) -> None:
    prepared, tape_bytes = _prepared(key, variant)
    module = prepared.clone()
    hardware = MODELS["salam"].hardware(configure(PRESET_OF[variant]))
    args = caller_arguments(module, key, "artifact")
    result = simulate(module, f"{key}_grad", args, hardware, tape_bytes, model="salam")
    check(key, result.outputs)


def test_logsum_keeps_the_tape_the_authors_enzyme_kept() -> None:
    module = _differentiated("logsum").clone()
    hardware = MODELS["salam"].hardware(configure("Tflow2k"))
    tape_bytes = prepare(make_context(), module, "tapeflow", hardware, model="salam")
    # 1,250 running products (one per unrolled trip) + 10,000 exponentials.
    assert tape_bytes == (1250 + 10000) * 8


def test_matdescent_keeps_the_authors_zero_start() -> None:
    # Their sum starts at 0 and is multiplied: the result and gradient are 0.
    kernel = KERNELS["matdescent"]
    expected = kernel.expected("artifact", kernel.inputs("artifact"))
    assert expected["result0"] == 0.0
    assert not np.any(expected["arg2"])


@pytest.mark.parametrize(
    ("key", "enzyme_values", "tapeflow_values"),
    [
        # Their Enzyme re-loads M and out[i] in the reverse sweep and caches only the
        # running product's 400 values (`benchmarks/AD/matd/hw/live_vars.txt` at
        # gem5-SALAM `a5e40f4be`); their TapeFlow run tags the re-loads as bins, so
        # its tape keeps M's
        # 160,000 values and the second loop's 800 (the product and out[i] + out[i]).
        ("matdescent", 400, 400 * 400 + 800),
        # Their Enzyme caches the running product, one per pair, and rebuilds the
        # factor from two re-loads of x (section 2.4): 32,640 pairs.
        ("gravity", 32640, 2 * 32640),
        # Their Enzyme caches the wall value of each cell and re-loads src for the
        # minimum (section 7.4), and their TapeFlow run reads those re-loads from
        # memory too: 99 rows of 99 cells, but for the last row's three cells left
        # over from the unrolling, which sit at the function's top level, where the
        # reverse sweep reads them without a cache.
        ("pathfinder", 99 * 99 - 3, 99 * 99 - 3),
    ],
)
def test_the_baseline_caches_what_the_authors_enzyme_cached(
    key: str, enzyme_values: int, tapeflow_values: int
) -> None:
    sizes = {variant: _prepared(key, variant)[1] for variant in ("enzyme", "tapeflow")}
    assert sizes == {"enzyme": enzyme_values * 8, "tapeflow": tapeflow_values * 8}
