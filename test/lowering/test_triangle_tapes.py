"""
`tapeflow-streams` reserves the DRAM tape of a triangular region at the size of
its entries where the triangle's extents are functions of its outer indices alone
(PolyBench's covariance: `j >= i` over constant bounds), rather than growing a
slab tape page by page. The size is checked against the triangle's entries
counted here by enumeration, and against what the FWD streams push in a
simulated run, whose values stay the Enzyme stage's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from stage_checks import kernel_enzyme_outputs, same_bits
from xdsl.dialects.builtin import ModuleOp

from sim.simulator import evaluate, execute, prepare
from tapeflow_benchmarks.common import caller_arguments
from tapeflow_benchmarks.kernels import NEST_KERNELS
from tapeflow_dialects import stream
from tapeflow_tools.context import make_context
from targets.hardware import PRESETS

M, N = 4, 5
"""covariance's `small` sizes: M columns, N samples."""


def test_covariance_reserves_its_triangle_and_pushes_exactly_it(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    kernel = NEST_KERNELS["covariance"]
    assert kernel.sizes["small"] == {"M": M, "N": N}
    # The last nest caches two products' operands per (i, j >= i, k).
    entries = sum(1 for i in range(M) for j in range(i, M) for k in range(N)) * 2
    module = differentiated("covariance")
    hardware = PRESETS["Tflow32k"]
    hardware = replace(hardware, mapping=replace(hardware.mapping, stream_by_cost=False))
    tape_bytes = prepare(make_context(), module, "tapeflow", hardware)
    allocs = [op for op in module.walk() if isinstance(op, stream.AllocOp)]
    assert [op.slab_bytes for op in allocs] == [None]
    assert allocs[0].bytes is not None and allocs[0].bytes.value.data == entries * 8
    args = caller_arguments(module, "covariance", "small")
    execution = execute(module, "covariance_grad", args, hardware, tape_bytes, variant="tapeflow")
    report = evaluate(execution)
    assert report["streams"]["write_bytes"] == entries * 8
    assert report["slabs"] == 0
    problem = same_bits(execution.outputs, kernel_enzyme_outputs(kernel, "small"))
    assert problem is None, problem
