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

`mlir-opt-19` verifies the gradients sixteen at a time (`--split-input-file`, one
process instead of sixteen, each of which would load MLIR's dialects again): a
batch it accepts whole accepts each of them; a kernel of a batch it rejects is
verified again alone, so that its test fails with its own errors.

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


def upstream_text(module: ModuleOp) -> str:
    """The upstream form of `module` (`tapeflow-to-upstream` on a copy), generic."""
    upstream = module.clone()
    TapeflowToUpstreamPass().apply(make_context(), upstream)
    text = StringIO()
    Printer(stream=text, print_generic_format=True).print_op(upstream)
    return text.getvalue()


def mlir_opt(texts: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """`mlir-opt-19 ARGS` on `texts`, one after the other (`--split-input-file`
    makes each a module of its own)."""
    assert TOOLS is not None
    return subprocess.run(
        [TOOLS.opt, *args],
        input="\n// -----\n".join(texts),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def mlir_opt_verifies(module: ModuleOp) -> None:
    """`mlir-opt-19` with no flags accepts the upstream form of `module`."""
    done = mlir_opt([upstream_text(module)])
    assert done.returncode == 0, done.stderr


BATCH = 16
"""Gradients `mlir-opt-19` verifies in one process."""


Made = Callable[[str, Callable[[str], ModuleOp]], ModuleOp]
"""A gradient by its name, given the session's `differentiated`."""


def _benchmark_module(key: str, differentiated: Callable[[str], ModuleOp]) -> ModuleOp:
    return differentiated(key)


def _other_module(path: str, differentiated: Callable[[str], ModuleOp]) -> ModuleOp:  # noqa: ARG001
    # The file's own path as the stage suites name it: the same module, located
    # alike, is Enzyme's from the suite's memo where a suite made it before.
    return differentiate((ROOT / path).read_text(), str(ROOT / path))


CASES: list[tuple[Made, str]] = [(_benchmark_module, key) for key in sorted(ALL_KERNELS)] + [
    (_other_module, path) for path in OTHER_KERNELS
]
"""Every gradient the two tests below verify, in their order."""

_verdicts: dict[str, bool] = {}
"""Each gradient's batch verdict: True if `mlir-opt-19` accepted its batch whole,
False if it rejected the batch (the gradient is then verified alone)."""


def assert_verified(name: str, differentiated: Callable[[str], ModuleOp]) -> None:
    """`mlir-opt-19` accepts the upstream form of the gradient `name` (a `CASES`
    name): in a batch with the next gradients of `CASES` that have no verdict yet,
    or, where that batch was rejected, alone."""
    if name not in _verdicts:
        at = next(i for i, (_, n) in enumerate(CASES) if n == name)
        batch, texts = [], []
        for make, n in [(m, n) for m, n in CASES[at:] if n not in _verdicts][:BATCH]:
            try:
                texts.append(upstream_text(make(n, differentiated)))
            except Exception:  # noqa: BLE001 - its own test makes it again and fails
                if n == name:
                    raise
                continue
            batch.append(n)
        done = mlir_opt(texts, "--split-input-file")
        for n in batch:
            _verdicts[n] = done.returncode == 0
    if not _verdicts[name]:
        make = next(m for m, n in CASES if n == name)
        mlir_opt_verifies(make(name, differentiated))


@needs_mlir
@pytest.mark.parametrize("key", sorted(ALL_KERNELS))
def test_benchmark_gradients_verify_in_mlir_opt(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    assert_verified(key, differentiated)


@needs_mlir
@pytest.mark.parametrize("path", OTHER_KERNELS)
def test_other_kernels_gradients_verify_in_mlir_opt(
    path: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    assert_verified(path, differentiated)


INVALID = """"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "f"}> ({
    %0 = "arith.constant"() <{value = 1 : i32}> : () -> i64
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()"""
"""A module `mlir-opt-19` rejects: a constant whose value is not of its type."""


@needs_mlir
def test_a_batch_is_rejected_where_any_of_its_modules_is(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    """The batch verdict is every module's, not the last one's: a batch with a
    rejected module first, in the middle or last is rejected, naming the split."""
    good = upstream_text(differentiated("logsum"))
    assert mlir_opt([good, good, good], "--split-input-file").returncode == 0
    for batch in ([INVALID, good, good], [good, INVALID, good], [good, good, INVALID]):
        done = mlir_opt(batch, "--split-input-file")
        assert done.returncode != 0
        assert "within split at" in done.stderr
        assert "failed to verify that all of {value, result} have same type" in done.stderr


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
    key: str,
    differentiated: Callable[[str], ModuleOp],
    enzyme_outputs: Callable[[str], dict[str, np.ndarray]],
) -> None:
    assert TOOLS is not None
    module = differentiated(key)
    given = _inputs(key)
    want = enzyme_outputs(key)  # tapeflow-run's values on the same module and inputs
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
