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

    return {
        "tapeflow-enzyme": tapeflow_enzyme,
        "tapeflow-raise-tape": tapeflow_raise_tape,
    }
