"""
`python -m tapeflow_benchmarks.speed [--kernels lenet,logsum,pathfinder] [--repeat 3]
[--caches] [--jobs-of quick|full] [--evaluation [--full] [--eval-jobs N] [--against
CHECKOUT]] [--suite]`: how long the project's own loops take.

- the simulator against `tapeflow-run`'s fast path, per kernel at paper size: one
  gradient (the Enzyme32k configuration's, lowered once), then the best of
  `--repeat` runs of each: the executor alone (`Executor(module).run`, what
  `tapeflow-run` does after loading) and the simulator (`execute` with the trace
  and the timing, then `evaluate`: the cache replay and the report); the ratio
  is the simulator's time over the executor's. Both build their code on every
  repeat (a new `Executor` each: the functions' and kernel loops' generated
  Python compiled, the simulation's with its timing and trace records), and
  the time of each includes it and the freeing of what it made (the run's
  executor, the simulation's execution and report, dropped before the clock
  stops); neither includes the lowering (once, before) nor the arguments
  (made before the clock starts). Both are CPU seconds of this
  process (`time.process_time`), steadier than wall time on a shared machine;
  the median of each repeat's ratio (its run and its simulation back to back)
  is steadier still where the load changes between repeats;
- `--caches`: per kernel, that gradient's trace through the eight caches of the
  evaluation's cache sweep (Table III's ways), each replayed on its own with the
  proved hits skipped (`sim.cache.replay_reduced`, the method every size took
  before `simulate_caches`), against `simulate_caches` (numpy alone up to 8
  ways, one replay per number of sets beyond); CPU seconds of the best of
  `--repeat`, with identical results checked;
- `--jobs-of`: every job of the quick or full evaluation (`tapeflow-bench --no-cache`,
  `runner.planned_jobs`) run in this process in the order the workers take them, with
  its CPU seconds; then the total, the fully unrolled jobs' share, and the time
  `--jobs 2` would take on an idle machine, its two workers taking the jobs in
  that order (from these CPU seconds: the longest job sets its floor);
- `--evaluation`: `tapeflow-bench --quick --no-cache --jobs N` (`--eval-jobs`, 1 by
  default; the full evaluation: `--full`) in a subprocess: its wall time, its CPU
  time (user and system, the workers' included) and its largest process's peak
  memory. `--against CHECKOUT`: the same command run first from another checkout
  of the project (an earlier revision's, by `PYTHONPATH`), then from this one,
  back to back, with the ratios and every csv compared byte for byte;
- `--suite`: the wall time of the README's test command's pytest (`pytest -n auto`).

The machine may be shared: compare ratios of back-to-back runs, not seconds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.cache import CacheResult, replay_reduced, simulate_caches
from sim.executor import Executor
from sim.models import MODELS
from sim.simulator import evaluate, execute, prepare
from tapeflow_benchmarks.common import caller_arguments, chosen, parse_kernel
from tapeflow_benchmarks.harness.experiments import CACHE_SWEEP, DEFAULT_EXPERIMENTS, EXPERIMENTS
from tapeflow_benchmarks.harness.points import FULL_UNROLL, with_model
from tapeflow_benchmarks.harness.runner import bundle_label, planned_jobs, run_bundle
from tapeflow_benchmarks.kernels import KERNELS, PRESETS
from tapeflow_tools.context import make_context
from targets.hardware import CacheConfig, configure

ROOT = Path(__file__).resolve().parent.parent


def simulator_against_executor(
    key: str, preset: str, repeat: int
) -> tuple[float, float, float, int]:
    """(best executor seconds, best simulator seconds, median of the repeats'
    simulator over executor, dynamic ops) on `key`'s Enzyme32k gradient."""
    ctx = make_context()
    module = parse_kernel(ctx, key, preset)
    hardware = configure("Enzyme32k")
    tape_bytes = prepare(ctx, module, "enzyme", hardware)
    run_best = sim_best = float("inf")
    ratios: list[float] = []
    ops = 0
    for _ in range(repeat):
        args = caller_arguments(module, key, preset)
        started = time.process_time()
        Executor(module).run(f"{key}_grad", args)
        run = time.process_time() - started
        args = caller_arguments(module, key, preset)
        started = time.process_time()
        execution = execute(module, f"{key}_grad", args, hardware, tape_bytes, variant="enzyme")
        report = evaluate(execution)
        ops = report["ops"]["total"]
        del execution, report  # freed in this repeat's time, as the run's executor is in its
        sim = time.process_time() - started
        run_best, sim_best = min(run_best, run), min(sim_best, sim)
        ratios.append(sim / run)
    return run_best, sim_best, float(np.median(ratios)), ops


def replays_one_by_one_against_together(
    key: str, preset: str, repeat: int
) -> tuple[float, float, int]:
    """(CPU seconds of the sweep's caches replayed one by one, of `simulate_caches`,
    accesses) on `key`'s Enzyme32k trace; raises if a result differs."""
    ctx = make_context()
    module = parse_kernel(ctx, key, preset)
    hardware = configure("Enzyme32k")
    tape_bytes = prepare(ctx, module, "enzyme", hardware)
    args = caller_arguments(module, key, preset)
    execution = execute(module, f"{key}_grad", args, hardware, tape_bytes, variant="enzyme")
    addresses, writes = execution.addresses, execution.writes
    caches = [configure("Enzyme32k", cache_bytes=size).cache for size in CACHE_SWEEP]
    alone_best = together_best = float("inf")
    alone: dict[CacheConfig, CacheResult] = {}
    together: dict[CacheConfig, CacheResult] = {}
    for _ in range(repeat):
        started = time.process_time()
        alone = {c: replay_reduced(addresses >> 6, writes, c, True) for c in caches}
        alone_best = min(alone_best, time.process_time() - started)
        started = time.process_time()
        together = simulate_caches(addresses, writes, caches)
        together_best = min(together_best, time.process_time() - started)
    for cache in caches:
        a, b = alone[cache], together[cache]
        if not (
            np.array_equal(a.hit, b.hit)
            and np.array_equal(a.victim, b.victim)
            and np.array_equal(a.flushed, b.flushed)
            and (a.writebacks, a.miss_lines) == (b.writebacks, b.miss_lines)
        ):
            raise AssertionError(f"{key}: the replays of {cache} differ")
    return alone_best, together_best, len(addresses)


def evaluation_jobs(size: str, kernels: Sequence[str] = KERNELS) -> None:
    """`--jobs-of`: each job of the evaluation of `kernels` at `size`, timed in
    this process."""
    points = {
        with_model(p, model)
        for model in MODELS
        for name in DEFAULT_EXPERIMENTS
        if EXPERIMENTS[name].runs_under(model)
        for p in EXPERIMENTS[name].points(list(kernels), size)
    }
    print("| job | CPU s |")
    print("|---|---|")
    seconds: list[float] = []
    unrolled = 0.0
    for key, bundle in planned_jobs(points):
        started = time.process_time()
        run_bundle(bundle)
        seconds.append(time.process_time() - started)
        if key.unroll == FULL_UNROLL:
            unrolled += seconds[-1]
        print(f"| {bundle_label(bundle)} | {seconds[-1]:.2f} |", flush=True)
    workers = [0.0, 0.0]
    for each in seconds:  # the next job goes to the worker that is free first
        workers[workers.index(min(workers))] += each
    total = sum(seconds)
    print(
        f"\n{len(seconds)} jobs: {total:.1f} CPU s, {100 * unrolled / total:.0f}% fully "
        f"unrolled; two workers in this order: {max(workers):.1f} s "
        f"(ideal {total / 2:.1f} s, longest job {max(seconds):.1f} s)"
    )


def wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


@dataclass(frozen=True)
class Measured:
    """One evaluation command's wall seconds, CPU seconds (user and system, its
    processes' together) and largest peak resident set (bytes)."""

    wall: float
    cpu: float
    peak: int

    def line(self, name: str) -> str:
        return (
            f"{name}: {self.wall:.1f} s wall, {self.cpu:.1f} s CPU, "
            f"{self.peak / 2**30:.2f} GiB peak"
        )


def measured_evaluation(full: bool, jobs: int, out: Path, checkout: Path | None) -> Measured:
    """`tapeflow-bench --no-cache` (`--quick` unless `full`) with `jobs` workers into
    `out`, run in a child process from `checkout` (None: this one)."""
    command = [sys.executable, "-m", "tapeflow_benchmarks.tapeflow_bench"]
    command += [] if full else ["--quick"]
    command += ["--no-cache", "--no-progress", "--jobs", str(jobs), "--out", str(out)]
    env = dict(os.environ)
    if checkout is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(checkout), env.get("PYTHONPATH", "")])
    cwd = checkout or ROOT
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    # wait4's usage is this command's and its workers' alone (RUSAGE_CHILDREN's
    # peak would be the largest of every child this process ever waited for).
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise subprocess.CalledProcessError(child.returncode, command)
    cpu = usage.ru_utime + usage.ru_stime
    return Measured(seconds, cpu, usage.ru_maxrss * 1024)  # ru_maxrss is in KiB


def differing_csvs(ours: Path, theirs: Path) -> list[str]:
    """The csv files of two results folders that differ (or exist in one only)."""
    names = {p.relative_to(ours) for p in ours.rglob("*.csv")}
    names |= {p.relative_to(theirs) for p in theirs.rglob("*.csv")}
    return sorted(
        str(name)
        for name in names
        if not ((ours / name).is_file() and (theirs / name).is_file())
        or (ours / name).read_bytes() != (theirs / name).read_bytes()
    )


def evaluation(full: bool, jobs: int, against: Path | None) -> None:
    """`--evaluation`: this checkout's evaluation, after `against`'s if given."""
    kind = f"evaluation ({'full' if full else 'quick'}, --jobs {jobs})"
    with tempfile.TemporaryDirectory() as folder:
        ours = Path(folder) / "ours"
        if against is None:
            print(measured_evaluation(full, jobs, ours, None).line(kind), flush=True)
            return
        theirs = Path(folder) / "theirs"
        before = measured_evaluation(full, jobs, theirs, against)
        print(before.line(f"{kind} from {against}"), flush=True)
        after = measured_evaluation(full, jobs, ours, None)
        print(after.line(f"{kind} from {ROOT}"), flush=True)
        print(
            f"this / that: {after.wall / before.wall:.2f}x wall, "
            f"{after.cpu / before.cpu:.2f}x CPU, {after.peak / before.peak:.2f}x peak"
        )
        differ = differing_csvs(ours, theirs)
        count = len(list(ours.rglob("*.csv")))
        print(
            f"csv files differing: {', '.join(differ)}"
            if differ
            else f"{count} csv files identical"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tapeflow_benchmarks.speed")
    parser.add_argument("--preset", choices=PRESETS, default="paper")
    parser.add_argument("--kernels", default="lenet,logsum,pathfinder")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--caches", action="store_true", help="time the cache sweep's replays")
    parser.add_argument(
        "--jobs-of",
        choices=("quick", "full"),
        help="time each job of that evaluation in this process",
    )
    parser.add_argument("--evaluation", action="store_true", help="time tapeflow-bench --quick")
    parser.add_argument("--full", action="store_true", help="with --evaluation: the full one")
    parser.add_argument(
        "--eval-jobs", type=int, default=1, help="with --evaluation: its --jobs (default 1)"
    )
    parser.add_argument(
        "--against",
        type=Path,
        help="with --evaluation: first run it from this checkout, then compare",
    )
    parser.add_argument("--suite", action="store_true", help="time pytest -n auto")
    args = parser.parse_args(argv)
    if args.eval_jobs < 1:
        parser.error(f"--eval-jobs must be at least 1, got {args.eval_jobs}")
    if args.against is not None and not (args.against / "tapeflow_benchmarks").is_dir():
        parser.error(f"--against {args.against}: not a checkout of this project")
    keys = chosen(parser, args.kernels, KERNELS)
    if keys:
        print(
            "| kernel | ops | tapeflow-run CPU s | simulator CPU s | simulator / run "
            "| median of the repeats' ratios |"
        )
        print("|---|---|---|---|---|---|")
    for key in keys:
        run, sim, median, ops = simulator_against_executor(key, args.preset, args.repeat)
        print(
            f"| {key} | {ops} | {run:.3f} | {sim:.3f} | {sim / run:.2f}x | {median:.2f}x |",
            flush=True,
        )
    if args.caches and keys:
        print("\n| kernel | accesses | one by one CPU s | together CPU s | one by one / together |")
        print("|---|---|---|---|---|")
    for key in keys if args.caches else []:
        alone, together, accesses = replays_one_by_one_against_together(
            key, args.preset, args.repeat
        )
        print(
            f"| {key} | {accesses} | {alone:.3f} | {together:.3f} | {alone / together:.2f}x |",
            flush=True,
        )
    if args.jobs_of:
        evaluation_jobs("small" if args.jobs_of == "quick" else "paper")
    if args.evaluation:
        evaluation(args.full, args.eval_jobs, args.against)
    if args.suite:
        command = [sys.executable, "-m", "pytest", "-q", "-n", "auto", "-p", "no:cacheprovider"]
        print(f"test suite (pytest -n auto): {wall(command):.1f} s")


if __name__ == "__main__":
    main()
