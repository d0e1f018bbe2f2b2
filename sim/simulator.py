"""
The simulator: a gradient module on the modelled accelerator.

`prepare` completes the lowering a variant needs, from the Enzyme-gradient stage
(or from a primal with `enzyme.autodiff`, which it differentiates first):

- `enzyme`: Enzyme's gradient as it is; its cache buffers (the tape) go through
  the cache, as separate struct-of-arrays buffers;
- `aos`: the tape raised and merged into array-of-structs regions (Pass 1), still
  through the cache;
- `tapeflow`: all four passes; the tape lives in the scratchpad and streams.

Then every plain loop body is placed and scheduled (`tapeflow-to-cgra`). `simulate`
runs the result value for value with the reference executor, recording the
address trace and the timing windows, replays the trace through the cache model
and turns it all into the report (`sim/timing.py`).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin

from lowering.gradient import require_gradients
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_pipeline import TapeflowPipelinePass
from lowering.tapeflow_raise_tape import mark_tape_buffers, raise_module, reverse_sweep_start
from lowering.tapeflow_regions import form_regions
from lowering.tapeflow_to_cgra import lower_module
from lowering.tapeflow_unroll import TapeflowUnrollPass
from sim.cache import simulate_cache
from sim.executor import REV_START, Executor
from sim.timing import TimingRecorder, report
from sim.trace import MemoryTrace
from targets.hardware import Hardware
from tapeflow_dialects import enzyme, layer, region, tape

VARIANTS = ("enzyme", "aos", "tapeflow")


class SimulationError(ValueError):
    """The module or the options cannot be simulated; the message says why."""


def prepare(
    ctx: Context, module: builtin.ModuleOp, variant: str, hardware: Hardware, unroll: int = 1
) -> int:
    """Lower `module` in place for `variant`; returns the tape's size in bytes."""
    if variant not in VARIANTS:
        raise SimulationError(f"unknown variant '{variant}'; choose from {', '.join(VARIANTS)}")
    if unroll < 1:
        raise SimulationError(f"--unroll must be at least 1, got {unroll}")
    if any(isinstance(op, enzyme.AutoDiffOp) for op in module.walk()):
        TapeflowEnzymePass().apply(ctx, module)
    gradients = require_gradients(module, "tapeflow-sim")
    if any(isinstance(op, tape.AllocOp | region.AllocOp | layer.LayerOp) for op in module.walk()):
        raise SimulationError(
            "tapeflow-sim takes a module at the Enzyme-gradient stage (or a primal with "
            "enzyme.autodiff) and applies the variant's passes itself; this one is "
            "already lowered"
        )
    tape_bytes = sum(r.bytes for r in raise_module(module.clone()))
    if variant == "enzyme":
        if unroll > 1:
            raise SimulationError("--unroll applies to the aos and tapeflow variants")
        for function in gradients:
            mark_tape_buffers(function)
    elif variant == "aos":
        raise_module(module)
        if unroll > 1:
            TapeflowUnrollPass(factor=unroll).apply(ctx, module)
        form_regions(module)
    else:
        if hardware.scratchpad.size_bytes <= 0:
            raise SimulationError(
                f"the tapeflow variant needs a scratchpad; {hardware.name} has none "
                "(use a Tflow preset or --spad-bytes)"
            )
        TapeflowPipelinePass(spad_bytes=hardware.scratchpad.size_bytes, unroll=unroll).apply(
            ctx, module
        )
    for function in gradients:
        start = reverse_sweep_start(function)
        ops = list(function.body.block.ops)
        if start < len(ops):
            ops[start].attributes[REV_START] = builtin.UnitAttr()
    lower_module(module, hardware)
    module.verify()
    return tape_bytes


@contextmanager
def _without_gc_pauses() -> Iterator[None]:
    """Python's cycle collector off for a while. A run allocates millions of
    short-lived objects (floats, tuples, windows) that reference counting frees,
    and no cycles; but each allocation burst triggers collections that walk
    every live object, the compiled module's IR included, which cost up to half
    of a run's time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass
class Simulation:
    outputs: dict[str, np.ndarray]
    report: dict[str, Any]
    trace: MemoryTrace | None = None
    """The run's address trace (to replay it through other cache configurations)."""


def simulate(
    module: builtin.ModuleOp,
    function: str,
    args: list[Any],
    hardware: Hardware,
    tape_bytes: int,
    fast: bool = True,
) -> Simulation:
    """Run a prepared module; `args` as `tapeflow_tools.run.bind_arguments` makes them.
    `fast=False` runs the kernel loops with the closure executor (the reference
    the compiled kernel loops are tested against; same results, slower)."""
    trace = MemoryTrace()
    timing = TimingRecorder(trace, hardware)
    executor = Executor(module, trace, timing, fast=fast)
    started = time.perf_counter()
    with _without_gc_pauses():
        results = executor.run(function, args)
        timing.finish()
        timing.spad_peak_entries = executor.stats["spad_peak_entries_full"]
        addresses, writes, tape_flags = trace.arrays()
        cache = simulate_cache(addresses, writes, hardware.cache)
    seconds = time.perf_counter() - started
    data = report(timing, cache, tape_flags, hardware, tape_bytes)
    ops = data["ops"]["total"]  # type: ignore[index]
    data["simulator"] = {
        "seconds": seconds,
        "ops_per_second": ops / seconds if seconds > 0 else 0.0,
        "accesses": len(addresses),
    }
    outputs = {f"arg{i}": a for i, a in enumerate(args) if isinstance(a, np.ndarray)}
    outputs.update({f"result{i}": np.asarray(v) for i, v in enumerate(results)})
    return Simulation(outputs, data, trace)


__all__ = ["VARIANTS", "Simulation", "SimulationError", "prepare", "simulate"]
