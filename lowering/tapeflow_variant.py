"""
`tapeflow-variant{variant=aos spad-bytes=512 unroll=1 rows=4 ...}`: one of the
evaluation's variants (`enzyme`, `aos`, `tapeflow`), whole, as one pass.

It expands to the variant's pipeline string (`lowering.pipelines.variant_pipeline`,
the one string the simulator and the benchmarks run too) and runs it through xDSL's
pipeline parser: differentiate (`tapeflow-enzyme`, nothing to do on an Enzyme
gradient), lay the tape out the variant's way, mark where the reverse sweep starts,
and place loop bodies with `tapeflow-to-cgra`, to which the hardware options
(`preset`, `rows`, `cols`, the latencies, ports and banks) are handed on.
`spad-bytes` is the tapeflow variant's scratchpad; the others have none.

    tapeflow-opt -p 'tapeflow-variant{variant=aos unroll=2}' kernel.mlir

The module must be a primal with `enzyme.autodiff` or an Enzyme gradient.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.gradients import require_gradients
from lowering.ir.stages import Stage, require_stage
from lowering.pipelines import PipelineError, parse_pipeline, variant_pipeline
from targets.scheduling import HardwareOptions


@dataclass(frozen=True, kw_only=True)
class TapeflowVariantPass(HardwareOptions, ModulePass):
    """Run one variant's whole pipeline: differentiate, lower, place."""

    name = "tapeflow-variant"

    variant: str
    """`enzyme` (the baseline), `aos` (regions through the cache) or `tapeflow`."""

    spad_bytes: int = 512
    """Scratchpad capacity in bytes (the tapeflow variant's layers)."""

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
    """Print every step's statistics to stderr."""

    def pipeline_spec(self) -> str:
        """The variant's pipeline string."""
        try:
            return variant_pipeline(
                self.variant,
                spad_bytes=self.spad_bytes,
                unroll=self.unroll,
                tiles_in_flight=self.tiles_in_flight,
                loop_tiles_in_flight=self.loop_tiles_in_flight,
                stream={} if self.stream == "auto" else {"stream": self.stream},
                cgra=self.hardware_spec(),
                stats=self.stats,
            )
        except PipelineError as err:
            raise PassFailedException(f"{self.name}: {err}") from None

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        self.hardware()  # the options' errors before any work
        spec = self.pipeline_spec()

        def check_stage(previous: ModulePass | None, module: builtin.ModuleOp, _: object) -> None:
            if previous is not None and previous.name == "tapeflow-enzyme":
                for function in require_gradients(module, self.name):
                    require_stage(function, self.name, {Stage.GRADIENT})

        parse_pipeline(spec, check_stage).apply(ctx, op)
