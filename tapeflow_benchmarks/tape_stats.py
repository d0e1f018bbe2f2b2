"""
`python -m tapeflow_benchmarks.tape_stats [--preset paper] [--kernels a,b]`: the gradient
tape of every kernel, as the real Enzyme lays it out.

For each kernel: run `tapeflow-enzyme` and `tapeflow-raise-tape`, then print the
tapes found (one per cached value), the values they hold, their bytes, the tapes per
FWD loop nest (the paper's "tensors/loop"), and how long each step took, next to
the paper's Table II columns (its "working set" is the tape in kB: compare the kB
column). The raised modules are checked by the verifier.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

from lowering.ir.gradients import gradient_functions
from lowering.ir.loops import top_level_op
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_raise_tape import GradientReport, raise_module
from tapeflow_benchmarks.common import add_kernel_options, chosen, parse_kernel
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_benchmarks.paper import TABLE_II
from tapeflow_dialects import tape
from tapeflow_tools.context import make_context


@dataclass(frozen=True)
class TapeStats:
    kernel: str
    report: GradientReport
    loop_nests: int
    """Top-level ops of the gradient that store to a tape (FWD loop nests)."""
    enzyme_seconds: float
    raise_seconds: float

    @property
    def tapes_per_loop(self) -> float:
        return len(self.report.tapes) / self.loop_nests if self.loop_nests else 0.0


def measure(key: str, preset: str) -> TapeStats:
    ctx = make_context()
    module = parse_kernel(ctx, key, preset)
    start = time.perf_counter()
    TapeflowEnzymePass().apply(ctx, module)
    enzyme_done = time.perf_counter()
    (report,) = raise_module(module)
    raise_done = time.perf_counter()
    module.verify()
    (gradient,) = gradient_functions(module)
    body = gradient.body.block
    nests = {
        top
        for op in gradient.walk()
        if isinstance(op, tape.StoreOp)
        for top in [top_level_op(op, body)]
    }
    return TapeStats(key, report, len(nests), enzyme_done - start, raise_done - enzyme_done)


def table(rows: Sequence[TapeStats]) -> str:
    header = (
        "| kernel | tapes | values | kB | tapes/loop nest | paper tensors/loop "
        "| paper working set (K) | enzyme s | raise s |"
    )
    lines = [header, "|" + "---|" * 9]
    for r in rows:
        paper = TABLE_II[r.kernel]
        lines.append(
            f"| {r.kernel} | {len(r.report.tapes)} | {r.report.values} | "
            f"{r.report.bytes / 1000:.1f} | {r.tapes_per_loop:.1f} | "
            f"{paper.tensors_per_loop:g} | {paper.working_set_k:g} | "
            f"{r.enzyme_seconds:.2f} | {r.raise_seconds:.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tapeflow_benchmarks.tape_stats",
        description="Tape statistics of the benchmark kernels (Enzyme + raise-tape).",
    )
    add_kernel_options(parser)
    args = parser.parse_args(argv)
    keys = chosen(parser, args.kernels, KERNELS)
    rows = []
    for key in keys:
        rows.append(measure(key, args.preset))
        print(f"{key}: {rows[-1].report.summary()}", flush=True)
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
