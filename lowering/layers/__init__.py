"""
The pieces of `tapeflow-layers` (the pass and its top-level algorithm are
`lowering.tapeflow_layers`): what it reports (`records`), the state of one
layering attempt and the checks it shares (`state`), tiles of iterations
(`tiles`), pieces of one iteration (`pieces`) and loops of run-time trip count
(`run_time`). Helpers, not passes.
"""
