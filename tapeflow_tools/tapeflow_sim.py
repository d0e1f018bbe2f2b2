"""
`tapeflow-sim FILE --function NAME --variant {enzyme,aos,tapeflow} --preset NAME
[--model {cgra,salam}] [--hw HW.yaml ...] [--set key.path=VALUE ...]
[--cache-bytes N --assoc N --spad-bytes N --energy {paper,cacti45} --unroll N]
--inputs IN.npz --out OUT.npz [--json REPORT.json|-] [--timeline TRACE.json]`

Simulates a gradient (FILE at the Enzyme-gradient stage, or a primal with its
`enzyme.autodiff` caller) on the modelled CGRA or on the authors' gem5-SALAM
machine (`--model`), applying the variant's passes itself. The machine is built in
layers, later ones winning (`hardware_layers`, `sim.models.model_machine`): the
preset as the model simulates it, each `--hw` file, each `--set`, then the size
options; every field reaches the schedule, the layers, the cache, the timing and
the energy, and a field the model does not simulate is refused.

Contract: sizes are checked against their fields' domains; a file or `--set` that
does not describe hardware is refused naming it and the key; `--function` must
name a gradient or its caller; `--out`, `--json` and `--timeline` are checked
before anything runs and written together, all or none (docs/outputs.md); a
variant that leaves hardware idle gets a warning, and so does a tapeflow run that
keeps tape in DRAM or uses under a quarter of its scratchpad (`sim/tape_warnings.py`).
The report (cycles, cache, DRAM, scratchpad, energy, and the whole machine under
`hardware`) is deterministic but for the simulator's own timing; it goes to `--json
FILE` (or the standard output with `--json -`), and without `--json` a summary of a
dozen lines is printed instead; no `--inputs` (zeros) is warned about; `--timeline`
writes the run in the trace-event format https://ui.perfetto.dev opens
(docs/timeline.md).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

from tapeflow_tools import tapeflow_version
from tapeflow_tools.interrupt import quiet_interrupt

with quiet_interrupt("tapeflow-sim"):  # Ctrl-C while the modules load
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.utils.exceptions import DiagnosticException

    from lowering.tapeflow_unroll import MAX_UNROLL
    from sim.executor import ExecutionError
    from sim.models import DEFAULT_MODEL, MODELS, UnsimulatedField, model_machine, set_aside
    from sim.simulator import (
        VARIANTS,
        SimulationError,
        prepare,
        simulate,
        unroll_factors,
        unused_hardware,
    )
    from sim.tape_warnings import tape_warnings
    from tapeflow_tools.arguments import (
        bind_arguments,
        check_function,
        check_simulable,
        function_name,
        gradients_of,
        load_inputs,
        load_module,
        npz_bytes,
        stderr_warning,
    )
    from tapeflow_tools.atomic import check_distinct, check_output_file, commit_outputs
    from tapeflow_tools.context import make_context
    from tapeflow_tools.diagnostics import ToolError, entering, reported_errors
    from tapeflow_tools.memory_map import argument_addresses, check_kept, read_memory_map
    from targets.energy import ENERGY_PRESETS
    from targets.field_domains import DOMAINS
    from targets.hardware import PRESETS, Hardware, HardwareError
    from targets.machine import file_layer, options_layer, setting_layer


def _bounded(option: str) -> Callable[[str], int]:
    """An argparse type for a size option: an integer in its range (the hardware
    field's domain, `targets.field_domains.DOMAINS`; `--unroll`, the factors
    `tapeflow-unroll` takes)."""
    if option == "--unroll":
        low, high = 1, MAX_UNROLL
    else:
        domain = DOMAINS[OPTION_FIELDS[option]]
        low, high = int(domain.low), int(domain.high)

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expects an integer, got '{text}'") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {value}")
        return value

    return parse


def _check_not_primal(module: ModuleOp, name: str) -> None:
    gradients = gradients_of(module, name)
    if gradients:
        raise ToolError(
            f"--function {name}: @{name} is the primal function, which "
            f"{', '.join('@' + g for g in gradients)} differentiates; "
            "tapeflow-sim simulates a gradient: name one of those"
        )


OPTION_FIELDS: dict[str, str] = {
    "--cache-bytes": "cache.size_bytes",
    "--assoc": "cache.assoc",
    "--spad-bytes": "scratchpad.size_bytes",
    "--energy": "energy",
}
"""The hardware field each size option sets (what a `--set` of it would set too)."""


def _overlap(a: str, b: str) -> bool:
    """Whether dotted keys `a` and `b` write a common field (`energy` holds
    `energy.spad_pj`)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _check_contradictions(args: argparse.Namespace) -> None:
    """Two options of one command line that set one field contradict each other
    (one would be silently ignored): two `--set`s of one key (or of a section and
    a key inside it), or a `--set` and the option for its field. (A `--hw` file is
    a base that the command line overrides, as documented.)"""
    keys = [(text, text.partition("=")[0].strip()) for text in args.sets]
    for n, (text, key) in enumerate(keys):
        for other_text, other in keys[n + 1 :]:
            if key and other and _overlap(key, other):
                raise ToolError(
                    f"--set {text} and --set {other_text} both set {max(key, other, key=len)}: "
                    "give it once"
                )
        for option, field in OPTION_FIELDS.items():
            value = getattr(args, option[2:].replace("-", "_"))
            if value is not None and key and _overlap(key, field):
                raise ToolError(
                    f"--set {text} and {option} {value} both set {max(key, field, key=len)}: "
                    "give one of them"
                )


def hardware_layers(args: argparse.Namespace) -> Hardware:
    """The hardware of the command line (`sim.models.model_machine`): the preset
    as the `--model` simulates it, each `--hw` file in order, each `--set` in
    order, then `--cache-bytes`, `--assoc`, `--spad-bytes` and `--energy`;
    checked. Errors name the file, the `--set` or the options, and the key."""
    _check_contradictions(args)
    given = " ".join(
        f"{option} {value}"
        for option, value in (
            ("--preset", args.preset),
            *(("--hw", path) for path in args.hw),
            *(("--set", text) for text in args.sets),
            ("--cache-bytes", args.cache_bytes),
            ("--assoc", args.assoc),
            ("--spad-bytes", args.spad_bytes),
        )
        if value is not None
    )
    try:
        layers = [
            *(file_layer(path) for path in args.hw),
            *(setting_layer(text) for text in args.sets),
        ]
    except HardwareError as err:
        raise ToolError(str(err)) from None
    options = options_layer(
        given,
        cache_bytes=args.cache_bytes,
        assoc=args.assoc,
        spad_bytes=args.spad_bytes,
        energy=args.energy,
    )
    try:
        return model_machine(args.model, args.preset, [*layers, options])
    except UnsimulatedField as err:
        raise ToolError(f"{given}: {err}") from None
    except HardwareError as err:
        raise ToolError(str(err)) from None


def _count(n: float) -> str:
    return f"{n:,.0f}"


def summary(report: dict[str, Any]) -> str:
    """The report in a dozen lines for a person (`--json` gives every number)."""
    hw = report["hardware"]
    cycles, cache, dram = report["cycles"], report["cache"], report["dram_bytes"]
    energy, spad = report["energy_pj"], report["spad"]
    spad_size = hw["scratchpad"]["size_bytes"]
    lines = [
        f"@{report['function']}: variant {report['variant']}, model {report['model']}, "
        f"machine {hw['name']} (unroll {hw['unroll']})",
        f"cycles       {_count(cycles['total'])} total = {_count(cycles['fwd'])} FWD + "
        f"{_count(cycles['rev'])} REV",
        f"  stalls     {_count(cycles['memory_stall'])} on memory, "
        f"{_count(cycles['stream_stall'])} on REV tiles",
        f"ops          {_count(report['ops']['total'])} ({_count(report['ops']['memory'])} memory)",
        f"cache        {_count(cache['misses'])} misses ({_count(cache['fwd']['misses'])} FWD, "
        f"{_count(cache['rev']['misses'])} REV), {_count(cache['hits'])} hits, "
        f"hit rate {cache['hit_rate']:.1%}",
        f"DRAM         {_count(dram['total'])} bytes (read {_count(dram['read'])}, write "
        f"{_count(dram['write'])}; tape {_count(dram['tape'])})",
        "scratchpad   "
        + (
            f"peak {_count(spad['peak_bytes'])} of {_count(spad_size)} bytes, "
            f"{_count(spad['accesses'])} accesses"
            if spad_size
            else "none"
        ),
        f"tape         {_count(report['tape_bytes'])} bytes, {report['layers']} layers",
        f"SRAM         {_count(report['sram_bytes'])} bytes provisioned (cache + scratchpad)",
        f"energy       {energy['onchip'] / 1e3:,.3f} nJ on chip (cache "
        f"{energy['cache'] / 1e3:,.3f}, scratchpad {energy['spad'] / 1e3:,.3f}, FUs "
        f"{energy['fu'] / 1e3:,.3f}), DRAM {energy['dram'] / 1e3:,.3f} nJ",
        "(every number: --json FILE, or --json - for the standard output)",
    ]
    return "\n".join(lines) + "\n"


def _addresses(
    function: func.FuncOp, bound: list[Any], memory_map: dict[str, Any] | None, path: str | None
) -> list[int | None]:
    """Per argument, its address in the `--addresses` file (none without one)."""
    if memory_map is None:
        return []
    return argument_addresses(function, bound, memory_map, f"--addresses {path}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="tapeflow-sim", description="Simulate a gradient on the modelled CGRA."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {tapeflow_version()}")
    parser.add_argument("file", help="module at the Enzyme-gradient stage (.mlir)")
    parser.add_argument(
        "--function", required=True, type=function_name, help="function to run (@ optional)"
    )
    parser.add_argument("--variant", choices=VARIANTS, required=True)
    parser.add_argument("--preset", choices=sorted(PRESETS), required=True)
    parser.add_argument(
        "--model",
        choices=list(MODELS),
        default=DEFAULT_MODEL,
        help="timing model: cgra (the pipelined CGRA) or salam (the authors' gem5-SALAM "
        "machine); default %(default)s",
    )
    parser.add_argument(
        "--hw",
        action="append",
        default=[],
        metavar="FILE",
        help="hardware description (YAML or JSON, nested like the report's `hardware`) "
        "layered over the preset; repeatable, later files win",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        dest="sets",
        metavar="KEY.PATH=VALUE",
        help="one hardware field, e.g. dram.latency_cycles=321; repeatable, after --hw",
    )
    parser.add_argument("--cache-bytes", type=_bounded("--cache-bytes"))
    parser.add_argument("--assoc", type=_bounded("--assoc"))
    parser.add_argument("--spad-bytes", type=_bounded("--spad-bytes"))
    parser.add_argument("--energy", choices=sorted(ENERGY_PRESETS))
    parser.add_argument("--unroll", type=_bounded("--unroll"), default=1)
    parser.add_argument("--inputs", help="arguments as arg0, arg1, ... (.npz)")
    parser.add_argument(
        "--addresses",
        metavar="FILE",
        help="memory map (YAML or JSON): argument (arg0, ... or its name) to byte "
        "address, kept on a machine with placement.heap (--model salam)",
    )
    parser.add_argument("--out", help="where to write the outputs (.npz)")
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="where to write the full report (.json; '-' for the standard output); "
        "without it, a summary is printed",
    )
    parser.add_argument(
        "--timeline",
        metavar="FILE",
        help="where to write the run's timeline (trace-event JSON for ui.perfetto.dev)",
    )
    args = parser.parse_args(argv)
    with reported_errors("tapeflow-sim"):
        json_file = None if args.json == "-" else args.json
        outputs = [("--out", args.out), ("--json", json_file), ("--timeline", args.timeline)]
        for option, path in outputs:
            if path is not None:
                check_output_file(path, option)
        check_distinct(
            outputs,
            [
                ("the module", args.file),
                ("--inputs", args.inputs),
                ("--addresses", args.addresses),
                *(("--hw", p) for p in args.hw),
            ],
        )
        hardware = hardware_layers(args)
        warn = stderr_warning("tapeflow-sim")
        unused = unused_hardware(args.variant, hardware)
        if unused:
            warn(unused)
        aside = set_aside(args.model, hardware, model_machine(args.model, args.preset))
        if aside:
            warn(
                f"the {args.model} model does not simulate {', '.join(aside)} as given: "
                "it runs every value alike, so no number reflects it (docs/DESIGN.md, "
                "Timing models); the report records the machine as given"
            )
        memory_map = None
        if args.addresses is not None:
            check_kept(hardware, f"--addresses {args.addresses}")
            memory_map = read_memory_map(args.addresses, "--addresses")
        module = load_module(args.file)
        _check_not_primal(module, args.function)
        check_simulable(module, args.function, "tapeflow-sim")
        given = load_inputs(args.inputs) if args.inputs else {}
        if not args.inputs:
            warn(
                "no --inputs: every buffer argument is zero-filled, so the run simulates "
                "zeros; pass arg0, arg1, ... in an .npz with --inputs IN.npz (np.savez)"
            )
        bound = None
        addresses: list[int | None] = []
        if any(isinstance(f, func.FuncOp) and f.sym_name.data == args.function for f in module.ops):
            # Bound before the (slower) lowering; it keeps the caller's signature,
            # and the argument names a memory map may use (Enzyme's output has none).
            caller = check_function(module, args.function)
            bound = bind_arguments(caller, given, warn)
            addresses = _addresses(caller, bound, memory_map, args.addresses)
        ctx = make_context()
        entering("lowering the gradient (Enzyme and the variant's passes)")
        try:
            tape_bytes = prepare(ctx, module, args.variant, hardware, args.unroll, args.model)
        except SimulationError as err:
            raise ToolError(str(err)) from None
        except DiagnosticException as err:
            raise ToolError(str(err)) from None
        factors = unroll_factors(module)
        if args.unroll > 1 and any(f != args.unroll for f in factors):
            warn(
                f"--unroll {args.unroll}: the tape loops ran unrolled by "
                f"{', '.join(map(str, sorted(set(factors))))} "
                "(each loop takes the largest divisor of its "
                f"trip count up to {args.unroll}); the report records unroll "
                f"{max(factors, default=1)} and unroll_requested {args.unroll}"
            )
        function = check_function(module, args.function)
        check_simulable(module, args.function, "tapeflow-sim")
        if bound is None:
            bound = bind_arguments(function, given, warn)
            addresses = _addresses(function, bound, memory_map, args.addresses)
        entering("simulating")
        try:
            result = simulate(
                module,
                args.function,
                bound,
                hardware,
                tape_bytes,
                variant=args.variant,
                unroll=args.unroll,
                model=args.model,
                timeline=args.timeline is not None,
                addresses=addresses,
            )
        except ExecutionError as err:
            raise ToolError(str(err)) from None
        if args.variant == "tapeflow":
            for text in tape_warnings(module, result.report, hardware.scratchpad.size_bytes):
                warn(text)
        result.report["variant"] = args.variant
        result.report["function"] = args.function
        text = json.dumps(result.report, indent=2, sort_keys=True) + "\n"
        written: list[tuple[str, str, bytes]] = []
        if args.out:
            written.append(("--out", args.out, npz_bytes(result.outputs)))
        if args.timeline:
            assert result.timeline is not None
            result.timeline["otherData"].update(
                function=args.function, file=os.path.basename(args.file)
            )
            trace = json.dumps(result.timeline, separators=(",", ":")) + "\n"
            written.append(("--timeline", args.timeline, trace.encode()))
        if json_file:
            written.append(("--json", json_file, text.encode()))
        entering("writing the outputs")
        commit_outputs(written)  # all of them, or none
        if args.json == "-":
            print(text, end="")
        elif not args.json:
            print(summary(result.report), end="")


if __name__ == "__main__":
    main()
