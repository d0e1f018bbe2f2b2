"""
The file formats a figure can be written in (`FORMATS`, matplotlib's own writers)
and `--format`'s parser. Apart from the figures so that `tapeflow-bench` checks
its options before it imports matplotlib.
"""

from __future__ import annotations

FORMATS = ("png", "svg", "pdf")
"""The file formats a figure can be written in (matplotlib's own writers)."""


def parse_formats(text: str) -> list[str]:
    """`png,svg` as a list of formats, in order, once each; ValueError names
    an unknown one."""
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in FORMATS]
    if unknown or not names:
        raise ValueError(
            f"unknown figure format(s) {', '.join(unknown) or '(none given)'}; "
            f"give a comma-separated list of {', '.join(FORMATS)}"
        )
    return list(dict.fromkeys(names))
