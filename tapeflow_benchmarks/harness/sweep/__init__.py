"""
`tapeflow-bench --sweep FILE`: a grid of hardware parameters over kernels and
variants, described in a YAML file (the format is in docs/sweeps.md), such as

    kernels: [logsum, {name: nn, size: paper}]
    variants: [enzyme, {variant: tapeflow, spad: 1024, unroll: 2}]
    grid: {cache.size_bytes: [1024, 4096, 32768], dram.latency_cycles: [100, 300]}

Every kernel runs with every variant on every combination of the grid's values
(their cartesian product). Each point's machine is, in this order: the variant's
`preset` (else the file's, else the paper's preset for the variant), the `hw`
files, `set`, the variant's `spad`, and the grid's values, each layer applied with
`targets.hardware_files.apply` (so a new cache size takes Table III's
associativity unless `cache.assoc` is given).

The whole file is checked before anything runs, and every problem is reported
naming the sweep file and the key at fault (`kernels[2].inputs`, `grid:
dram.latency`). Paths are relative to the sweep file. The results folder has the
evaluation's layout: `results.json`, `csv/runs.csv` (one row per point, one column
per swept key), `figures/sweep.png` and `report.md`. Every key, every check and
every output file: docs/sweeps.md.

By job: `spec.py` reads the file (YAML, shape and types), `load.py` checks what
it names (`kernels.py` the kernels) and `grid.py` expands the grid into points;
the runner runs them; `write.py` writes the folder and `figure.py` draws it.
"""

from tapeflow_benchmarks.harness.sweep.figure import sizes_note, sweep_figure
from tapeflow_benchmarks.harness.sweep.load import MAX_POINTS, load_sweep
from tapeflow_benchmarks.harness.sweep.plan import Sweep, value_at
from tapeflow_benchmarks.harness.sweep.write import (
    run_rows,
    tape_notes,
    unroll_notes,
    write_sweep,
)

__all__ = [
    "MAX_POINTS",
    "Sweep",
    "load_sweep",
    "run_rows",
    "sizes_note",
    "sweep_figure",
    "tape_notes",
    "unroll_notes",
    "value_at",
    "write_sweep",
]
