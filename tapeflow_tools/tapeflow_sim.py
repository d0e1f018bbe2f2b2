"""
`tapeflow-sim FILE --function NAME --variant {enzyme,aos,tapeflow} --preset NAME
[--model {cgra,salam}] [--hw HW.yaml ...] [--set key.path=VALUE ...]
[--cache-bytes N --assoc N --spad-bytes N --energy {paper,cacti45} --unroll N]
--inputs IN.npz --out OUT.npz --json REPORT.json [--timeline TRACE.json]`

Simulates a gradient on the modelled CGRA (`--model cgra`, the default) or on the
authors' gem5-SALAM machine (`--model salam`, `sim/models/salam.py`: the preset's
cache size and scratchpad with their clock, latencies, 4-way cache and placement;
an explicit `--assoc` still wins). FILE is at the Enzyme-gradient stage
(or a primal with its `enzyme.autodiff` caller); the variant's passes are applied
here. Inputs and outputs are as for `tapeflow-run`; the JSON report has the cycles,
cache, DRAM, scratchpad and energy figures (see sim/timing.py) and, under
`hardware`, the whole machine it describes (`targets.provenance.hardware_record`).

The hardware is built in layers, later ones winning (`hardware_layers`): the
`--preset`, then each `--hw` file in the order given (YAML or JSON nested like the
hardware description, `targets.hardware_files`), then each `--set key.path=value`
in order, then the options `--cache-bytes`, `--assoc`, `--spad-bytes`, `--energy`.
Every field reaches the run: the schedule (`tapeflow-to-cgra`), the scratchpad the
tapeflow variant's layers are cut for, the cache, the timing and the energy.

`--timeline FILE` also writes the run's timeline in the trace-event format that
https://ui.perfetto.dev opens (`sim/timeline.py`, docs/timeline.md).

The sizes are checked against stated ranges (`OPTION_RANGES`), a hardware file or
`--set` that does not describe hardware is refused naming the file and the key,
`--function` must name a gradient (or a function that calls one), not the
primal it differentiates, another function or a `memref.global` (the message lists
what can be named), and `--out`, `--json` and `--timeline` are checked before anything
runs (none may name the module, `--inputs`, a `--hw` file or another output) and
written only once the simulation succeeded, together: all through temporary files
renamed into place when every one is complete, so that one failing (a full disk)
leaves none of them. A variant that leaves part of the hardware idle (a scratchpad
under enzyme or aos) gets a warning, and so does a tapeflow run that keeps tape in
DRAM or uses under a quarter of its scratchpad (`sim/tape_warnings.py`). The report is
deterministic: the same input gives the same bytes, apart from the simulator's
own timing (`simulator.seconds`, `simulator.ops_per_second`).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Sequence

from tapeflow_tools.interrupt import quiet_interrupt

with quiet_interrupt("tapeflow-sim"):  # Ctrl-C while the modules load
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.utils.exceptions import DiagnosticException

    from sim.executor import ExecutionError
    from sim.models import DEFAULT_MODEL, MODELS, UnsimulatedField, check_simulated
    from sim.simulator import (
        VARIANTS,
        SimulationError,
        check_schedulable,
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
        gradients_of,
        load_inputs,
        load_module,
        npz_bytes,
        stderr_warning,
    )
    from tapeflow_tools.atomic import check_distinct, check_output_file, commit_outputs
    from tapeflow_tools.context import make_context
    from tapeflow_tools.diagnostics import ToolError, reported_errors
    from targets.energy import ENERGY_PRESETS
    from targets.hardware import PRESETS, Hardware, HardwareError, overridden
    from targets.hardware_files import layered

GiB = 1024**3
OPTION_RANGES: dict[str, tuple[int, int]] = {
    "--cache-bytes": (64, GiB),
    "--assoc": (1, GiB // 64),
    "--spad-bytes": (0, GiB),
    "--unroll": (1, 1024),
}
"""What each size option may be: an on-chip cache or scratchpad of up to 1 GiB (the
paper's are 1-128 KB and 512 B), at most one way per 64 B line, unroll factors up
to 1024. Beyond these the model's arrays overflow or the IR explodes."""


def _bounded(option: str) -> Callable[[str], int]:
    low, high = OPTION_RANGES[option]

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
    """The hardware of the command line: the preset (as the `--model` simulates
    it: `sim.models.MODELS[model].hardware`), each `--hw` file in order,
    each `--set` in order, then `--cache-bytes`, `--assoc`, `--spad-bytes` and
    `--energy`; checked, and schedulable. Errors name the file, the `--set` or the
    options, and the key."""
    _check_contradictions(args)
    model = MODELS[args.model]
    hardware = model.hardware(PRESETS[args.preset])  # the machine the model simulates
    try:
        # A cache size given without its ways takes the model's: Table III's under
        # cgra, the cluster cache's 4 ways at every size under salam.
        hardware = layered(hardware, args.hw, args.sets, model.ways)  # errors name their layer
    except HardwareError as err:
        raise ToolError(str(err)) from None
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
        hardware = overridden(
            hardware,
            cache_bytes=args.cache_bytes,
            assoc=args.assoc,
            spad_bytes=args.spad_bytes,
            energy=args.energy,
            ways=model.ways,
        )
        check_simulated(args.model, hardware, model.hardware(PRESETS[args.preset]))
        check_schedulable(hardware)
    except (HardwareError, SimulationError, UnsimulatedField) as err:
        raise ToolError(f"{given}: {err}") from None
    return hardware


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="tapeflow-sim", description="Simulate a gradient on the modelled CGRA."
    )
    parser.add_argument("file", help="module at the Enzyme-gradient stage (.mlir)")
    parser.add_argument("--function", required=True, help="function to run, without @")
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
    parser.add_argument("--out", help="where to write the outputs (.npz)")
    parser.add_argument("--json", help="where to write the report (.json)")
    parser.add_argument(
        "--timeline",
        metavar="FILE",
        help="where to write the run's timeline (trace-event JSON for ui.perfetto.dev)",
    )
    args = parser.parse_args(argv)
    with reported_errors("tapeflow-sim"):
        outputs = [("--out", args.out), ("--json", args.json), ("--timeline", args.timeline)]
        for option, path in outputs:
            if path is not None:
                check_output_file(path, option)
        check_distinct(
            outputs,
            [
                ("the module", args.file),
                ("--inputs", args.inputs),
                *(("--hw", p) for p in args.hw),
            ],
        )
        hardware = hardware_layers(args)
        warn = stderr_warning("tapeflow-sim")
        unused = unused_hardware(args.variant, hardware)
        if unused:
            warn(unused)
        module = load_module(args.file)
        _check_not_primal(module, args.function)
        check_simulable(module, args.function, "tapeflow-sim")
        given = load_inputs(args.inputs) if args.inputs else {}
        bound = None
        if any(isinstance(f, func.FuncOp) and f.sym_name.data == args.function for f in module.ops):
            # Bound before the (slower) lowering; it keeps the caller's signature.
            bound = bind_arguments(check_function(module, args.function), given, warn)
        ctx = make_context()
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
        if args.json:
            written.append(("--json", args.json, text.encode()))
        commit_outputs(written)  # all of them, or none
        if not args.json:
            print(text, end="")


if __name__ == "__main__":
    main()
