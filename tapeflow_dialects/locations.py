"""Where an op was written, for diagnostics at every stage of the flow."""

from xdsl.dialects.builtin import FileLineColLoc, StringAttr
from xdsl.ir import Operation


def location_of(op: Operation) -> str:
    """
    `file:line:col` of the op, or of its nearest located ancestor; for IR built
    by a pass with no source position at all, the function the op is in.
    """
    current: Operation | None = op
    function = ""
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        sym_name = current.properties.get("sym_name") or current.attributes.get("sym_name")
        if not function and isinstance(sym_name, StringAttr):
            function = sym_name.data
        current = current.parent_op()
    return f"<no location, in @{function}>" if function else "<unknown location>"
