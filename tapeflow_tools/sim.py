"""
`tapeflow-sim FILE --function NAME --variant {enzyme,aos,tapeflow} --preset NAME
[--cache-bytes N --assoc N --spad-bytes N --energy {paper,cacti45} --unroll N]
--inputs IN.npz --out OUT.npz --json REPORT.json`

Simulates a gradient on the modelled CGRA. FILE is at the Enzyme-gradient stage
(or a primal with its `enzyme.autodiff` caller); the variant's passes are applied
here. Inputs and outputs are as for `tapeflow-run`; the JSON report has the cycles,
cache, DRAM, scratchpad and energy figures (see sim/timing.py).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np
from xdsl.utils.exceptions import DiagnosticException

from sim.executor import ExecutionError
from sim.simulator import VARIANTS, SimulationError, prepare, simulate
from targets.energy import ENERGY_PRESETS
from targets.hardware import PRESETS, HardwareError, configure
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import ToolError, reported_errors
from tapeflow_tools.run import bind_arguments, load_module


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="tapeflow-sim", description="Simulate a gradient on the modelled CGRA."
    )
    parser.add_argument("file", help="module at the Enzyme-gradient stage (.mlir)")
    parser.add_argument("--function", required=True, help="function to run, without @")
    parser.add_argument("--variant", choices=VARIANTS, required=True)
    parser.add_argument("--preset", choices=sorted(PRESETS), required=True)
    parser.add_argument("--cache-bytes", type=int)
    parser.add_argument("--assoc", type=int)
    parser.add_argument("--spad-bytes", type=int)
    parser.add_argument("--energy", choices=sorted(ENERGY_PRESETS))
    parser.add_argument("--unroll", type=int, default=1)
    parser.add_argument("--inputs", help="arguments as arg0, arg1, ... (.npz)")
    parser.add_argument("--out", help="where to write the outputs (.npz)")
    parser.add_argument("--json", help="where to write the report (.json)")
    args = parser.parse_args(argv)
    with reported_errors("tapeflow-sim"):
        try:
            hardware = configure(
                args.preset,
                cache_bytes=args.cache_bytes,
                assoc=args.assoc,
                spad_bytes=args.spad_bytes,
                energy=args.energy,
            )
        except HardwareError as err:
            raise ToolError(str(err)) from None
        module = load_module(args.file)
        given: dict[str, np.ndarray] = {}
        if args.inputs:
            try:
                with np.load(args.inputs) as data:
                    given = {k: data[k] for k in data.files}
            except (OSError, ValueError) as err:
                raise ToolError(f"cannot read inputs {args.inputs}: {err}") from None
        ctx = make_context()
        try:
            tape_bytes = prepare(ctx, module, args.variant, hardware, args.unroll)
        except SimulationError as err:
            raise ToolError(str(err)) from None
        except DiagnosticException as err:
            raise ToolError(str(err)) from None
        functions = {
            op.sym_name.data: op for op in module.ops if hasattr(op, "sym_name")
        }
        if args.function not in functions:
            raise ToolError(
                f"no function @{args.function} in the module (found: "
                f"{', '.join('@' + f for f in functions)})"
            )
        bound = bind_arguments(functions[args.function], given)  # type: ignore[arg-type]
        try:
            result = simulate(module, args.function, bound, hardware, tape_bytes)
        except ExecutionError as err:
            raise ToolError(str(err)) from None
        result.report["variant"] = args.variant
        result.report["function"] = args.function
        if args.out:
            np.savez(args.out, **result.outputs)
        text = json.dumps(result.report, indent=2, sort_keys=True)
        if args.json:
            with open(args.json, "w") as out:
                out.write(text + "\n")
        else:
            print(text)


if __name__ == "__main__":
    main()
