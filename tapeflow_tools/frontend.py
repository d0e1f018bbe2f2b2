"""
Reading MLIR text the way MLIR reads it.

xDSL's parser reads the TapeFlow dialects and most of MLIR, and stamps each op with
where it was written (`LocatingParser`). Where it cannot read the text, the real
MLIR parser (shipped with Enzyme in `enzyme-ad`) gets the user's text as it is:
if MLIR reads it, its printed form (every op in MLIR's own canonical syntax, affine
loops lowered by MLIR's `lower-affine`, each op's position in the user's file kept)
is what xDSL reads instead. If MLIR cannot read it either, the user sees xDSL's
diagnostic, which knows the TapeFlow dialects that MLIR does not.
"""

from __future__ import annotations

import re
import sys

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, PassFailedException

from lowering.enzyme.upstream_mlir import Position, resolve_locations, run_pipeline
from tapeflow_tools.diagnostics import LocatingParser, SourceError

_AFFINE = re.compile(r"\baffine\.")


def parse_module_text(
    ctx: Context,
    text: str,
    name: str,
    line_offset: int = 0,
    implicit_module: bool = True,
) -> ModuleOp:
    """The module written in `text` (from the file `name`, whose line 1 is line
    `line_offset + 1` of the file), every op located in that file."""
    try:
        return LocatingParser(ctx, text, name, line_offset).parse_module(implicit_module)
    except RecursionError:
        line, col, depth = deepest_nesting(text)
        raise SourceError(
            f"{name}:{line + line_offset}:{col}: error: brackets nested {depth} deep here; "
            "the parser follows nesting only as deep as Python's recursion limit "
            f"({sys.getrecursionlimit()} frames)"
        ) from None
    except ParseError as err:
        module = _through_mlir(ctx, text, name, line_offset)
        if module is None:
            raise err from None
        return module


def deepest_nesting(text: str) -> tuple[int, int, int]:
    """(line, column, depth) of the first bracket (`( [ { <`) at the deepest
    nesting of `text`, outside string literals and `//` comments."""
    depth = best = 0
    where = (1, 1)
    line, start = 1, 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line, start = line + 1, i + 1
        elif c == '"':
            i += 1
            while i < n and text[i] != '"' and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1
        elif c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif c in "([{<":
            depth += 1
            if depth > best:
                best, where = depth, (line, i - start + 1)
        elif c in ")]}>":
            depth = max(0, depth - 1)
        i += 1
    return where[0], where[1], best


def _through_mlir(ctx: Context, text: str, name: str, line_offset: int) -> ModuleOp | None:
    """`text` read by MLIR and printed back, or None if MLIR cannot read it."""

    def locate(line: int, col: int) -> Position:
        return name, line + line_offset, col

    pipeline = "lower-affine" if _AFFINE.search(text) else ""
    try:
        printed = run_pipeline(text, pipeline, locate, what="MLIR")
    except PassFailedException:  # MLIR is not installed here, or rejects the text too
        return None
    try:
        return Parser(ctx, resolve_locations(printed, locate), name).parse_module()
    except ParseError:
        return None
