"""
The scratchpad's count of full entries (`Scratchpad.entries_full`, what the
peak occupancy and the timeline's samples read) is kept by each op that fills
or empties entries; a REV stream changes it by its tile's entries alone. Here
it is checked against counting the whole scratchpad's full bits at every REV
stream and store, and at the end of the run, on the TapeFlow variants of
kernels with many layers, small and large scratchpads, the fast path and the
closure executor.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sim.simulator import execute, prepare
from sim.storage import RunState, Scratchpad
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_tools.context import make_context
from targets.hardware import configure


@pytest.mark.parametrize(
    ("key", "spad_bytes", "fast"),
    [
        ("lenet", 512, True),
        ("lenet", 65536, True),
        ("pathfinder", 256, True),
        ("pathfinder", 256, False),
        ("softmax", 2048, True),
        ("atax", 512, False),
    ],
)
def test_full_entries_are_counted_as_the_bits_say(
    key: str, spad_bytes: int, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[int] = []
    occupancy = RunState.note_occupancy

    def note_occupancy(self: RunState, spad: Scratchpad) -> None:
        assert spad.entries_full == int(np.count_nonzero(spad.full))
        checked.append(spad.entries_full)
        occupancy(self, spad)

    monkeypatch.setattr(RunState, "note_occupancy", note_occupancy)
    ctx = make_context()
    module = parse_kernel(ctx, key, "small")
    hardware = configure("Tflow2k", spad_bytes=spad_bytes)
    hardware = replace(hardware, mapping=replace(hardware.mapping, stream_by_cost=False))
    tape_bytes = prepare(ctx, module, "tapeflow", hardware)
    args = caller_arguments(module, key, "small")
    execution = execute(module, f"{key}_grad", args, hardware, tape_bytes, fast, variant="tapeflow")
    assert checked, "no REV stream or store ran"
    assert max(checked) > 0
    assert execution.recorder.spad_peak_entries >= max(checked)
