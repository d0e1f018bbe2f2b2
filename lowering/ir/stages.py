"""
The stages a gradient function goes through, read off its IR, so that a pass run
at the wrong stage stops with a message naming itself, the stage it takes and the
passes to run first (or that it must run before), instead of finding nothing to
do and exiting 0.

    Enzyme gradient --raise-tape--> tape --regions--> region --layers--> layer
        --streams--> stream --spad-bind--> scratchpad-bound

and, off that line, the Enzyme baseline (cache buffers marked as the tape by
`tapeflow-mark-tape-buffers`, or sunk back by `tapeflow-sink-tape`).
`tapeflow-to-cgra` may run at any stage; once loop bodies are placed (`cgra.kernel`)
no TapeFlow pass runs any more.

A gradient Enzyme saved nothing for looks the same at every stage (no tape); every
pass takes it and has nothing to do.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import IntEnum

from xdsl.dialects import func, memref
from xdsl.utils.exceptions import PassFailedException

from lowering.enzyme.caches import cache_buffers
from lowering.ir.walk import walk_ops
from tapeflow_dialects import cgra, layer, region, stream, tape
from tapeflow_dialects.enzyme import TAPE_BUFFER


class Stage(IntEnum):
    GRADIENT = 0
    BASELINE = 1
    TAPE = 2
    REGIONS = 3
    LAYERS = 4
    STREAMS = 5
    BOUND = 6


@dataclass(frozen=True)
class _About:
    label: str
    looks: str
    """What in the IR shows the stage."""
    made_by: str
    """The pass that brings a function to this stage."""


_ABOUT = {
    Stage.GRADIENT: _About(
        "Enzyme-gradient", "Enzyme's caches are plain memref.alloc buffers", "tapeflow-enzyme"
    ),
    Stage.BASELINE: _About(
        "Enzyme-baseline",
        f"its cache buffers are memrefs marked '{TAPE_BUFFER}'",
        "tapeflow-mark-tape-buffers",
    ),
    Stage.TAPE: _About("tape", "tape.alloc/store/load ops", "tapeflow-raise-tape"),
    Stage.REGIONS: _About("region", "region.alloc/store/load ops, no layers", "tapeflow-regions"),
    Stage.LAYERS: _About("layer", "layer.layer ops, no streams", "tapeflow-layers"),
    Stage.STREAMS: _About(
        "stream", "stream.fwd/stream.rev, tape accesses still to regions", "tapeflow-streams"
    ),
    Stage.BOUND: _About(
        "scratchpad-bound", "stream.store/stream.load to scratchpad tiles", "tapeflow-spad-bind"
    ),
}

_LINE = (Stage.GRADIENT, Stage.TAPE, Stage.REGIONS, Stage.LAYERS, Stage.STREAMS, Stage.BOUND)
"""The TapeFlow passes' stages, in order."""


@dataclass(frozen=True)
class _Survey:
    """What the stages are read from, found in one walk of a function: the op
    classes it holds, whether a `memref.alloc` is marked as the tape, whether a
    region is still live (not kept), whether it holds regions, layers and
    `cgra.kernel` ops (each by `isinstance`)."""

    seen: frozenset[type]
    marked: bool
    live: bool
    regions: bool
    layers: bool
    placed: bool


def _survey(function: func.FuncOp) -> _Survey:
    seen: set[type] = set()
    marked = live = regions = layers = placed = False
    for op in walk_ops(function):
        seen.add(type(op))
        if isinstance(op, memref.AllocOp) and TAPE_BUFFER in op.attributes:
            marked = True
        elif isinstance(op, region.AllocOp):
            regions = True
            if region.KEPT not in op.attributes:
                live = True
        elif isinstance(op, layer.LayerOp):
            layers = True
        elif isinstance(op, cgra.KernelOp):
            placed = True
    return _Survey(frozenset(seen), marked, live, regions, layers, placed)


def stage_of(function: func.FuncOp) -> Stage:
    """The furthest stage the function's ops show (regions `tapeflow-layers`
    kept, `region.KEPT`, count as lowered: they stay regions to the end)."""
    return _stage(_survey(function))


def _stage(survey: _Survey) -> Stage:
    seen, live = survey.seen, survey.live
    if stream.FwdOp in seen or stream.RevOp in seen:
        return Stage.STREAMS if live else Stage.BOUND
    if layer.LayerOp in seen:
        return Stage.LAYERS
    if live:
        return Stage.REGIONS
    if region.AllocOp in seen:
        return Stage.BOUND  # every region kept by tapeflow-layers: nothing left to lower
    if seen & {tape.AllocOp, tape.StoreOp, tape.LoadOp, tape.FreeOp}:
        return Stage.TAPE
    if survey.marked:
        return Stage.BASELINE
    return Stage.GRADIENT


def all_regions_kept(function: func.FuncOp) -> bool:
    """tapeflow-layers kept every region of the function (and made no layer)."""
    return _all_kept(_survey(function))


def _all_kept(survey: _Survey) -> bool:
    return not survey.live and survey.regions and not survey.layers


def is_placed(function: func.FuncOp) -> bool:
    """Whether `tapeflow-to-cgra` has placed loop bodies of the function."""
    return any(isinstance(op, cgra.KernelOp) for op in walk_ops(function))


def _has_tape(function: func.FuncOp, pass_name: str) -> bool:
    """Whether an Enzyme-gradient-stage function has caches to lower."""
    try:
        return bool(cache_buffers(function, pass_name))
    except PassFailedException:
        # No activities to tell the sweeps apart: any buffer may be a cache.
        return any(isinstance(op, memref.AllocOp) for op in function.body.block.ops)


def _listed(names: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _describe(stage: Stage) -> str:
    about = _ABOUT[stage]
    return f"the {about.label} stage ({about.looks})"


def require_stage(function: func.FuncOp, pass_name: str, takes: Collection[Stage]) -> Stage:
    """
    The function's stage, if `pass_name` takes it; else a PassFailedException that
    says which stage the function is at, which the pass takes, and what to run.
    A gradient without a tape passes (there is nothing to do at any stage).
    """
    name = f"@{function.sym_name.data}"
    survey = _survey(function)  # one walk for the three questions below
    if survey.placed:
        raise PassFailedException(
            f"{pass_name}: {name} is already placed on the CGRA (it holds cgra.kernel "
            f"ops); run {pass_name} before tapeflow-to-cgra"
        )
    stage = _stage(survey)
    if stage in takes:
        return stage
    if stage is Stage.GRADIENT and not _has_tape(function, pass_name):
        return stage
    if _all_kept(survey) and {Stage.LAYERS, Stage.STREAMS} & set(takes):
        return stage  # tapeflow-layers kept every region: nothing to stream or bind
    wanted = " or ".join(_ABOUT[s].label for s in sorted(takes))
    found = f"{pass_name}: {name} is at {_describe(stage)}"
    if stage is Stage.BASELINE:
        raise PassFailedException(
            f"{found}, but {pass_name} takes the {wanted} stage; run it on the Enzyme "
            "gradient, not on the baseline"
        )
    on_line = [s for s in takes if s in _LINE]
    if stage < min(on_line):
        todo = [_ABOUT[s].made_by for s in _LINE if stage < s <= min(on_line)]
        raise PassFailedException(
            f"{found}, but {pass_name} takes the {wanted} stage; run {_listed(todo)} first"
        )
    following = _ABOUT[_LINE[_LINE.index(max(on_line)) + 1]].made_by
    advice = (
        f"{pass_name} has already run"
        if following == pass_name
        else f"run {pass_name} before {following}"
    )
    raise PassFailedException(f"{found}, past the {wanted} stage {pass_name} takes; {advice}")


def require_stages(
    functions: Collection[func.FuncOp], pass_name: str, takes: Collection[Stage]
) -> None:
    """`require_stage` for each gradient function."""
    for function in functions:
        require_stage(function, pass_name, takes)
