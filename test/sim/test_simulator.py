"""
The simulator: values equal the reference executor's in every variant, the
tape traffic under TapeFlow is the tape written once and read once, the
scratchpad never holds more than its capacity, and hand-computed timing cases.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp

from sim.models import MODELS, model_machine
from sim.simulator import (
    Execution,
    SimulationError,
    evaluate,
    execute,
    plain_copy,
    prepare,
    replay_caches,
    simulate,
)
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_dialects import tape
from tapeflow_tools import tapeflow_sim
from tapeflow_tools.arguments import check_function
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import bind_arguments
from targets.hardware import configure

PRESET_OF = {"enzyme": "Enzyme32k", "aos": "Enzyme32k", "tapeflow": "Tflow2k"}


def run_variant(key: str, module: ModuleOp, variant: str, **overrides: int):  # type: ignore[no-untyped-def]
    hardware = configure(PRESET_OF[variant], **overrides)
    # Every nest streamed (the paper's Pass 2), so that the tape's traffic is the
    # streams' alone; the cost model keeps some on the 2 KB cache (test_stream_cost).
    hardware = replace(hardware, mapping=replace(hardware.mapping, stream_by_cost=False))
    tape_bytes = prepare(make_context(), module, variant, hardware)
    function = next(
        f for f in module.ops if getattr(f, "sym_name", None) and f.sym_name.data == f"{key}_grad"
    )
    inputs = KERNELS[key].inputs("small")
    args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
    return simulate(module, f"{key}_grad", args, hardware, tape_bytes)


@pytest.mark.parametrize("variant", ["enzyme", "aos", "tapeflow"])
@pytest.mark.parametrize("key", KERNELS)
def test_outputs_equal_the_reference_executor(
    key: str,
    variant: str,
    differentiated: Callable[[str], ModuleOp],
    enzyme_outputs: Callable[[str], dict[str, np.ndarray]],
) -> None:
    reference = enzyme_outputs(key)
    result = run_variant(key, differentiated(key), variant)
    assert set(result.outputs) == set(reference)
    for name, value in reference.items():
        np.testing.assert_array_equal(
            result.outputs[name], value, err_msg=f"{key} {variant} {name}"
        )
    report = result.report
    assert report["cycles"]["total"] == report["cycles"]["fwd"] + report["cycles"]["rev"] > 0
    assert (
        report["dram_bytes"]["total"]
        == report["dram_bytes"]["read"] + report["dram_bytes"]["write"]
    )
    # Every access of the trace belongs to exactly one timing window of one phase.
    cache = report["cache"]
    assert cache["fwd"]["hits"] + cache["rev"]["hits"] == cache["hits"]
    assert cache["fwd"]["misses"] + cache["rev"]["misses"] == cache["misses"]
    assert (
        0
        <= report["cycles"]["memory_stall"] + report["cycles"]["stream_stall"]
        <= report["cycles"]["total"]
    )
    energy = report["energy_pj"]
    assert energy["onchip"] == pytest.approx(energy["cache"] + energy["spad"] + energy["fu"])
    if variant == "tapeflow":
        # Every tape value goes to DRAM once, by a FWD stream, and comes back at
        # most once (NN's REV leaves one value it never needs on the stack); no
        # tape traffic goes through the cache.
        streams = report["streams"]
        assert streams["write_bytes"] == report["tape_bytes"]
        assert 0 < streams["read_bytes"] <= report["tape_bytes"]
        assert report["dram_bytes"]["tape"] == streams["write_bytes"] + streams["read_bytes"]
        assert 0 < report["spad"]["peak_bytes"] <= 512
        assert report["layers"] > 0
    else:
        assert report["spad"]["accesses"] == 0 and report["layers"] == 0


@pytest.mark.parametrize("key", ["pathfinder", "mttkrp", "massspring"])
def test_the_enzyme_baseline_unrolled_keeps_its_values_and_its_tape(
    key: str,
    differentiated: Callable[[str], ModuleOp],
    enzyme_outputs: Callable[[str], dict[str, np.ndarray]],
) -> None:
    """`--variant enzyme --unroll 4`: the tapes are raised, unrolled and sunk back
    into Enzyme's buffers, so the values stay and the tape still goes through the
    cache, with the same total as without unrolling."""
    inputs = KERNELS[key].inputs("small")
    reference = enzyme_outputs(key)
    module = differentiated(key)
    hardware = configure("Enzyme32k")
    tape_bytes = prepare(make_context(), module, "enzyme", hardware, unroll=4)
    assert not any(isinstance(op, tape.AllocOp) for op in module.walk())
    function = next(
        f for f in module.ops if getattr(f, "sym_name", None) and f.sym_name.data == f"{key}_grad"
    )
    args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
    result = simulate(module, f"{key}_grad", args, hardware, tape_bytes)
    for name, value in reference.items():
        np.testing.assert_array_equal(result.outputs[name], value, err_msg=f"{key} {name}")
    plain = run_variant(key, differentiated(key), "enzyme").report
    assert result.report["tape_bytes"] == plain["tape_bytes"] > 0
    assert result.report["dram_bytes"]["tape"] > 0
    assert result.report["spad"]["accesses"] == 0


def test_tflow_without_a_scratchpad_is_refused(differentiated: Callable[[str], ModuleOp]) -> None:
    with pytest.raises(SimulationError, match="needs a scratchpad; Enzyme32k has none"):
        prepare(make_context(), differentiated("logsum"), "tapeflow", configure("Enzyme32k"))


@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
def test_lowerings_sharing_a_memo_print_what_each_alone_prints(
    differentiated: Callable[[str], ModuleOp], variant: str
) -> None:
    """The cgra then the salam lowering of one kernel, unrolled, with a memo: the
    second starts from the first's module after the passes before the first
    that takes the machine's parameters, and both modules (and tape sizes) are
    the ones each lowering gives alone."""
    from sim.models import get_model
    from sim.simulator import LoweringMemo

    hardware = {
        model: get_model(model).hardware(configure(PRESET_OF[variant]))
        for model in ("cgra", "salam")
    }
    alone = {}
    for model, machine in hardware.items():
        module = differentiated("gravity")
        tape_bytes = prepare(make_context(), module, variant, machine, 4, model)
        alone[model] = (str(module), tape_bytes)
    memo = LoweringMemo(2)
    for model, machine in hardware.items():
        module = differentiated("gravity")
        tape_bytes = prepare(make_context(), module, variant, machine, 4, model, memo)
        assert (str(module), tape_bytes) == alone[model], model
        if model == "cgra":
            names = [p.name for p in memo.passes]
            assert "tapeflow-unroll" in names and "tapeflow-to-cgra" not in names
            assert "tapeflow-layers" not in names
    assert memo.module is None  # the last lowering took it without a copy
    assert alone["cgra"][0] != alone["salam"][0]  # schedules (and, for TapeFlow, tiles) differ


@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
def test_a_lowering_the_memo_serves_needs_no_copy_of_the_source(
    differentiated: Callable[[str], ModuleOp], variant: str
) -> None:
    """`LoweringMemo.serves`: false with nothing kept, and for a lowering whose
    passes before the hardware passes differ (another unroll factor); true for the
    salam lowering after the cgra one, which then lowers an empty module into the
    module it lowers alone from the source."""
    from sim.models import get_model
    from sim.simulator import LoweringMemo

    cgra, salam = (
        get_model(model).hardware(configure(PRESET_OF[variant])) for model in ("cgra", "salam")
    )
    alone = differentiated("gravity")
    tape_bytes = prepare(make_context(), alone, variant, salam, 4, "salam")
    memo = LoweringMemo(2)
    assert not memo.serves(make_context(), variant, cgra, 4, "cgra")
    prepare(make_context(), differentiated("gravity"), variant, cgra, 4, "cgra", memo)
    assert not memo.serves(make_context(), variant, salam, 2, "salam")
    assert memo.serves(make_context(), variant, salam, 4, "salam")
    module = ModuleOp([])
    assert prepare(make_context(), module, variant, salam, 4, "salam", memo) == tape_bytes
    assert str(module) == str(alone)


def test_the_passes_before_the_hardware_passes_take_no_hardware() -> None:
    """Two machines that differ in everything the pipeline reads (scratchpad,
    grid, latencies, tiles in flight, modulo scheduling) get the same passes up
    to the first of `HARDWARE_PASSES`: what `LoweringMemo` shares."""
    from dataclasses import replace

    from lowering.pipelines import HARDWARE_PASSES, hardware_pipeline, parse_pipeline

    one = configure("Tflow2k")
    other = replace(
        configure("Tflow32k", spad_bytes=4096),
        rows=2,
        cols=8,
        mapping=replace(one.mapping, tiles_in_flight=3, modulo_schedule=False),
    )
    for variant in ("enzyme", "aos", "tapeflow"):
        passes = [parse_pipeline(hardware_pipeline(variant, hw, 8)).passes for hw in (one, other)]
        cut = next(n for n, p in enumerate(passes[0]) if p.name in HARDWARE_PASSES)
        assert passes[0][:cut] == passes[1][:cut]
        assert passes[0][cut:] != passes[1][cut:]


CHAIN = """
func.func @f(%x: memref<4xf64>) -> f64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {trips} : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (f64) {{
{body}
    scf.yield %r : f64
  }}
  func.return %s : f64
}}
func.func @f_grad(%x: memref<4xf64>, %dx: memref<4xf64>) -> f64 {{
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %seed) <{{activity = [#enzyme.activity<enzyme_dup>], \
ret_activity = [#enzyme.activity<enzyme_active>]}}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  func.return %r : f64
}}
"""


def fwd_kernel_cycles(body: str, trips: int) -> tuple[int, int]:
    """(ii, cycles) of the FWD kernel loop of a one-loop gradient."""
    ctx = make_context()
    module = LocatingParser(ctx, CHAIN.format(body=body, trips=trips), "chain.mlir").parse_module()
    hardware = configure("Enzyme32k")
    prepare(ctx, module, "enzyme", hardware)
    function = next(f for f in module.ops if f.sym_name.data == "f_grad")  # type: ignore[attr-defined]
    args = bind_arguments(function, {"arg0": np.ones(4)})
    from sim.executor import Executor
    from sim.timing import TimingRecorder
    from sim.trace import MemoryTrace

    trace = MemoryTrace()
    timing = TimingRecorder(trace, hardware)
    Executor(module, trace, timing).run("f_grad", args)
    timing.finish()
    kernel = next(w for w in timing.windows if w.kind == "kernel")
    return kernel.compute, trips


def test_a_dependent_chain_costs_its_latency_sum() -> None:
    # a + 1.0, then * 2.0, then + 1.0: fadd 5 + fmul 4 + fadd 5 = 14 cycles, all on
    # the recurrence through %a, so ii = 14 and N iterations take about N * 14.
    body = """    %one = arith.constant 1.0 : f64
    %two = arith.constant 2.0 : f64
    %p = arith.addf %a, %one : f64
    %q = arith.mulf %p, %two : f64
    %r = arith.addf %q, %one : f64"""
    compute, trips = fwd_kernel_cycles(body, 4)
    # (N - 1) * ii + length = 3 * 14 + 14, plus at most a hop per link (2 links).
    assert 4 * 14 <= compute <= 4 * 14 + 2 * 4


def test_sixteen_independent_ops_issue_together_on_a_4x4_grid() -> None:
    ops = "\n".join(f"      %p{k} = arith.mulf %v{k % 4}, %w : f64" for k in range(16))
    text = f"""
func.func private @diffeg(%x: memref<4xf64>, %dx: memref<4xf64>, %w: f64) attributes \
{{tapeflow.gradient_of = @g, tapeflow.activity = [#enzyme.activity<enzyme_dup>], \
tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v0 = memref.load %x[%c0] : memref<4xf64>
  %v1 = memref.load %x[%c1] : memref<4xf64>
  %v2 = arith.addf %v0, %v1 : f64
  %v3 = arith.mulf %v0, %v1 : f64
  scf.for %i = %c0 to %c4 step %c1 {{
{ops}
  }}
  func.return
}}
"""
    from lowering.tapeflow_to_cgra import lower_module
    from tapeflow_dialects import cgra

    module = LocatingParser(make_context(), text, "sixteen.mlir").parse_module()
    (report,) = lower_module(module, configure("Enzyme32k"))
    module.verify()
    # The loop's kernel (the loads and arithmetic before it are a kernel run once).
    (kernel,) = [
        op
        for op in module.walk()
        if isinstance(op, cgra.KernelOp) and isinstance(op.parent_op(), scf.ForOp)
    ]
    placed = [op for op in kernel.body.block.ops if isinstance(op, cgra.ComputeOp)]
    assert kernel.ii.value.data == 1
    assert {op.cycle.value.data for op in placed} == {0}
    assert len({op.pe() for op in placed}) == 16


def test_a_streaming_read_is_bandwidth_bound(tmp_path: Path) -> None:
    # The FWD loop reads 4096 doubles (32 KB) once: at 9.6 bytes per cycle that
    # takes at least 32768 / 9.6 = 3413.3 cycles, whatever the compute.
    text = CHAIN.replace("memref<4xf64>", "memref<4096xf64>").format(
        trips=4096,
        body="""    %v = memref.load %x[%i] : memref<4096xf64>
    %r = arith.addf %a, %v : f64""",
    )
    ctx = make_context()
    module = LocatingParser(ctx, text, "stream.mlir").parse_module()
    hardware = configure("Enzyme32k")
    tape_bytes = prepare(ctx, module, "enzyme", hardware)
    function = next(f for f in module.ops if f.sym_name.data == "f_grad")  # type: ignore[attr-defined]
    args = bind_arguments(function, {"arg0": np.ones(4096)})
    report = simulate(module, "f_grad", args, hardware, tape_bytes).report
    assert report["cycles"]["fwd"] >= 32768 / 9.6
    assert report["cache"]["fwd"]["misses"] == 4096 * 8 // 64


def test_tapeflow_sim_command(tmp_path: Path) -> None:
    inputs = KERNELS["logsum"].inputs("small")
    np.savez(tmp_path / "in.npz", **{f"arg{i}": a for i, a in enumerate(inputs)})
    source = Path(__file__).parents[2] / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"
    tool = Path(sys.executable).parent / "tapeflow-sim"
    done = subprocess.run(
        [
            str(tool),
            str(source),
            "--function",
            "logsum_grad",
            "--variant",
            "tapeflow",
            "--preset",
            "Tflow1k",
            "--energy",
            "cacti45",
            "--inputs",
            str(tmp_path / "in.npz"),
            "--out",
            str(tmp_path / "out.npz"),
            "--json",
            str(tmp_path / "r.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    for key in (
        "cycles",
        "ops",
        "cache",
        "dram_bytes",
        "spad",
        "sram_bytes",
        "layers",
        "tape_bytes",
        "energy_pj",
    ):
        assert key in report
    assert report["sram_bytes"] == 1024 + 512
    with np.load(tmp_path / "out.npz") as out:
        assert "arg1" in out.files and "result0" in out.files
    bad = subprocess.run(
        [
            str(tool),
            str(source),
            "--function",
            "logsum_grad",
            "--variant",
            "tapeflow",
            "--preset",
            "Enzyme32k",
        ],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1
    assert "the tapeflow variant needs a scratchpad; Enzyme32k has none" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_a_module_prepared_under_one_model_is_refused_under_another(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    """The models lower a variant for different machines: a module prepared for
    one and run under the other would report numbers neither tool gives."""
    module = differentiated("logsum")
    hardware = MODELS["salam"].hardware(configure("Enzyme32k"))
    tape_bytes = prepare(make_context(), module, "enzyme", hardware, model="salam")
    inputs = KERNELS["logsum"].inputs("small")
    args = bind_arguments(
        check_function(module, "logsum_grad"), {f"arg{i}": a for i, a in enumerate(inputs)}
    )
    with pytest.raises(SimulationError, match="prepared for the salam model and is run under cgra"):
        simulate(module, "logsum_grad", args, hardware, tape_bytes, variant="enzyme", model="cgra")
    report = simulate(
        module, "logsum_grad", args, hardware, tape_bytes, variant="enzyme", model="salam"
    ).report
    assert report["model"] == "salam"


def test_caches_replayed_together_report_what_each_replayed_alone_reports(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    # A sweep's caches replayed together (`replay_caches`), then evaluated, against
    # fresh executions evaluated one cache at a time.
    module = differentiated("pathfinder")
    hardware = configure("Enzyme32k")
    tape_bytes = prepare(make_context(), module, "enzyme", hardware)
    inputs = KERNELS["pathfinder"].inputs("small")

    def run() -> Execution:
        function = check_function(module, "pathfinder_grad")
        args = bind_arguments(function, {f"arg{i}": a for i, a in enumerate(inputs)})
        return execute(module, "pathfinder_grad", args, hardware, tape_bytes, variant="enzyme")

    sweep = [configure("Enzyme32k", cache_bytes=c, assoc=w) for c in (1024, 2048) for w in (1, 2)]
    together = run()
    replay_caches(together, (h.cache for h in sweep))
    assert set(together.replays) == {h.cache for h in sweep}
    for machine in sweep:
        expected, got = evaluate(run(), machine), evaluate(together, machine)
        for report in (expected, got):
            del report["simulator"]  # its seconds
        assert got == expected, machine.cache


def test_the_api_runs_a_model_only_on_its_own_machine(
    differentiated: Callable[[str], ModuleOp], tmp_path: Path
) -> None:
    """A preset given as it is to `salam` (the CGRA's latencies and ways) is
    refused by `prepare`, `execute` and `evaluate`; the machine `model_machine`
    builds gives what `tapeflow-sim --model salam` reports."""
    inputs = KERNELS["logsum"].inputs("small")
    raw = configure("Tflow1k")
    with pytest.raises(SimulationError, match="Tflow1k is not converted, and the salam model"):
        prepare(make_context(), differentiated("logsum"), "tapeflow", raw, model="salam")
    converted = model_machine("salam", "Tflow1k")
    with pytest.raises(SimulationError, match="the salam model's machine, and the cgra model"):
        prepare(make_context(), differentiated("logsum"), "tapeflow", converted, model="cgra")
    module = differentiated("logsum")
    tape_bytes = prepare(make_context(), module, "tapeflow", converted, model="salam")
    args = bind_arguments(
        check_function(module, "logsum_grad"), {f"arg{i}": a for i, a in enumerate(inputs)}
    )
    with pytest.raises(SimulationError, match="not converted"):
        simulate(module, "logsum_grad", args, raw, tape_bytes, variant="tapeflow", model="salam")
    execution = execute(
        module, "logsum_grad", args, converted, tape_bytes, variant="tapeflow", model="salam"
    )
    with pytest.raises(SimulationError, match="not converted"):
        evaluate(execution, raw)
    ours = evaluate(execution)

    np.savez(tmp_path / "in.npz", **{f"arg{i}": a for i, a in enumerate(inputs)})
    source = Path(__file__).parents[2] / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"
    argv = [str(source), "--function", "logsum_grad", "--variant", "tapeflow"]
    argv += ["--preset", "Tflow1k", "--model", "salam", "--inputs", str(tmp_path / "in.npz")]
    argv += ["--json", str(tmp_path / "r.json")]
    # The command's entry point in this process (test_tapeflow_sim_command runs the
    # installed command): what it reports is what is compared.
    with contextlib.redirect_stdout(io.StringIO()):
        tapeflow_sim.main(argv)
    tool = json.loads((tmp_path / "r.json").read_text())
    for key in ("cycles", "cache", "dram_bytes", "energy_pj"):
        assert ours[key] == tool[key], key


def _nested(rng: np.random.Generator, depth: int) -> object:
    """Random report-like data: dicts and lists of ints, floats, strings, bools
    and None, and now and then a numpy array or a tuple (copied deeply too)."""
    kind = int(rng.integers(0, 9 if depth < 4 else 6))
    leaves = [
        int(rng.integers(-(1 << 40), 1 << 40)),
        float(rng.random()),
        str(rng.integers(0, 99)),
        bool(rng.integers(0, 2)),
        None,
        np.arange(int(rng.integers(0, 4))),
    ]
    if kind < len(leaves):
        return leaves[kind]
    if kind == 6:
        return (int(rng.integers(0, 9)), [1, 2])
    items = [_nested(rng, depth + 1) for _ in range(int(rng.integers(0, 5)))]
    if kind == 7:
        return items
    return {f"k{n}": item for n, item in enumerate(items)}


def _same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def _containers(value: object) -> list[int]:
    """The ids of every mutable container in `value`."""
    if isinstance(value, dict):
        return [id(value), *(i for v in value.values() for i in _containers(v))]
    if isinstance(value, list | tuple):
        own = [id(value)] if not isinstance(value, tuple) else []
        return [*own, *(i for v in value for i in _containers(v))]
    return [id(value)] if isinstance(value, np.ndarray) else []


@pytest.mark.parametrize("seed", range(8))
def test_plain_copy_is_a_deep_copy(seed: int) -> None:
    """`plain_copy` (what `evaluate` copies a kept report with) gives what
    `copy.deepcopy` gives on random report-like data, sharing no mutable
    container with the original."""
    from copy import deepcopy

    data = {"report": _nested(np.random.default_rng(seed), 0)}
    copied = plain_copy(data)
    assert _same(copied, deepcopy(data)) and _same(copied, data)
    assert not set(_containers(copied)) & set(_containers(data))
