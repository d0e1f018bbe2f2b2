"""The evaluation harness behind `tapeflow-bench`: what to simulate (`points`),
running and caching it (`runner`), the paper's experiments (`experiments`), their
figures (`figures`) and the side-by-side report (`report`)."""
