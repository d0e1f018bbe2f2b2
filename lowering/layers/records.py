"""
What `tapeflow-layers` reports and leaves in the IR: the layers it made and the
regions it kept (with `stats=true`), the census of layers read off the IR at any
later stage, and the mark of a strip-mined loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

from xdsl.dialects import func
from xdsl.ir import SSAValue

from lowering.ir.loops import enclosing_loops, trip_count
from lowering.ir.walk import walk_ops
from tapeflow_dialects import layer
from tapeflow_dialects.layer import Phase

ROWS_PER_ITERATION = "tapeflow.rows_per_iteration"
"""Marks the strip-mined loop of a tiled layer: scratchpad rows per iteration."""

CARRIED_BOUNDS = "tapeflow.carried_bounds"
"""Marks a strip-mined innermost loop whose tile's bounds are carried from the
tile before (`lowering.layers.tiles.strip_mine`): how many of its last iteration
arguments (and its tile loop's) carry the next tile's bounds, the last of them
the tile's scratchpad row count."""


TRIP_BOUND = "tapeflow.trip_bound"
"""Marks a loop of run-time trip count inside a strip-mined loop (FWD's and its
REV mirror): the constant bound on its trip count proven from the IR
(`lowering.layers.run_time.trip_bound`), the iterations each iteration of the
strip-mined loop has rows for in the tile (`lowering.layers.layout`)."""


def region_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else str(value.type)


@dataclass(frozen=True)
class LayerRecord:
    fwd_id: int
    rev_id: int
    region: str
    rows: int
    slots: int
    tiled: bool
    instances: int
    """How many times the FWD layer (and so its REV partner) runs (0 if that is
    known only at run time; at most that many for a conditional layer, under a
    branch)."""
    conditional: bool = False
    """Under a branch (`scf.if`): runs when the branch does."""
    run_time: bool = False
    """Strip-mined with a run-time number of tiles (a loop bounded by `%n`), or a
    piece of an iteration of such a loop."""
    tile_iterations: int = 0
    """Iterations of the strip-mined loop per tile, when `run_time`."""
    body: bool = False
    """A tile of one iteration: the loop's body is the layer (not strip-mined)."""


@dataclass(frozen=True)
class KeptRecord:
    """A region the pass leaves in DRAM, read through the cache as the aos variant
    reads it, and why it could not be layered."""

    region: str
    reason: str


@dataclass(frozen=True)
class NestChoice:
    """The cost model's decision for one nest, with its numbers."""

    regions: str
    stream: bool
    saved: float
    """Cycles streaming saves at most (`saved_cycles`, `continued_fills`)."""
    added: float
    """Cycles streaming adds (`added_cycles`)."""
    fits: bool
    """The function's tape and arrays fit the cache (REV tape reads hit)."""
    per_iteration: bool = False
    """The numbers are an iteration's of the loop the nest's layers cut into pieces
    (a nest of run-time trip counts: `lowering.layers.cost.CutLoops.iteration`, its
    savings by the windows' rule, `saved_cycles`'s `per_iteration`)."""
    breaks: bool = False
    """With `per_iteration`: the nest's pieces stand between the runs of another
    nest's tile loop, which they would break into chains of their own
    (`lowering.layers.cost.CutLoops.breaks`), rather than cut a loop."""

    @property
    def reason(self) -> str:
        fits = "fit" if self.fits else "do not fit"
        if self.per_iteration and self.breaks:
            return (
                f"cost model: its pieces would stand between another nest's tiles, each "
                f"iteration of their loop restarting that nest's pipeline and first "
                f"misses ({self.added:.0f} cycles); streaming an iteration's tape saves "
                f"at most {self.saved:.0f}"
            )
        if self.per_iteration:
            return (
                f"cost model: cut into pieces, each iteration of its loop would lose "
                f"{self.added:.0f} cycles of pipeline overlap; streaming an iteration's "
                f"tape saves at most {self.saved:.0f}"
            )
        return (
            f"cost model: streaming would add {self.added:.0f} cycles of tile bookkeeping "
            f"and preload waits and save at most {self.saved:.0f} (tape misses, "
            f"cache-port cycles, loop issue and pipeline fills; the tape and arrays "
            f"{fits} the cache)"
        )


@dataclass
class LayersReport:
    function: str
    spad_bytes: int
    layers: list[LayerRecord] = field(default_factory=list)
    kept: list[KeptRecord] = field(default_factory=list)
    """Regions kept in DRAM, read through the cache, with the reason."""
    nests: list[NestChoice] = field(default_factory=list)
    """The cost model's choice per nest (`stream=auto`; a nest of run-time trip counts
    has none, unless it is one loop cut into pieces, priced an iteration)."""

    @property
    def dynamic_layers(self) -> int:
        """Layers executed at run time, FWD and REV."""
        return 2 * sum(r.instances for r in self.layers)

    def table(self) -> str:
        lines = [
            f"@{self.function}: {len(self.layers)} FWD/REV layer pairs, "
            f"{self.dynamic_layers} layers executed (scratchpad {self.spad_bytes} B)"
        ]
        for r in self.layers:
            kind = "tile of iterations" if r.tiled else "piece of an iteration"
            if r.body:
                kind = "tile of one iteration, its body"
            runs = f"runs {r.instances} times"
            if r.run_time and r.tiled and not r.body:
                runs = (
                    f"runs ceil(trip count / {r.tile_iterations}) times per run of the loops "
                    "around it (known at run time)"
                )
            elif r.run_time:
                runs = "runs once per iteration of its loops (trip counts known at run time)"
            if r.conditional:
                kind, runs = f"conditional {kind}", f"runs at most {r.instances} times"
            lines.append(
                f"  layer {r.fwd_id}/{r.rev_id} {r.region}: {r.rows}x{r.slots} entries, "
                f"{kind}, {runs}"
            )
        for k in self.kept:
            lines.append(f"  region {k.region} kept in DRAM, read through the cache: {k.reason}")
        for n in self.nests:
            choice = "streamed" if n.stream else "kept"
            lines.append(
                f"  nest {n.regions}: {choice} (cost model: streaming saves at most "
                f"{n.saved:.0f} cycles, adds {n.added:.0f})"
            )
        return "\n".join(lines)


@dataclass(frozen=True)
class LayerCensus:
    """The layers of a layered function, read off its IR (at any later stage)."""

    pairs: int
    """FWD/REV layer pairs in the code."""
    executed: int
    """Layers executed at run time, FWD and REV (the paper's Table II count)."""


def layer_census(function: func.FuncOp) -> LayerCensus:
    """Count the layers of `function` as `LayersReport` does when it makes them:
    each FWD layer runs once per iteration of the loops around it, and so does its
    REV partner."""
    fwd = [
        op
        for op in walk_ops(function)
        if isinstance(op, layer.LayerOp) and op.phase.data is Phase.FWD
    ]
    runs = sum(prod(trip_count(each) or 1 for each in enclosing_loops(op, function)) for op in fwd)
    return LayerCensus(len(fwd), 2 * runs)
