"""`python -m tapeflow_benchmarks.speed` prints one row per kernel, its ops those
the simulator's report counts."""

from __future__ import annotations

import pytest

from sim.simulator import simulate
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_benchmarks.speed import main, simulator_against_executor
from tapeflow_tools.context import make_context
from targets.hardware import configure


def test_speed_rows(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--preset", "small", "--kernels", "logsum", "--repeat", "1"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| logsum")]
    assert len(rows) == 1


def test_speed_counts_the_simulated_ops() -> None:
    run, sim, ops = simulator_against_executor("logsum", "small", 1)
    assert run > 0 and sim > 0
    ctx = make_context()
    module = parse_kernel(ctx, "logsum", "small")
    from sim.simulator import prepare

    hardware = configure("Enzyme32k")
    tape = prepare(ctx, module, "enzyme", hardware)
    args = caller_arguments(module, "logsum", "small")
    report = simulate(module, "logsum_grad", args, hardware, tape, variant="enzyme").report
    assert ops == report["ops"]["total"]
