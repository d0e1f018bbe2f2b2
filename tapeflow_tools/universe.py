"""
The TapeFlow plugin for xDSL tools. `pyproject.toml` publishes it under the
`xdsl.universe` entry point, so plain `xdsl-opt` (or any tool built on xDSL's
`Universe.get_multiverse()`) sees the TapeFlow dialects and passes once the
package is installed.
"""

from xdsl.universe import Universe

from lowering import get_all_passes
from tapeflow_dialects import get_all_dialects

TAPEFLOW_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
)
