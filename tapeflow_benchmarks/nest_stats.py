"""
`python -m tapeflow_benchmarks.nest_stats [--preset paper] [--kernels a,b] [--jobs N]`:
how TapeFlow streams each kernel's tape, and what it gains, on the paper's machines.

For each kernel (default: the nest kernels, `NEST_KERNELS`, and the extra kernels),
the tapeflow variant on `Tflow32k` and the enzyme variant on `Enzyme32k`, under both
timing models (`cgra`, `salam`). Printed per kernel:

* `streamed %`: the tape bytes the FWD streams write, of those and the tape bytes
  written through the cache (regions kept in DRAM);
* `layers`: the layers executed (FWD and REV), under `cgra`;
* `spad B/layer`: the mean bytes a FWD layer streams, of the scratchpad's bytes;
* the speedup of Tflow32k over Enzyme32k (Enzyme's cycles / TapeFlow's) per model;

and the geomean speedups. Every run's outputs are checked against the enzyme run's
(exit 1 on a difference). Enzyme caches `tapeflow-raise-tape` leaves as memrefs
are neither streamed nor counted in `streamed %`: each kernel that has any is
named on stderr with them. A measurement, not a test: the numbers go to docs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from math import exp, log

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_raise_tape import raise_module
from sim.models import MODELS
from sim.simulator import evaluate, execute, prepare
from sim.trace import TAPE
from tapeflow_benchmarks.common import caller_arguments, chosen, parse_kernel
from tapeflow_benchmarks.kernels import ALL_KERNELS, EXTRA_KERNELS, NEST_KERNELS, PRESETS
from tapeflow_dialects.layer import ENTRY_BYTES
from tapeflow_tools.context import make_context
from targets.hardware import PRESETS as HARDWARE

MACHINES = {"tapeflow": "Tflow32k", "enzyme": "Enzyme32k"}
TIMING = ("cgra", "salam")


@dataclass(frozen=True)
class Run:
    cycles: int
    kept_bytes: int
    """Tape bytes written through the cache (regions kept in DRAM)."""
    streamed_bytes: int
    layers: int
    spad_bytes: int
    outputs: dict[str, np.ndarray]


def run(key: str, preset: str, variant: str, model: str) -> Run:
    ctx = make_context()
    module = parse_kernel(ctx, key, preset)
    hardware = MODELS[model].hardware(HARDWARE[MACHINES[variant]])
    tape_bytes = prepare(ctx, module, variant, hardware, 1, model)
    args = caller_arguments(module, key, preset)
    execution = execute(
        module, f"{key}_grad", args, hardware, tape_bytes, variant=variant, model=model
    )
    report = evaluate(execution)
    kept = np.count_nonzero((execution.roles.all() == TAPE) & execution.writes)
    return Run(
        int(report["cycles"]["total"]),
        ENTRY_BYTES * int(kept),
        int(report["streams"]["write_bytes"]),
        int(report["layers"]),
        hardware.scratchpad.size_bytes,
        execution.outputs,
    )


@dataclass(frozen=True)
class Row:
    kernel: str
    streamed: float
    layers: int
    spad_use: float
    spad_bytes: int
    speedup: dict[str, float]
    same: bool
    caches_left: tuple[str, ...] = ()
    """Enzyme caches left as memrefs (`caches_left`)."""


def caches_left(ctx: Context, module: ModuleOp) -> tuple[str, ...]:
    """The Enzyme caches of `module` (a primal with `enzyme.autodiff`, changed
    in place) that `tapeflow-raise-tape` leaves as memrefs, each with the reason:
    the tapeflow variant reads them through the cache, and the simulator does
    not count them as tape."""
    TapeflowEnzymePass().apply(ctx, module)
    return tuple(
        f"{buffer}: {reason}" for report in raise_module(module) for buffer, reason in report.kept
    )


def measure(key: str, preset: str) -> Row:
    runs = {(v, m): run(key, preset, v, m) for v in MACHINES for m in TIMING}
    reference = runs[("enzyme", "cgra")].outputs
    same = all(
        np.array_equal(r.outputs[name], value)
        for r in runs.values()
        for name, value in reference.items()
    )
    flow = runs[("tapeflow", "cgra")]
    fwd_layers = flow.layers // 2
    ctx = make_context()
    left = caches_left(ctx, parse_kernel(ctx, key, preset))
    return Row(
        key,
        100.0 * flow.streamed_bytes / (flow.streamed_bytes + flow.kept_bytes)
        if flow.streamed_bytes + flow.kept_bytes
        else 100.0,
        flow.layers,
        flow.streamed_bytes / fwd_layers if fwd_layers else 0.0,
        flow.spad_bytes,
        {m: runs[("enzyme", m)].cycles / runs[("tapeflow", m)].cycles for m in TIMING},
        same,
        left,
    )


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| kernel | streamed % | layers | spad B/layer | Tflow32k/Enzyme32k cgra | salam |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.kernel} | {r.streamed:.0f} | {r.layers} | {r.spad_use:.0f} of "
            f"{r.spad_bytes} | {r.speedup['cgra']:.3f} | {r.speedup['salam']:.3f} |"
        )
    for m in TIMING:
        mean = exp(sum(log(r.speedup[m]) for r in rows) / len(rows))
        slower = sum(r.speedup[m] < 0.98 for r in rows)
        lines.append(f"geomean {m}: {mean:.3f}x, {slower} kernel(s) more than 2% slower")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tapeflow_benchmarks.nest_stats")
    parser.add_argument("--preset", choices=PRESETS, default="paper")
    parser.add_argument(
        "--kernels",
        default=",".join([*NEST_KERNELS, *EXTRA_KERNELS]),
        help="comma-separated kernel keys (default: the nest and extra kernels)",
    )
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    keys = chosen(parser, args.kernels, ALL_KERNELS)
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(measure, keys, [args.preset] * len(keys)))
    print(table(rows))
    for r in rows:
        if r.caches_left:
            print(
                f"{r.kernel}: {len(r.caches_left)} Enzyme cache(s) left as memrefs, "
                f"neither streamed nor counted in 'streamed %': {'; '.join(r.caches_left)}",
                file=sys.stderr,
            )
    different = [r.kernel for r in rows if not r.same]
    if different:
        print(f"outputs differ from the enzyme run: {', '.join(different)}", file=sys.stderr)
    sys.exit(1 if different else 0)


if __name__ == "__main__":
    main()
