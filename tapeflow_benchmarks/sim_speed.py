"""
`python -m tapeflow_benchmarks.sim_speed [--preset paper] [--kernels a,b] [--configs ...]
[--model {cgra,salam}]`: how fast the simulator runs, and what it reports, for each kernel
(under the `cgra` timing model unless `--model` says otherwise).

For every kernel and configuration (default: Enzyme32k with the enzyme variant,
Tflow32k and Tflow2k with the tapeflow variant) it prints the simulated cycles,
DRAM bytes, on-chip energy, the dynamic ops simulated and the simulator's speed
(ops per second of the run itself, and the wall time including the lowering).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from sim.models import DEFAULT_MODEL, MODELS
from sim.simulator import prepare, simulate
from tapeflow_benchmarks.common import add_kernel_options, caller_arguments, chosen, parse_kernel
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools.context import make_context
from targets.hardware import configure

CONFIGS = {"Enzyme32k": "enzyme", "Tflow32k": "tapeflow", "Tflow2k": "tapeflow"}


def run(key: str, preset: str, config: str, model: str = DEFAULT_MODEL) -> dict[str, object]:
    started = time.perf_counter()
    ctx = make_context()
    module = parse_kernel(ctx, key, preset)
    hardware = MODELS[model].hardware(configure(config))
    tape_bytes = prepare(ctx, module, CONFIGS[config], hardware, model=model)
    args = caller_arguments(module, key, preset)
    report = simulate(
        module, f"{key}_grad", args, hardware, tape_bytes, variant=CONFIGS[config], model=model
    ).report
    report["wall_seconds"] = time.perf_counter() - started
    return report


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tapeflow_benchmarks.sim_speed")
    add_kernel_options(parser)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--model", choices=list(MODELS), default=DEFAULT_MODEL)
    args = parser.parse_args(argv)
    keys = chosen(parser, args.kernels, KERNELS)
    configs = chosen(parser, args.configs, CONFIGS, "config")
    print(
        "| kernel | config | cycles | DRAM bytes | on-chip energy (uJ) | ops simulated "
        "| ops/s | wall s |"
    )
    print("|" + "---|" * 8)
    total_ops = total_seconds = 0.0
    for key in keys:
        for config in configs:
            r = run(key, args.preset, config, args.model)
            sim = r["simulator"]  # type: ignore[index]
            total_ops += r["ops"]["total"]  # type: ignore[index]
            total_seconds += sim["seconds"]
            print(
                f"| {key} | {config} | {r['cycles']['total']} | "  # type: ignore[index]
                f"{r['dram_bytes']['total']} | {r['energy_pj']['onchip'] / 1e6:.2f} | "  # type: ignore[index]
                f"{r['ops']['total']} | {sim['ops_per_second']:.0f} | {r['wall_seconds']:.1f} |",  # type: ignore[index]
                flush=True,
            )
    print(
        f"\noverall: {total_ops:.0f} ops in {total_seconds:.1f} s of simulation, "
        f"{total_ops / total_seconds:.0f} ops/s"
    )


if __name__ == "__main__":
    main()
