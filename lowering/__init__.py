"""
The TapeFlow passes, one module per pass, named after the pass, and the variants'
pipelines (`lowering.pipelines`). This package imports the dialects and the
hardware description (`targets`), never the simulator or the tools.
"""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

_PASSES = {
    "tapeflow-while-to-for": "TapeflowWhileToForPass",
    "tapeflow-unit-steps": "TapeflowUnitStepsPass",
    "tapeflow-unroll-primal": "TapeflowUnrollPrimalPass",
    "tapeflow-enzyme": "TapeflowEnzymePass",
    "tapeflow-raise-tape": "TapeflowRaiseTapePass",
    "tapeflow-recompute-loads": "TapeflowRecomputeLoadsPass",
    "tapeflow-measure-tape": "TapeflowMeasureTapePass",
    "tapeflow-mark-tape-buffers": "TapeflowMarkTapeBuffersPass",
    "tapeflow-unroll": "TapeflowUnrollPass",
    "tapeflow-sink-tape": "TapeflowSinkTapePass",
    "tapeflow-regions": "TapeflowRegionsPass",
    "tapeflow-layers": "TapeflowLayersPass",
    "tapeflow-streams": "TapeflowStreamsPass",
    "tapeflow-spad-bind": "TapeflowSpadBindPass",
    "tapeflow-pack-tapes": "TapeflowPackTapesPass",
    "tapeflow-pipeline": "TapeflowPipelinePass",
    "tapeflow-mark-rev-start": "TapeflowMarkRevStartPass",
    "tapeflow-to-cgra": "TapeflowToCgraPass",
    "tapeflow-variant": "TapeflowVariantPass",
    "tapeflow-to-upstream": "TapeflowToUpstreamPass",
}
"""Pass name -> its class, in `lowering.<pass name with underscores>`."""


def _load(name: str) -> type[ModulePass]:
    module = import_module(f"lowering.{name.replace('-', '_')}")
    return getattr(module, _PASSES[name])


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Factories for every TapeFlow pass, keyed by pass name (imported lazily)."""
    return {name: (lambda name=name: _load(name)) for name in _PASSES}
