"""
Writes docs/fig9.md: the paper's Figure 9 example (examples/fig9-conv.mlir) after
each TapeFlow pass. Run `python docs/make_fig9.py` after changing a pass; the test
suite checks that the committed page is current.
"""

from __future__ import annotations

import sys
from io import StringIO
from pathlib import Path

from xdsl.printer import Printer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lowering.ir.gradients import gradient_functions  # noqa: E402
from lowering.tapeflow_enzyme import TapeflowEnzymePass  # noqa: E402
from lowering.tapeflow_layers import TapeflowLayersPass  # noqa: E402
from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass  # noqa: E402
from lowering.tapeflow_regions import TapeflowRegionsPass  # noqa: E402
from lowering.tapeflow_spad_bind import TapeflowSpadBindPass  # noqa: E402
from lowering.tapeflow_streams import TapeflowStreamsPass  # noqa: E402
from tapeflow_tools.context import make_context  # noqa: E402
from tapeflow_tools.diagnostics import LocatingParser  # noqa: E402

EXAMPLE = ROOT / "examples" / "fig9-conv.mlir"
PAGE = ROOT / "docs" / "fig9.md"
SPAD_BYTES = 64

STEPS = [
    (
        TapeflowRaiseTapePass(),
        "Enzyme's gradient with its caches raised (`tapeflow-enzyme,tapeflow-raise-tape`)",
        "Enzyme caches the four image values each iteration reads, one struct-of-arrays "
        "tape each (the paper's `t0`..`t3`): FWD stores them at `i`, REV loads them at "
        "`15 - i`.",
    ),
    (
        TapeflowRegionsPass(),
        "Pass 1, regions (`tapeflow-regions`)",
        "The four tapes of the loop become one array-of-structs region of four slots, "
        "in the order REV reads them; each store names its slot.",
    ),
    (
        TapeflowLayersPass(spad_bytes=SPAD_BYTES, stream="always"),
        f"Pass 2, layers (`tapeflow-layers{{spad-bytes={SPAD_BYTES} stream=always}}`)",
        "A 64-byte scratchpad holds 8 entries: two iterations of four values. (On so "
        "small a scratchpad each REV tile would wait a whole DRAM latency for its "
        "preload, and the cost model, `stream=auto`, would keep the tape in DRAM; "
        "`stream=always` streams it, as the figure does.) The FWD "
        "loop is strip-mined into 8 layers of 2 iterations; the REV loop into the same "
        "tiles, last tile first. Each layer opens with `layer.salloc` and closes with "
        "`layer.barrier`, and names its partner.",
    ),
    (
        TapeflowStreamsPass(),
        "Pass 3, streams (`tapeflow-streams`)",
        "The region gets a DRAM tape; each FWD layer ends by streaming its tile out, "
        "each REV layer starts by streaming its partner's tile back.",
    ),
    (
        TapeflowSpadBindPass(),
        "Pass 4, scratchpad binding (`tapeflow-spad-bind`)",
        "Tape accesses become scratchpad accesses: slot = the store's order in the FWD "
        "layer, row = the iteration's place in the tile (counted backwards in REV). "
        "The region is gone.",
    ),
]


def gradient_text(module) -> str:  # type: ignore[no-untyped-def]
    (gradient,) = gradient_functions(module)
    out = StringIO()
    Printer(stream=out).print_op(gradient)
    return out.getvalue().strip()


def render() -> str:
    ctx = make_context()
    module = LocatingParser(ctx, EXAMPLE.read_text(), str(EXAMPLE)).parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    parts = [
        "# The paper's Figure 9, pass by pass",
        "",
        "<!-- Written by `python docs/make_fig9.py`; do not edit by hand. -->",
        "",
        "The example of the paper's Section IV (Figure 9) is a small convolution; we "
        "differentiate `res` with respect to the filter `fil`. The source is "
        "[examples/fig9-conv.mlir](../examples/fig9-conv.mlir): 16 outputs, four "
        "filter taps, and a `tanh` on each output so that the gradient needs the "
        "image values FWD read. Below is the gradient function after each step; the "
        "whole flow is",
        "",
        "```sh",
        "tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=64 stream=always}' "
        "examples/fig9-conv.mlir",
        "```",
        "",
    ]
    for step, title, text in STEPS:
        step.apply(ctx, module)
        module.verify()
        parts += [f"## {title}", "", text, "", "```mlir", gradient_text(module), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":
    PAGE.write_text(render())
    print(f"wrote {PAGE}")
