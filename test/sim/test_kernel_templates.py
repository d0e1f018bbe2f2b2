"""
Kernel loops alike as the code generator sees them share their generated code
(`sim.kernel_compiler._Template`): a loop of a kept shape is made from the kept
source, its constants made anew on its own ops. What a shared loop computes,
traces and times must be what the loop generated afresh gives; a loop that
differs in anything the generator reads (an opcode, a type, a constant it reads
from outside) must not be given another's code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import sim.kernel_compiler as kernel_compiler
from sim.executor import Executor
from sim.models import MODELS
from sim.simulator import prepare, simulate
from sim.timing import TimingRecorder
from sim.trace import MemoryTrace
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser, verify_located
from tapeflow_tools.tapeflow_run import bind_arguments
from targets.hardware import configure


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """An empty template store for the test; yields the count of loops made
    from a template (one entry per such loop)."""
    monkeypatch.setattr(kernel_compiler, "_TEMPLATES", kernel_compiler.OrderedDict())
    made: list[int] = []
    step = kernel_compiler._Template.step

    def counted(self: Any, *args: Any) -> Any:
        made.append(1)
        return step(self, *args)

    monkeypatch.setattr(kernel_compiler._Template, "step", counted)
    yield made


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _simulated(module: ModuleOp, key: str, model: str, tape_bytes: int) -> tuple[Any, ...]:
    hardware = MODELS[model].hardware(configure("Enzyme32k"))
    function = next(
        f for f in module.ops if getattr(f, "sym_name", None) and f.sym_name.data == f"{key}_grad"
    )
    inputs = KERNELS[key].inputs("small")
    args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
    run = simulate(module, f"{key}_grad", args, hardware, tape_bytes, model=model)
    assert run.trace is not None
    report = {k: v for k, v in run.report.items() if k != "simulator"}
    return run.outputs, run.trace.arrays(), report


@pytest.mark.parametrize("key", ["pathfinder", "logsum"])
def test_a_module_lowered_per_model_shares_its_loops_and_runs_as_unshared(
    key: str, differentiated: Callable[[str], ModuleOp], shared: list[int]
) -> None:
    """The Enzyme variant lowered for `cgra` and for `salam` (whose kernels are
    sequential: other places and cycles, the same ops): the second model's run
    takes the first's code and gives the outputs, trace and report it gives with
    every loop generated afresh."""
    lowered = {}
    for model in ("cgra", "salam"):
        module = differentiated(key)
        hardware = MODELS[model].hardware(configure("Enzyme32k"))
        lowered[model] = module, prepare(make_context(), module, "enzyme", hardware, model=model)
    fresh = {}
    with pytest.MonkeyPatch.context() as unshared:
        unshared.setattr(kernel_compiler, "_TEMPLATES_KEPT", 0)  # none kept
        for model, (module, tape_bytes) in lowered.items():
            fresh[model] = _simulated(module, key, model, tape_bytes)
    assert not shared  # each loop generated afresh
    hits = []
    for model, (module, tape_bytes) in lowered.items():
        outputs, trace, report = _simulated(module, key, model, tape_bytes)
        hits.append(len(shared))
        want_outputs, want_trace, want_report = fresh[model]
        assert set(outputs) == set(want_outputs)
        for name in outputs:
            assert _same_bits(np.asarray(outputs[name]), np.asarray(want_outputs[name])), name
        for mine, theirs in zip(trace, want_trace, strict=True):
            assert _same_bits(mine, theirs)
        assert report == want_report
    assert hits[1] > hits[0]  # the salam run made loops from templates


LOOP = """
func.func @f(%m: memref<8xf64>, %lb: index, %ub: index) -> f64 {
  %c1 = arith.constant ONE : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %lb to %ub step %c1 iter_args(%a = %z) -> (f64) {
    %r = cgra.kernel 0 rows 4 cols 4 ii 4 -> f64 {
      %j = cgra.op "arith.subi"(%i, %c1) at 0, 0 cycle 0 : (index, index) -> index
      %v = cgra.load %m[%j] cache at 0, 1 cycle 1 : memref<8xf64> -> f64
      %b = cgra.op "OPCODE"(%a, %v) at 0, 2 cycle CYCLE : (f64, f64) -> f64
      cgra.store %b, %m[%i] cache at 0, 3 cycle 3 : f64, memref<8xf64>
      cgra.yield %b : f64
    }
    scf.yield %r : f64
  }
  func.return %s : f64
}
"""


def _run(one: int = 1, opcode: str = "arith.addf", cycle: int = 3) -> tuple[Any, ...]:
    """@f of LOOP (its outside constant `one`, its second op `opcode` issued at
    `cycle`) run with trace and timing: its result, trace, array and windows."""
    text = LOOP.replace("ONE", str(one)).replace("OPCODE", opcode).replace("CYCLE", str(cycle))
    module = LocatingParser(make_context(), text, "loop.mlir").parse_module()
    verify_located(module)
    trace = MemoryTrace()
    timing = TimingRecorder(trace, configure("Tflow2k"))
    m = np.arange(1.0, 9.0)
    result = Executor(module, trace, timing).run("f", [m, 2, 8])
    windows = [(w.kind, w.start, w.end, w.compute, dict(w.fu)) for w in timing.windows]
    return result, [a.tolist() for a in trace.arrays()], m.tolist(), windows


@pytest.mark.parametrize(
    "change",
    [{"one": 2}, {"opcode": "arith.mulf"}, {"opcode": "arith.subf"}],
    ids=["outside constant", "opcode mulf", "opcode subf"],
)
def test_a_changed_loop_misses(change: dict[str, Any], shared: list[int]) -> None:
    """A loop that differs in what the generator reads gets its own code: run
    after the original (whose template is kept), it gives what it gives alone,
    and that differs from the original's."""
    original = _run()
    assert len(kernel_compiler._TEMPLATES) == 1
    changed = _run(**change)
    assert not shared
    assert len(kernel_compiler._TEMPLATES) == 2
    kernel_compiler._TEMPLATES.clear()
    assert changed == _run(**change)
    assert changed[0] != original[0]


def test_a_loop_placed_elsewhere_hits_and_runs_as_generated(shared: list[int]) -> None:
    """Where and when an op issues is not read by the generated code: a loop
    that differs in it alone is made from the kept template, and runs as the
    loop generated afresh runs (the windows' costs come from its own ops)."""
    _run(cycle=3)
    moved = _run(cycle=5)
    assert shared == [1]
    kernel_compiler._TEMPLATES.clear()
    assert moved == _run(cycle=5)
