"""
One run of a prepared module (`Execution`): what `sim.simulator.execute` records
and `evaluate` and the timeline (`sim.timeline`) read. Its own module so that the
simulator and the timeline both import it, and not each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.cache import CacheResult
from sim.models import DEFAULT_MODEL
from sim.timing import TimingRecorder
from sim.trace import AccessRoles, MemoryTrace
from targets.hardware import CacheConfig, Hardware


@dataclass
class Execution:
    """One run of a prepared module: its values, its address trace and its timing
    windows. Everything that depends on the cache only is left for `evaluate`, so
    that one execution serves every cache size and energy preset of a sweep."""

    outputs: dict[str, np.ndarray]
    hardware: Hardware
    tape_bytes: int
    recorder: TimingRecorder
    addresses: np.ndarray
    writes: np.ndarray
    roles: AccessRoles
    """Per access, whom its traffic belongs to (`sim.trace.DRAM_ROLES`), computed
    for the accesses asked about (`roles[positions]`, `roles.all()`)."""
    seconds: float
    trace: MemoryTrace
    model: str = DEFAULT_MODEL
    """The timing model the module was lowered and run for."""
    replays: dict[CacheConfig, CacheResult] = field(default_factory=dict)
    """The trace's replay through each cache asked for so far."""
    reports: dict[Hardware, dict[str, Any]] = field(default_factory=dict)
    """The report on each machine asked for so far, by the machine without its
    name and with the run's energy preset (`sim.simulator.evaluate`)."""
    variant: str | None = None
    """The variant the module was prepared for (None: the caller did not say)."""
    unroll: int = 1
    """The unroll factor that ran (`sim.simulator.unroll_used`)."""
    unroll_requested: int = 1
    """The factor asked for."""
    unroll_factors: list[int] = field(default_factory=list)
    """Each tape loop's factor (`sim.simulator.unroll_factors`)."""
    choices: dict[Hardware, Any] = field(default_factory=dict)
    """`tapeflow-layers`' cost model's choice on each machine, by run key
    (`sim.simulator.stream_choices`): a machine that differs from the run's in
    what the cost model reads is evaluated only if its choice is the run's."""
