"""
The simulator: a gradient module on the modelled accelerator.

`prepare` differentiates the module if needed, records the tape's size on it
(`tapeflow-measure-tape`) and runs the variant's pipeline (`lowering.pipelines`:
`enzyme`, Enzyme's struct-of-arrays tape through the cache; `aos`, the tape in
array-of-structs regions, still through the cache; `tapeflow`, all four passes,
the tape streamed through the scratchpad) with the simulated machine's scratchpad
and scheduling values, every plain loop body ending placed (`tapeflow-to-cgra`).
`simulate` runs the result value for value with the reference executor,
recording the address trace and the timing windows, replays the trace through the
cache model and turns it into the report (`sim/timing.py`), whose `hardware`
entry records the whole machine, the model, the variant and the unroll factors
that ran (`tapeflow.unroll_factors` on the gradients: each tape loop takes the
largest divisor of its trip count up to the factor asked).

What an execution fixes: the schedule and the run depend on the fields
`tapeflow-to-cgra` takes and on the scratchpad size (and, with a scratchpad and
`mapping.stream_by_cost`, on the nests `tapeflow-layers`' cost model streams, which
it chooses from the cache and the DRAM's latency and bandwidth and the clock:
`stream_choices`); the rest
(cache, DRAM, clock, energy) only on `evaluate`, so one execution serves a sweep
over them. A model may ignore part of the first kind (`TimingModel.run_hardware`):
`run_key` is what an execution fixes under its model, `lowering_key` the same but
for the cost model's numbers. More: docs/DESIGN.md, "Simulator".
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from copy import deepcopy
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass, PassPipeline

from lowering.ir.bulk import clone_op, release_tree
from lowering.ir.facts import prepared_model, record_timing_model, tape_bytes, unroll_factors
from lowering.ir.verification import verify
from lowering.layers.cost import StreamMachine
from lowering.pipelines import HARDWARE_PASSES, VARIANTS, hardware_pipeline, parse_pipeline
from lowering.tapeflow_layers import TapeflowLayersPass, nest_choices
from lowering.tapeflow_measure_tape import AlreadyLowered
from sim.cache import simulate_cache, simulate_caches
from sim.execution import Execution
from sim.executor import Executor
from sim.models import (
    DEFAULT_MODEL,
    MODELS,
    ForeignMachine,
    UnknownModel,
    check_machine,
    get_model,
)
from sim.timeline import trace_events
from sim.timing import TimingRecorder, WindowTimes, energy_pj, report
from sim.trace import AccessRoles, MemoryTrace
from targets.energy import ENERGY_PRESETS
from targets.hardware import CacheConfig, DramConfig, Hardware, HardwareError
from targets.provenance import hardware_record


class SimulationError(ValueError):
    """The module or the options cannot be simulated; the message says why."""


def check_schedulable(hardware: Hardware) -> None:
    """Raise `SimulationError` (naming the hardware key) unless every field of
    `hardware` is in its domain (`targets.field_domains`), the scheduler's limits
    among them: a machine built by hand (the Python API) is checked as a built one."""
    try:
        hardware.validate()
    except HardwareError as err:
        raise SimulationError(f"hardware: {err}") from None


def unused_hardware(variant: str, hardware: Hardware) -> str | None:
    """Why `hardware` does not fit `variant` though it can run it (a scratchpad
    that the enzyme and aos variants never use), or None. (The reverse, the
    tapeflow variant with no scratchpad, is an error: see `prepare`.)"""
    if variant in ("enzyme", "aos") and hardware.scratchpad.size_bytes > 0:
        return (
            f"the {variant} variant never uses the scratchpad: {hardware.name}'s "
            f"{hardware.scratchpad.size_bytes} B scratchpad stays idle, yet counts in "
            "sram_bytes (an Enzyme preset, or scratchpad.size_bytes 0, has none)"
        )
    return None


def check_model(model: str, hardware: Hardware | None = None) -> None:
    """Raise `SimulationError` unless `model` names a timing model (`sim.models`)
    and `hardware`, if given, is a machine it simulates (`sim.models.check_machine`)."""
    try:
        get_model(model)
        if hardware is not None:
            check_machine(model, hardware)
    except (UnknownModel, ForeignMachine) as err:
        raise SimulationError(str(err)) from None


class LoweringMemo:
    """What `prepare` keeps for the next lowerings of one source module (their
    caller makes one memo for `lowerings` of them, each of a fresh copy of that
    module): the module after the passes before the first that takes the
    machine's parameters (`lowering.pipelines.HARDWARE_PASSES`; the tape's size
    and the unroll factors are on its gradients). A lowering whose pipeline starts with the same
    passes, options included, starts from it instead of running them (the cgra and
    salam models lower a variant alike up to there); the last one takes it
    without a copy."""

    def __init__(self, lowerings: int) -> None:
        self.left = lowerings
        """Lowerings still to come (counting the one under way)."""
        self.passes: tuple[ModulePass, ...] = ()
        self.module: builtin.ModuleOp | None = None

    def serves(
        self,
        ctx: Context,
        variant: str,
        hardware: Hardware,
        unroll: int = 1,
        model: str = DEFAULT_MODEL,
        recompute: bool = False,
    ) -> bool:
        """Whether `prepare` (given these arguments) would start from the kept
        module, not from the one it is given: its caller then need not copy the
        source module for it (any module, an empty one, will do)."""
        if self.module is None:
            return False
        passes, cut = _passes(ctx, self.module, variant, hardware, unroll, model, self, recompute)
        return self.passes == passes[:cut]

    def keep(self, passes: tuple[ModulePass, ...], module: builtin.ModuleOp) -> None:
        if self.module is not None:
            # Another pipeline's module (the other variant's), which only the memo
            # holds: its cycles cut, reference counting frees it where the cycle
            # collector would walk it (`lowering.ir.bulk.release_tree`).
            release_tree(self.module)
        self.passes = passes
        self.module = clone_op(module)  # `module.clone()`, in bulk

    def take(self) -> builtin.ModuleOp:
        """The kept module: a copy while later lowerings may need it, else itself.
        A copy made during `prepare`'s pause of the cycle collector is young: what
        the lowering then erases from it is freed by the young collection after,
        where from the kept module, aged into the middle generation, it waits for a
        middle collection, which costs more than the copy (docs/evaluation.md);
        the last lowering takes it, left for such a collection either way."""
        assert self.module is not None
        if self.left > 0:
            return clone_op(self.module)
        module, self.module = self.module, None
        return module


def _adopt(module: builtin.ModuleOp, source: builtin.ModuleOp) -> None:
    """Make `module` hold `source`'s body and attributes (`source` is emptied)."""
    module.body.detach_block(0).erase(safe_erase=False)
    module.body.add_block(source.body.detach_block(0))
    module.attributes = dict(source.attributes)
    module.properties = dict(source.properties)


_FRONT_END = ("tapeflow-enzyme", "tapeflow-recompute-loads")
"""The passes before `tapeflow-measure-tape` in `prepare`."""


def prepare(
    ctx: Context,
    module: builtin.ModuleOp,
    variant: str,
    hardware: Hardware,
    unroll: int = 1,
    model: str = DEFAULT_MODEL,
    memo: LoweringMemo | None = None,
    recompute: bool = False,
) -> int:
    """Lower `module` in place for `variant`; returns the tape's size in bytes.
    `hardware` is the machine `model` simulates (`MODELS[model].hardware(preset)`);
    the passes get `MODELS[model].lowering_hardware` of it (under `salam`, a
    scratchpad as large as the tape, which needs the tape measured first).
    `memo`: shared by the lowerings of copies of one module (`LoweringMemo`).
    `recompute`: `tapeflow-recompute-loads` after differentiation (the tape is
    measured after it)."""
    check_model(model, hardware)
    if variant not in VARIANTS:
        raise SimulationError(f"unknown variant '{variant}'; choose from {', '.join(VARIANTS)}")
    if unroll < 1:
        raise SimulationError(f"the unroll factor must be at least 1, got {unroll}")
    if variant == "tapeflow" and hardware.scratchpad.size_bytes <= 0:
        raise SimulationError(
            f"the tapeflow variant needs a scratchpad; {hardware.name} has none "
            "(scratchpad.size_bytes is 0; the Tflow presets have one)"
        )
    check_schedulable(hardware)
    if memo is not None:
        memo.left -= 1
    with _without_gc_pauses():
        passes, cut = _passes(ctx, module, variant, hardware, unroll, model, memo, recompute)
        if memo is not None and memo.module is not None and memo.passes == passes[:cut]:
            _adopt(module, memo.take())
        else:
            _front_end(ctx, module, recompute)
            PassPipeline(passes[:cut]).apply(ctx, module)
            if memo is not None and memo.left > 0:
                memo.keep(passes[:cut], module)
        PassPipeline(passes[cut:]).apply(ctx, module)
        verify(module)  # `module.verify()`, each op signature's generic check once
    record_timing_model(module, model)
    return measured_tape(module)


def _passes(
    ctx: Context,
    module: builtin.ModuleOp,
    variant: str,
    hardware: Hardware,
    unroll: int,
    model: str,
    memo: LoweringMemo | None,
    recompute: bool,
) -> tuple[tuple[ModulePass, ...], int]:
    """The variant's passes for `hardware` under `model` (`prepare`) and the
    position of the first that takes the machine's parameters. A model whose
    passes' hardware depends on the tape has `module` differentiated and its
    tape measured first (unless `memo` holds a module that is)."""
    timing_model = get_model(model)
    lowering = timing_model.lowering_hardware(hardware, 0)
    if lowering != timing_model.lowering_hardware(hardware, 1 << 40):
        measured = memo.module if memo is not None and memo.module is not None else module
        if measured is module:
            _front_end(ctx, module, recompute)
        lowering = timing_model.lowering_hardware(hardware, measured_tape(measured))
    passes = parse_pipeline(
        hardware_pipeline(variant, lowering, unroll, recompute=recompute)
    ).passes
    cut = next((n for n, p in enumerate(passes) if p.name in HARDWARE_PASSES), len(passes))
    return tuple(passes), cut


@dataclass(frozen=True)
class StreamChoice:
    """What `tapeflow-layers`' cost model chooses for a module on one machine:
    per gradient function, per nest, whether it is streamed (`lowering.
    tapeflow_layers.nest_choices`). Machines of equal choice, and equal
    `lowering_key`, lower and run the module alike. `reasons`: the reason each
    nest's regions carry if kept (`tapeflow.kept`), which quotes the machine's
    own numbers (not compared)."""

    streams: tuple[tuple[bool, ...], ...]
    reasons: tuple[tuple[str, ...], ...] = field(compare=False)

    def kept_reasons(self, other: StreamChoice) -> dict[str, str] | None:
        """The reason a region kept by this choice carries -> the one it carries
        under `other`, an equal choice: the nests' reasons in pairs. None if a
        reason of this choice stands for nests whose reasons under `other` differ
        (their regions could not be told apart)."""
        pairs: dict[str, str] = {}
        for mine, theirs, streams in zip(self.reasons, other.reasons, self.streams, strict=True):
            for reason, other_reason, streamed in zip(mine, theirs, streams, strict=True):
                if not streamed and pairs.setdefault(reason, other_reason) != other_reason:
                    return None
        return pairs


StreamChoices = dict[Hardware, StreamChoice]
"""The cost model's choice per machine, by its `run_key` (`stream_choices`)."""


def stream_choices(
    ctx: Context,
    module: builtin.ModuleOp,
    variant: str,
    machines: Iterable[Hardware],
    unroll: int = 1,
    model: str = DEFAULT_MODEL,
    memo: LoweringMemo | None = None,
    recompute: bool = False,
) -> StreamChoices:
    """The choice `tapeflow-layers`' cost model makes for `module` on each of
    `machines` that runs it (`mapping.stream_by_cost` with a scratchpad), as
    `prepare` would lower it (arguments as for `prepare`): one layering per
    pipeline, whatever the numbers the cost model reads. A copy of `module` is
    lowered up to that pass and kept in `memo` for the lowerings to come (or the
    one `memo` holds is used); `module` may be lowered in place (give a copy): the
    last such copy is `module` itself."""
    check_model(model)
    found: StreamChoices = {}
    with _without_gc_pauses():
        pending: dict[tuple[ModulePass, ...], list[tuple[Hardware, TapeflowLayersPass]]] = {}
        for hardware in machines:
            check_model(model, hardware)
            passes, cut = _passes(ctx, module, variant, hardware, unroll, model, memo, recompute)
            layers = passes[cut] if cut < len(passes) else None
            if isinstance(layers, TapeflowLayersPass) and layers.stream == "auto":
                general = replace(layers, **{f.name: 0 for f in fields(StreamMachine)})
                pending.setdefault((*passes[:cut], general), []).append((hardware, layers))
        for n, (key, asked) in enumerate(pending.items()):
            passes, layers = key[:-1], asked[0][1]
            if memo is not None and memo.module is not None and memo.passes == passes:
                staged = memo.module
            else:
                staged = module if n == len(pending) - 1 else clone_op(module)
                _front_end(ctx, staged, recompute)
                PassPipeline(passes).apply(ctx, staged)
                if memo is not None:
                    memo.passes, memo.module = passes, staged
            machines_asked = [
                StreamMachine(**{f.name: getattr(p, f.name) for f in fields(StreamMachine)})
                for _, p in asked
            ]
            made = nest_choices(
                staged,
                layers.spad_bytes,
                machines_asked,
                layers.tiles_in_flight,
                layers.loop_tiles_in_flight,
            )
            for (hardware, _), choices in zip(asked, made, strict=True):
                found[run_key(hardware, model)] = StreamChoice(
                    tuple(tuple(c.stream for c in nests) for nests in choices),
                    tuple(tuple(c.reason for c in nests) for nests in choices),
                )
    return found


def _front_end(ctx: Context, module: builtin.ModuleOp, recompute: bool) -> None:
    """Differentiate (`tapeflow-enzyme`, then `tapeflow-recompute-loads` if asked)
    and record the tape's size on the gradients (`tapeflow-measure-tape`), unless
    done: the variant's pipeline then finds them differentiated."""
    if tape_bytes(module) is not None:
        return
    front = _FRONT_END if recompute else _FRONT_END[:1]
    try:
        parse_pipeline(",".join([*front, "tapeflow-measure-tape"])).apply(ctx, module)
    except AlreadyLowered:
        raise SimulationError(
            "the module is already lowered: the simulator takes a module at the "
            "Enzyme-gradient stage (or a primal with enzyme.autodiff) and applies the "
            "variant's passes itself"
        ) from None


def measured_tape(module: builtin.ModuleOp) -> int:
    """The tape's size in bytes that `tapeflow-measure-tape` recorded on the
    module's gradients (`lowering.ir.facts.tape_bytes`)."""
    found = tape_bytes(module)
    assert found is not None, "prepare measures the tape before it lowers"
    return found


def unroll_used(module: builtin.ModuleOp) -> int:
    """The unroll factor that ran: the largest any tape loop got (1: none)."""
    return max(unroll_factors(module), default=1)


@contextmanager
def _without_gc_pauses() -> Iterator[None]:
    """Python's cycle collector off for a while. A run allocates millions of
    short-lived objects (floats, tuples, windows) that reference counting frees,
    and no cycles; but each allocation burst triggers collections that walk
    every live object, the compiled module's IR included, which cost up to half
    of a run's time. A lowering makes cycles (an erased op and its uses), but
    each collection during it walks the whole module again: a quarter of the
    time of lowering a fully unrolled kernel, against one collection after.
    That collection frees what the lowering erased; moving the pause's objects
    to the oldest generation unwalked (`gc.freeze`, `gc.unfreeze`) would leave
    it to full collections, which cost more (docs/evaluation.md)."""
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
    timeline: dict[str, Any] | None = None
    """The trace-event timeline (`sim/timeline.py`), if asked for."""


def run_key(hardware: Hardware, model: str = DEFAULT_MODEL) -> Hardware:
    """`hardware` without what `evaluate` may change nor what `model`'s lowering
    and run ignore (`TimingModel.run_hardware`): one lowering and run of a module
    serves every machine of equal run key, each evaluated on its own. With a
    scratchpad and `mapping.stream_by_cost`, `tapeflow-layers`' cost model reads
    the cache's size, lines and MSHRs, the DRAM latency and its bytes per cycle
    (bandwidth and clock): they stay (machines that differ in them only,
    `lowering_key`, share a run where the cost model's choices agree,
    `stream_choices`)."""
    hardware = get_model(model).run_hardware(hardware)
    kept = _evaluated(hardware)
    if hardware.mapping.stream_by_cost and hardware.scratchpad.size_bytes > 0:
        cache = replace(hardware.cache, assoc=0, lru_on_write=True)
        kept = replace(kept, cache=cache, dram=hardware.dram, clock_ghz=hardware.clock_ghz)
    return kept


def lowering_key(hardware: Hardware, model: str = DEFAULT_MODEL) -> Hardware:
    """`run_key` without the numbers `tapeflow-layers`' cost model reads (that
    `evaluate` may change otherwise): machines of equal lowering key and equal
    `StreamChoice` lower and run a module alike."""
    return _evaluated(get_model(model).run_hardware(hardware))


def _evaluated(hardware: Hardware) -> Hardware:
    """`hardware` without what `evaluate` may change."""
    cache = replace(hardware.cache, size_bytes=0, assoc=0, line_bytes=0, mshrs=0, lru_on_write=True)
    return replace(
        hardware,
        name="",
        clock_ghz=0.0,
        cache=cache,
        dram=DramConfig(0.0, 0),
        energy=ENERGY_PRESETS["paper"],
    )


def execute(
    module: builtin.ModuleOp,
    function: str,
    args: list[Any],
    hardware: Hardware,
    tape_bytes: int,
    fast: bool = True,
    *,
    variant: str | None = None,
    unroll: int = 1,
    model: str = DEFAULT_MODEL,
    timeline: bool = False,
    addresses: Sequence[int | None] = (),
    choices: StreamChoices | None = None,
) -> Execution:
    """Run a prepared module; `args` as `tapeflow_tools.tapeflow_run.bind_arguments` makes them.
    `fast=False` runs the kernel loops with the closure executor (the reference
    the compiled kernel loops are tested against; same results, slower).
    `hardware` and `model` as given to `prepare`; `variant`, `unroll` and `model`
    are recorded in every report of the run; `timeline` also records what a
    timeline shows (`sim/timeline.py`). `addresses`: per argument, the address its
    program puts it at (None: none), kept on a machine with the program's memory
    map (`placement.heap`) and ignored on others. `choices`: the cost model's
    choices for the module (`stream_choices`) on the machines to evaluate it on
    that differ from `hardware` in what the cost model reads (`evaluate`)."""
    check_model(model)
    lowered_for = prepared_model(module)
    if lowered_for is not None and lowered_for != model:
        raise SimulationError(
            f"the module was prepared for the {lowered_for} model and is run under {model}: "
            f"the models lower a variant for different machines; prepare it under {model}"
        )
    check_model(model, hardware)
    placement = hardware.placement
    trace = MemoryTrace(base=placement.base, alignment=placement.alignment, heap=placement.heap)
    if placement.heap:
        _place_arguments(trace, args, addresses)
    timing = TimingRecorder(trace, hardware, planner=get_model(model).planner())
    executor = Executor(module, trace, timing, fast=fast)
    if timeline:
        timing.collect(lambda: spad.entries_full if (spad := executor.scratchpad) else 0)
    started = time.perf_counter()
    with _without_gc_pauses():
        results = executor.run(function, args)
        timing.finish()
        timing.spad_peak_entries = executor.stats["spad_peak_entries_full"]
        timing.tape_high_water_bytes = executor.stats["tape_high_water_bytes"]
        addresses, writes, tape_flags = trace.arrays()
        roles = AccessRoles(trace, addresses, tape_flags)
    seconds = time.perf_counter() - started
    outputs = {f"arg{i}": a for i, a in enumerate(args) if isinstance(a, np.ndarray)}
    outputs.update({f"result{i}": np.asarray(v) for i, v in enumerate(results)})
    return Execution(
        outputs,
        hardware,
        tape_bytes,
        timing,
        addresses,
        writes,
        roles,
        seconds,
        trace,
        model=model,
        variant=variant,
        unroll=unroll_used(module) if unroll > 1 else 1,
        unroll_requested=unroll,
        unroll_factors=unroll_factors(module),
        choices=dict(choices or {}),
    )


def _place_arguments(trace: MemoryTrace, args: list[Any], addresses: Sequence[int | None]) -> None:
    """Put each argument with an address there (`MemoryTrace.place`)."""
    if len(addresses) > len(args):
        raise SimulationError(
            f"{len(addresses)} argument addresses given for {len(args)} arguments"
        )
    for position, (arg, address) in enumerate(zip(args, addresses, strict=False)):
        if address is None:
            continue
        if not isinstance(arg, np.ndarray):
            raise SimulationError(f"argument {position} has an address but is not a buffer")
        try:
            trace.place(arg, address)
        except ValueError as error:
            raise SimulationError(f"argument {position}: {error}") from None


def replay_caches(execution: Execution, caches: Iterable[CacheConfig]) -> None:
    """Replay `execution`'s trace through each of `caches` not yet replayed, one
    replay for all the caches of one line size and number of sets
    (`sim.cache.simulate_caches`), for `evaluate` to find: a sweep over the
    cache gives its caches here first."""
    todo = [c for c in dict.fromkeys(caches) if c not in execution.replays]
    if not todo:
        return
    with _without_gc_pauses():
        runs = execution.trace.loop_runs()
        execution.replays.update(
            simulate_caches(execution.addresses, execution.writes, todo, runs=runs)
        )


def evaluate(
    execution: Execution,
    hardware: Hardware | None = None,
    on_windows: Callable[[WindowTimes], None] | None = None,
) -> dict[str, Any]:
    """The report of `execution` on `hardware` (default: the one it ran on), which
    may differ from it in the cache (but for its hit latency and ports), the DRAM,
    the clock and the energy model only (and in what the run's model ignores,
    `run_key`): the schedule and the trace do not depend on them. `on_windows`
    hears what each window was charged (`sim.timing.report`)."""
    hardware = hardware or execution.hardware
    check_model(execution.model, hardware)
    _check_run(execution, hardware)
    started = time.perf_counter()
    cache = execution.replays.get(hardware.cache)
    if cache is None:
        with _without_gc_pauses():
            cache = simulate_cache(
                execution.addresses,
                execution.writes,
                hardware.cache,
                runs=execution.trace.loop_runs(),
            )
        execution.replays[hardware.cache] = cache
    # Another energy preset changes the energy alone: the rest of the report is
    # the one this cache already gave (a sweep asks for every cache under each).
    key = replace(hardware, name="", energy=execution.hardware.energy)
    timed = execution.reports.get(key) if on_windows is None else None
    if timed is None:
        with _without_gc_pauses():  # the streams' transfers: a tuple per tile
            timed = report(
                execution.recorder,
                cache,
                execution.roles,
                hardware,
                execution.tape_bytes,
                execution.model,
                on_windows,
            )
        execution.reports[key] = timed
    data = plain_copy(timed)
    data["energy_pj"] = energy_pj(data, hardware)
    data["hardware"] = hardware_record(
        hardware,
        model=execution.model,
        variant=execution.variant,  # type: ignore[arg-type]
        unroll=execution.unroll,
        unroll_requested=execution.unroll_requested,
        simulated=get_model(execution.model).fields,
    )
    data["unroll_factors"] = list(execution.unroll_factors)
    seconds = execution.seconds + time.perf_counter() - started
    ops = data["ops"]["total"]  # type: ignore[index]
    data["simulator"] = {
        "seconds": seconds,
        "ops_per_second": ops / seconds if seconds > 0 else 0.0,
        "accesses": len(execution.addresses),
    }
    return data


_ATOMIC = frozenset({int, float, str, bool, type(None)})


def plain_copy(value: Any) -> Any:
    """A copy of `value` as `copy.deepcopy` makes it, five times faster for what a
    report holds (dicts and lists of numbers, strings and None): no memo (a
    report shares no container between two places), leaves kept as they are;
    anything else deep-copied."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _ATOMIC else plain_copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMIC else plain_copy(v) for v in value]
    if kind in _ATOMIC:
        return value
    return deepcopy(value)


def _check_run(execution: Execution, hardware: Hardware) -> None:
    """Raise `SimulationError` unless `execution`'s lowering and run serve
    `hardware`: an equal `run_key`, or an equal `lowering_key` and the cost model's
    choice on it the run's (`Execution.choices`)."""
    model, ran = execution.model, execution.hardware
    if hardware is ran:  # the machine it ran on (what `evaluate` takes by default)
        return
    key = run_key(hardware, model)
    if key == run_key(ran, model):
        return
    if lowering_key(hardware, model) != lowering_key(ran, model):
        raise SimulationError(
            f"{hardware.name} differs from {ran.name}, on which the module was lowered "
            "and run, in what the schedule depends on (grid, latencies, cache hit "
            f"latency or ports, scratchpad) under {model}"
        )
    mine, theirs = execution.choices.get(key), execution.choices.get(run_key(ran, model))
    if mine is None or theirs is None:
        raise SimulationError(
            f"{hardware.name} differs from {ran.name}, on which the module was lowered "
            "and run, in the cache or DRAM numbers tapeflow-layers' cost model reads, and "
            "its choices on both are not known (give execute the stream_choices)"
        )
    if mine != theirs:
        raise SimulationError(
            f"tapeflow-layers' cost model streams other nests on {hardware.name} than on "
            f"{ran.name}, on which the module was lowered and run: lower it for "
            f"{hardware.name}"
        )


def simulate(
    module: builtin.ModuleOp,
    function: str,
    args: list[Any],
    hardware: Hardware,
    tape_bytes: int,
    fast: bool = True,
    *,
    variant: str | None = None,
    unroll: int = 1,
    model: str = DEFAULT_MODEL,
    timeline: bool = False,
    addresses: Sequence[int | None] = (),
) -> Simulation:
    """Run a prepared module and report on `hardware` (`fast`, `variant`,
    `unroll`, `model`, `timeline` and `addresses` as for `execute`); with
    `timeline`, the `Simulation` holds the trace-event timeline of the run."""
    execution = execute(
        module,
        function,
        args,
        hardware,
        tape_bytes,
        fast,
        variant=variant,
        unroll=unroll,
        model=model,
        timeline=timeline,
        addresses=addresses,
    )
    if not timeline:
        return Simulation(execution.outputs, evaluate(execution), execution.trace)
    charged: list[WindowTimes] = []
    data = evaluate(execution, on_windows=charged.append)
    events = trace_events(execution, charged[0], data)
    return Simulation(execution.outputs, data, execution.trace, events)


__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "VARIANTS",
    "Execution",
    "LoweringMemo",
    "Simulation",
    "SimulationError",
    "StreamChoice",
    "StreamChoices",
    "check_model",
    "check_schedulable",
    "unroll_factors",
    "unroll_used",
    "evaluate",
    "execute",
    "lowering_key",
    "prepare",
    "replay_caches",
    "run_key",
    "simulate",
    "stream_choices",
    "unused_hardware",
]
