"""
The executor's op implementations, one module per dialect, registered by op
class (`sim.impls.registry`). Importing this package registers them all.
"""

from sim.impls import (  # noqa: F401 - imported to register their builders
    arith,
    cgra,
    enzyme,
    func,
    layer,
    math,
    memref,
    region,
    scf,
    stream,
    tape,
    tensor,
)
from sim.impls.registry import BUILDERS, Builder, build, impl

__all__ = ["BUILDERS", "Builder", "build", "impl"]
