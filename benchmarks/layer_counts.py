"""
`python -m benchmarks.layer_counts [--preset paper] [--spad-bytes 512] [--unroll 1]`:
the layers TapeFlow makes for each kernel, next to the paper's Table II count, and
how long the pipeline took.

For each kernel: the real Enzyme (`tapeflow-enzyme`, timed apart), then the
TapeFlow pipeline (raise-tape, unroll, regions, layers, streams, spad-bind),
timed as a whole. The layer count is the number of layers executed at run time,
FWD and REV, the quantity Table II reports.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.common import add_kernel_options, chosen, parse_kernel
from benchmarks.kernels import KERNELS
from benchmarks.paper import TABLE_II
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_layers import LayersReport, layer_module
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from lowering.tapeflow_spad_bind import bind_module
from lowering.tapeflow_streams import stream_module
from lowering.tapeflow_unroll import TapeflowUnrollPass
from tapeflow_tools.context import make_context


@dataclass(frozen=True)
class LayerCount:
    kernel: str
    report: LayersReport
    regions: int
    enzyme_seconds: float
    pipeline_seconds: float


def measure(key: str, preset: str, spad_bytes: int, unroll: int) -> LayerCount:
    ctx = make_context()
    module = parse_kernel(ctx, key, preset)
    start = time.perf_counter()
    TapeflowEnzymePass().apply(ctx, module)
    differentiated = time.perf_counter()
    raise_module(module)
    if unroll > 1:
        TapeflowUnrollPass(factor=unroll).apply(ctx, module)
    (regions,) = form_regions(module)
    (report,) = layer_module(module, spad_bytes)
    stream_module(module)
    bind_module(module)
    done = time.perf_counter()
    module.verify()
    return LayerCount(
        key, report, len(regions.regions), differentiated - start, done - differentiated
    )


def table(rows: Sequence[LayerCount]) -> str:
    lines = [
        "| kernel | regions | layer pairs | layers executed | paper (Table II) "
        "| enzyme s | pipeline s |",
        "|" + "---|" * 7,
    ]
    for r in rows:
        lines.append(
            f"| {r.kernel} | {r.regions} | {len(r.report.layers)} | "
            f"{r.report.dynamic_layers} | {TABLE_II[r.kernel].layer_count} | "
            f"{r.enzyme_seconds:.2f} | {r.pipeline_seconds:.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.layer_counts",
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
        print(
            f"{key}: {r.report.dynamic_layers} layers in {r.pipeline_seconds:.2f} s",
            flush=True,
        )
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
