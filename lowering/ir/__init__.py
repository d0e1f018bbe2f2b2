"""
What every pass reads and builds in a gradient function: which functions are
gradients (`gradients`), the stage one has reached (`stages`), where an op sits in
its loop nest (`loops`), index arithmetic built with folding (`index_builder`) and
evaluated over a loop nest (`index_eval`), and source locations kept on new ops
(`locations`). Helpers, not passes: the passes are `lowering.tapeflow_*`.
"""
