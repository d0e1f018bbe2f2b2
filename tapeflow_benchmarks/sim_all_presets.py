"""
`python -m tapeflow_benchmarks.sim_all_presets [--preset paper] [--kernels a,b]`: every kernel
under the paper's five hardware presets and every variant that fits them (enzyme
and aos on all five; tapeflow on the three with a scratchpad), each checked against
the reference executor's outputs. Prints one line per run; exits 1 on a mismatch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from sim.simulator import prepare, simulate
from tapeflow_benchmarks.common import add_kernel_options, caller_arguments, chosen, parse_kernel
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.tapeflow_run import run_function
from targets.hardware import PRESETS as HARDWARE
from targets.hardware import configure


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tapeflow_benchmarks.sim_all_presets")
    add_kernel_options(parser)
    args = parser.parse_args(argv)
    mismatches = 0
    for key in chosen(parser, args.kernels, KERNELS):
        ctx = make_context()
        base = parse_kernel(ctx, key, args.preset)
        TapeflowEnzymePass().apply(ctx, base)
        inputs = {f"arg{i}": a for i, a in enumerate(KERNELS[key].inputs(args.preset))}
        reference = run_function(base, f"{key}_grad", {k: v.copy() for k, v in inputs.items()})
        for name, hardware in HARDWARE.items():
            variants = ["enzyme", "aos"] + (["tapeflow"] if hardware.scratchpad.size_bytes else [])
            for variant in variants:
                module = base.clone()
                hw = configure(name)
                tape_bytes = prepare(ctx, module, variant, hw)
                bound = caller_arguments(module, key, args.preset)
                result = simulate(module, f"{key}_grad", bound, hw, tape_bytes)
                same = all(np.array_equal(result.outputs[n], reference[n]) for n in reference)
                mismatches += not same
                r = result.report
                print(
                    f"{key} {name} {variant}: {'equal' if same else 'DIFFERENT'} outputs, "
                    f"{r['cycles']['total']} cycles, hit rate {r['cache']['hit_rate']:.3f}, "
                    f"{r['dram_bytes']['total']} DRAM bytes",
                    flush=True,
                )
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
