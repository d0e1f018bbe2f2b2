"""
The TapeFlow passes preserve the gradient, value for value.

For every kernel at `small` size, scratchpad sizes 64, 512 and 4096 bytes, and
unroll factors 1 and 4: the reference executor runs the caller after each pass and
gets what it gets on the Enzyme gradient (1e-12 relative); `tapeflow-pipeline`
does the same in one pass. The executor models the scratchpad and the DRAM
tape, so a tile streamed to the wrong place, or a missing stream, changes values.

The cases share their common first passes: a worker lowers and checks a kernel
after raise-tape (and unroll, and regions) once and hands every case that
continues from there a copy, so each (kernel, passes so far) is checked once
per worker, not once per case that starts with those passes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from lowering.tapeflow_layers import TapeflowLayersPass
from lowering.tapeflow_pipeline import TapeflowPipelinePass
from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass
from lowering.tapeflow_regions import TapeflowRegionsPass
from lowering.tapeflow_spad_bind import TapeflowSpadBindPass
from lowering.tapeflow_streams import TapeflowStreamsPass
from lowering.tapeflow_unroll import TapeflowUnrollPass
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_dialects import stream
from tapeflow_tools.context import make_context


def assert_same(got: dict[str, np.ndarray], want: dict[str, np.ndarray], label: str) -> None:
    assert set(got) == set(want)
    for name, value in want.items():
        scale = float(np.max(np.abs(value))) if value.size else 0.0
        np.testing.assert_allclose(
            got[name], value, rtol=1e-12, atol=1e-12 * scale, err_msg=f"{label}: {name}"
        )


@cache
def _checked(
    key: str,
    passes: tuple[ModulePass, ...],
    differentiated: Callable[[str], ModuleOp],
    run_caller: Callable[[str, ModuleOp], dict[str, np.ndarray]],
    enzyme_outputs: Callable[[str], dict[str, np.ndarray]],
) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """`key`'s Enzyme gradient after `passes` (not to be changed: cases lower copies)
    and the Enzyme gradient's outputs (`enzyme_outputs`); each pass's result is verified and its
    caller's outputs checked against those when it is first made."""
    if not passes:
        return differentiated(key), enzyme_outputs(key)
    before, reference = _checked(key, passes[:-1], differentiated, run_caller, enzyme_outputs)
    module = before.clone()
    passes[-1].apply(make_context(), module)
    module.verify()
    assert_same(run_caller(key, module), reference, f"{key} after {passes[-1].name}")
    return module, reference


@pytest.mark.parametrize("unroll", [1, 4])
@pytest.mark.parametrize("spad_bytes", [64, 512, 4096])
@pytest.mark.parametrize("key", KERNELS)
def test_each_pass_keeps_the_gradient(
    key: str,
    spad_bytes: int,
    unroll: int,
    differentiated: Callable[[str], ModuleOp],
    run_caller: Callable[[str, ModuleOp], dict[str, np.ndarray]],
    enzyme_outputs: Callable[[str], dict[str, np.ndarray]],
) -> None:
    passes: tuple[ModulePass, ...] = (
        TapeflowRaiseTapePass(),
        *([TapeflowUnrollPass(factor=unroll)] if unroll > 1 else []),
        TapeflowRegionsPass(),
        TapeflowLayersPass(spad_bytes=spad_bytes),
        TapeflowStreamsPass(),
        TapeflowSpadBindPass(),
    )
    _checked(key, passes, differentiated, run_caller, enzyme_outputs)


@pytest.mark.parametrize("key", KERNELS)
def test_pipeline_pass_binds_every_tape_access(
    key: str,
    differentiated: Callable[[str], ModuleOp],
    run_caller: Callable[[str, ModuleOp], dict[str, np.ndarray]],
    enzyme_outputs: Callable[[str], dict[str, np.ndarray]],
) -> None:
    module = differentiated(key)
    reference = enzyme_outputs(key)
    # Every nest streamed (`auto` keeps the small sizes' tapes, whose first REV
    # tile would wait a whole DRAM latency).
    TapeflowPipelinePass(spad_bytes=512, unroll=4, stream="always").apply(make_context(), module)
    module.verify()
    names = {op.name for op in module.walk()}
    assert not {n for n in names if n.split(".")[0] in ("tape", "region")}
    assert {stream.FwdOp.name, stream.RevOp.name, stream.StoreOp.name, stream.LoadOp.name} <= names
    assert_same(run_caller(key, module), reference, f"{key} after tapeflow-pipeline")
