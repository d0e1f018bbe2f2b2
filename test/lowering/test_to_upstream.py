"""
`tapeflow-to-upstream` against the real MLIR (MLIR 19's mlir-opt and
mlir-cpu-runner, Debian's `mlir-19-tools`):

- the gradient of every kernel the project holds (the paper's nine and the extra
  ones, the hand-written kernels of test/lowering/kernels, the front end's, the
  cache kinds', the property campaign's find) is verified by `mlir-opt-19` with no
  flags, in generic form;
- the paper's nine, lowered to LLVM by MLIR's standard pipeline and run natively,
  give every value `tapeflow-run` gives (the Enzyme stage, and the tape stage and
  the Enzyme baseline of one kernel);
- examples/upstream/run_native.py does it for one kernel.

Where the tools are missing every test here is skipped, saying how to install them.
Native code may contract `a*b + c` into one fused multiply-add (Enzyme marks its
adjoint arithmetic `fastmath<fast>`) and takes `exp`/`log` from libm, so values
are compared to 1e-12 of their array's largest magnitude (`native_mlir.AGREEMENT`:
a few units in the last place), not bit for bit.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_mark_tape_buffers import TapeflowMarkTapeBuffersPass
from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass
from lowering.tapeflow_to_upstream import TapeflowToUpstreamPass
from tapeflow_benchmarks.kernels import ALL_KERNELS, KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.native_mlir import (
    AGREEMENT,
    INSTALL_HINT,
    difference,
    find_mlir_tools,
    native_module,
    run_native,
)
from tapeflow_tools.tapeflow_run import run_function

ROOT = Path(__file__).parents[2]
TOOLS = find_mlir_tools()
needs_mlir = pytest.mark.skipif(TOOLS is None, reason=INSTALL_HINT)

OTHER_KERNELS = sorted(
    str(p.relative_to(ROOT))
    for pattern in (
        "test/lowering/kernels/*.mlir",
        "test/tapeflow_tools/frontend_kernels/*.mlir",
        "test/lowering/inputs/caches/*.mlir",
        "test/lowering/inputs/found/*.mlir",
        "test/lowering/inputs/linear.mlir",
    )
    for p in ROOT.glob(pattern)
)
"""Kernels of the project written after others' (Enzyme's tests, PolyBench,
Polygeist's output; sources in each file's header), each with its enzyme.autodiff."""


def differentiate(text: str, name: str) -> ModuleOp:
    ctx = make_context()
    module = LocatingParser(ctx, text, name).parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    return module


def mlir_opt_verifies(module: ModuleOp) -> None:
    """`mlir-opt-19` with no flags accepts the upstream form of `module`."""
    assert TOOLS is not None
    upstream = module.clone()
    TapeflowToUpstreamPass().apply(make_context(), upstream)
    text = StringIO()
    Printer(stream=text, print_generic_format=True).print_op(upstream)
    done = subprocess.run(
        [TOOLS.opt], input=text.getvalue(), capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr


@needs_mlir
@pytest.mark.parametrize("key", sorted(ALL_KERNELS))
def test_benchmark_gradients_verify_in_mlir_opt(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    mlir_opt_verifies(differentiated(key))


@needs_mlir
@pytest.mark.parametrize("path", OTHER_KERNELS)
def test_other_kernels_gradients_verify_in_mlir_opt(path: str) -> None:
    mlir_opt_verifies(differentiate((ROOT / path).read_text(), path))


def assert_same_values(got: dict[str, np.ndarray], want: dict[str, np.ndarray], label: str) -> None:
    assert sorted(got) == sorted(want), label
    for key, value in want.items():
        assert difference(got[key], value) <= AGREEMENT, f"{label}: {key}: {got[key]} != {value}"


def _inputs(key: str) -> dict[str, np.ndarray]:
    return {f"arg{i}": v for i, v in enumerate(KERNELS[key].inputs("small"))}


def _reference(
    module: ModuleOp, caller: str, given: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    return run_function(module, caller, {k: np.array(v, copy=True) for k, v in given.items()})


@needs_mlir
@pytest.mark.parametrize("key", sorted(KERNELS))
def test_paper_kernel_gradient_runs_natively_with_tapeflow_runs_values(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    assert TOOLS is not None
    module = differentiated(key)
    given = _inputs(key)
    want = _reference(module, f"{key}_grad", given)
    got = run_native(module, f"{key}_grad", given, TOOLS)
    assert_same_values(got, want, f"{key} natively")
    # and the values are the gradient's, not only the same as the executor's
    expected = KERNELS[key].expected("small", list(given.values()))
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-9, atol=1e-9, err_msg=f"{key}: {name}")


@needs_mlir
@pytest.mark.parametrize("stage", ["tape", "baseline"])
def test_tape_stage_and_baseline_run_natively(
    stage: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    assert TOOLS is not None
    key = "mttkrp"
    module = differentiated(key)
    (TapeflowRaiseTapePass() if stage == "tape" else TapeflowMarkTapeBuffersPass()).apply(
        make_context(), module
    )
    given = _inputs(key)
    assert_same_values(
        run_native(module, f"{key}_grad", given, TOOLS),
        _reference(module, f"{key}_grad", given),
        f"{key} at the {stage} stage natively",
    )


def test_the_native_harness_is_upstream_mlir(differentiated: Callable[[str], ModuleOp]) -> None:
    """What run_native hands mlir-opt holds no dialect but MLIR's (checked without
    the tools: the module text itself)."""
    module = differentiated("logsum")
    text = native_module(module, "logsum_grad", _inputs("logsum"))
    for foreign in ("enzyme", "tapeflow.", '"tape.'):
        assert foreign not in text
    assert '"memref.global"' in text and 'sym_name = "main"' in text


@needs_mlir
def test_the_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "upstream" / "run_native.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every value agrees" in done.stdout
