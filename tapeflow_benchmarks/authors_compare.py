"""
Our `salam` sweeps against the authors' own sweep, point by point.

    python -m tapeflow_benchmarks.authors_compare RUNS.csv [RUNS.csv ...]

reads the `runs.csv` of one or more `tapeflow-bench --sweep` runs (a cache size per
row, `model: salam`, the artifact kernels) and sets each TapeFlow and Enzyme run
beside the authors' total cycles at the same cache size
(`harness/authors_sweep.py`: their `sweep_cache_results`, whose misses follow
Table III's associativities: 2-way to 16 KB, 4-way at 32 KB, fully associative
at 64 KB, 8-way at 128 KB; `examples/sweep/table3-release/` runs those caches).
It prints, per kernel and size, our Enzyme/TapeFlow cycle ratio beside theirs and
each run's cycles over theirs, then how many ratios and runs lie within 30%.
"""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import dataclass
from pathlib import Path

from tapeflow_benchmarks.harness.authors_sweep import AUTHORS_SWEEP

TOLERANCE = 0.3
"""A ratio or a run's cycles is counted as matching within this relative error."""


@dataclass(frozen=True)
class Point:
    """One kernel and cache size: our cycles and the authors' (TapeFlow, Enzyme)."""

    kernel: str
    cache_kb: int
    ours: tuple[float, float]
    theirs: tuple[int, int]

    @property
    def ratios(self) -> tuple[float, float]:
        """Enzyme's cycles over TapeFlow's: ours, theirs."""
        return self.ours[1] / self.ours[0], self.theirs[1] / self.theirs[0]

    @property
    def ratio_matches(self) -> bool:
        ours, theirs = self.ratios
        return abs(ours / theirs - 1) <= TOLERANCE

    @property
    def cycles_over_theirs(self) -> tuple[float, float]:
        return self.ours[0] / self.theirs[0], self.ours[1] / self.theirs[1]

    @property
    def runs_matching(self) -> int:
        return sum(abs(r - 1) <= TOLERANCE for r in self.cycles_over_theirs)


def points(rows: list[dict[str, str]]) -> list[Point]:
    """The kernel and size points of `rows` (runs.csv rows) that the authors' sweep
    holds, each with both variants run; rows of other models are ignored."""
    cycles: dict[tuple[str, str, int], float] = {}
    for row in rows:
        if row["model"] != "salam":
            continue
        cycles[row["kernel"], row["variant"], int(row["cache_bytes"])] = float(row["cycles_total"])
    found = []
    for (kernel, variant, size), tapeflow in sorted(cycles.items()):
        sweep = AUTHORS_SWEEP.get(kernel)
        enzyme = cycles.get((kernel, "enzyme", size))
        if variant != "tapeflow" or sweep is None or enzyme is None or size % 1024:
            continue
        theirs = sweep.cycles.get(size // 1024)
        if theirs is not None:
            found.append(Point(kernel, size // 1024, (tapeflow, enzyme), theirs))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tapeflow_benchmarks.authors_compare", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("runs", nargs="+", type=Path, help="runs.csv of salam sweeps")
    args = parser.parse_args(argv)
    rows: list[dict[str, str]] = []
    for path in args.runs:
        try:
            with path.open(newline="") as f:
                rows += list(csv.DictReader(f))
        except OSError as e:
            print(f"error: cannot read {path}: {e.strerror}", file=sys.stderr)
            return 2
    missing = {"model", "kernel", "variant", "cache_bytes", "cycles_total"} - set(
        rows[0] if rows else ()
    )
    if missing:
        print(f"error: not a runs.csv: no column {', '.join(sorted(missing))}", file=sys.stderr)
        return 2
    found = points(rows)
    if not found:
        print(
            "error: no salam point of the authors' kernels and sizes in the input", file=sys.stderr
        )
        return 2
    print("| kernel | KB | ratio ours | theirs | TapeFlow / theirs | Enzyme / theirs |")
    print("|---|---|---|---|---|---|")
    for p in found:
        (ours, theirs), (tf, en) = p.ratios, p.cycles_over_theirs
        print(f"| {p.kernel} | {p.cache_kb} | {ours:.2f} | {theirs:.2f} | {tf:.2f} | {en:.2f} |")
    ratios = sum(p.ratio_matches for p in found)
    runs = sum(p.runs_matching for p in found)
    print(
        f"\nEnzyme/TapeFlow ratios within {TOLERANCE:.0%}: {ratios}/{len(found)}; "
        f"runs' cycles within {TOLERANCE:.0%}: {runs}/{2 * len(found)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
