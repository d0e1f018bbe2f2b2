"""
The parameters of the `salam` timing model: the machine the authors simulated
TapeFlow on (gem5-SALAM, GitHub `sfu-arch/gem5-SALAM`, branch `binned`, commit
`a5e40f4be` "Add cache results"; the notes read from it are
docs/research/gem5-salam.md and docs/research/salam-model.md, and
file and line numbers below are that commit's unless another is named).

Each field names the file of the authors' repository (or of upstream gem5, where
the fork keeps gem5's default) its value comes from. The mechanism that uses them
is `sim/models/salam/model.py`; `salam_hardware` turns a hardware preset into the
`targets.hardware.Hardware` the model runs on (the per-access costs it derives
become fields there, so that `--set` can still vary them).

Units: `*_ns` in nanoseconds. The cluster cache, the buses and DRAM run on the
1 GHz system clock, so one system cycle is 1 ns; the accelerator's datapath ticks
every `clock_period_ns`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from targets.fields import HARDWARE_FIELDS
from targets.hardware import Hardware, Latencies, PlacementConfig


@dataclass(frozen=True)
class SalamMachine:
    clock_period_ns: int = 10
    """Datapath tick (100 MHz): `clock_period = 10` in `benchmarks/AD/*/hw/*.ini`
    and the default of `clock_period` in upstream `src/hwacc/LLVMInterface.py`
    (`llvm_interface.cc`: `clock_period = clock_period * 1000`)."""
    system_clock_ns: float = 1.0
    """Cluster cache, buses and DRAM controller clock: gem5's full-system default
    `--sys-clock 1GHz` (`ad.sh`/`tf.sh` set none; UNVERIFIED, research notes 5.5)."""
    fadd: int = 5
    """fadd/fsub, in datapath cycles: `fadd = 5` (.ini `[CycleCounts]`, upstream
    `src/hwacc/HWModeling/SimObjects/CycleCounts.py`)."""
    fmul: int = 4
    """`fmul = 4` (same files)."""
    fdiv: int = 16
    """`fdiv = 16` (same files)."""
    call: int = 1
    """exp, log, sqrt...: `-fno-builtin` (`benchmarks/AD/*/hw/Makefile`) keeps them
    calls. The fork's `src/hwacc/CycleCounts.py` gives `call` 0 cycles, but
    `llvm_interface.cc` puts a call to a declared function in the compute queue
    without launching it, and the queue commits it at the next tick: 1 cycle."""
    integer: int = 1
    """add, sub, mul, shifts, icmp, trunc/zext/sext: 1 (the fork's
    `src/hwacc/CycleCounts.py`)."""
    fcmp: int = 1
    """A float compare, in datapath cycles: `fcmp = 1` in the authors' kernel
    configuration (`benchmarks/AD/nn/hw/nn.ini` `[CycleCounts]`, commit
    `33a0fe08`) and in every stored version of upstream gem5-SALAM's cycle counts
    (`TeCSAR-UNCC/gem5-SALAM` `src/hwacc/CycleCounts.py` at `c134a80f`,
    `src/hwacc/HWModeling/SimObjects/CycleCounts.py` at `eb8fe4ae`), not `fadd`'s 5."""
    compare_ops: tuple[str, ...] = (
        "arith.cmpf",
        "arith.maximumf",
        "arith.minimumf",
        "arith.maxnumf",
        "arith.minnumf",
    )
    """Ops that take `fcmp` cycles on this datapath: a float compare, and a min or
    max, which the authors' C writes as a compare and a 0-cycle `select`
    (`#define MIN(a, b) ((a)<=(b) ? (a) : (b))`, `benchmarks/AD/pathfinder/hw/
    pathfinder.c` at `d68b91f1`; without `-ffast-math` clang keeps the `fcmp` and
    the `select`)."""
    zero_cycle_ops: tuple[str, ...] = ("arith.select",)
    """Ops the `[CycleCounts]` of the authors' stored kernel configurations give 0
    cycles (`select`, `getelementptr`, `phi`, `br`; `benchmarks/AD/nn/hw/nn.ini`
    at `33a0fe08`): they commit when launched, so their users issue in the same
    lockstep pass. Of them only `select` is an op of ours: addressing is folded
    into our loads and stores, phis and branches are loop structure
    (`sim.models.salam.lockstep.INDUCTION_PERIOD`). Whether the runs used these
    counts or the `CycleCounts` SimObject's defaults (1 cycle each upstream) is
    open: docs/research/salam-model.md, "Known differences"."""
    cache_assoc: int = 4
    """Cluster-cache ways, at every size: `assoc = 4` (`src/hwacc/AccCluster.py`
    line 15, ClusterCache)."""
    line_bytes: int = 64
    """gem5's system cache line (upstream `CommInterface.py` `cache_line_size`;
    `cache_stat_extractor.py` multiplies misses by 64)."""
    tag_latency: int = 20
    """System cycles: `tag_latency = 20` (`src/hwacc/AccCluster.py`, ClusterCache)."""
    data_latency: int = 20
    """`data_latency = 20` (same). gem5's cache looks tags and data up in parallel
    (`sequential_access = False`), so a hit takes max(tag, data)."""
    response_latency: int = 20
    """`response_latency = 20` (same): the return path of a miss."""
    mshrs: int = 20
    """`mshrs = 20` (same). With one read in flight per port slot they never fill."""
    local_bus_ns: int = 2
    """coherency_bus between the accelerator and the cluster cache: frontend 1 +
    forward 0 + response 1 (`AccCluster.py`: `CoherentXBar(width=2,
    frontend_latency=1, forward_latency=0, response_latency=1)`)."""
    memory_bus_ns: int = 10
    """system membus on a miss (`l2coherent=False` in `ad.sh`: no L2): gem5
    `SystemXBar` frontend 3 + forward 4 + response 2 + snoop filter lookup 1
    (upstream `src/mem/XBar.py`)."""
    dram_controller_ns: float = 20.0
    """DRAM controller static frontend + backend latency, 10 ns each (gem5
    `src/mem/DRAMCtrl.py` defaults)."""
    dram_trcd_ns: float = 14.16
    """DDR4-2400 (`--mem-type=DDR4_2400_8x8` in `ad.sh`): tRCD 14.16 ns (gem5
    `DDR4_2400_x64`/`DDR4_2400_8x8` in `src/mem/DRAMCtrl.py`)."""
    dram_tcl_ns: float = 14.16
    """tCL 14.16 ns (same)."""
    dram_tburst_ns: float = 3.333
    """tBURST 3.333 ns: one 64 B burst on the x64 bus (same)."""
    dram_bandwidth_gbs: float = 19.2
    """DDR4-2400 x64: 2400 MT/s x 8 B (one channel, gem5's `--mem-channels` default:
    UNVERIFIED)."""
    unsized_tape_bytes: int = 1 << 20
    """Not a timing parameter: the scratchpad the TapeFlow variant is lowered
    with when its tape's size is known only at run time. The bins have no
    capacity, so the model wants one tile per run of a loop, not tiles of a
    preset's scratchpad; 1 MiB holds any run of the artifact kernels' loops
    (gravity's triangular tape, the one such tape, is 510 KiB in all)."""
    base_address: int = 0x80C00000
    """Arrays are placed back to back from here (`hw/<kernel>.c` `top()`; the
    kernels' `malloc` is a bump allocator, `base_address += size` in
    `llvm_interface.cc`), when the program names no addresses."""
    alignment: int = 8
    """Packed with no padding beyond the 8 B of a double (`base_address += size`)."""
    malloc_base: int = 0x80CF4240
    """The accelerator's first `malloc` (0x80c00000 + 1,000,000 B,
    `createMallocBaseAddress` in `src/hwacc/llvm_interface.cc`), from which every
    buffer the kernel allocates is taken: Enzyme's caches and any shadow or array
    the kernel mallocs. The arguments sit at the addresses `top()` gives them
    (`Kernel.artifact.memory_map`); `placement.heap`."""

    @property
    def hit_ns(self) -> float:
        """A hit: the local bus both ways, then the parallel tag and data lookup."""
        return self.local_bus_ns + max(self.tag_latency, self.data_latency) * self.system_clock_ns

    @property
    def miss_ns(self) -> float:
        """A miss: the local bus, the tag lookup, the memory bus, a DRAM read of a
        row not yet open (activate, column read, one burst, controller pipeline),
        then the cache's response path. Row-buffer hits (no tRCD) are not modelled."""
        return (
            self.local_bus_ns
            + self.tag_latency * self.system_clock_ns
            + self.memory_bus_ns
            + self.dram_controller_ns
            + self.dram_trcd_ns
            + self.dram_tcl_ns
            + self.dram_tburst_ns
            + self.response_latency * self.system_clock_ns
        )

    @property
    def hit_cycles(self) -> int:
        """Datapath cycles a hit takes when its request leaves at once: the response
        is seen at the first tick after it arrives."""
        return math.ceil(self.hit_ns / self.clock_period_ns)

    @property
    def miss_cycles(self) -> int:
        """Datapath cycles a miss takes when its request leaves at once."""
        return math.ceil(self.miss_ns / self.clock_period_ns)

    def expected_cycles(self, service_ns: float) -> float:
        """
        Datapath cycles, from issue until the datapath sees the response, of a
        request the memory serves in `service_ns`. The request reaches memory at
        the next `CommInterface` tick, up to one datapath period after issue
        (`comm_interface.cc`, `processDelay`), so a hit costs 3 or 4 cycles, not
        always 3. Where in the period the interface ticks is not in the notes: the
        delay is taken as uniform over one period, and the cycles as their mean,
        `E[ceil((delay + service) / period)]` (in closed form: the whole cycles
        `service` needs, plus the chance that the delay carries it one further).
        """
        period = self.clock_period_ns
        whole = math.ceil(service_ns / period)
        spare = whole * period - service_ns  # delay that still fits in `whole`
        return whole + (period - spare) / period

    @property
    def hit_expected(self) -> float:
        """Mean datapath cycles of a hit (`expected_cycles`): 3.2."""
        return self.expected_cycles(self.hit_ns)

    @property
    def miss_expected(self) -> float:
        """Mean datapath cycles of a miss (`expected_cycles`)."""
        return self.expected_cycles(self.miss_ns)


SALAM = SalamMachine()
"""The authors' machine as configured for TapeFlow."""


def salam_hardware(hardware: Hardware, machine: SalamMachine = SALAM) -> Hardware:
    """`hardware` (a preset: its cache size, scratchpad and energy stay) as the
    authors' machine: their clock, FU latencies, cache ways and MSHRs, array
    placement, and per-access costs in datapath cycles (`cache.hit_latency` the
    cycles of a hit, `dram.latency_cycles` what a miss takes more)."""
    latencies = Latencies(
        fadd=machine.fadd,
        fmul=machine.fmul,
        fdiv=machine.fdiv,
        sqrt=machine.call,
        transcendental=machine.call,
        integer=machine.integer,
        hop=hardware.latencies.hop,
    )
    cache = replace(
        hardware.cache,
        assoc=machine.cache_assoc,
        line_bytes=machine.line_bytes,
        hit_latency=machine.hit_cycles,
        mshrs=machine.mshrs,
    )
    dram = replace(
        hardware.dram,
        bandwidth_gbs=machine.dram_bandwidth_gbs,
        latency_cycles=machine.miss_cycles - machine.hit_cycles,
    )
    adapted = replace(
        hardware,
        clock_ghz=1.0 / machine.clock_period_ns,
        latencies=latencies,
        cache=cache,
        dram=dram,
        placement=PlacementConfig(
            base=machine.base_address, alignment=machine.alignment, heap=machine.malloc_base
        ),
        converted_for="salam",
    )
    adapted.validate()
    return adapted


SALAM_UNSIMULATED: frozenset[str] = frozenset(
    {
        "clock_ghz",  # cycles are datapath ticks of `clock_period_ns`; nothing is timed at it
        "rows",  # lockstep issue ignores placement: no grid
        "cols",
        "latencies.hop",  # nor routing
        "cache.ports",  # the accelerator's ports are `datapath.ports`, read and write slots
        "cache.mshrs",  # never more than one read outstanding
        "scratchpad.banks",  # tape bins commit at once: no bank conflicts
        "scratchpad.latency",  # ... and take no time
        "dram.bandwidth_gbs",  # port slots, latency-bound; streams untimed
        "mapping.runahead",  # ... so no stream runs ahead
        "mapping.tiles_in_flight",  # one tile per loop (`lowering_hardware`)
        "mapping.loop_tiles_in_flight",
        "mapping.modulo_schedule",  # lockstep groups, not the grid's schedule
        "mapping.disambiguate",  # lockstep groups order accesses themselves
        "mapping.stream_by_cost",  # untimed bins: every nest streamed (`lowering_hardware`)
        "config_cycles_per_op",  # a fixed datapath: no configuration to load
        "config_contexts",
        # A request's time is `SalamMachine`'s (the authors' bus, cache and DDR4
        # latencies), not these fields, which only record it:
        "cache.hit_latency",
        "dram.latency_cycles",
    }
)
"""The hardware fields the `salam` model does not read (`sim/models/salam/model.py`,
"Mechanisms"): changing one changes no number it reports. Checked by
test/sim/test_model_fields.py, which changes each and compares the reports."""

SALAM_FIELDS: frozenset[str] = HARDWARE_FIELDS - SALAM_UNSIMULATED
"""The hardware fields the `salam` model simulates."""


__all__ = ["SALAM", "SALAM_FIELDS", "SALAM_UNSIMULATED", "SalamMachine", "salam_hardware"]
