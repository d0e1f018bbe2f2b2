"""
`tapeflow-pipeline{spad-bytes=512 unroll=1}`: the whole TapeFlow flow from an Enzyme
gradient to scratchpad-bound IR, as one pass.

Runs `tapeflow-raise-tape` (unless the tape is already raised), `tapeflow-unroll`
(when `unroll` > 1), then the paper's four passes: `tapeflow-regions`,
`tapeflow-layers`, `tapeflow-streams` and `tapeflow-spad-bind` (Section IV of
Hakimi & Shriraman, CGO 2024). Run `tapeflow-enzyme` before it to start from a
primal kernel with an `enzyme.autodiff` caller.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, memref
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from lowering.gradient import require_gradients
from lowering.tapeflow_layers import layer_module
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from lowering.tapeflow_spad_bind import bind_module
from lowering.tapeflow_streams import stream_module
from lowering.tapeflow_unroll import TapeflowUnrollPass
from tapeflow_dialects import tape


@dataclass(frozen=True)
class TapeflowPipelinePass(ModulePass):
    """Raise the tape, then regions, layers, streams and scratchpad binding."""

    name = "tapeflow-pipeline"

    spad_bytes: int = 512
    """Scratchpad capacity in bytes, for `tapeflow-layers`."""

    unroll: int = 1
    """Unroll factor of the innermost tape loops (1: no unrolling)."""

    stats: bool = False
    """Print the tape, region and layer statistics of each step to stderr."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.unroll < 1:
            raise PassFailedException(
                f"tapeflow-pipeline: unroll must be at least 1, got {self.unroll}"
            )
        gradients = require_gradients(op, self.name)
        raised = any(isinstance(o, tape.AllocOp) for f in gradients for o in f.walk())
        if not raised and any(isinstance(o, memref.AllocOp) for f in gradients for o in f.walk()):
            for report in raise_module(op):
                self._print(f"tapeflow-raise-tape: {report.summary()}")
        if self.unroll > 1:
            TapeflowUnrollPass(factor=self.unroll, stats=self.stats).apply(ctx, op)
        for report in form_regions(op):
            self._print(f"tapeflow-regions: {report.table()}")
        for report in layer_module(op, self.spad_bytes):
            self._print(f"tapeflow-layers: {report.table()}")
        stream_module(op)
        bind_module(op)

    def _print(self, line: str) -> None:
        if self.stats:
            print(line, file=sys.stderr)
