"""
`python -m tapeflow_benchmarks.layer_counts [--preset paper] [--spad-bytes 512] [--unroll 1]`:
the layers TapeFlow makes for each kernel, next to the paper's Table II count, and
how long the pipeline took.

For each kernel, the tapeflow variant's pipeline (`lowering.pipelines`, the string
the simulator and `tapeflow-opt -p tapeflow-variant{variant=tapeflow}` run) with the
given scratchpad and unrolling: the real Enzyme (`tapeflow-enzyme`) is timed apart
from the TapeFlow passes (raise-tape, unroll, regions, layers, streams, spad-bind).
The layer count is the number of layers executed at run time, FWD and REV, the
quantity Table II reports.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from lowering.ir.gradients import gradient_functions
from lowering.layers.records import layer_census
from lowering.pipelines import parse_pipeline, variant_pipeline
from tapeflow_benchmarks.common import add_kernel_options, chosen, parse_kernel
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_benchmarks.paper import TABLE_II
from tapeflow_dialects import stream
from tapeflow_tools.context import make_context

NOT_TAPEFLOW = ("tapeflow-enzyme", "tapeflow-mark-rev-start", "tapeflow-to-cgra")
"""The variant's passes that are not the TapeFlow pipeline proper."""


@dataclass(frozen=True)
class LayerCount:
    kernel: str
    pairs: int
    """FWD/REV layer pairs."""
    executed: int
    """Layers executed at run time."""
    regions: int
    enzyme_seconds: float
    pipeline_seconds: float


def measure(key: str, preset: str, spad_bytes: int, unroll: int) -> LayerCount:
    ctx = make_context()
    module = parse_kernel(ctx, key, preset)
    seconds: dict[str, float] = {}
    started = time.perf_counter()

    def clock(previous: ModulePass | None, _: ModuleOp, following: ModulePass | None) -> None:
        nonlocal started
        now = time.perf_counter()
        if previous is not None:
            seconds[previous.name] = seconds.get(previous.name, 0.0) + now - started
        started = now

    spec = variant_pipeline("tapeflow", spad_bytes=spad_bytes, unroll=unroll)
    parse_pipeline(spec, clock).apply(ctx, module)
    module.verify()
    (function,) = gradient_functions(module)
    census = layer_census(function)
    regions = sum(isinstance(op, stream.AllocOp) for op in function.walk())
    pipeline = sum(t for name, t in seconds.items() if name not in NOT_TAPEFLOW)
    return LayerCount(
        key, census.pairs, census.executed, regions, seconds["tapeflow-enzyme"], pipeline
    )


def table(rows: Sequence[LayerCount]) -> str:
    lines = [
        "| kernel | regions | layer pairs | layers executed | paper (Table II) "
        "| enzyme s | pipeline s |",
        "|" + "---|" * 7,
    ]
    for r in rows:
        lines.append(
            f"| {r.kernel} | {r.regions} | {r.pairs} | "
            f"{r.executed} | {TABLE_II[r.kernel].layer_count} | "
            f"{r.enzyme_seconds:.2f} | {r.pipeline_seconds:.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tapeflow_benchmarks.layer_counts",
        description="Layer counts of the TapeFlow pipeline next to the paper's.",
    )
    add_kernel_options(parser)
    parser.add_argument("--spad-bytes", type=int, default=512)
    parser.add_argument("--unroll", type=int, default=1)
    args = parser.parse_args(argv)
    keys = chosen(parser, args.kernels, KERNELS)
    rows = []
    for key in keys:
        rows.append(measure(key, args.preset, args.spad_bytes, args.unroll))
        r = rows[-1]
        print(f"{key}: {r.executed} layers in {r.pipeline_seconds:.2f} s", flush=True)
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
