"""
`tapeflow-bench --sweep FILE`: a grid of hardware parameters over kernels and
variants, described in a YAML file (the format is in docs/sweeps.md):

    name: dram-latency            # optional: the report's title
    preset: Tflow32k              # optional: the machine every point starts from
    hw: [base.yaml]               # optional: hardware files layered over it
    set: {clock_ghz: 1.5}         # optional: fixed dotted keys, over the files
    size: small                   # the size of the built-in kernels (default small)
    kernels:
      - logsum                    # a built-in kernel, at `size`
      - {name: nn, size: paper}
      - {name: mine, file: mine.mlir, function: mine_grad, inputs: mine.npz}
    variants:
      - enzyme
      - {variant: tapeflow, spad: 1024, unroll: 2}
    grid:                         # dotted hardware keys to lists of values
      cache.size_bytes: [1024, 4096, 32768]
      dram.latency_cycles: [100, 300]

Every kernel runs with every variant on every combination of the grid's values
(their cartesian product). Each point's machine is, in this order: the variant's
`preset` (else the file's, else the paper's preset for the variant: Tflow32k for
TapeFlow, Enzyme32k otherwise), the `hw` files, `set`, the variant's `spad`, and
the grid's values, each layer applied with `targets.hardware_files.apply` (so a
new cache size takes Table III's associativity unless `cache.assoc` is given).

The whole file is checked before anything runs, and every problem is reported
naming the sweep file and the key at fault (`kernels[2].inputs`, `grid:
dram.latency`): unknown keys at any level, unknown or mistyped hardware keys (with
their dotted path), hardware combinations that cannot exist, kernels and presets
that do not exist, MLIR files that cannot be read or parsed, a `function` that is
missing or names the primal, and an inputs archive that cannot be read or does not
fit the function's arguments. Paths are relative to the sweep file.

The results folder has the evaluation's layout: `results.json` (the sweep as read,
and every run with its swept values and its full report, whose `hardware` is the
whole effective machine), `csv/runs.csv` (one row per point, one column per swept
key, named by the dotted key), `figures/sweep.png` and `report.md`.

By job: `spec.py` reads the file (YAML, shape and types), `load.py` checks what
it names (`kernels.py` the kernels) and `grid.py` expands the grid into points;
the runner runs them; `write.py` writes the folder and `figure.py` draws it.
"""

from tapeflow_benchmarks.harness.sweep.figure import sizes_note, sweep_figure
from tapeflow_benchmarks.harness.sweep.load import MAX_POINTS, load_sweep
from tapeflow_benchmarks.harness.sweep.plan import Sweep, value_at
from tapeflow_benchmarks.harness.sweep.write import run_rows, unroll_notes, write_sweep

__all__ = [
    "MAX_POINTS",
    "Sweep",
    "load_sweep",
    "run_rows",
    "sizes_note",
    "sweep_figure",
    "unroll_notes",
    "value_at",
    "write_sweep",
]
