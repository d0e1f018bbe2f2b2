"""
`tapeflow-sim --hw FILE --set key.path=value`: the layers apply in the documented
order (preset < --hw files in order < --set in order < --cache-bytes/--assoc/
--spad-bytes/--energy), they change the simulated machine the way the mechanism
says, and the report's `hardware` records the machine after all of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools import tapeflow_sim
from targets.energy import ENERGY_PRESETS
from targets.hardware import PRESETS, describe
from targets.provenance import PACKAGES

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"


def _sim(tmp_path: Path, *extra: str, variant: str = "enzyme", preset: str = "Enzyme32k") -> dict:  # type: ignore[type-arg]
    inputs = tmp_path / "in.npz"
    if not inputs.exists():
        np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(KERNELS["logsum"].inputs("small"))})
    report = tmp_path / "report.json"
    tapeflow_sim.main(
        [
            str(SOURCE),
            "--function",
            "logsum_grad",
            "--variant",
            variant,
            "--preset",
            preset,
            "--inputs",
            str(inputs),
            "--json",
            str(report),
            *extra,
        ]
    )
    return json.loads(report.read_text())  # type: ignore[no-any-return]


def test_a_hardware_file_changes_the_machine(tmp_path: Path) -> None:
    """logsum's loops miss in the cache on their first touch of each line, and
    outside kernels each miss waits the DRAM latency: a slower DRAM, more cycles."""
    (tmp_path / "slow.json").write_text('{"dram": {"latency_cycles": 321}}')
    (tmp_path / "slower.yaml").write_text("dram:\n  latency_cycles: 1000\n")
    base = _sim(tmp_path)
    slow = _sim(tmp_path, "--hw", str(tmp_path / "slow.json"))
    slower = _sim(tmp_path, "--hw", str(tmp_path / "slower.yaml"))
    assert base["cycles"]["memory_stall"] > 0
    assert base["cycles"]["total"] < slow["cycles"]["total"] < slower["cycles"]["total"]
    # Only time changes: the same accesses, misses and traffic.
    for key in ("cache", "dram_bytes", "ops"):
        assert slow[key] == base[key]
    assert slow["hardware"]["dram"]["latency_cycles"] == 321
    assert slower["hardware"]["dram"]["latency_cycles"] == 1000


def test_the_layers_apply_in_order(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "dram:\n  latency_cycles: 321\n"
        "cache:\n  size_bytes: 4096\n  mshrs: 2\n"
        "latencies:\n  fadd: 7\n"
    )
    (tmp_path / "b.json").write_text('{"dram": {"latency_cycles": 400, "bandwidth_gbs": 12.8}}')
    record = _sim(
        tmp_path,
        "--hw",
        str(tmp_path / "a.yaml"),
        "--hw",
        str(tmp_path / "b.json"),
        "--set",
        "dram.bandwidth_gbs=25.6",
        "--set",
        "cache.assoc=4",
        "--set",
        "clock_ghz=1.5",
        "--cache-bytes",
        "8192",
        "--energy",
        "cacti45",
    )["hardware"]
    assert record["dram"] == {
        "latency_cycles": 400,
        "bandwidth_gbs": 25.6,
    }  # b over a, --set over b
    # --cache-bytes comes last: its size, with Table III's ways for it (2 up to 16 KB),
    # over both the file's size and the --set's ways.
    assert (record["cache"]["size_bytes"], record["cache"]["assoc"]) == (8192, 2)
    assert record["cache"]["mshrs"] == 2 and record["latencies"]["fadd"] == 7
    assert record["clock_ghz"] == 1.5
    assert record["energy"] == json.loads(json.dumps(describe(ENERGY_PRESETS["cacti45"])))
    assert record["energy_preset"] == "cacti45"
    # Everything not named is the preset's.
    preset = describe(PRESETS["Enzyme32k"])
    assert record["scratchpad"] == preset["scratchpad"]
    assert {k: v for k, v in record["latencies"].items() if k != "fadd"} == {
        k: v
        for k, v in preset["latencies"].items()
        if k != "fadd"  # type: ignore[union-attr]
    }
    assert record["name"] == "Enzyme32k"
    assert (record["model"], record["variant"], record["unroll"]) == ("cgra", "enzyme", 1)
    assert set(record["versions"]) == set(PACKAGES)


def test_the_old_options_and_the_record(tmp_path: Path) -> None:
    """The issue's example: the options it names all show in the record."""
    report = _sim(
        tmp_path,
        "--cache-bytes",
        "4096",
        "--assoc",
        "4",
        "--spad-bytes",
        "64",
        "--energy",
        "cacti45",
        "--unroll",
        "4",
        variant="tapeflow",
        preset="Tflow2k",
    )
    record = report["hardware"]
    assert record["cache"]["size_bytes"] == 4096 and record["cache"]["assoc"] == 4
    assert record["scratchpad"]["size_bytes"] == 64
    assert record["energy_preset"] == "cacti45" and record["unroll"] == 4
    assert record["variant"] == report["variant"] == "tapeflow"
    assert report["sram_bytes"] == 4096 + 64


def test_a_set_without_pydantic_is_not_needed_for_the_old_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hardware-file libraries are an extra: without --hw/--set they are not imported."""
    import builtins

    real = builtins.__import__

    def refuse(name: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name.split(".")[0] in ("pydantic", "yaml"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    report = _sim(tmp_path, "--cache-bytes", "4096")
    assert report["hardware"]["cache"]["size_bytes"] == 4096
