"""
The modulo scheduler `tapeflow-to-cgra` places loop bodies with: the body as the
scheduler reads it (`body`), the recurrence bound on ii (`recurrence`) and the
placement and scheduling algorithm (`scheduler`). Helpers, not passes.
"""
