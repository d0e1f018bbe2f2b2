"""
The DRAM stream tape as a slab tape (Clad's design, see the shared notes
`clad-tape.md`): `stream.alloc slab S` grows by S-byte slabs as FWD pushes tiles,
never moving or copying one, and REV reads every value back intact. The expected
slab count and high-water mark are worked out from the region's size at the
region stage (all FWD tiles are pushed before REV pops any), not from the run;
values are compared with the Enzyme stage's, exactly.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from lowering.pipelines import parse_pipeline
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from sim.executor import Executor
from sim.simulator import evaluate, execute
from sim.storage import SlabTape
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_dialects import region, stream
from tapeflow_tools.context import make_context
from tapeflow_tools.tapeflow_run import bind_arguments, run_function
from targets.hardware import configure

KEY = "logsum"


def _region_bytes(module: ModuleOp) -> int:
    staged = module.clone()
    raise_module(staged)
    form_regions(staged)
    return sum(
        op.region.type.size_bytes() for op in staged.walk() if isinstance(op, region.AllocOp)
    )


def _lowered(module: ModuleOp, slab: int, spad: int = 64) -> ModuleOp:
    spec = (
        f"tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{{spad-bytes={spad} stream=always}},"
        f"tapeflow-streams{{slab-bytes={slab}}},tapeflow-spad-bind"
    )
    parse_pipeline(spec).apply(make_context(), module)
    module.verify()
    return module


@pytest.mark.parametrize("slab", [24, 40, 64])
@pytest.mark.parametrize("fast", [False, True])
def test_the_tape_grows_past_several_slabs_with_values_intact(
    slab: int, fast: bool, differentiated: Callable[[str], ModuleOp]
) -> None:
    module = differentiated(KEY)
    total = _region_bytes(module)
    assert total >= 4 * slab  # several slabs, for every slab size tried
    inputs = {f"arg{i}": a for i, a in enumerate(KERNELS[KEY].inputs("small"))}
    reference = run_function(differentiated(KEY), f"{KEY}_grad", inputs)
    lowered = _lowered(module, slab)
    allocs = [op for op in lowered.walk() if isinstance(op, stream.AllocOp)]
    assert allocs and all(op.slab_bytes == slab for op in allocs)
    function = next(
        f for f in lowered.ops if getattr(f, "sym_name", None) and f.sym_name.data == f"{KEY}_grad"
    )
    args = bind_arguments(function, {k: v.copy() for k, v in inputs.items()})
    executor = Executor(lowered, fast=fast)
    results = executor.run(f"{KEY}_grad", args)
    assert results[0] == reference["result0"]
    np.testing.assert_array_equal(args[1], reference["arg1"])
    stats = executor.stats
    assert stats["tape_high_water_bytes"] == total
    assert stats["stream_slabs"] == -(-total // slab)
    assert stats["stream_bytes_written"] == stats["stream_bytes_read"] == total


def test_a_tile_straddling_two_slabs_comes_back_whole() -> None:
    seen: list[int] = []
    tape = SlabTape(24, lambda index, slab: seen.append(index))  # 3 entries per slab
    first = np.array([1.0, 2.0], dtype=object)
    second = np.array([3.0, 4.0, 5.0, 6.0], dtype=object)
    tape.push(0, 1, 2, first, np.array([True, True]))
    tape.push(1, 2, 2, second, np.array([True, False, True, True]))
    assert seen == [0, 1]  # 6 entries: two slabs, the second tile across both
    assert (tape.used, tape.high_water) == (48, 48)
    ident, rows, slots, entries, full = tape.pop()
    assert (ident, rows, slots) == (1, 2, 2)
    assert list(entries) == [3.0, 4.0, 5.0, 6.0] and list(full) == [True, False, True, True]
    assert list(tape.pop()[3]) == [1.0, 2.0]
    assert tape.used == 0 and tape.high_water == 48 and len(tape.slabs) == 2


def test_the_simulator_reports_slabs_and_charges_a_page_per_slab(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    hardware = configure("Tflow2k")
    inputs = {f"arg{i}": a for i, a in enumerate(KERNELS[KEY].inputs("small"))}
    total = _region_bytes(differentiated(KEY))
    runs = {}
    for slab in (total, 32):
        module = _lowered(differentiated(KEY), slab)
        function = next(
            f
            for f in module.ops
            if getattr(f, "sym_name", None) and f.sym_name.data == f"{KEY}_grad"
        )
        args = bind_arguments(function, {k: v.copy() for k, v in inputs.items()})
        run = execute(module, f"{KEY}_grad", args, hardware, total)
        report = evaluate(run)
        runs[slab] = (run, report)
        layout = run.trace.slabs
        assert len(layout) == report["slabs"] == -(-total // slab)
        # Each slab has its own page-aligned range of the simulated DRAM.
        bases = [base for base, _ in layout]
        assert all(base % 4096 == 0 for base in bases) and len(set(bases)) == len(bases)
        assert [size for _, size in layout] == [slab] * len(layout)
        assert report["tape_high_water_bytes"] == total
    # The same run but for the slabs: each extra slab opens one more DRAM page,
    # one DRAM latency before the FWD stream that needed it moves its bytes (the
    # stream engine's wait, not the windows' compute).
    extra = runs[32][1]["slabs"] - runs[total][1]["slabs"]
    assert extra > 0
    compute = {s: sum(w.compute for w in run.recorder.windows) for s, (run, _) in runs.items()}
    assert compute[32] == compute[total]
    pages = {s: sum(tile[6] for tile in run.recorder.tiles) for s, (run, _) in runs.items()}
    assert pages[32] - pages[total] == extra * hardware.dram.latency_cycles
    # Only FWD layers with a stream open pages.
    tiles = runs[32][0].recorder.tiles
    assert all(tile[6] == 0 or (not tile[0] and tile[4] >= 0) for tile in tiles)
    assert runs[32][1]["cycles"]["total"] >= runs[total][1]["cycles"]["total"]
