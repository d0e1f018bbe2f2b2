"""
Running the points an evaluation needs: from the disk cache when they are there,
otherwise group by group (one lowering and run per group, one replay per cache
and energy preset), in parallel processes, with a progress bar.

A group runs from its kernel (built-in, or a user's file: `points.KernelSource`)
through `tapeflow-enzyme`, the variant's passes and the simulator (`prepare`,
`execute`, `evaluate`) under its timing model; each result is cached as its group
finishes, so an interrupted run loses only the groups in flight. Groups that
differ only in their model form one job and share the passes before the first
that takes the machine's parameters (`sim.simulator.LoweringMemo`); a kernel's
unrolled groups of every variant form one job too, whose lowerings share the
modulo schedules of alike bodies (`_unrolled_alike`); groups whose
lowering and run are the same (equal `sim.simulator.run_key`, or machines on which
`tapeflow-layers`' cost model makes the same choices) share one run, each point
still evaluated on its own machine. A group's numbers depend only on the
group, never on where it ran (`run_points(pool=...)` takes a Dask executor too).

Local workers leave Ctrl-C to the parent and end with it (`workers.py`); the
groups of a lost worker run again, each alone, then fail (`LOST`); a run out of
memory fails with its phase and peak; a report not of the shape of one
(`result_cache.check_report`) is a failed run.
"""

from __future__ import annotations

import io
import json
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import numpy as np
from tqdm import tqdm
from xdsl.dialects import builtin, memref, scf

from lowering.ir.bulk import release_tree
from lowering.ir.gradients import gradient_functions
from lowering.ir.loops import trip_count
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from sim import simulator
from sim.models import DEFAULT_MODEL
from sim.tape_warnings import kept_regions
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_benchmarks.harness.points import Group, KernelSource, Point, grouped
from tapeflow_benchmarks.harness.result_cache import (
    ResultCache,
    SchemaError,
    check_report,
)
from tapeflow_benchmarks.harness.workers import local_pool, signals_held, stopped_on_interrupt
from tapeflow_benchmarks.kernels import ALL_KERNELS
from tapeflow_tools.arguments import bind_arguments, check_function
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import entering, out_of_memory, verify_located
from tapeflow_tools.frontend import parse_module_text
from tapeflow_tools.interrupt import killed_here
from targets.hardware import Hardware

Report = dict[str, Any]

_COST = {  # relative run time of each kernel at paper size, to start long groups first
    "lenet": 40,
    "matdescent": 6,
    "gravity": 6,
    "pathfinder": 5,
    "massspring": 2,
    "somier": 1.5,
    "nn": 1,
    "logsum": 1,
    "mttkrp": 1,
}


@cache
def _differentiated(kernel: str, size: str) -> builtin.ModuleOp:
    """The kernel's module after the real Enzyme (once per process; clone it)."""
    ctx = make_context()
    module = parse_kernel(ctx, kernel, size)
    TapeflowEnzymePass().apply(ctx, module)
    return module


def _tensors_per_loop(module: builtin.ModuleOp) -> float:
    """Distinct buffers read or written per innermost loop of the gradients, on
    average (Table II's "tensors/loop")."""
    counts = []
    for function in gradient_functions(module):
        for loop in function.walk():
            if not isinstance(loop, scf.ForOp) or any(
                isinstance(o, scf.ForOp) for o in loop.body.walk()
            ):
                continue
            buffers = {
                o.memref for o in loop.body.walk() if isinstance(o, memref.LoadOp | memref.StoreOp)
            }
            if buffers:
                counts.append(len(buffers))
    return sum(counts) / len(counts) if counts else 0.0


def _cost(group: Group) -> float:
    """Relative run time, to start the longest groups first (fully unrolled
    groups are the longest of all)."""
    return _COST.get(group.kernel, 1) * max(1, min(group.unroll, 256) // 4)


def parse_source(source: KernelSource) -> builtin.ModuleOp:
    """A user's kernel as the tools read its file (located diagnostics)."""
    module = parse_module_text(make_context(), source.text, source.file)
    verify_located(module)
    return module


@cache
def _user_differentiated(source: KernelSource) -> builtin.ModuleOp:
    """A user's kernel after the real Enzyme (once per process; clone it)."""
    ctx = make_context()
    module = parse_source(source)
    TapeflowEnzymePass().apply(ctx, module)
    return module


def source_inputs(source: KernelSource) -> dict[str, np.ndarray]:
    """The arrays of a user's kernel's inputs archive (checked when the sweep
    was read)."""
    if not source.inputs:
        return {}
    with np.load(io.BytesIO(source.inputs), allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def _source(group: Group) -> tuple[builtin.ModuleOp, bool]:
    """`group`'s kernel after Enzyme, as this process keeps it (read it, or lower
    a copy), and whether its loads are recomputed (`tapeflow-recompute-loads`)."""
    if group.source is None:
        recompute = ALL_KERNELS[group.kernel].recomputes(group.size, group.variant)
        return _differentiated(group.kernel, group.size), recompute
    return _user_differentiated(group.source), False


def _source_module(group: Group) -> tuple[builtin.ModuleOp, bool]:
    """A copy of `group`'s kernel after Enzyme, and whether its loads are
    recomputed (`tapeflow-recompute-loads`)."""
    source, recompute = _source(group)
    return source.clone(), recompute


@dataclass
class _Lowered:
    module: builtin.ModuleOp
    tape_bytes: int
    function: str
    args: list[Any]
    stats: dict[str, float]
    seconds: float
    addresses: list[int | None]
    """Per argument, where its program puts it (`Kernel.argument_addresses`)."""
    kept: dict[str, str]
    """The regions `tapeflow-layers` kept in DRAM, with why (`kept_regions`)."""


def _lower(
    group: Group, points: list[Point], memo: simulator.LoweringMemo | None = None
) -> _Lowered:
    """The group's module through Enzyme and the variant's passes (`memo`: shared
    by the lowerings of one kernel, `sim.simulator.LoweringMemo`)."""
    started = time.perf_counter()
    entering("lowering it (Enzyme and the variant's passes)")
    ctx = make_context()
    source = group.source
    differentiated, recompute = _source(group)
    stats: dict[str, float] = {}
    if group.variant == "enzyme" and group.unroll == 1:
        stats["tensors_per_loop"] = _tensors_per_loop(differentiated)
    hardware = points[0].hardware()
    served = memo is not None and memo.serves(
        ctx, group.variant, hardware, group.unroll, group.model, recompute
    )
    # A lowering the memo serves takes its module (`prepare`): no copy to make.
    module = builtin.ModuleOp([]) if served else differentiated.clone()
    tape_bytes = simulator.prepare(
        ctx, module, group.variant, hardware, group.unroll, group.model, memo, recompute=recompute
    )
    if source is None:
        function = f"{group.kernel}_grad"
        args = caller_arguments(module, group.kernel, group.size)
        addresses = ALL_KERNELS[group.kernel].argument_addresses(group.size)
    else:
        function = source.function
        args = bind_arguments(check_function(module, function), source_inputs(source))
        addresses = list(source.addresses)
    if stats:
        stats["inputs_bytes"] = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
    kept = kept_regions(module) if group.variant == "tapeflow" else {}
    return _Lowered(
        module, tape_bytes, function, args, stats, time.perf_counter() - started, addresses, kept
    )


def _simulate(
    runs: list[tuple[Group, list[Point]]],
    lowered: _Lowered,
    choices: simulator.StreamChoices,
) -> dict[Point, Report]:
    """Run the lowered module under its model once; one report per point of every
    group in `runs` (groups of one run, `run_bundle`), each evaluated on its own
    machine (`choices`: the cost model's, for those that differ from the first in
    what it reads)."""
    started = time.perf_counter()
    group, points = runs[0]
    hardware = points[0].hardware()
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in lowered.args]
    stats = dict(lowered.stats)
    entering("simulating it")
    execution = simulator.execute(
        lowered.module,
        lowered.function,
        args,
        hardware,
        lowered.tape_bytes,
        variant=group.variant,
        unroll=group.unroll,
        model=group.model,
        addresses=lowered.addresses,
        choices=choices,
    )
    if stats:
        # Distinct lines counted on the sorted lines (np.unique, which hashes,
        # takes 60x longer on a million distinct lines).
        lines = np.sort(execution.addresses >> 6)
        distinct = int(lines.size > 0) + int(np.count_nonzero(lines[1:] != lines[:-1]))
        stats["working_set_bytes"] = distinct * 64
    finite = all(np.all(np.isfinite(v)) for v in execution.outputs.values())
    entering("evaluating its caches and energy")
    every = [p for _, group_points in runs for p in group_points]
    simulator.replay_caches(execution, (p.hardware().cache for p in every))
    reports = {}
    for point in every:
        report = simulator.evaluate(execution, point.hardware())
        record = json.loads(json.dumps(point.record()))  # as JSON reads back
        # What ran: a loop takes the largest divisor of its trip count up to the
        # point's factor (recorded beside it as `unroll_requested`).
        record["unroll"] = report["hardware"].get("unroll", record["unroll"])
        report["hardware"] = record
        report["kernel_stats"] = stats
        report["outputs_finite"] = bool(finite)
        report["kept_regions"] = _kept_on(lowered.kept, choices, hardware, point)
        reports[point] = report
    seconds = lowered.seconds + time.perf_counter() - started
    for report in reports.values():
        report["group_seconds"] = seconds
    return reports


def _kept_on(
    kept: dict[str, str], choices: simulator.StreamChoices, ran: Hardware, point: Point
) -> dict[str, str]:
    """The regions kept in DRAM with why (`kept`, as lowered on `ran`), as `point`'s
    lowering would give them: a nest the cost model kept names `point`'s numbers."""
    model = point.group.model
    mine = choices.get(simulator.run_key(point.hardware(), model))
    theirs = choices.get(simulator.run_key(ran, model))
    if mine is None or theirs is None:
        return dict(kept)
    pairs = theirs.kept_reasons(mine)
    assert pairs is not None, "run_bundle shares a run only where the reasons pair"
    return {region: pairs.get(reason, reason) for region, reason in kept.items()}


def _failed(points: list[Point], err: Exception) -> dict[Point, Report]:
    message = out_of_memory(err) if isinstance(err, MemoryError) else f"{type(err).__name__}: {err}"
    return {p: {"error": message.strip()} for p in points}


def _run_identity(group: Group, points: list[Point]) -> tuple[Any, ...]:
    """What one lowering and run of `group` depend on: the kernel, variant,
    unroll factor (as it unrolls the kernel's loops, `_unrolling`) and model, and
    the machine as the model's lowering and run read it but for the cost model's
    numbers (`sim.simulator.lowering_key`; `run_bundle` tells their choices
    apart). Groups of equal identity share one run: under `salam`, TapeFlow at every
    scratchpad size (its bins hold the whole tape); a built-in kernel unrolled by
    16 and fully, when its loops have at most 16 iterations."""
    return (
        group.kernel,
        group.size,
        group.source,
        group.variant,
        _unrolling(group, _primal_trips),
        group.model,
        simulator.lowering_key(points[0].hardware(), group.model),
    )


def _loop_trips(module: builtin.ModuleOp) -> tuple[int, ...] | None:
    """The trip count of every `scf.for` of `module`, or None if one is not
    constant or the module has an `scf.while`."""
    trips = []
    for op in module.walk():
        if isinstance(op, scf.WhileOp):
            return None
        if isinstance(op, scf.ForOp):
            count = trip_count(op)
            if count is None:
                return None
            trips.append(count)
    return tuple(sorted(set(trips)))


@cache
def _primal_trips(kernel: str, size: str) -> tuple[int, ...] | None:
    """`_loop_trips` of a built-in kernel's module as written (cheap: no Enzyme)."""
    return _loop_trips(parse_kernel(make_context(), kernel, size))


@cache
def _gradient_trips(kernel: str, size: str) -> tuple[int, ...] | None:
    """`_loop_trips` of a built-in kernel's module after Enzyme (once per process)."""
    return _loop_trips(_differentiated(kernel, size))


def _unrolling(group: Group, trips_of: Callable[[str, str], tuple[int, ...] | None]) -> int:
    """The smallest unroll factor that unrolls `group`'s kernel as its own does,
    given the trip counts of its loops (`trips_of`). `tapeflow-unroll` unrolls a
    loop group by the largest divisor of the gcd of its trip counts up to the
    factor, so factors u and u' > u unroll alike if no divisor of a trip count
    lies in (u, u']: the factor taken is the largest such divisor up to the
    group's (at least 2: factor 1 unrolls nothing and records nothing). A user's
    kernel, or one whose loops are not all of constant trip count, keeps its own."""
    if group.unroll < 2 or group.source is not None:
        return group.unroll
    trips = trips_of(group.kernel, group.size)
    if trips is None:
        return group.unroll
    divisors = {d for t in trips for d in range(2, min(t, group.unroll) + 1) if t % d == 0}
    return max(divisors, default=group.unroll)


def run_runs(
    runs: list[tuple[Group, list[Point]]],
    memo: simulator.LoweringMemo | None = None,
    choices: simulator.StreamChoices | None = None,
) -> dict[Point, Report]:
    """Groups of one run (`run_bundle`): lowered and run once (as the first
    group's first point), every point evaluated (`choices`: the cost model's on
    the points' machines, `sim.simulator.stream_choices`). A failure gives every
    point a report with an `error` key."""
    points = [p for _, group_points in runs for p in group_points]
    try:
        group, group_points = runs[0]
        lowered = _lower(group, group_points, memo)
        reports = _simulate(runs, lowered, choices or {})
    except Exception as err:  # noqa: BLE001 -- reported per point, the run goes on
        return _failed(points, err)
    # Freed by reference counting, not walked by the cycle collector to be found
    # garbage (`lowering.ir.bulk.release_tree`): the module is read no more.
    release_tree(lowered.module)
    return reports


def run_group(group: Group, points: list[Point]) -> dict[Point, Report]:
    """Lower and run `group` once; one report per point (each its own cache and
    energy preset). A failure gives every point a report with an `error` key."""
    return run_bundle([(group, points)])


Run = list[tuple[Group, list[Point]]]
"""The groups (with their points) one lowering and run serves."""


def run_bundle(bundle: list[tuple[Group, list[Point]]]) -> dict[Point, Report]:
    """Groups that share the kernel (often differing only in their timing model),
    run one after another. Groups of equal run identity (`_run_identity`) share
    one lowering and run where the machines' run keys are equal
    (`sim.simulator.run_key`), or where they differ only in the numbers
    `tapeflow-layers`' cost model reads and its choices agree
    (`sim.simulator.stream_choices`, asked only then)."""
    classes: dict[tuple[Any, ...], Run] = {}
    for group, points in bundle:
        parts: dict[Hardware, list[Point]] = {}
        for point in points:
            parts.setdefault(simulator.lowering_key(point.hardware(), group.model), []).append(
                point
            )
        for part in parts.values():
            identity = _run_identity(group, part)
            if _unrolling(group, _gradient_trips) != identity[4]:
                # Checked on the gradient, whose loops the pass unrolls: if the primal's
                # trip counts mislead, the group runs on its own.
                identity = (*identity[:4], group.unroll, *identity[5:])
            classes.setdefault(identity, []).append((group, part))
    # Copies of one kernel's module: the passes before the first that takes the
    # machine's parameters run once for all the runs.
    kernels = {(g.kernel, g.size, g.source) for g, _ in bundle}
    memo = simulator.LoweringMemo(0) if len(kernels) == 1 else None
    choices: simulator.StreamChoices = {}
    runs: list[Run] = []
    for members in classes.values():
        keys = {simulator.run_key(p.hardware(), g.model) for g, ps in members for p in ps}
        if len(keys) > 1:
            choices.update(_stream_choices(members, memo))
        runs += _shared_runs(members, choices)
    if memo is not None:
        memo.left = len(runs)
    return {p: r for run in runs for p, r in run_runs(run, memo, choices).items()}


def _stream_choices(members: Run, memo: simulator.LoweringMemo | None) -> simulator.StreamChoices:
    """The cost model's choices on the machines of `members` (groups of one run
    identity, lowered alike up to `tapeflow-layers`); none if that fails (each run
    then lowers on its own and reports the failure)."""
    group = members[0][0]
    module, recompute = _source_module(group)  # stream_choices may lower it in place
    machines = [p.hardware() for _, points in members for p in points]
    try:
        return simulator.stream_choices(
            make_context(),
            module,
            group.variant,
            machines,
            group.unroll,
            group.model,
            memo,
            recompute,
        )
    except Exception:  # noqa: BLE001 -- the runs' own lowerings report it
        return {}


def _shared_runs(members: Run, choices: simulator.StreamChoices) -> list[Run]:
    """`members` (groups of one run identity) split into runs: points of equal run
    key, or of equal cost-model choice (`choices`) whose kept nests' reasons pair
    (`StreamChoice.kept_reasons`, for `_kept_on`)."""
    runs: list[tuple[Any, Run]] = []
    for group, points in members:
        for point in points:
            key = simulator.run_key(point.hardware(), group.model)
            choice = choices.get(key)
            run = next(
                (
                    run
                    for first, run in runs
                    if first == key
                    or (
                        choice is not None
                        and choices.get(first) == choice
                        and choices[first].kept_reasons(choice) is not None
                    )
                ),
                None,
            )
            if run is None:
                run = []
                runs.append((key, run))
            if run and run[-1][0] == group:
                run[-1][1].append(point)
            else:
                run.append((group, [point]))
    return [run for _, run in runs]


def _run_group_job(bundle: list[tuple[Group, list[Point]]]) -> list[tuple[Point, Report]]:
    killed_here(f"worker:{bundle[0][0].kernel}")
    return list(run_bundle(bundle).items())


def _checked(report: Report) -> Report:
    if "error" in report:
        return report
    try:
        check_report(report)
    except SchemaError as err:
        return {"error": f"the simulator's report is malformed: {err}"}
    return report


@dataclass
class RunSummary:
    points: int = 0
    cached: int = 0
    computed_groups: int = 0
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0


def bundle_label(bundle: list[tuple[Group, list[Point]]]) -> str:
    """The runs of one job, labelled per variant with every model that times them:
    `logsum/small enzyme [cgra+salam]`; `pathfinder/paper enzyme unroll full
    [cgra+salam] & tapeflow spad 512B unroll full [cgra+salam]`."""
    variants: dict[str, list[Group]] = {}
    for group, _ in bundle:
        variants.setdefault(group.variant, []).append(group)
    labels = []
    for groups in variants.values():
        models = dict.fromkeys(g.model for g in groups)
        label = replace(groups[0], model="+".join(models)).label()
        others = len(groups) - len(models)
        labels.append(f"{label} (+{others} groups sharing a run)" if others else label)
    first = f"{bundle[0][0].kernel}/{bundle[0][0].size} "
    return " & ".join([labels[0], *(label.removeprefix(first) for label in labels[1:])])


Job = tuple[Group, list[tuple[Group, list[Point]]]]
"""A bundle of groups run by one worker (`run_bundle`), under its key."""

LOST = (
    "the worker process running it was lost twice, killed from outside: most often by "
    "the system's out-of-memory killer, when the machine runs out of memory; the "
    "finished runs are cached, and the same command retries it (fewer --jobs leave "
    "more memory to each run)"
)


def _drive(
    executor: Executor,
    pending: list[Job],
    jobs: int,
    finished: Callable[[list[tuple[Point, Report]]], None],
    bar: tqdm,
    alone: set[Group],
) -> list[Job]:
    """Run the jobs of `pending` (taken from its front) on `executor`, `jobs` at a
    time, a job whose key is in `alone` with no other beside it (a lost worker is
    then its own). Returns the jobs lost if the pool broke (a worker process
    died), the others left in `pending`; empty once every job has run."""
    running: dict[Future[list[tuple[Point, Report]]], Job] = {}
    lost: list[Job] = []
    try:
        while (pending or running) and not lost:
            while pending and len(running) < jobs and not _crowded(pending[0], running, alone):
                job = pending.pop(0)
                try:
                    with signals_held():  # a local pool forks its workers here
                        running[executor.submit(_run_group_job, job[1])] = job
                except BrokenProcessPool:
                    lost.append(job)
                    break
            if not running:
                break
            bar.set_postfix_str(" | ".join(bundle_label(b) for _, b in running.values()))
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                job = running.pop(future)
                try:
                    pairs = future.result()
                except BrokenProcessPool:
                    lost.append(job)
                    continue
                except Exception as err:  # noqa: BLE001 - a worker lost, not a run's error
                    message = f"the worker running it failed: {type(err).__name__}: {err}"
                    pairs = [(p, {"error": message.strip()}) for _, ps in job[1] for p in ps]
                finished(pairs)
    except KeyboardInterrupt:
        for future in running:
            future.cancel()
        raise
    if not lost:
        return []
    for future in [f for f in running if f.done() and f.exception() is None]:
        running.pop(future)
        finished(future.result())  # finished before the pool broke
    return [*lost, *running.values()]


def _crowded(job: Job, running: dict[Any, Job], alone: set[Group]) -> bool:
    """Whether `job` must wait: it runs alone, or beside one that does."""
    return bool(running) and (job[0] in alone or any(g in alone for g, _ in running.values()))


def _run_local(
    todo: list[Job],
    jobs: int,
    finished: Callable[[list[tuple[Point, Report]]], None],
    bar: tqdm,
) -> None:
    """Run `todo` in `jobs` local processes. The jobs a lost worker process took
    down with it (SIGKILL, as the out-of-memory killer sends) run again in a fresh
    pool, each alone; one lost a second time fails with `LOST`."""
    pending = list(todo)
    retried: set[Group] = set()
    while pending:
        with stopped_on_interrupt(local_pool(jobs)) as executor:
            lost = _drive(executor, pending, jobs, finished, bar, retried)
        again = [job for job in lost if job[0] not in retried]
        if again:
            bar.write(
                "tapeflow-bench: a worker process was lost (killed from outside); the "
                f"runs in flight then ({', '.join(bundle_label(b) for _, b in again)}) "
                "run again, one at a time",
                file=sys.stderr,
            )
        for group, bundle in lost:
            if group in retried:
                finished([(p, {"error": LOST}) for _, points in bundle for p in points])
        retried.update(g for g, _ in again)
        pending[:0] = again


def planned_jobs(points: Iterable[Point]) -> list[Job]:
    """The jobs that compute `points`, in the order they start (longest first,
    `_cost`): groups of one run (`_run_identity`) go to the same worker, which
    runs them once; otherwise a group joins the groups that differ from it only
    in the timing model, and the unrolled groups of one kernel join whatever
    their variant (`_unrolled_alike`)."""
    runs: dict[Group, list[tuple[Group, list[Point]]]] = {}
    bundle_of_run: dict[tuple[Any, ...], Group] = {}
    for group, group_points in grouped(list(points)).items():
        key = bundle_of_run.setdefault(
            _run_identity(group, group_points), replace(group, model=DEFAULT_MODEL)
        )
        runs.setdefault(key, []).append((group, group_points))
    bundles: dict[Group, list[tuple[Group, list[Point]]]] = {}
    bundle_of_unrolled: dict[tuple[Any, ...], Group] = {}
    for key, bundle in runs.items():
        alike = _unrolled_alike(key)
        if alike is not None:
            key = bundle_of_unrolled.setdefault(alike, key)
        bundles.setdefault(key, []).extend(bundle)
    return sorted(bundles.items(), key=lambda item: (-_cost(item[0]), item[0]))


def _unrolled_alike(group: Group) -> tuple[Any, ...] | None:
    """What the unrolled groups of one job share (None for a group not unrolled):
    the kernel, its size and the unroll factor (as it unrolls the kernel's loops,
    `_unrolling`). Their lowerings unroll the same
    loops, and where the variants place alike bodies (a nest the cost model keeps
    is placed as Enzyme's is) the modulo schedules found for one serve the others
    in the same process (`lowering.scheduling.scheduler.ScheduleMemo`): PathFinder's
    fully unrolled Enzyme and TapeFlow lowerings schedule the same 12,800-op body,
    about 10 s of CPU time each. The groups of a variant stay together, so that the
    lowering memo serves its second model (`sim.simulator.LoweringMemo`)."""
    unroll = _unrolling(group, _primal_trips)
    if unroll < 2:
        return None
    return (group.kernel, group.size, group.source, unroll, group.settings)


def run_points(
    points: Iterable[Point],
    results: ResultCache,
    jobs: int = 1,
    progress: bool = True,
    on_report: Callable[[Point, Report], None] | None = None,
    pool: Executor | Callable[[], tuple[Executor, int]] | None = None,
) -> tuple[dict[Point, Report], RunSummary]:
    """Every point's report, computing only those the cache lacks: in the calling
    process with `jobs` 1, in `jobs` local processes otherwise, or on `pool` (an
    executor the caller owns and shuts down; `jobs` groups are kept in flight).
    `pool` may also be a function that starts one and returns it with the groups
    to keep in flight: it is called only when a run is to be computed, so a
    command whose points are all cached starts no cluster."""
    started = time.perf_counter()
    summary = RunSummary()
    found: dict[Point, Report] = {}
    missing: list[Point] = []
    for point in set(points):
        summary.points += 1
        report = results.get(point)
        if report is None:
            missing.append(point)
        else:
            found[point] = report
            summary.cached += 1
    todo = planned_jobs(missing)
    bar = tqdm(
        total=sum(len(bundle) for _, bundle in todo),
        unit="run",
        disable=not progress,
        dynamic_ncols=True,
        desc="tapeflow-bench",
    )

    def finished(pairs: list[tuple[Point, Report]]) -> None:
        for point, report in pairs:
            report = _checked(report)
            found[point] = report
            if "error" in report:
                summary.failed.append(f"{point.label()}: {report['error']}")
            else:
                results.put(point, report)
            if on_report is not None:
                on_report(point, report)
        groups = len({p.group for p, _ in pairs})
        summary.computed_groups += groups
        bar.update(groups)

    try:
        if not todo:
            pass
        elif pool is None and (jobs <= 1 or len(todo) <= 1):
            for _, bundle in todo:
                bar.set_postfix_str(bundle_label(bundle))
                finished(_run_group_job(bundle))
        elif pool is None:
            _run_local(todo, jobs, finished, bar)
        else:
            executor, jobs = (pool, jobs) if isinstance(pool, Executor) else pool()
            _drive(executor, list(todo), jobs, finished, bar, set())  # only a local pool breaks
    finally:
        bar.close()
    summary.seconds = time.perf_counter() - started
    return found, summary


__all__ = [
    "Report",
    "ResultCache",
    "RunSummary",
    "bundle_label",
    "planned_jobs",
    "run_bundle",
    "run_group",
    "run_points",
]
