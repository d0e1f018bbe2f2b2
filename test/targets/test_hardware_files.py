"""Hardware descriptions in files and `--set`: layering, and a message naming the bad key."""

from __future__ import annotations

from pathlib import Path

import pytest

from targets.energy import ENERGY_PRESETS
from targets.field_domains import DOMAINS, domain_problem
from targets.hardware import PRESETS, describe
from targets.hardware_files import HardwareDescriptionError
from targets.machine import layered


def test_layers_apply_in_order_over_the_preset(tmp_path: Path) -> None:
    first = tmp_path / "first.yaml"
    first.write_text("dram:\n  latency_cycles: 321\ncache:\n  size_bytes: 4096\nenergy: cacti45\n")
    second = tmp_path / "second.json"
    second.write_text('{"dram": {"latency_cycles": 400}, "latencies": {"fadd": 7}}')
    hw = layered(PRESETS["Tflow2k"], [str(first), str(second)], ["cache.ports=4", "clock_ghz=1"])
    assert hw.dram.latency_cycles == 400  # the later layer wins
    assert hw.cache.size_bytes == 4096 and hw.cache.assoc == 2  # Table III: 4 KB is 2-way
    assert hw.cache.ports == 4 and hw.latencies.fadd == 7 and hw.clock_ghz == 1.0
    assert hw.energy == ENERGY_PRESETS["cacti45"]
    # Everything not named keeps the preset's value.
    assert hw.scratchpad == PRESETS["Tflow2k"].scratchpad
    assert hw.latencies.fmul == PRESETS["Tflow2k"].latencies.fmul


def test_an_explicit_associativity_is_kept() -> None:
    hw = layered(PRESETS["Enzyme32k"], [], ["cache.size_bytes=65536"])
    assert (hw.cache.size_bytes, hw.cache.assoc) == (65536, 1024)  # Table III: fully associative
    hw = layered(PRESETS["Enzyme32k"], [], ["cache.size_bytes=65536", "cache.assoc=8"])
    assert (hw.cache.size_bytes, hw.cache.assoc) == (65536, 8)  # the later layer wins
    hw = layered(PRESETS["Enzyme32k"], [], ["cache.assoc=8"])
    assert (hw.cache.size_bytes, hw.cache.assoc) == (32768, 8)


def test_the_full_description_round_trips(tmp_path: Path) -> None:
    import json

    hw = layered(PRESETS["Tflow1k"], [], ["dram.bandwidth_gbs=25.6"])
    path = tmp_path / "full.json"
    path.write_text(json.dumps(describe(hw)))
    assert layered(PRESETS["Enzyme32k"], [str(path)]) == hw


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "dram.latency=3",
            "unknown hardware key 'dram.latency' (known here: bandwidth_gbs, latency_cycles)",
        ),
        (
            "dram.latency_cycles=abc",
            'dram.latency_cycles: input should be a valid integer (got "abc")',
        ),
        ("rows=2.5", "rows: input should be a valid integer (got 2.5)"),
        ("cache=3", "'cache' is a section"),
        ("cache.size_bytes=3000", "a 3000 B cache cannot have 2 ways of 64 B lines"),
        ("energy=foo", "unknown energy preset 'foo'"),
        ("rows=0", "a 0x4 grid (rows x cols) has no FUs"),
        ("nokey", "expected key.path=value"),
        ("placement.heap=12", "placement.heap 12 is not a non-negative multiple of 8 bytes"),
        (
            "datapath.issue_width=8",
            "unknown hardware key 'datapath.issue_width' (known here: adjoint_additions, latch, "
            "lockstep, ordering, ports, sched_threshold, units): the authors' gem5-SALAM "
            "datapath has no issue width",
        ),
        ("datapath.reservation_queue=16", "has no reservation-table capacity"),
        ("datapath.read_queue=4", "has no read-queue size"),
        ("datapath.write_queue=4", "has no write-queue size"),
    ],
)
def test_a_bad_setting_names_the_key(setting: str, message: str) -> None:
    with pytest.raises(HardwareDescriptionError) as err:
        layered(PRESETS["Tflow2k"], [], [setting])
    assert str(err.value).startswith(f"--set {setting}: ") or "expected key.path" in str(err.value)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dram: [1, 2\n", "bad.yaml:2:1: not valid YAML or JSON"),
        ("- 1\n- 2\n", "bad.yaml: a hardware description is a mapping of sections"),
        ("cache:\n  size: 4096\n", "bad.yaml: unknown hardware key 'cache.size'"),
    ],
)
def test_a_bad_file_names_the_file_and_the_place(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(HardwareDescriptionError) as err:
        layered(PRESETS["Tflow2k"], [str(path)])
    assert message in str(err.value)


CORPUS = Path(__file__).resolve().parents[1] / "tapeflow_tools" / "bad_inputs" / "hw_files"


@pytest.mark.parametrize(
    "name, expected",
    [
        ("json_exponent.json", {"dram.bandwidth_gbs": 100.0}),
        (
            "json_tabs.yaml",
            {"dram.bandwidth_gbs": 100.0, "dram.latency_cycles": 150, "cache.size_bytes": 4096},
        ),
        (
            "yaml_exponent.yaml",
            {"clock_ghz": 1.5, "dram.bandwidth_gbs": 25.6, "dram.latency_cycles": 100},
        ),
        (
            "gem5_l1d.yaml",
            {"name": "gem5-L1D", "cache.size_bytes": 65536, "cache.assoc": 2, "cache.mshrs": 4},
        ),
        ("anchors.yaml", {"latencies.fdiv": 20, "latencies.sqrt": 20}),
        ("bom_integral_exponent.json", {"dram.latency_cycles": 100, "dram.bandwidth_gbs": 25.0}),
    ],
)
def test_valid_files_mean_what_json_and_yaml_1_2_say(
    name: str, expected: dict[str, object]
) -> None:
    """The values a JSON reader and the YAML 1.2 core schema give (1e2 is 100.0,
    0100 is 100, not YAML 1.1's octal 64), as the machine the run uses."""
    machine = describe(layered(PRESETS["Enzyme32k"], [str(CORPUS / name)]))
    for path, value in expected.items():
        got: object = machine
        for part in path.split("."):
            got = got[part]  # type: ignore[index]
        assert got == value and type(got) is type(value), path


@pytest.mark.parametrize(
    "setting, path, value",
    [
        ("dram.bandwidth_gbs=1e2", ("dram", "bandwidth_gbs"), 100.0),
        ("dram.latency_cycles=0x40", ("dram", "latency_cycles"), 64),
        ("cache.lru_on_write=false", ("cache", "lru_on_write"), False),
    ],
)
def test_set_values_are_yaml_1_2(setting: str, path: tuple[str, str], value: object) -> None:
    machine = describe(layered(PRESETS["Enzyme32k"], [], [setting]))
    assert machine[path[0]][path[1]] == value  # type: ignore[index]


def test_every_preset_is_within_the_domains() -> None:
    """The domains refuse nothing the paper's machines use."""
    for preset in PRESETS.values():
        assert domain_problem(describe(preset)) is None, preset.name


def test_the_documented_domains_are_the_checked_ones() -> None:
    """docs/hardware-files.md's table names every field `DOMAINS` checks."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "hardware-files.md").read_text()
    for path in DOMAINS:
        family = path.split(".")[0]
        assert (
            f"`{path}`" in doc
            or (family == "latencies" and "`latencies.fadd` ... `latencies.hop`" in doc)
            or (path in ("rows", "cols") and "`rows`, `cols`" in doc)
        ), path
