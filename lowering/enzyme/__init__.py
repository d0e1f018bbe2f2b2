"""
Enzyme's output, read and normalised for the passes: the real MLIR with Enzyme's
passes (`upstream_mlir`), its cache buffers and where REV begins (`caches`), its
caches nested per outer iteration (`nested_caches`) and its tensor caches
(`tensor_caches`), and the stores of values without a derivative that Enzyme
leaves without an adjoint (`inactive_stores`). Helpers, not passes: the passes
are `lowering.tapeflow_*`.
"""
