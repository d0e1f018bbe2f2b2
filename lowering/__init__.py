"""
The TapeFlow passes, one module per pass, named after the pass. This package
imports the dialects, never the simulator or the tools.
"""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Factories for every TapeFlow pass, keyed by pass name (imported lazily)."""

    def tapeflow_enzyme() -> type[ModulePass]:
        from lowering.tapeflow_enzyme import TapeflowEnzymePass

        return TapeflowEnzymePass

    def tapeflow_raise_tape() -> type[ModulePass]:
        from lowering.tapeflow_raise_tape import TapeflowRaiseTapePass

        return TapeflowRaiseTapePass

    def tapeflow_unroll() -> type[ModulePass]:
        from lowering.tapeflow_unroll import TapeflowUnrollPass

        return TapeflowUnrollPass

    def tapeflow_regions() -> type[ModulePass]:
        from lowering.tapeflow_regions import TapeflowRegionsPass

        return TapeflowRegionsPass

    def tapeflow_layers() -> type[ModulePass]:
        from lowering.tapeflow_layers import TapeflowLayersPass

        return TapeflowLayersPass

    def tapeflow_streams() -> type[ModulePass]:
        from lowering.tapeflow_streams import TapeflowStreamsPass

        return TapeflowStreamsPass

    def tapeflow_spad_bind() -> type[ModulePass]:
        from lowering.tapeflow_spad_bind import TapeflowSpadBindPass

        return TapeflowSpadBindPass

    def tapeflow_pipeline() -> type[ModulePass]:
        from lowering.tapeflow_pipeline import TapeflowPipelinePass

        return TapeflowPipelinePass

    def tapeflow_to_cgra() -> type[ModulePass]:
        from lowering.tapeflow_to_cgra import TapeflowToCgraPass

        return TapeflowToCgraPass

    return {
        "tapeflow-enzyme": tapeflow_enzyme,
        "tapeflow-raise-tape": tapeflow_raise_tape,
        "tapeflow-unroll": tapeflow_unroll,
        "tapeflow-regions": tapeflow_regions,
        "tapeflow-layers": tapeflow_layers,
        "tapeflow-streams": tapeflow_streams,
        "tapeflow-spad-bind": tapeflow_spad_bind,
        "tapeflow-pipeline": tapeflow_pipeline,
        "tapeflow-to-cgra": tapeflow_to_cgra,
    }
