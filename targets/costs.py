"""
The cost model: which functional-unit class each op uses, how many cycles it
takes from issue to result, and what an op run outside a scheduled kernel costs.
Each op of the scalar semantics declares its class beside its meaning
(`tapeflow_dialects.semantics.COST_CLASSES`); this module refuses at import a
class with no latency or energy, and at use an op with no class.

`tapeflow-to-cgra` schedules with these latencies and the simulator charges them,
so the two always agree. The numbers themselves (and their sources) are fields of
`targets.hardware.Hardware`; this module only says which number applies to which op.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.memref import MemRef
from xdsl.ir import Operation

from tapeflow_dialects import cgra, enzyme, layer, region, stream, tape
from tapeflow_dialects.cgra import MemPath
from tapeflow_dialects.region import Region
from tapeflow_dialects.semantics import COST_CLASSES
from tapeflow_dialects.stream import Stream
from tapeflow_dialects.tape import Tape
from targets.energy import ENERGY_PRESETS, FU_CLASSES
from targets.hardware import FunctionalUnits, Hardware, Latencies

OTHER_COST_CLASSES: Mapping[str, str] = {
    "arith.constant": "integer",
    "scf.yield": "integer",
    **{
        op.name: "integer"
        for dialect in (MemRef, Tape, Region, Stream)
        for op in dialect.operations
    },
}
"""The class of each op timed or charged that is not in the table of scalar
semantics (whose ops declare their class there, `semantics.COST_CLASSES`): a
constant of a straight-line run and a loop's yield, which the scheduler places,
and the address and bookkeeping ops of the memory dialects (`memref.dim`, ...),
one integer op each when run outside a kernel. (Their loads, stores and
allocations are charged by memory path, or free, before a class is asked.)"""


class UncostedOp(KeyError):
    """An op with no cost class: timing it as some default would be silently wrong."""


def op_class(opcode: str) -> str:
    """The latency/energy class (one of `FU_CLASSES`) of an op, as its semantics
    (`tapeflow_dialects.semantics.COST_CLASSES`) or `OTHER_COST_CLASSES` declare."""
    cost_class = COST_CLASSES.get(opcode) or OTHER_COST_CLASSES.get(opcode)
    if cost_class is None:
        raise UncostedOp(
            f"'{opcode}' has no cost class: declare it beside its semantics "
            "(tapeflow_dialects.semantics.COST_CLASSES) or in "
            "targets.costs.OTHER_COST_CLASSES"
        )
    return cost_class


def _check_classes() -> None:
    """Every declared class is a latency of the hardware and has an energy in every
    energy preset, so that no op's cost falls back to a default."""
    latencies = {f.name for f in fields(Latencies)}
    if {f.name for f in fields(FunctionalUnits)} != set(FU_CLASSES):
        raise ImportError("targets.costs: FunctionalUnits must count exactly the FU classes")
    for table in (COST_CLASSES, OTHER_COST_CLASSES):
        unknown = sorted({c for c in table.values() if c not in FU_CLASSES})
        if unknown:
            raise ImportError(f"targets.costs: unknown cost classes {unknown}")
    if not set(FU_CLASSES) <= latencies:
        raise ImportError(
            f"targets.costs: classes {sorted(set(FU_CLASSES) - latencies)} have no latency"
        )
    for name, model in ENERGY_PRESETS.items():
        priced = {c for c, _ in model.fu_pj}
        if not set(FU_CLASSES) <= priced:
            raise ImportError(
                f"targets.costs: energy preset {name} prices no {sorted(set(FU_CLASSES) - priced)}"
            )


_check_classes()


def op_latency(op: Operation, hardware: Hardware) -> int:
    """Cycles from issue to result of a placed (or to-be-placed) op."""
    if isinstance(op, cgra.ComputeOp):
        return getattr(hardware.latencies, op_class(op.opcode.data))
    if isinstance(op, cgra.LoadOp):
        if op.path.data == MemPath.SPAD:
            return hardware.scratchpad.latency
        return hardware.cache.hit_latency
    if isinstance(op, memref.LoadOp | region.LoadOp):
        return hardware.cache.hit_latency
    if isinstance(op, stream.LoadOp):
        return hardware.scratchpad.latency
    if isinstance(op, memref.StoreOp | region.StoreOp | stream.StoreOp | cgra.StoreOp):
        return 1
    return getattr(hardware.latencies, op_class(op.name))


_FREE_OPS = (
    arith.ConstantOp,
    memref.AllocOp,
    memref.AllocaOp,
    memref.DeallocOp,
    memref.SubviewOp,
    memref.CastOp,
    tape.AllocOp,
    tape.FreeOp,
    region.AllocOp,
    region.FreeOp,
    stream.AllocOp,
)
_CHARGED_DIALECTS = frozenset({"arith", "math", "memref", "tape", "region", "stream", "enzyme"})


@dataclass(frozen=True)
class OpCost:
    """What one op run outside a kernel costs: its latency, FU class and memory path."""

    latency: int
    fu_class: str | None
    """One of `FU_CLASSES`, or None for a memory or bookkeeping op."""
    memory: str | None
    """"cache", "spad", or None."""


def unscheduled_op_cost(op: Operation, hardware: Hardware) -> OpCost | None:
    """The cost of `op` run on its own (outside a `cgra.kernel`); None if it is free
    (constants, allocation bookkeeping, ops with regions, ops of other dialects)."""
    if isinstance(op, _FREE_OPS) or op.regions or op.dialect_name() not in _CHARGED_DIALECTS:
        return None
    if isinstance(op, stream.LoadOp | stream.StoreOp):
        return OpCost(hardware.scratchpad.latency, None, "spad")
    if isinstance(op, memref.LoadOp | tape.LoadOp | region.LoadOp | enzyme.CacheLoadOp):
        return OpCost(hardware.cache.hit_latency, None, "cache")
    if isinstance(op, memref.StoreOp | tape.StoreOp | region.StoreOp | enzyme.CacheStoreOp):
        return OpCost(1, None, "cache")
    if op.dialect_name() == "enzyme":
        return OpCost(1, None, None)
    cls = op_class(op.name)
    return OpCost(getattr(hardware.latencies, cls), cls, None)


STRIP_MINED = "tapeflow.rows_per_iteration"
"""The attribute `tapeflow-layers` puts on a loop it strip-mined into tiles, one
per layer (`lowering.layers.records.ROWS_PER_ITERATION`)."""


@dataclass(frozen=True)
class KernelProfile:
    """One iteration of a scheduled `cgra.kernel`."""

    ii: int
    length: int
    """Cycles from the first issue to the last result."""
    fu_ops: Counter[str]
    """Compute ops by FU class."""
    memory_ops: int
    spad_ops: int
    tiled: bool = False
    """The kernel's loop is one tile of a strip-mined loop: the body of a layer,
    marked `STRIP_MINED` by `tapeflow-layers`."""
    looped: bool = True
    """A loop iterates the kernel (its body is the kernel); False for a kernel
    run once where it stands (straight-line ops placed as a kernel)."""
    plan: object = None
    """What the timing model derived from the kernel's placed ops
    (`sim.models.TimingModel.kernel_plan`), read by that model alone."""


KernelPlanner = Callable[[cgra.KernelOp, Hardware], object]
"""What a timing model derives from a kernel's placed ops before the run
(`sim.models.TimingModel.kernel_plan`)."""


_NOT_PLACED, _COMPUTE, _LOAD, _STORE, _OTHER_PLACED = range(5)
_PLACED_KINDS: dict[type, int] = {}
"""Each op class's kind for `kernel_profile`, found once per class (an xDSL op
class is an abstract base class, whose `isinstance` costs ten dictionary
look-ups; a fully unrolled kernel has thousands of ops)."""


def _placed_kind(op: Operation) -> int:
    if not isinstance(op, cgra.PlacedOp):
        return _NOT_PLACED
    if isinstance(op, cgra.ComputeOp):
        return _COMPUTE
    if isinstance(op, cgra.LoadOp):
        return _LOAD
    if isinstance(op, cgra.StoreOp):
        return _STORE
    return _OTHER_PLACED


def kernel_profile(
    kernel: cgra.KernelOp, hardware: Hardware, planner: KernelPlanner | None = None
) -> KernelProfile:
    """The initiation interval, length and op mix of one iteration of `kernel`,
    and the plan `planner` (a timing model's) makes of it."""
    length = 0
    fu: Counter[str] = Counter()
    memory_ops = spad = 0
    latencies = hardware.latencies
    kinds = _PLACED_KINDS
    for placed in kernel.body.block.ops:
        kind = kinds.get(type(placed))
        if kind is None:
            kind = kinds[type(placed)] = _placed_kind(placed)
        if kind == _NOT_PLACED:
            continue
        properties = placed.properties
        cycle = properties["cycle"].value.data  # type: ignore[attr-defined]
        if kind == _COMPUTE:
            # `op_latency` of a compute op, its class read once.
            cls = op_class(properties["opcode"].data)  # type: ignore[attr-defined]
            length = max(length, cycle + getattr(latencies, cls))
            fu[cls] += 1
            continue
        memory_ops += 1
        if kind == _OTHER_PLACED:
            length = max(length, cycle + op_latency(placed, hardware))
            continue
        # A placed access: `op_latency`'s, its path read once.
        on_spad = placed.path.data == MemPath.SPAD  # type: ignore[attr-defined]
        if kind == _STORE:
            latency = 1
        else:
            latency = hardware.scratchpad.latency if on_spad else hardware.cache.hit_latency
        length = max(length, cycle + latency)
        spad += on_spad
    loop = kernel.parent_op()
    looped = isinstance(loop, scf.ForOp) and kernel.next_op is loop.body.block.last_op
    tiled = (
        looped
        and loop is not None
        and STRIP_MINED in loop.attributes
        and isinstance(loop.parent_op(), layer.LayerOp)
    )
    return KernelProfile(
        kernel.ii.value.data,
        length,
        fu,
        memory_ops,
        spad,
        tiled,
        looped,
        None if planner is None else planner(kernel, hardware),
    )
