"""
A program's own memory map (`placement.heap`, `Kernel.artifact.memory_map`): arguments at the
addresses the program names, every other buffer from the heap up, stepping over
them, as gem5-SALAM's accelerator `malloc` does (`src/hwacc/llvm_interface.cc`,
`handleMallocCall`, of `sfu-arch/gem5-SALAM` at commit `a5e40f4be`).

Expected addresses are worked out by hand from the rule; the kernels' tables are
the authors' `top()` (`benchmarks/AD/<kernel>/hw/<kernel>.c` at `a5e40f4be`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from sim.models.salam.machine import SALAM, salam_hardware
from sim.simulator import SimulationError, execute, prepare
from sim.trace import MemoryTrace
from tapeflow_benchmarks.common import caller_arguments
from tapeflow_benchmarks.kernels import ALL_KERNELS
from tapeflow_tools.context import make_context
from targets.hardware import PRESETS, HardwareError, PlacementConfig
from targets.machine import layered


def test_placed_buffers_keep_their_address_and_the_heap_steps_over_them() -> None:
    trace = MemoryTrace(base=4096, alignment=8, heap=1000)
    a, b = np.zeros(100), np.zeros(10)  # 800 B and 80 B
    trace.place(a, 640)  # 640 .. 1440: covers the heap's start
    trace.place(b, 5000)
    c, d, e = np.zeros(4), np.zeros(600), np.zeros(1)
    assert trace.base_of(a, a.ctypes.data) == 640
    assert trace.base_of(c, c.ctypes.data) == 1440  # past a, not at 1000
    assert trace.base_of(d, d.ctypes.data) == 5080  # 1472 + 4800 would reach b
    assert trace.base_of(e, e.ctypes.data) == 5080 + 4800
    trace.record(a, (2,), write=False, tape=False)
    addresses, _, _ = trace.arrays()
    assert addresses.tolist() == [640 + 16]


def test_without_placed_buffers_the_heap_is_not_used() -> None:
    trace = MemoryTrace(base=4096, alignment=64, heap=1 << 20)
    a, b = np.zeros(3), np.zeros(3)
    assert trace.base_of(a, a.ctypes.data) == 4096
    assert trace.base_of(b, b.ctypes.data) == 4096 + 64


def test_overlapping_or_repeated_placements_are_refused() -> None:
    trace = MemoryTrace(heap=1 << 20)
    a, b = np.zeros(8), np.zeros(8)
    trace.place(a, 0x1000)
    with pytest.raises(ValueError, match="at 0x1038 .64 bytes. overlaps the one at 0x1000"):
        trace.place(b, 0x1038)
    with pytest.raises(ValueError, match="placed twice"):
        trace.place(a, 0x2000)


def test_a_heap_off_a_double_is_refused() -> None:
    with pytest.raises(HardwareError, match="placement.heap 12 is not"):
        PlacementConfig(heap=12).validate()


def test_salam_takes_the_authors_malloc_base() -> None:
    hardware = salam_hardware(PRESETS["Enzyme1k"])
    assert hardware.placement.heap == SALAM.malloc_base == 0x80C00000 + 1_000_000


def test_every_authors_address_table_names_arguments_that_do_not_overlap() -> None:
    """The tables in the kernels are the authors' (their `top()`); each names
    caller arguments of the artifact program, and they fit side by side."""
    expected = {
        "gravity": {"x": 0x80C00000, "d_x": 0x80E00000},
        "logsum": {"x": 0x80C00A00, "d_x": 0x80C00A00 + 80_000},
        "pathfinder": {"src": 0x80C00000, "wall": 0x80C27100},
    }
    for key, table in expected.items():
        args = [a.name for a in ALL_KERNELS[key].caller_args("artifact")]
        placed = dict(zip(args, ALL_KERNELS[key].argument_addresses("artifact"), strict=True))
        assert {name: placed[name] for name in table} == table
    for kernel in ALL_KERNELS.values():
        if kernel.artifact.memory_map is None:
            continue
        trace = MemoryTrace(heap=SALAM.malloc_base)
        inputs = kernel.inputs("artifact")
        for array, address in zip(inputs, kernel.argument_addresses("artifact"), strict=True):
            if address is not None:
                trace.place(array, address)  # raises if two overlap
    # mttkrp's structs overlap in the authors' map (a shadow 8 B past another):
    # undefined behaviour, so its program keeps the default packing.
    assert ALL_KERNELS["mttkrp"].artifact.memory_map is None


def _logsum(
    differentiated: Callable[[str], ModuleOp], sets: list[str], addresses: list[int | None]
) -> np.ndarray:
    hardware = layered(PRESETS["Enzyme1k"], [], sets)
    module = differentiated("logsum")
    tape_bytes = prepare(make_context(), module, "enzyme", hardware)
    args = caller_arguments(module, "logsum", "small")
    execution = execute(
        module, "logsum_grad", args, hardware, tape_bytes, variant="enzyme", addresses=addresses
    )
    return execution.addresses


def test_a_machine_with_a_heap_keeps_the_arguments_where_the_program_puts_them(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    n = ALL_KERNELS["logsum"].sizes["small"]["N"]
    x, d_x = 0x40000, 0x40000 + 8 * n
    addresses = _logsum(differentiated, ["placement.heap=1048576"], [x, d_x])
    reads_x = (addresses >= x) & (addresses < x + 8 * n)
    reads_d_x = (addresses >= d_x) & (addresses < d_x + 8 * n)
    cached = addresses[~(reads_x | reads_d_x)]
    assert reads_x.any() and reads_d_x.any()
    assert cached.size and cached.min() >= 1 << 20  # Enzyme's caches: from the heap
    # Without a heap the program's addresses are not used: the default packing.
    assert np.array_equal(_logsum(differentiated, [], [x, d_x]), _logsum(differentiated, [], []))


def test_bad_argument_addresses_are_diagnosed(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    with pytest.raises(SimulationError, match="argument 1: the buffer at 0x40008"):
        _logsum(differentiated, ["placement.heap=1048576"], [0x40000, 0x40008])
    with pytest.raises(SimulationError, match="3 argument addresses given for 2 arguments"):
        _logsum(differentiated, ["placement.heap=1048576"], [None, None, 0])
