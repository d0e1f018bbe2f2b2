"""The hardware descriptions: the paper's presets, overrides, and bad values."""

from __future__ import annotations

import pytest

from targets.energy import ENERGY_PRESETS
from targets.hardware import PRESETS, HardwareError, associativity_for, configure, describe


def test_the_five_configurations_of_the_paper() -> None:
    expected = {
        # name: (cache bytes, ways, scratchpad bytes), Section V and Table III
        "Enzyme32k": (32768, 4, 0),
        "Enzyme1k": (1024, 2, 0),
        "Tflow32k": (32768, 4, 512),
        "Tflow2k": (2048, 2, 512),
        "Tflow1k": (1024, 2, 512),
    }
    got = {
        n: (h.cache.size_bytes, h.cache.assoc, h.scratchpad.size_bytes) for n, h in PRESETS.items()
    }
    assert got == expected
    for hardware in PRESETS.values():
        hardware.validate()
        assert (hardware.rows, hardware.cols) == (4, 4)
        # 19.2 GB/s at 2 GHz
        assert hardware.dram_bytes_per_cycle == pytest.approx(9.6)
    assert PRESETS["Tflow2k"].sram_bytes == 2048 + 512


def test_table_iii_associativity() -> None:
    assert [associativity_for(k * 1024) for k in (1, 2, 4, 8, 16, 32, 128)] == [2, 2, 2, 2, 2, 4, 8]
    assert associativity_for(64 * 1024) == 1024  # fully associative: 1024 lines of 64 B


def test_overrides_and_their_errors() -> None:
    h = configure("Tflow2k", cache_bytes=8192, spad_bytes=4096, energy="cacti45")
    assert (h.cache.size_bytes, h.cache.assoc, h.scratchpad.size_bytes) == (8192, 2, 4096)
    assert h.energy.name == "cacti45"
    assert describe(h)["cache"]["size_bytes"] == 8192  # type: ignore[index]
    with pytest.raises(HardwareError, match="unknown hardware preset 'Tflow3k'"):
        configure("Tflow3k")
    with pytest.raises(HardwareError, match="cannot have 3 ways"):
        configure("Tflow2k", assoc=3)
    with pytest.raises(HardwareError, match="multiple of 8 bytes"):
        configure("Tflow2k", spad_bytes=100)
    with pytest.raises(HardwareError, match="unknown energy preset"):
        configure("Tflow2k", energy="cacti22")


def test_energy_presets() -> None:
    paper, cacti = ENERGY_PRESETS["paper"], ENERGY_PRESETS["cacti45"]
    # Table III as printed, at its own points.
    assert [paper.cache_pj(k * 1024) for k in (1, 2, 32, 128)] == [120, 440, 2990, 11350]
    assert paper.spad_pj == 100
    # CACTI 45 nm 2-way caches: 43 pJ at 4 KB, 85 pJ at 128 KB, log-linear between.
    assert cacti.cache_pj(4096) == pytest.approx(43)
    assert cacti.cache_pj(131072) == pytest.approx(85)
    assert 43 < cacti.cache_pj(32768) < 85
    assert cacti.dram_read_pj_per_bit == 5.8 and cacti.dram_write_pj_per_bit == 5.0
