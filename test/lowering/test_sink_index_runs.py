"""
`tapeflow-to-cgra` moves a run of integer ops outside innermost loops into the
kernels that use it (`_sink_index_runs`) only where the kernels' cycles, by the
`cgra` model's rule (a kernel loop of N iterations costs `(N-1)*ii + length`, a
kernel run once its length), do not grow, and the values computed stay the same.
Each case is lowered with and without the move (the function patched to do
nothing) and the two are compared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import lowering.tapeflow_to_cgra as to_cgra
from sim.simulator import evaluate, execute, prepare
from tapeflow_benchmarks.common import caller_arguments
from tapeflow_tools.context import make_context
from tapeflow_tools.frontend import parse_module_text
from targets.hardware import PRESETS

INPUT = Path(__file__).parents[1] / "filecheck/passes/tapeflow-to-cgra/sink-index-runs.mlir"
INNER_TRIPS = 4
"""The inner loops' trip count in the input's functions."""


def _lowered(sink: bool, monkeypatch: pytest.MonkeyPatch) -> list[to_cgra.CgraReport]:
    module = parse_module_text(make_context(), INPUT.read_text(), str(INPUT))
    with monkeypatch.context() as patch:
        if not sink:
            patch.setattr(to_cgra, "_sink_index_runs", lambda function, scheduler: None)
        return to_cgra.lower_module(module, PRESETS["Tflow32k"])


def _cycles_per_outer_iteration(report: to_cgra.CgraReport) -> int:
    return sum(
        k.length if k.straight_line else (INNER_TRIPS - 1) * k.ii + k.length for k in report.kernels
    )


def test_a_run_moves_only_where_the_kernels_cost_fewer_cycles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sunk = {r.function: r for r in _lowered(True, monkeypatch)}
    kept = {r.function: r for r in _lowered(False, monkeypatch)}
    straight = {f: sum(k.straight_line for k in r.kernels) for f, r in sunk.items()}
    before = {f: sum(k.straight_line for k in r.kernels) for f, r in kept.items()}
    # @sunk: the run's kernel is gone, and the cycles of an outer iteration drop.
    assert (straight["sunk"], before["sunk"]) == (1, 2)
    assert _cycles_per_outer_iteration(sunk["sunk"]) < _cycles_per_outer_iteration(kept["sunk"])
    # @bound (a loop bound) and @full (ii would grow): nothing moves.
    for name in ("bound", "full"):
        assert straight[name] == before[name] == 1
        assert [(k.ii, k.length) for k in sunk[name].kernels] == [
            (k.ii, k.length) for k in kept[name].kernels
        ]


def _simulated(
    module: ModuleOp, sink: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, dict[str, np.ndarray]]:
    """rowlse's tapeflow variant on Tflow32k, every nest streamed."""
    hardware = PRESETS["Tflow32k"]
    hardware = replace(hardware, mapping=replace(hardware.mapping, stream_by_cost=False))
    with monkeypatch.context() as patch:
        if not sink:
            patch.setattr(to_cgra, "_sink_index_runs", lambda function, scheduler: None)
        tape_bytes = prepare(make_context(), module, "tapeflow", hardware)
    args = caller_arguments(module, "rowlse", "small")
    execution = execute(module, "rowlse_grad", args, hardware, tape_bytes, variant="tapeflow")
    return int(evaluate(execution)["cycles"]["total"]), execution.outputs


def test_rowlse_streamed_keeps_its_values_in_fewer_cycles(
    monkeypatch: pytest.MonkeyPatch, differentiated: Callable[[str], ModuleOp]
) -> None:
    """rowlse's FWD tiles of 3 rows: each row's first rows, a kernel of their own
    per row without the move, are computed in the row's inner loop and stores."""
    with_move, outputs = _simulated(differentiated("rowlse"), True, monkeypatch)
    without, reference = _simulated(differentiated("rowlse"), False, monkeypatch)
    assert outputs.keys() == reference.keys()
    for name, value in reference.items():
        assert np.array_equal(outputs[name], value), name
    assert with_move < without
