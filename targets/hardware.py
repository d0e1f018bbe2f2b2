"""
The simulated accelerator: every hardware parameter with where its value comes from.

Sources, cited by key in each field's docstring:

- `paper`: Hakimi & Shriraman, CGO 2024, Section V and Table III (4x4 grid of
  double-precision FUs, 512 B scratchpad of 8 banks, DDR4 at 19.2 GB/s, the five
  configurations and their cache associativities).
- `gem5`: the authors' gem5 configuration as recorded in the shared benchmark notes
  (fadd/fsub 5 cycles, fmul 4, fdiv 16).
- `design`: the project's own design choice (64 B lines, LRU, write-back, write-allocate,
  1 cycle per operand-network hop, 2 GHz).
- `assumption`: a value this project chose where no source gives one; each says why.
- `salam`: the authors' gem5-SALAM fork (`sfu-arch/gem5-SALAM`, branch `binned`,
  commit `a5e40f4be` unless another is named), read by the `salam` model only
  (`DatapathConfig`); docs/research/gem5-salam.md describes it.

Every value can be overridden (`configure`), so that sweeps can vary any of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Literal, get_args

from targets.energy import ENERGY_PRESETS, EnergyModel
from targets.field_domains import domain_problem


class HardwareError(ValueError):
    """A configuration that cannot describe real hardware; the message says why."""


@dataclass(frozen=True)
class Latencies:
    """Cycles from issue to result, per FU operation class."""

    fadd: int = 5
    """fadd/fsub (and float compares, min/max) [gem5]."""
    fmul: int = 4
    """fmul [gem5]."""
    fdiv: int = 16
    """fdiv [gem5]."""
    sqrt: int = 16
    """[assumption] as fdiv: both are iterative units of the same width."""
    transcendental: int = 30
    """exp, log, sin, cos, tanh, pow [assumption]: a polynomial evaluation of about
    six fused multiply-adds at 5 cycles each."""
    integer: int = 1
    """Index and integer arithmetic, selects, casts [assumption]."""
    hop: int = 1
    """One hop of the static mesh operand network [design]."""


@dataclass(frozen=True)
class CacheConfig:
    size_bytes: int = 32 * 1024
    """[paper] 1 KB to 128 KB; 32 KB is Enzyme's baseline."""
    assoc: int = 4
    """[paper] Table III: 1k-16k 2-way, 32k 4-way, 64k fully associative, 128k 8-way."""
    line_bytes: int = 64
    """[design]"""
    hit_latency: int = 2
    """[assumption] cycles for a hit, as a small L1 at 2 GHz."""
    ports: int = 2
    """[assumption] accesses per cycle."""
    mshrs: int = 8
    """[assumption] outstanding misses before the datapath stalls."""
    lru_on_write: bool = True
    """A store that hits makes its line most recently used [design: true LRU].
    pycachesim does not (its store hits leave the LRU order alone); the validation
    against it turns this off."""

    @property
    def sets(self) -> int:
        return self.size_bytes // (self.line_bytes * self.assoc)

    def validate(self) -> None:
        for name in ("size_bytes", "assoc", "line_bytes", "hit_latency", "ports", "mshrs"):
            if getattr(self, name) <= 0:
                raise HardwareError(f"cache.{name} must be positive, got {getattr(self, name)}")
        if self.line_bytes & (self.line_bytes - 1):
            raise HardwareError(
                f"cache.line_bytes must be a power of two (addresses split into line, "
                f"set and tag bits), got {self.line_bytes}"
            )
        if self.size_bytes % (self.line_bytes * self.assoc):
            raise HardwareError(
                f"a {self.size_bytes} B cache cannot have {self.assoc} ways of "
                f"{self.line_bytes} B lines"
            )
        if self.sets & (self.sets - 1):
            raise HardwareError(
                f"a cache of {self.sets} sets (cache.size_bytes / (cache.line_bytes x "
                "cache.assoc)) is not a power of two"
            )


@dataclass(frozen=True)
class ScratchpadConfig:
    size_bytes: int = 512
    """[paper] 64 entries of 8 bytes; 0 means no scratchpad (the Enzyme baseline)."""
    banks: int = 8
    """[paper] 8 banks of 64 B, one access per bank per cycle."""
    latency: int = 1
    """[assumption] a register-file-like SRAM read."""

    def validate(self) -> None:
        if self.size_bytes < 0 or self.size_bytes % 8:
            raise HardwareError(
                "scratchpad.size_bytes must be a non-negative multiple of 8 bytes, "
                f"got {self.size_bytes}"
            )
        if self.latency < 1:
            raise HardwareError(f"scratchpad.latency must be at least 1 cycle, got {self.latency}")
        if self.banks <= 0 or (self.size_bytes and (self.size_bytes // 8) % self.banks):
            raise HardwareError(
                f"{self.size_bytes // 8} scratchpad entries cannot be split into {self.banks} "
                "banks (scratchpad.banks)"
            )


@dataclass(frozen=True)
class DramConfig:
    bandwidth_gbs: float = 19.2
    """[paper] DDR4, shared by cache misses, write-backs and both stream engines."""
    latency_cycles: int = 100
    """[assumption] about 50 ns of DDR4 access latency at 2 GHz."""


@dataclass(frozen=True)
class PlacementConfig:
    """Where the simulated buffers sit in memory (the address trace's bump allocator)."""

    base: int = 4096
    """[design] address of the first buffer."""
    alignment: int = 64
    """[design] each buffer starts at a multiple of this: one cache line, so that
    distinct buffers never share a line but consecutive ones do not all start in
    the same cache set either (page alignment, 4096, is the option that does)."""
    heap: int = 0
    """[design] 0: every buffer is packed from `base` in the order it is first
    touched. Otherwise the machine keeps a program's own memory map: the
    arguments of a program that names their addresses (the `artifact` kernels'
    `Kernel.artifact.memory_map`, from the authors' `top()`) sit there, and every other
    buffer is taken from `heap` up, as a bump allocator that steps over the
    arguments' ranges (gem5-SALAM's accelerator `malloc`)."""

    def validate(self) -> None:
        if self.heap < 0 or self.heap % 8:
            raise HardwareError(
                f"placement.heap {self.heap} is not a non-negative multiple of 8 bytes"
            )
        if self.alignment < 8 or self.alignment & (self.alignment - 1):
            raise HardwareError(
                "placement.alignment must be a power of two of at least 8 bytes, "
                f"got {self.alignment}"
            )
        if self.base < 0 or self.base % self.alignment:
            raise HardwareError(
                f"buffer base {self.base} is not a non-negative multiple of the "
                f"alignment {self.alignment}"
            )


@dataclass(frozen=True)
class MappingConfig:
    """How the compiler and the stream engine use the grid and the scratchpad.
    Each is a step beyond what the paper describes, applied alike to both
    variants, and can be switched off to measure what it buys (the report's
    ablation table)."""

    place_straight_line: bool = True
    """`tapeflow-to-cgra` places every straight-line run of ops outside a kernel
    loop (between and around layers and loops, in loop bodies that hold other
    loops or layers) as a kernel run once where the run was; off: only innermost
    loop bodies and loop-free layer bodies are placed, the rest runs op by op
    outside the grid [design: a CGRA maps a dataflow graph whether or not a loop
    iterates it; Algorithm 2 of the paper puts the REV computation in the REV
    layers]."""
    disambiguate: bool = True
    """The scheduler orders two accesses of one buffer in an iteration only when
    their indices may be equal (it proves them different when one index is the
    other plus a non-zero constant, or both are different constants, or the
    region slots differ); off: every access of a buffer stays in program order."""
    tiles_in_flight: int = 2
    """`tapeflow-layers` cuts layers of straight-line stores of at most this share
    of the scratchpad, so that while one is in use the streams of the others fill
    the rest (1: a tile may take the whole scratchpad, the paper's cut, and then
    no stream can overlap its use) [`lowering/tapeflow_layers.py`]. [design] 2,
    double buffering: such a layer is a kernel run once, which pays its whole
    schedule (fill and drain) and, on the unrolled kernels, its configuration
    every time, so each extra cut costs a layer's schedule."""
    loop_tiles_in_flight: int = 4
    """The same for the tiles of a strip-mined loop (0: as `tiles_in_flight`),
    but a loop tile takes no less than a DRAM burst (64 B) where a straight-line
    layer's share holds one (`lowering.layers.state.loop_tile_entries`).
    [design] 4, three tiles ahead of the one in use: a loop's pipeline continues
    across its tiles' barriers (`sim/models/cgra.py`), so a smaller tile costs
    little, and a REV stream's data arrive the DRAM latency (100 cycles) plus
    the tile's transfer after issue, while a REV loop uses a quarter of the
    64-entry scratchpad (16 entries) in about 20-40 cycles (II 1-2 plus the
    fill): three tiles ahead cover the latency where one ahead cannot
    (matdescent's REV tiles waited 15% of its cycles with 2; gravity, somier
    and pathfinder lose 2-4% with 4). Measured on the nine kernels: docs/evaluation.md,
    "The fair cgra mapping", and the ablation table's "loop tiles
    double-buffered" row."""
    modulo_schedule: bool = True
    """`tapeflow-to-cgra` modulo-schedules each kernel on the grid (iterations
    overlap, ops spread over the PEs); off: a sequential schedule, every op on
    one PE in program order as soon as its operands are ready, no iteration
    overlapping the next (a valid schedule in linear time, for a timing model
    that does not read the grid's schedule: `salam` issues in lockstep groups of
    its own) [`lowering/scheduling/scheduler.py`]."""
    runahead: bool = True
    """A REV stream is issued as soon as its tile's entries are free in the
    scratchpad (full/empty bits guard each entry), up to as many tiles ahead as
    fit; off: no earlier than the start of the previous REV layer (one layer
    ahead) [`sim/models/streams.py`]."""
    stream_by_cost: bool = True
    """`tapeflow-layers` streams a loop nest's tape only where its cost model
    finds that streaming saves more cycles than its tiles add, from this
    machine's cache, DRAM and integer latency, and keeps the other nests' regions
    in DRAM, read through the cache (`stream=auto`); off: every nest that can be
    layered is streamed (`stream=always`, the paper's Pass 2)
    [`lowering/layers/cost.py`; docs/research/stream-cost.md]."""


@dataclass(frozen=True)
class FunctionalUnits:
    """Functional units of each op class on a lockstep datapath (the `salam` model):
    at most this many ops of the class issue in one lockstep group, 0 meaning no
    limit. A unit is taken when its op launches and given back when the op commits
    (gem5-SALAM `Instruction::launch`/`commit` in `LLVMRead/src/instruction.cc`,
    `HWInterface::availableFunctionalUnit`/`clearFunctionalUnit`), so a group, which
    ends only when all its ops have committed, leaves every unit free for the next:
    whether a unit is pipelined (`fu_pipelined = 1` in the kernels' `.ini`) changes
    nothing under lockstep. A 0-cycle op (`select`) commits at launch and holds none.

    [salam] 0 for every class: the authors' runs had no limit. Their kernels'
    `.ini` files list counts (`[FunctionalUnits]`: 1000 per class in
    `benchmarks/AD/nn/hw/nn.ini` L61-75 and 100 in `top.ini`, stored at commit
    `33a0fe08`; 1, 2 or 10 in the other kernels'
    `benchmarks/AD/<kernel>/hw/<kernel>.ini`), but at `a5e40f4be`
    `configs/SALAM/HWAccConfig.py` reads only `clock_period`, `premap_data`,
    `sched_threshold` and `lockstep_mode` from the `.ini` (L25-42) and builds
    `FunctionalUnits()` with its defaults (L47), and the fork's
    `Instruction::hasFunctionalUnit()` returns false
    (`LLVMRead/src/instruction.hh`, stored at `0364f35d`), so `launch()` never asks
    for a unit. Setting a count (`--set datapath.units.fmul=1`) models the `.ini`
    as if it were read."""

    fadd: int = 0
    fmul: int = 0
    fdiv: int = 0
    sqrt: int = 0
    transcendental: int = 0
    integer: int = 0


Ordering = Literal["strict", "release"]
"""The rules a cache load may issue by on the lockstep datapath (`DatapathConfig.ordering`)."""

ORDERINGS: tuple[str, ...] = get_args(Ordering)

Latch = Literal["exit", "iterations"]
"""When the latch of a function's outermost loop drains the lockstep datapath
(`DatapathConfig.latch`)."""

LATCHES: tuple[str, ...] = get_args(Latch)


NOT_IN_SALAM: dict[str, str] = {
    "issue_width": "no issue width: one walk of `processQueues` issues every ready op "
    "of the reservation table",
    "reservation_queue": "no reservation-table capacity: the table is unbounded; "
    "`datapath.sched_threshold` is what holds a block's terminator back",
    "read_queue": "no read-queue size: `readQueue` is an unbounded map; "
    "`datapath.ports` bounds the reads in flight",
    "write_queue": "no write-queue size: `writeQueue` is an unbounded map; "
    "`datapath.ports` bounds the writes in flight",
}
"""Datapath parameters a user may look for that gem5-SALAM's LLVM interface does not
have, with the reason a hardware file or `--set` naming one is refused
(`src/hwacc/llvm_interface.cc` at `0364f35d`; docs/research/salam-memory-ordering.md,
section 5)."""


@dataclass(frozen=True)
class DatapathConfig:
    """The parameters gem5-SALAM's LLVM interface reads for its datapath, beyond
    the op latencies (`Latencies`), read by the `salam` model (its lockstep scheduler
    and its ports) and by no other. The simulator has no issue width, no
    reservation-table capacity and no read or write queue size to set (its
    queues are unbounded maps and lists: docs/research/salam-memory-ordering.md,
    section 5), so none is a field here."""

    units: FunctionalUnits = field(default_factory=FunctionalUnits)
    sched_threshold: int = 10000
    """Reservation-table entries at which a block's terminator waits: a branch
    launches (and schedules the next block) only while the table holds fewer
    entries than this, itself included (`llvm_interface.cc` `processQueues`:
    `isTerminator() && reservation.size() >= scheduling_threshold` skips it; upstream
    `LLVMInterface.py`: "prevents scheduling windows size from exploding during
    regions of high loop parallelism"). It bounds how far an inner loop's branches
    run ahead of its ops [salam: `sched_threshold = 10000`, `[Scheduler]` of
    `benchmarks/AD/nn/hw/nn.ini` L80 and `top.ini` (the `.ini` files stored, at
    `33a0fe08`; `sddmm.ini` gives the same), read by `configs/SALAM/HWAccConfig.py`
    L40 at `a5e40f4be`. The other kernels' `.ini` files are not stored: nn's value
    applies to all]."""
    ports: int = 2
    """Memory ports of the accelerator, each with one read slot and one write
    slot holding a request until its response (`src/hwacc/comm_interface.cc`,
    `getValidGlobalPort`: a port is taken for a read only if `!port->readReq`,
    for a write only if `!port->writeReq`), so a lockstep group's n reads take
    `ceil(n / ports)` rounds, and likewise its writes [salam: the 2022 commit
    stores no generated configuration; the authors' 2023 generator (`parser.py`
    L233-234 at `eaad97011`) connects the accelerator's `acp` port twice]."""
    lockstep: bool = True
    """Nothing issues until the read, write and compute queues are all empty
    (`lockstep_mode = True` in the kernels' `.ini` and upstream
    `LLVMInterface.py`; `llvm_interface.hh`: `lockstepReady() { return !lockstep
    || queuesClear(); }`). The `salam` model issues only in lockstep groups, so
    `false` is refused (`validate`)."""
    ordering: Ordering = "release"
    """When a cache load may issue after the cache stores scheduled before it
    (`findDynamicDeps` in `src/hwacc/llvm_interface.cc` links a load to each
    store still in the reservation table; docs/research/salam-memory-ordering.md,
    sections 2-3):

    - `strict`: after every older store not yet issued, its own iteration's
      (before it in the program) and the previous iterations'; each iteration is
      placed alike, a fixed period apart. No mechanism of the source stands
      behind it: it is the setting that fits the authors' 8ILP sweep best (45
      of 49 speedups and 68 of 98 runs' cycles within 30%).
    - `release` (the default): as their source releases it. The dependence is keyed by the
      static store (`src/hwacc/LLVMRead/src/instruction.hh` L28 and L73-75:
      `dynamicDependencies.insert({dep->getUID(), dep})`) and erased by the
      first instance of that store to commit (`instruction.cc`, `commit` ->
      `signalUsers` -> `removeDynamicDependency`), so of one store's unissued
      instances the oldest's write response releases the load; with none
      pending, its own iteration's instance, if it comes first in the program.
      Each iteration of a run is placed as the datapath issues it. It fits the
      authors' earlier sweep (`sweep_cache_results/`) better than `strict`
      (docs/research/salam-memory-ordering.md, sections 9.4 and 10)."""
    adjoint_additions: bool = True
    """The reverse sweep runs with the `fadd`s Enzyme for LLVM (the authors' AD
    tool) adds and Enzyme-MLIR forwards away: `DiffeGradientUtils::addToDiffe`
    (`enzyme/Enzyme/GradientUtils.h`, `sfu-arch/Enzyme` at `1dc51dbc`) adds
    every contribution to an adjoint into its shadow with an `fadd`, which their
    build keeps (`sim.models.salam.enzyme_llvm.adjoint_additions`). The values
    are unchanged; only the issue order sees the extra ops and dependences. On
    by default, as the authors' programs were built (docs/research/
    salam-memory-ordering.md, section 10.2); `false` times the program as
    Enzyme-MLIR gives it."""
    latch: Latch = "exit"
    """When the latch branch of a function's outermost loop waits until the
    datapath has drained. The wait is on the branch's first successor
    (`processQueues` in `src/hwacc/llvm_interface.cc` holds a branch while
    `isLatchingBrExiting() && (reservation.size() > 1 || !queuesClear())`;
    `LLVMRead/src/instruction.hh`, `Br::isLatchingBrExiting`: `isLatching &&
    getTarget() == trueDestination`; `instruction.cc`, `Br::initialize`:
    `trueDestination` is `getSuccessor(0)`; only the exiting branches of the
    top-level loops are marked latching, `constructStaticGraph`):

    - `exit` (the default): only as it leaves the loop, the form every loop of
      the authors' programs has: clang puts a counted loop's exit first (`br i1
      %exitcond.not, label %exit, label %body`, the innermost loop of
      `benchmarks/lenet5/naive/hw/ir/pool0.ll` at `2c8d127d`, their clang
      12.0.1), and Enzyme for LLVM every reverse loop's (`br i1 %cmp, label
      %exit, label %incinvertfor.body` on `iv == 0`). No iteration waits for
      the one before: an outermost loop's iterations overlap as an inner loop's
      do, and the runs of a loop nested in it continue one another.
    - `iterations`: at every iteration, for a latch compiled with the body
      first (`br i1 %cmp, label %body, label %exit`, as `pool0.ll`'s step-2
      loops are): an outermost loop's iterations run one after another.

    docs/research/salam-memory-ordering.md, section 11."""

    def validate(self) -> None:
        if self.ordering not in ORDERINGS:
            raise HardwareError(
                f"datapath.ordering = {self.ordering!r} is not a load ordering: choose "
                f"from {', '.join(ORDERINGS)}"
            )
        if self.latch not in LATCHES:
            raise HardwareError(
                f"datapath.latch = {self.latch!r} is not a latch rule: choose "
                f"from {', '.join(LATCHES)}"
            )
        if not self.lockstep:
            raise HardwareError(
                "datapath.lockstep = false is not simulated: the salam model issues in "
                "lockstep groups only (gem5-SALAM's lockstep_mode, on in the authors' "
                "runs); a datapath that launches while requests are in flight would need "
                "a timing of its own"
            )


@dataclass(frozen=True)
class Hardware:
    """One accelerator configuration."""

    name: str
    clock_ghz: float = 2.0
    """[design] as the paper's host core."""
    rows: int = 4
    """[paper] 4x4 grid of FP64 FUs."""
    cols: int = 4
    latencies: Latencies = field(default_factory=Latencies)
    cache: CacheConfig = field(default_factory=CacheConfig)
    scratchpad: ScratchpadConfig = field(default_factory=ScratchpadConfig)
    dram: DramConfig = field(default_factory=DramConfig)
    placement: PlacementConfig = field(default_factory=PlacementConfig)
    energy: EnergyModel = field(default_factory=lambda: ENERGY_PRESETS["paper"])
    config_cycles_per_op: int = 1
    """Cycles to load the configuration of one placed op (one PE's context slot:
    its opcode, operand routes and issue cycle) when the grid switches to a
    kernel whose configuration it does not hold (`config_contexts`); such a
    switch costs the kernel's placed ops times this [DySER:
    Govindaraju et al., "DySER: Unifying Functionality and Parallelism
    Specialization for Energy-Efficient Computing", IEEE Micro 32(5), 2012: the
    fabric is configured one functional unit per cycle, 64 cycles for a 64-FU
    block]. Charged by the `cgra` model only (gem5-SALAM's accelerators are fixed
    datapaths)."""
    config_contexts: int = 32
    """Configuration words each PE keeps [assumption: context memories of tens of
    words per FU, as ADRES-class CGRAs have]: the grid holds the configurations
    of the kernels it ran last, `rows * cols * config_contexts` words in all
    (least recently used first out), and switching back to a kept one loads
    nothing. A kernel larger than that is loaded each time it is switched to."""
    mapping: MappingConfig = field(default_factory=MappingConfig)
    datapath: DatapathConfig = field(default_factory=DatapathConfig)
    """The lockstep datapath's issue limits (the `salam` model's only)."""
    converted_for: str = field(default="", metadata={"described": False})
    """The timing model whose machine this is, set by its conversion
    (`TimingModel.hardware`; '' for a machine no model converted). Not a
    parameter: `describe` leaves it out, and a model refuses a machine converted
    for another, or one it would have had to convert (`sim.models.check_machine`)."""

    @property
    def dram_bytes_per_cycle(self) -> float:
        """19.2 GB/s at 2 GHz is 9.6 bytes per cycle."""
        return self.dram.bandwidth_gbs / self.clock_ghz

    @property
    def sram_bytes(self) -> int:
        """On-chip SRAM provisioned: cache plus scratchpad."""
        return self.cache.size_bytes + self.scratchpad.size_bytes

    def validate(self) -> None:
        """Every field within its domain (`targets.field_domains`: finite, in
        range, a power of two where addresses are split by bits), then the
        relations between fields."""
        if self.rows <= 0 or self.cols <= 0:
            raise HardwareError(f"a {self.rows}x{self.cols} grid (rows x cols) has no FUs")
        if self.dram.latency_cycles < 0:
            raise HardwareError(
                f"dram.latency_cycles must be non-negative, got {self.dram.latency_cycles}"
            )
        for latency in fields(self.latencies):
            if getattr(self.latencies, latency.name) < 1:
                raise HardwareError(
                    f"latencies.{latency.name} must be at least 1 cycle, "
                    f"got {getattr(self.latencies, latency.name)}"
                )
        self.cache.validate()
        self.scratchpad.validate()
        self.placement.validate()
        self.datapath.validate()
        problem = domain_problem(describe(self))
        if problem:
            raise HardwareError(problem)


def associativity_for(cache_bytes: int) -> int:
    """Table III's associativity for a cache size: 2-way up to 16 KB, 4-way at
    32 KB, fully associative at 64 KB, 8-way at 128 KB (and beyond)."""
    if cache_bytes <= 16 * 1024:
        return 2
    if cache_bytes <= 32 * 1024:
        return 4
    if cache_bytes <= 64 * 1024:
        return cache_bytes // 64
    return 8


def _config(name: str, cache_kb: int, spad_bytes: int) -> Hardware:
    size = cache_kb * 1024
    return Hardware(
        name=name,
        cache=CacheConfig(size_bytes=size, assoc=associativity_for(size)),
        scratchpad=ScratchpadConfig(size_bytes=spad_bytes),
    )


PRESETS: dict[str, Hardware] = {
    h.name: h
    for h in (
        _config("Enzyme32k", 32, 0),
        _config("Enzyme1k", 1, 0),
        _config("Tflow32k", 32, 512),
        _config("Tflow2k", 2, 512),
        _config("Tflow1k", 1, 512),
    )
}
"""[paper] Section V: the Enzyme baseline (tape through the cache) at 32 KB and
1 KB, and TapeFlow with a 512 B scratchpad at 32 KB (ISO-energy), 2 KB
(ISO-performance) and 1 KB."""


def configure(
    preset: str,
    *,
    cache_bytes: int | None = None,
    assoc: int | None = None,
    spad_bytes: int | None = None,
    rows: int | None = None,
    cols: int | None = None,
    energy: str | None = None,
) -> Hardware:
    """A preset with some parameters changed (as `overridden`)."""
    if preset not in PRESETS:
        raise HardwareError(f"unknown hardware preset '{preset}'; choose from {', '.join(PRESETS)}")
    return overridden(
        PRESETS[preset],
        cache_bytes=cache_bytes,
        assoc=assoc,
        spad_bytes=spad_bytes,
        rows=rows,
        cols=cols,
        energy=energy,
    )


def overridden(
    hardware: Hardware,
    *,
    cache_bytes: int | None = None,
    assoc: int | None = None,
    spad_bytes: int | None = None,
    rows: int | None = None,
    cols: int | None = None,
    energy: str | None = None,
    ways: Callable[[int], int] = associativity_for,
) -> Hardware:
    """`hardware` with some parameters changed, checked; a changed cache size takes
    `ways(size)` unless `assoc` is given (Table III's associativity by default; a
    timing model's `ways` for the machine it simulates)."""
    cache = hardware.cache
    if cache_bytes is not None:
        cache = replace(cache, size_bytes=cache_bytes, assoc=ways(cache_bytes))
    if assoc is not None:
        cache = replace(cache, assoc=assoc)
    changes: dict[str, object] = {"cache": cache}
    if spad_bytes is not None:
        changes["scratchpad"] = replace(hardware.scratchpad, size_bytes=spad_bytes)
    if rows is not None:
        changes["rows"] = rows
    if cols is not None:
        changes["cols"] = cols
    if energy is not None:
        if energy not in ENERGY_PRESETS:
            raise HardwareError(
                f"unknown energy preset '{energy}'; choose from {', '.join(ENERGY_PRESETS)}"
            )
        changes["energy"] = ENERGY_PRESETS[energy]
    configured = replace(hardware, **changes)  # type: ignore[arg-type]
    configured.validate()
    return configured


def describe(hardware: Hardware) -> dict[str, object]:
    """Every parameter as plain data (for reports and result caches)."""

    def plain(value: object) -> object:
        if hasattr(value, "__dataclass_fields__"):
            return {
                f.name: plain(getattr(value, f.name))
                for f in fields(value)  # type: ignore[arg-type]
                if f.metadata.get("described", True)
            }
        return value

    return plain(hardware)  # type: ignore[return-value]


__all__ = [
    "CacheConfig",
    "DatapathConfig",
    "DramConfig",
    "FunctionalUnits",
    "Hardware",
    "HardwareError",
    "Latencies",
    "MappingConfig",
    "LATCHES",
    "NOT_IN_SALAM",
    "Latch",
    "ORDERINGS",
    "Ordering",
    "PRESETS",
    "PlacementConfig",
    "ScratchpadConfig",
    "associativity_for",
    "configure",
    "describe",
    "overridden",
]
