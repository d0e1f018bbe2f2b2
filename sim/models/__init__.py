"""
The timing models: how the simulator turns a recorded run into cycles.

One run (`sim.simulator.execute`) records values, the address trace and the timing
windows (`sim.timing.TimingRecorder`); the cache model replays the trace. A timing
model then decides what each window costs. Everything else in the report (cache
hits and misses, DRAM bytes, scratchpad accesses, energy) is counted the same way
under every model, from the same trace and windows.

`MODELS` maps each name `--model` accepts to its model:

- `cgra` (`sim/models/cgra.py`): the project's pipelined CGRA (modulo-scheduled
  kernel loops at 2 GHz, misses overlapped with compute, timed streams);
- `salam` (`sim/models/salam.py`): the authors' gem5-SALAM machine (100 MHz
  datapath issuing in lockstep groups, inner-loop iterations overlapping, two
  ports with a read and a write slot each, free tape bins); its parameters are in
  `targets/salam.py`, its issue rules in `targets/lockstep.py`.

A model has three parts (`TimingModel`):

- `hardware(preset)`: the machine it simulates, given a hardware preset (or
  description): `cgra` keeps it, `salam` puts in the authors' clock, latencies,
  cache ways, per-access costs and array placement. Callers apply it before
  `prepare`/`execute` and before `evaluate` of another cache size;
- `lowering_hardware(hardware, tape_bytes)`: the hardware the variant's passes
  are given (`salam` lowers TapeFlow with a scratchpad as large as the tape,
  since its bins have no capacity);
- `cycles(windows, hardware)`: each window's cycles, and the memory and stream
  stalls among them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from targets.hardware import Hardware
from targets.lockstep import LockstepSchedule


@dataclass(frozen=True)
class WindowTable:
    """The run's windows as columns (one entry per window, in program order), with
    what the cache replay found in each."""

    kernel: np.ndarray
    """True for a kernel loop, False for ops outside kernels."""
    compute: np.ndarray
    """`Window.compute`."""
    access_latency: np.ndarray
    """`Window.access_latency`."""
    hits: np.ndarray
    misses: np.ndarray
    writebacks: np.ndarray
    dram_bytes: np.ndarray
    """Missed and written-back lines, plus streamed bytes."""
    rev_stream_bytes: np.ndarray
    trips: np.ndarray
    ii: np.ndarray
    length: np.ndarray
    tiled: np.ndarray
    """Kernel loops that are the body of a layer."""
    kernel_id: np.ndarray
    """Kernel loops: one number (from 1) per kernel, the same for the same kernel;
    0 for ops windows."""
    layer: np.ndarray
    """Layers started before the window."""
    spad_accesses: np.ndarray
    memory_ops: np.ndarray
    stream_write_bytes: np.ndarray
    stream_read_bytes: np.ndarray
    start: np.ndarray
    """First access of the trace made in the window."""
    end: np.ndarray
    """One past its last access."""
    access_hit: np.ndarray
    """Per access of the trace: did it hit in the cache."""
    lockstep: tuple[LockstepSchedule | None, ...]
    """By `kernel_id`: the kernel's iteration on the authors' lockstep datapath
    (`KernelProfile.lockstep`; None at index 0, the ops windows)."""


@dataclass(frozen=True)
class Cycles:
    spent: np.ndarray
    """Cycles of each window (int64)."""
    memory_stall: int
    """Part of the total spent waiting for the cache and DRAM beyond compute."""
    stream_stall: int
    """Part of the total spent waiting for REV tiles."""
    busy: np.ndarray
    """Cycles of each window's issue and latencies alone: `spent` less the
    window's memory and stream stalls (for a timeline, `sim.timeline`)."""
    stream_stalled: np.ndarray
    """Cycles each window waited for its REV tile, at its start."""
    rev_streams: tuple[tuple[int, int], ...] = ()
    """(window whose start issued it, window it delays) for each timed REV stream."""


class TimingModel(Protocol):
    name: str
    summary: str

    def hardware(self, hardware: Hardware) -> Hardware: ...

    def lowering_hardware(self, hardware: Hardware, tape_bytes: int) -> Hardware: ...

    def cycles(self, windows: WindowTable, hardware: Hardware) -> Cycles: ...


def _models() -> dict[str, TimingModel]:
    from sim.models.cgra import CGRA
    from sim.models.salam import SALAM_MODEL

    return {m.name: m for m in (CGRA, SALAM_MODEL)}


MODELS: dict[str, TimingModel] = _models()
"""Every timing model by the name `--model` takes."""

DEFAULT_MODEL = "cgra"


class UnknownModel(ValueError):
    """A model name not in `MODELS`; the message lists them."""


def get_model(name: str) -> TimingModel:
    try:
        return MODELS[name]
    except KeyError:
        raise UnknownModel(
            f"unknown timing model '{name}'; choose from {', '.join(MODELS)}"
        ) from None


__all__ = [
    "Cycles",
    "DEFAULT_MODEL",
    "MODELS",
    "TimingModel",
    "UnknownModel",
    "WindowTable",
    "get_model",
]
