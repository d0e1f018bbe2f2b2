"""
The pass pipeline of each variant the evaluation compares, spelled once.

A variant is one xDSL pass-pipeline string; `tapeflow-opt -p`, the simulator
(`sim.simulator.prepare`), the benchmarks and the `tapeflow-variant` and
`tapeflow-pipeline` passes all build it here and run it through xDSL's pipeline
parser (`xdsl.passes.PassPipeline.parse_spec`), so there is no second spelling of
a variant's passes anywhere.

From a primal with `enzyme.autodiff` (or an Enzyme gradient, on which
`tapeflow-enzyme` does nothing), every variant differentiates, lays the tape out
its way, marks where the reverse sweep starts and places loop bodies on the grid:

- `enzyme`, the baseline: Enzyme's cache buffers stay struct-of-arrays memrefs
  through the cache, marked as the tape (`tapeflow-mark-tape-buffers`); to unroll,
  the tape is raised, unrolled and sunk back (`tapeflow-sink-tape`);
- `aos`: the tape raised and merged into array-of-structs regions (Pass 1), still
  through the cache;
- `tapeflow`: all four passes; the tape lives in the scratchpad and streams.

The variants that raise the tape end its passes with `tapeflow-pack-tapes`, which
packs what is still a triangular tape or region in DRAM (`lowering.ir.ragged`).
The whole string of a variant, for example the tapeflow variant on the paper's
4x4 grid with a 512 B scratchpad: docs/DESIGN.md, "One pipeline string per variant".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from xdsl.passes import PassPipeline, PassPipelineCallbackType

from lowering import get_all_passes
from lowering.layers.cost import StreamMachine
from targets.hardware import Hardware
from targets.scheduling import hardware_options, mapping_options

VARIANTS = ("enzyme", "aos", "tapeflow")

HARDWARE_PASSES = ("tapeflow-layers", "tapeflow-to-cgra")
"""The passes that take the machine's parameters (the scratchpad, the grid and
its latencies): the passes before the first of them lower a module alike for
every machine (`sim.simulator.LoweringMemo` runs them once for several)."""


class PipelineError(ValueError):
    """A variant or option no pipeline can be built for; the message names it."""


def pass_spec(name: str, options: Mapping[str, object] | None = None) -> str:
    """`name{key=value ...}` in xDSL's pipeline syntax (option names with dashes);
    options whose value is None are left out."""
    given = {k: v for k, v in (options or {}).items() if v is not None}
    if not given:
        return name
    spelled = " ".join(f"{k.replace('_', '-')}={_value(v)}" for k, v in given.items())
    return f"{name}{{{spelled}}}"


def _value(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str) and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", value):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def _stats(stats: bool) -> dict[str, object]:
    return {"stats": True} if stats else {}


def lowering_passes(
    variant: str,
    *,
    spad_bytes: int = 512,
    unroll: int = 1,
    stats: bool = False,
    raised: bool = False,
    tiles_in_flight: int = 1,
    loop_tiles_in_flight: int = 0,
    stream: Mapping[str, object] | None = None,
) -> list[str]:
    """
    The passes that lay out the variant's tape, from the Enzyme-gradient stage
    (from the tape stage if `raised`: the tape is already raised). `stats` asks
    every pass that reports for its statistics on stderr. `stream`: the
    `tapeflow-layers` options of its cost model (`stream_options`).
    """
    if variant not in VARIANTS:
        raise PipelineError(
            f"unknown variant '{variant}' (option variant); choose from {', '.join(VARIANTS)}"
        )
    if unroll < 1:
        raise PipelineError(f"option unroll must be at least 1, got {unroll}")
    if variant == "enzyme" and raised:
        raise PipelineError(
            "the enzyme variant starts from Enzyme's cache buffers, not a raised tape"
        )
    passes = [] if raised else [pass_spec("tapeflow-raise-tape", _stats(stats))]
    if unroll > 1:
        passes.append(pass_spec("tapeflow-unroll", {"factor": unroll, **_stats(stats)}))
    pack = pass_spec("tapeflow-pack-tapes", _stats(stats))
    if variant == "enzyme":
        if unroll == 1:
            return [pass_spec("tapeflow-mark-tape-buffers", _stats(stats))]
        return [*passes, pack, "tapeflow-sink-tape"]
    passes.append(pass_spec("tapeflow-regions", _stats(stats)))
    if variant == "aos":
        return [*passes, pack]
    return [
        *passes,
        pass_spec(
            "tapeflow-layers",
            {
                "spad_bytes": spad_bytes,
                **({"tiles_in_flight": tiles_in_flight} if tiles_in_flight != 1 else {}),
                **(
                    {"loop_tiles_in_flight": loop_tiles_in_flight}
                    if loop_tiles_in_flight not in (0, tiles_in_flight)
                    else {}
                ),
                **(stream or {}),
                **_stats(stats),
            },
        ),
        "tapeflow-streams",
        "tapeflow-spad-bind",
        pack,
    ]


def variant_pipeline(
    variant: str,
    *,
    spad_bytes: int = 512,
    unroll: int = 1,
    cgra: Mapping[str, object] | None = None,
    stats: bool = False,
    tiles_in_flight: int = 1,
    loop_tiles_in_flight: int = 0,
    recompute: bool = False,
    stream: Mapping[str, object] | None = None,
) -> str:
    """
    The whole pipeline of a variant, from a primal (or an Enzyme gradient) to
    placed kernels: `cgra` holds the `tapeflow-to-cgra` options (a preset and any
    hardware values, e.g. `hardware_options(hardware)` from
    `targets.scheduling`). `recompute`: rebuild in the reverse sweep the cached
    values Enzyme for LLVM would (`tapeflow-recompute-loads`, right after
    differentiation).
    """
    passes = [
        "tapeflow-enzyme",
        *([pass_spec("tapeflow-recompute-loads", _stats(stats))] if recompute else []),
        *lowering_passes(
            variant,
            spad_bytes=spad_bytes,
            unroll=unroll,
            stats=stats,
            tiles_in_flight=tiles_in_flight,
            loop_tiles_in_flight=loop_tiles_in_flight,
            stream=stream,
        ),
        "tapeflow-mark-rev-start",
        pass_spec("tapeflow-to-cgra", {**(cgra or {}), **_stats(stats)}),
    ]
    return ",".join(passes)


def parse_pipeline(spec: str, callback: PassPipelineCallbackType | None = None) -> PassPipeline:
    """The pipeline `spec` with the TapeFlow passes, parsed as `tapeflow-opt -p`
    parses it."""
    return PassPipeline.parse_spec(get_all_passes(), spec, callback)


def hardware_pipeline(
    variant: str,
    hardware: Hardware,
    unroll: int = 1,
    stats: bool = False,
    recompute: bool = False,
) -> str:
    """The variant's pipeline for `hardware`: its scratchpad and the numbers of
    its cost model (`stream_options`) for the tapeflow variant's layers, and every
    value `tapeflow-to-cgra` schedules with, so that the schedule is for that
    hardware whatever preset it started from."""
    return variant_pipeline(
        variant,
        spad_bytes=hardware.scratchpad.size_bytes,
        unroll=unroll,
        cgra={**hardware_options(hardware), **mapping_options(hardware)},
        stats=stats,
        tiles_in_flight=hardware.mapping.tiles_in_flight,
        loop_tiles_in_flight=hardware.mapping.loop_tiles_in_flight,
        recompute=recompute,
        stream=stream_options(hardware),
    )


STREAM_FIELDS: dict[str, Callable[[Hardware], float]] = {
    "cache_bytes": lambda h: h.cache.size_bytes,
    "cache_line_bytes": lambda h: h.cache.line_bytes,
    "cache_ways": lambda h: h.cache.assoc,
    "cache_mshrs": lambda h: h.cache.mshrs,
    "cache_ports": lambda h: h.cache.ports,
    "dram_latency": lambda h: h.dram.latency_cycles,
    "integer": lambda h: h.latencies.integer,
    "dram_bytes_per_cycle": lambda h: h.dram_bytes_per_cycle,
    "runahead": lambda h: h.mapping.runahead,
    "buffer_base": lambda h: h.placement.base,
    "buffer_alignment": lambda h: h.placement.alignment,
    "buffers_packed": lambda h: not h.placement.heap,
}
"""Each `tapeflow-layers` option of its cost model -> the `Hardware` field it
takes (`lowering.layers.cost.StreamMachine`)."""


def stream_options(hardware: Hardware) -> dict[str, object]:
    """The `tapeflow-layers` options of `hardware`'s cost model that differ from
    the pass's defaults, or `stream=always` without it (`mapping.stream_by_cost`)."""
    defaults = StreamMachine()
    given: dict[str, object] = {}
    if not hardware.mapping.stream_by_cost:
        given["stream"] = "always"
    else:
        for option, value in STREAM_FIELDS.items():
            if value(hardware) != getattr(defaults, option):
                given[option] = value(hardware)
    return given
