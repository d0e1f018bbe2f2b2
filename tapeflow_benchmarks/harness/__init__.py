"""The evaluation harness behind `tapeflow-bench`: what to simulate (`points`),
running and caching it (`runner`), the timing models and the hook that hands one
to the simulator (`models`), the paper's experiments (`experiments`), the claims
judged per model (`claims`), their figures (`figures`) and the side-by-side report
(`report`)."""
