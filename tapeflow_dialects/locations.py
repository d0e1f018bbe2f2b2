"""Where an op was written, for diagnostics at every stage of the flow."""

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation


def location_of(op: Operation) -> str:
    """`file:line:col` of the op, or of its nearest located ancestor."""
    current: Operation | None = op
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        current = current.parent_op()
    return "<unknown location>"
