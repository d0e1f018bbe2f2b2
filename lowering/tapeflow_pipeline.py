"""
`tapeflow-pipeline{spad-bytes=512 unroll=1 stats=false}`: the tapeflow variant's
lowering, from an Enzyme gradient to scratchpad-bound IR, as one pass.

It runs the tapeflow variant's layout passes exactly as `lowering.pipelines` spells
them for every user of the variant -- `tapeflow-raise-tape`, `tapeflow-unroll`
(when `unroll` > 1), then the paper's four passes `tapeflow-regions`,
`tapeflow-layers`, `tapeflow-streams` and `tapeflow-spad-bind` (Section IV of
Hakimi & Shriraman, CGO 2024), and `tapeflow-pack-tapes` for the triangular tapes
left in DRAM -- through xDSL's pipeline parser. A module whose tape
is already raised (or that has no buffer to raise) starts at `tapeflow-unroll`.
Unlike `tapeflow-variant{variant=tapeflow}`, it neither differentiates nor places
kernels: run `tapeflow-enzyme` before it to start from a primal with an
`enzyme.autodiff` caller, and `tapeflow-to-cgra` after it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, memref
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.gradients import require_gradients
from lowering.ir.stages import Stage, require_stage
from lowering.ir.walk import walk_ops
from lowering.pipelines import PipelineError, lowering_passes, parse_pipeline


@dataclass(frozen=True)
class TapeflowPipelinePass(ModulePass):
    """Raise the tape, then regions, layers, streams and scratchpad binding."""

    name = "tapeflow-pipeline"

    spad_bytes: int = 512
    """Scratchpad capacity in bytes, for `tapeflow-layers`."""

    unroll: int = 1
    """Unroll factor of the innermost tape loops (1: no unrolling)."""

    tiles_in_flight: int = 1
    """Tiles the scratchpad holds at once (`tapeflow-layers`; the simulator passes
    its hardware's `mapping.tiles_in_flight`)."""

    loop_tiles_in_flight: int = 0
    """The same for a strip-mined loop's tiles (0: `tiles_in_flight`; the
    simulator passes its hardware's `mapping.loop_tiles_in_flight`)."""

    stream: str = "auto"
    """`tapeflow-layers`'s choice per loop nest: `auto`, by its cost model (on the
    default machine's numbers; the simulator passes its hardware's), or `always`
    stream (the simulator: `mapping.stream_by_cost` off)."""

    stats: bool = False
    """Print the tape, region and layer statistics of each step to stderr."""

    def pipeline_spec(self, raised: bool = False) -> str:
        """The passes this runs, from the Enzyme-gradient stage (or the tape stage)."""
        try:
            passes = lowering_passes(
                "tapeflow",
                spad_bytes=self.spad_bytes,
                unroll=self.unroll,
                tiles_in_flight=self.tiles_in_flight,
                loop_tiles_in_flight=self.loop_tiles_in_flight,
                stream={} if self.stream == "auto" else {"stream": self.stream},
                stats=self.stats,
                raised=raised,
            )
        except PipelineError as err:
            raise PassFailedException(f"{self.name}: {err}") from None
        return ",".join(passes)

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        self.pipeline_spec()  # the options' errors first
        gradients = require_gradients(op, self.name)
        stages = {require_stage(f, self.name, {Stage.GRADIENT, Stage.TAPE}) for f in gradients}
        nothing_to_raise = not any(
            isinstance(o, memref.AllocOp) for f in gradients for o in walk_ops(f)
        )
        raised = Stage.TAPE in stages or nothing_to_raise
        if nothing_to_raise and Stage.TAPE not in stages:
            for f in gradients:
                print(
                    f"{self.name}: warning: @{f.sym_name.data} has no Enzyme cache buffer "
                    "(Enzyme saved no values for the reverse sweep): there is no tape, and "
                    "the TapeFlow passes leave the gradient as it is",
                    file=sys.stderr,
                )
        parse_pipeline(self.pipeline_spec(raised)).apply(ctx, op)
