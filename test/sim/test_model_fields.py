"""
Each timing model states the hardware fields it simulates (`TimingModel.fields`,
`sim.models.salam.machine.SALAM_UNSIMULATED`). Checked from outside: changing a field the
salam model says it ignores leaves every number of its report unchanged (on an
Enzyme and a TapeFlow run), and the tools refuse such a change, naming the field
and the model, instead of recording it as applied.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from sim.models import MODELS, UnsimulatedField, check_simulated
from sim.models.salam.machine import SALAM_UNSIMULATED
from tapeflow_benchmarks.harness.points import Group, Point
from tapeflow_benchmarks.harness.runner import run_group
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools import tapeflow_sim
from targets.energy import FU_CLASSES
from targets.fields import DATAPATH_FIELDS, HARDWARE_FIELDS, field_values
from targets.hardware import PRESETS

ROOT = Path(__file__).resolve().parents[2]
NOT_NUMBERS = {"hardware", "simulator", "kernel_stats", "group_seconds"}


def _numbers(group: Group) -> str:
    point = Point(group, 32 * 1024)
    report = run_group(group, [point])[point]
    assert "error" not in report, report.get("error")
    return json.dumps({k: v for k, v in report.items() if k not in NOT_NUMBERS}, sort_keys=True)


def _changed(value: object) -> object:
    if isinstance(value, bool):
        return not value
    return value * 2  # type: ignore[operator]


def test_cgra_reads_all_but_the_lockstep_datapath_and_salam_all_but_its_list() -> None:
    assert MODELS["cgra"].fields == HARDWARE_FIELDS - DATAPATH_FIELDS
    assert DATAPATH_FIELDS == {
        "datapath.sched_threshold",
        "datapath.ports",
        "datapath.lockstep",
        "datapath.ordering",
        "datapath.adjoint_additions",
        "datapath.latch",
        *(f"datapath.units.{name}" for name in FU_CLASSES),
    }
    assert DATAPATH_FIELDS <= MODELS["salam"].fields
    assert MODELS["salam"].fields == HARDWARE_FIELDS - SALAM_UNSIMULATED
    assert SALAM_UNSIMULATED <= HARDWARE_FIELDS
    assert {"rows", "cols", "cache.ports", "cache.mshrs"} <= SALAM_UNSIMULATED


@pytest.mark.parametrize("variant, spad", [("enzyme", 0), ("tapeflow", 512)])
def test_a_field_salam_ignores_changes_none_of_its_numbers(variant: str, spad: int) -> None:
    base = Group("matdescent", "small", variant, spad, 1, "salam")
    reference = _numbers(base)
    values = field_values(Point(base, 32 * 1024).hardware())
    for key in sorted(SALAM_UNSIMULATED):
        changed = Group(
            "matdescent", "small", variant, spad, 1, "salam", "", ((key, _changed(values[key])),)
        )
        assert _numbers(changed) == reference, key
    # ... while a field it reads does change them (the comparison can see a change).
    changed = Group("matdescent", "small", variant, spad, 1, "salam", "", (("latencies.fmul", 9),))
    assert _numbers(changed) != reference


def test_check_simulated_names_the_field_and_the_model() -> None:
    reference = MODELS["salam"].hardware(PRESETS["Enzyme32k"])
    check_simulated("salam", reference, reference)
    from dataclasses import replace

    wider = replace(reference, cols=8)
    with pytest.raises(UnsimulatedField, match="the salam model does not simulate cols"):
        check_simulated("salam", wider, reference)
    check_simulated("cgra", wider, reference)


def test_tapeflow_sim_refuses_a_field_salam_does_not_simulate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(KERNELS["logsum"].inputs("small"))})
    with pytest.raises(SystemExit) as exit_:
        tapeflow_sim.main(
            [
                str(ROOT / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"),
                "--function",
                "logsum_grad",
                "--variant",
                "enzyme",
                "--preset",
                "Enzyme32k",
                "--model",
                "salam",
                "--set",
                "cache.mshrs=2",
                "--inputs",
                str(inputs),
            ]
        )
    assert exit_.value.code != 0
    err = capsys.readouterr().err
    assert "the salam model does not simulate cache.mshrs" in err and "Traceback" not in err


def test_cgra_ignores_the_lockstep_datapath_and_salam_reads_it() -> None:
    """The datapath's units, threshold and ports change no cgra number; under
    salam a threshold of 2 (a branch waits until its iteration has issued) does,
    and so does one port (a group's reads served one at a time)."""
    for model in ("cgra", "salam"):
        base = Group("matdescent", "small", "enzyme", 0, 1, model)
        reference = _numbers(base)
        changed = [
            _numbers(replace(base, settings=((key, value),)))
            for key, value in (
                ("datapath.units.fmul", 1),
                ("datapath.sched_threshold", 2),
                ("datapath.ports", 1),
            )
        ]
        if model == "cgra":
            assert changed == [reference] * 3
        else:
            assert changed[1] != reference
            assert changed[2] != reference


@pytest.mark.parametrize("model, warned", [("salam", True), ("cgra", False)])
def test_tapeflow_sim_warns_of_a_scratchpad_size_salam_runs_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str, warned: bool
) -> None:
    """salam's bins hold the whole tape: every scratchpad size runs alike there, so
    a size given is named on stderr; cgra simulates it and says nothing."""
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(KERNELS["logsum"].inputs("small"))})
    tapeflow_sim.main(
        [
            str(ROOT / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"),
            "--function",
            "logsum_grad",
            "--variant",
            "tapeflow",
            "--preset",
            "Tflow2k",
            "--model",
            model,
            "--set",
            "scratchpad.size_bytes=256",
            "--inputs",
            str(inputs),
            "--json",
            str(tmp_path / "report.json"),
        ]
    )
    err = capsys.readouterr().err
    assert ("does not simulate scratchpad.size_bytes as given" in err) is warned
