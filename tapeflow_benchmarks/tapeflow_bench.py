"""
`tapeflow-bench`: the paper's evaluation end to end, or (`--sweep FILE`) a grid of
hardware parameters over kernels and variants described in YAML (docs/sweeps.md).

Each kernel goes through the real Enzyme, the variant's passes and the simulator
for every configuration the chosen experiments (`--only`) need, under every timing
model chosen (`--model`), at a size preset (`--size`: `paper`, `small` alias
`--quick`, `artifact`); the results folder (`report.md`, `results.json`, `csv/`,
`figures/`) is written beside `--out` and swapped in whole when complete.

Contract: finished points are cached on disk (`--cache-dir`), keyed by everything
that can change their numbers and checked when read, so a repeated or interrupted
run computes only what is missing; the output locations are checked before any
work; an earlier results folder is replaced, the user's files in it kept
(docs/outputs.md tells what a killed run leaves and how the next recovers it).
Exit status 1 if any run failed or the sweep file is wrong, 2 for bad options,
130 when interrupted (143 for SIGTERM, 129 for SIGHUP). Runs go to local
processes (`--jobs`) or a Dask cluster (`--dask`); the results are the same
either way. The options in full: `tapeflow-bench --help` and the README.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from tapeflow_tools import tapeflow_version
from tapeflow_tools.interrupt import exit_status, quiet_interrupt, stopped

with quiet_interrupt("tapeflow-bench"):  # Ctrl-C while the modules load
    from sim.models import MODELS, UnknownModel, check_models
    from tapeflow_benchmarks.common import chosen
    from tapeflow_benchmarks.harness.claims import compare
    from tapeflow_benchmarks.harness.dask_pool import check_address, dask_executor
    from tapeflow_benchmarks.harness.experiments import DEFAULT_EXPERIMENTS, EXPERIMENTS, Result
    from tapeflow_benchmarks.harness.formats import parse_formats
    from tapeflow_benchmarks.harness.points import Point, code_fingerprint, with_model
    from tapeflow_benchmarks.harness.result_cache import ResultCache
    from tapeflow_benchmarks.harness.runner import RunSummary, run_points
    from tapeflow_benchmarks.kernels import ALL_KERNELS, EXTRA_KERNELS, KERNELS, PRESETS
    from tapeflow_tools.atomic import (
        check_output_directory,
        check_results_folder,
        recover_directory,
    )
    from tapeflow_tools.diagnostics import ToolError, reported_errors


def _default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tapeflow-bench"


def main(argv: Sequence[str] | None = None) -> int:
    # One line, never a traceback: Ctrl-C, SIGTERM or SIGHUP, memory running out, a
    # standard output that cannot be written (`> /dev/full`).
    with quiet_interrupt("tapeflow-bench"), reported_errors("tapeflow-bench"):
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(
        prog="tapeflow-bench",
        description="Reproduce the TapeFlow paper's evaluation on the simulated CGRA.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {tapeflow_version()}")
    parser.add_argument(
        "--size",
        choices=PRESETS,
        default=None,
        help="the kernels' size preset: paper (Table II, default), small "
        "(seconds per run) or artifact (the authors' simulator runs)",
    )
    parser.add_argument("--quick", action="store_true", help="the same as --size small")
    parser.add_argument(
        "--model",
        default=",".join(MODELS),
        help=f"comma-separated timing models (default: all: {', '.join(MODELS)})",
    )
    parser.add_argument(
        "--only",
        default=",".join(DEFAULT_EXPERIMENTS),
        help="comma-separated experiments (default: "
        f"{', '.join(DEFAULT_EXPERIMENTS)}; also: "
        f"{', '.join(n for n in EXPERIMENTS if n not in DEFAULT_EXPERIMENTS)})",
    )
    parser.add_argument(
        "--kernels",
        default=",".join(KERNELS),
        help="comma-separated kernels (default: all nine; the extra "
        f"kernels {', '.join(EXTRA_KERNELS)} may be named too)",
    )
    parser.add_argument(
        "--extra-kernels",
        action="store_true",
        help="also run the extra kernels with loops of run-time trip "
        f"count ({', '.join(EXTRA_KERNELS)})",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="simulations run in parallel processes (default: one per core)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="results folder (default: tapeflow-results, or tapeflow-results-quick with --quick)",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help=f"where finished runs are kept (default: {_default_cache()})",
    )
    parser.add_argument("--no-cache", action="store_true", help="compute everything afresh")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--sweep",
        type=Path,
        metavar="FILE",
        help="run the hardware sweep this YAML file describes (docs/sweeps.md) "
        "instead of the paper's evaluation",
    )
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on the Dask scheduler at ADDRESS (tcp://host:port), or on a "
        "new local cluster with 'local' (default: local processes)",
    )
    parser.add_argument(
        "--format",
        default="png",
        help="figure formats, comma-separated: png, svg, pdf (default: png)",
    )
    args = parser.parse_args(argv)
    try:
        formats = parse_formats(args.format)
    except ValueError as err:
        parser.error(f"--format {args.format}: {err}")
    if args.dask is not None:
        try:
            args.dask = check_address(args.dask)
        except ToolError as err:
            parser.error(str(err))
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.sweep is not None:
        return _sweep(parser, args, argv, formats)
    experiments = chosen(parser, args.only, EXPERIMENTS, "experiment")
    kernels = chosen(parser, args.kernels, ALL_KERNELS)
    if args.extra_kernels:
        kernels += [k for k in EXTRA_KERNELS if k not in kernels]
    if not experiments or not kernels:
        parser.error("choose at least one experiment and one kernel")
    if args.quick and args.size not in (None, "small"):
        parser.error(f"--quick means --size small, which contradicts --size {args.size}")
    size = "small" if args.quick else (args.size or "paper")
    missing = [k for k in kernels if size not in ALL_KERNELS[k].sizes]
    if missing:
        have = sorted({s for k in missing for s in ALL_KERNELS[k].sizes})
        parser.error(
            f"--size {size}: {', '.join(missing)} {'has' if len(missing) == 1 else 'have'} "
            f"no '{size}' size (only {', '.join(have)}); choose another size or leave "
            f"{'it' if len(missing) == 1 else 'them'} out"
        )
    try:
        models = check_models([m for m in args.model.split(",") if m])
    except UnknownModel as err:
        parser.error(f"--model {args.model}: {err}")
    out = args.out or Path(
        {"paper": "tapeflow-results", "small": "tapeflow-results-quick"}.get(
            size, f"tapeflow-results-{size}"
        )
    )
    cache_dir = None if args.no_cache else (args.cache_dir or _default_cache())
    _check_locations(parser, args, out, cache_dir)
    cache = ResultCache(cache_dir)

    points = {
        with_model(p, model)
        for model in models
        for name in experiments
        if EXPERIMENTS[name].runs_under(model)
        for p in EXPERIMENTS[name].points(kernels, size)
    }
    ran = _run(points, cache, args)
    if isinstance(ran, int):
        return ran
    runs, summary = ran

    results = {
        model: {
            name: EXPERIMENTS[name].analyse(
                kernels, size, lambda p, model=model: runs.get(with_model(p, model))
            )
            if EXPERIMENTS[name].runs_under(model)
            else Result(name, notes=[f"measured under {', '.join(EXPERIMENTS[name].models)} only"])
            for name in experiments
        }
        for model in models
    }
    claims = compare(results, size)
    meta = {
        "command": shlex.join(["tapeflow-bench", *(argv if argv is not None else sys.argv[1:])]),
        "size": size,
        "models": models,
        "kernels": kernels,
        "experiments": experiments,
        **_run_meta(args, formats, summary),
    }
    from tapeflow_benchmarks.harness.report import write  # matplotlib: after the checks

    return _finish(out, summary, lambda: write(out, meta, results, claims, runs, formats))


def _run_meta(args: argparse.Namespace, formats: list[str], summary: RunSummary) -> dict[str, Any]:
    """What the results' `meta` says of the run, for the evaluation and for a sweep."""
    return {
        "jobs": args.jobs,
        "engine": _engine(args),
        "formats": formats,
        "points": summary.points,
        "cached": summary.cached,
        "computed_groups": summary.computed_groups,
        "seconds": summary.seconds,
        "code": code_fingerprint(),
        "failed": summary.failed,
    }


def _check_locations(
    parser: argparse.ArgumentParser, args: argparse.Namespace, out: Path, cache_dir: Path | None
) -> None:
    """Before any work: `out` must be new, empty or an earlier results folder (whose
    files from that run are replaced, a user's kept), `--cache-dir` apart from it,
    both writable, and `--no-cache` not given with `--cache-dir`; a usage error
    otherwise."""
    if args.no_cache and args.cache_dir is not None:
        parser.error(
            f"--no-cache and --cache-dir {args.cache_dir} contradict each other: give one of them"
        )
    try:
        check_output_directory(out, "--out")
        recover_directory(out, lambda note: print(f"tapeflow-bench: note: {note}", file=sys.stderr))
        check_results_folder(out, "--out", "tapeflow-bench")
        if cache_dir is not None:
            check_output_directory(cache_dir, "--cache-dir")
            results, cache = Path(os.path.realpath(out)), Path(os.path.realpath(cache_dir))
            if results == cache or results in cache.parents or cache in results.parents:
                raise ToolError(
                    f"--cache-dir {cache_dir} and --out {out} overlap: the cache would be "
                    "written into the results folder or the results into the cache; give "
                    "them separate folders"
                )
    except ToolError as err:
        parser.error(str(err))


def _finish(out: Path, summary: Any, write_folder: Callable[[], list[Any]], what: str = "") -> int:
    """Write the results folder (`write_folder`, atomic) and say what was done; the
    exit status: 0, 1 if a run failed or the folder cannot be written, 130 if
    interrupted while writing (the runs are cached)."""
    try:
        figures = write_folder()
    except OSError as err:
        print(
            f"tapeflow-bench: error: --out {out}: cannot write the results folder: "
            f"{err.strerror or err}; it is left as it was (the runs are cached)",
            file=sys.stderr,
        )
        return 1
    except ToolError as err:
        print(f"tapeflow-bench: error: --out {err}; it is left as it was", file=sys.stderr)
        return 1
    except KeyboardInterrupt as err:
        print(
            f"\ntapeflow-bench: {stopped(err)} while writing the results; {out} is left as "
            "it was, and the same command writes it again from the cache",
            file=sys.stderr,
        )
        return exit_status(err)
    print(
        f"tapeflow-bench: {what}{summary.points} points ({summary.cached} cached, "
        f"{summary.computed_groups} runs computed) in {summary.seconds:.0f} s; "
        f"report {out / 'report.md'}, {len(figures)} figures, data {out / 'results.json'}"
    )
    for failure in summary.failed:
        print(f"tapeflow-bench: failed: {failure}", file=sys.stderr)
    return 1 if summary.failed else 0


def _engine(args: argparse.Namespace) -> str:
    if args.dask is None:
        return f"{args.jobs} local process(es)"
    return "a local Dask cluster" if args.dask == "local" else f"the Dask scheduler at {args.dask}"


def _run(points: Iterable[Point], cache: ResultCache, args: argparse.Namespace) -> Any:
    """`run_points` on the engine the options name: (runs, summary), or the exit
    status when interrupted or the cluster cannot be used."""
    try:
        with contextlib.ExitStack() as stack:

            def cluster() -> tuple[Executor, int]:
                # Started only when a run is to be computed (none if all are cached).
                return stack.enter_context(dask_executor(args.dask, args.jobs))

            pool = cluster if args.dask is not None else None
            progress = not args.no_progress
            return run_points(points, cache, jobs=args.jobs, progress=progress, pool=pool)
    except ToolError as err:
        print(f"tapeflow-bench: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as err:
        print(
            f"\ntapeflow-bench: {stopped(err)}; the runs that finished are cached, and the "
            "same command continues from there",
            file=sys.stderr,
        )
        return exit_status(err)


def _sweep(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    argv: Sequence[str] | None,
    formats: list[str],
) -> int:
    """`--sweep FILE`: check the file whole, run its points, write the folder."""
    from tapeflow_benchmarks.harness.sweep import (
        load_sweep,
        tape_notes,
        unroll_notes,
        write_sweep,
    )

    given = list(argv if argv is not None else sys.argv[1:])
    for option in ("--quick", "--only", "--kernels", "--size", "--model", "--extra-kernels"):
        if any(a == option or a.startswith(option + "=") for a in given):
            parser.error(
                f"{option} is for the paper's evaluation; a sweep file names its own kernels"
            )
    out = args.out or Path(f"{args.sweep.stem}-results")
    cache_dir = None if args.no_cache else (args.cache_dir or _default_cache())
    _check_locations(parser, args, out, cache_dir)
    with reported_errors("tapeflow-bench"):
        if not args.sweep.is_file():
            raise ToolError(f"--sweep {args.sweep}: no such file")
        sweep = load_sweep(args.sweep)
    for note in sweep.notes:
        print(f"tapeflow-bench: warning: {note}", file=sys.stderr)
    ran = _run(sweep.points, ResultCache(cache_dir), args)
    if isinstance(ran, int):
        return ran
    runs, summary = ran
    for note in unroll_notes(sweep, runs):  # what ran is recorded; say so
        print(f"tapeflow-bench: warning: {note}", file=sys.stderr)
    for note in tape_notes(sweep, runs):  # once per kernel and finding
        print(f"tapeflow-bench: warning: {note}", file=sys.stderr)
    meta = {
        "command": shlex.join(["tapeflow-bench", *given]),
        "sweep": str(args.sweep),
        **_run_meta(args, formats, summary),
    }
    return _finish(
        out, summary, lambda: write_sweep(out, meta, sweep, runs, formats), f"sweep {sweep.name}: "
    )


if __name__ == "__main__":
    sys.exit(main())
