"""
The TapeFlow dialects. Each module is one dialect and imports nothing from the
passes (`lowering`) or the simulator (`sim`), so other xDSL tools can load them
alone.
"""

from collections.abc import Callable

from xdsl.ir import Dialect


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Factories for every TapeFlow dialect, keyed by name (imported lazily)."""

    def enzyme() -> Dialect:
        from tapeflow_dialects.enzyme import Enzyme

        return Enzyme

    def tape() -> Dialect:
        from tapeflow_dialects.tape import Tape

        return Tape

    def region() -> Dialect:
        from tapeflow_dialects.region import Region

        return Region

    def layer() -> Dialect:
        from tapeflow_dialects.layer import Layer

        return Layer

    def stream() -> Dialect:
        from tapeflow_dialects.stream import Stream

        return Stream

    def cgra() -> Dialect:
        from tapeflow_dialects.cgra import Cgra

        return Cgra

    return {
        "enzyme": enzyme,
        "tape": tape,
        "region": region,
        "layer": layer,
        "stream": stream,
        "cgra": cgra,
    }
