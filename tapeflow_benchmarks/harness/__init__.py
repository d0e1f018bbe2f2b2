"""The evaluation harness behind `tapeflow-bench`: what to simulate (`points`),
running and caching it (`runner`, `result_cache`), the paper's experiments
(`experiments`), the claims judged per model (`claims/`), the columns of
`runs.csv` (`columns`), their figures (`figures`), the side-by-side report
(`report`) and hardware sweeps (`sweep/`)."""
