"""
`tapeflow-enzyme`: differentiate every `enzyme.autodiff` with the real Enzyme-MLIR.

The front end of the flow. The module is printed, handed to Enzyme's MLIR pass
pipeline (shipped in the PyPI package `enzyme-ad` as
`enzyme_ad.jax.enzyme_call.run_pass_pipeline`), and the transformed text is parsed
back into this module. Enzyme turns each `enzyme.autodiff` into a call of a private
`diffe<name>` gradient function; with the default pipeline its caches are lowered
to `memref.alloc` buffers (the struct-of-arrays tape `tapeflow-raise-tape` looks
for). Each gradient function is annotated with its primal and the activities it
was generated for (`tapeflow.gradient_of`, `tapeflow.activity`,
`tapeflow.ret_activity`), so later passes know which arguments are shadows and
seeds without re-deriving Enzyme's calling convention.

Enzyme's printer attaches `loc(...)` references to aliases defined at the end of
the module, which xDSL does not read; they are dropped. Enzyme's own diagnostics
(written by its C++ code straight to the process's stderr, at positions in the text
it was given) are captured and re-anchored to the ops of the user's file. Importing Enzyme maps a
~0.5 GB library, so it happens only when the pass runs.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import StringIO

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, PassFailedException

from tapeflow_dialects.locations import location_of
from tapeflow_dialects.enzyme import (
    GRADIENT_ACTIVITY,
    GRADIENT_OF,
    GRADIENT_RET_ACTIVITY,
    AutoDiffOp,
)

DEFAULT_PIPELINE = (
    "enzyme,canonicalize,remove-unnecessary-enzyme-ops,canonicalize,"
    "enzyme-simplify-math,cse"
)
"""Differentiate, lower the caches to memref buffers, and tidy the result."""


def strip_locations(text: str) -> str:
    """Remove `loc(...)` annotations and `#loc = loc(...)` alias definitions."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':  # copy string literals verbatim
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("loc(", i) and (i == 0 or not text[i - 1].isalnum()):
            depth, j = 0, i + 3
            while j < n:
                if text[j] == '"':
                    j += 1
                    while j < n and text[j] != '"':
                        j += 2 if text[j] == "\\" else 1
                elif text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            while out and out[-1].endswith(" "):
                out[-1] = out[-1][:-1]
            i = j + 1
        else:
            out.append(ch)
            i += 1
    lines = "".join(out).splitlines()
    return "\n".join(line for line in lines if not line.startswith("#loc")) + "\n"


Locator = Callable[[int, int], str | None]
"""Maps a line and column of the text handed to Enzyme to the user's location."""

_ENZYME_DIAGNOSTIC = re.compile(
    r'^loc\("-":(\d+):(\d+)\): (error|warning|note|remark): (.*)$'
)


@contextmanager
def _captured_stderr() -> Iterator[list[str]]:
    """Collect what native code writes to file descriptor 2 meanwhile."""
    captured: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield captured
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            captured.append(sink.read().decode(errors="replace"))


def _relocate(stderr_text: str, locate: Locator) -> str:
    """Enzyme's diagnostics, with positions in its input replaced by the user's."""
    lines = []
    for line in stderr_text.splitlines():
        match = _ENZYME_DIAGNOSTIC.match(line.strip())
        if match:
            where = locate(int(match[1]), int(match[2])) or "<enzyme input>"
            line = f"{where}: {match[3]}: {match[4]}"
        if line.strip():
            lines.append(line)
    return "\n".join(lines)


def run_enzyme(module_text: str, pipeline: str, locate: Locator = lambda *_: None) -> str:
    """Enzyme's pass pipeline on MLIR text; failures become PassFailedException."""
    try:
        from enzyme_ad.jax import enzyme_call
    except ImportError as err:
        raise PassFailedException(
            "tapeflow-enzyme needs Enzyme-MLIR from the PyPI package 'enzyme-ad' "
            f"(pip install enzyme-ad), which could not be imported: {err}"
        ) from None
    failure: ValueError | None = None
    with _captured_stderr() as captured:
        try:
            # No function names: Enzyme then keeps every symbol's name.
            _, result = enzyme_call.run_pass_pipeline([], module_text, pipeline)
        except ValueError as err:
            failure = err
    diagnostics = _relocate("".join(captured), locate)
    if failure is not None:
        if diagnostics:
            raise PassFailedException(
                f"{diagnostics}\n(Enzyme rejected the module, pipeline '{pipeline}')"
            )
        raise PassFailedException(
            f"Enzyme rejected the module (pipeline '{pipeline}'): "
            f"{strip_locations(str(failure)).strip()}"
        )
    if diagnostics:
        print(diagnostics, file=sys.stderr)
    return result


class _PositionParser(Parser):
    """Records the line and column where each op of the text starts."""

    def __init__(self, ctx: Context, text: str):
        super().__init__(ctx, text, "<enzyme input>")
        self.starts: list[tuple[int, int]] = []

    def parse_operation(self) -> Operation:
        where = self._current_token.span.get_location()
        index = len(self.starts)
        self.starts.append((0, 0))
        op = super().parse_operation()
        self.starts[index] = (where.line, where.col)
        return op


def _locator(ctx: Context, module: builtin.ModuleOp, text: str) -> Locator:
    """
    Where each op of `text` (the printed `module`) came from in the user's file.

    The printed text parses back to the same ops in the same order, so the k-th op
    started in the text is the k-th op of a walk of `module`. xDSL prints one op
    per line, and MLIR places an op at its name (after the results), so the line
    is enough to find it.
    """
    parser = _PositionParser(ctx, text)
    try:
        parser.parse_module()
    except ParseError:
        return lambda *_: None
    originals = list(module.walk())
    table: dict[int, str] = {}
    for (line, _), op in zip(parser.starts, originals):
        table.setdefault(line, location_of(op))
    return lambda line, col: table.get(line)


@dataclass(frozen=True)
class TapeflowEnzymePass(ModulePass):
    """Replace each `enzyme.autodiff` by a call of Enzyme's gradient function."""

    name = "tapeflow-enzyme"

    pipeline: str = DEFAULT_PIPELINE
    """Enzyme-MLIR pass pipeline; the default lowers caches to memref buffers."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        requests = _autodiff_requests(op)
        if not requests:
            return
        symbols = {f.sym_name.data for f in op.body.block.ops if isinstance(f, func.FuncOp)}
        text = StringIO()
        Printer(stream=text).print_op(op)
        locate = _locator(ctx, op, text.getvalue())
        result = strip_locations(run_enzyme(text.getvalue(), self.pipeline, locate))
        try:
            differentiated = Parser(ctx, result, "<enzyme output>").parse_module()
        except ParseError as err:
            raise PassFailedException(
                f"tapeflow-enzyme could not read Enzyme's output back: {err}"
            ) from None
        _annotate_gradients(differentiated, requests, symbols)
        block = op.body.block
        for old in list(block.ops):
            old.detach()
            old.erase()
        for new in list(differentiated.body.block.ops):
            new.detach()
            block.add_op(new)


def _enclosing_function(op: Operation) -> str:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent.sym_name.data if isinstance(parent, func.FuncOp) else ""


def _autodiff_requests(module: builtin.ModuleOp) -> dict[str, list[AutoDiffOp]]:
    """The `enzyme.autodiff` ops of each function, in program order."""
    requests: dict[str, list[AutoDiffOp]] = {}
    for op in module.walk():
        if isinstance(op, AutoDiffOp):
            requests.setdefault(_enclosing_function(op), []).append(op)
    return requests


def _annotate_gradients(
    module: builtin.ModuleOp, requests: dict[str, list[AutoDiffOp]], symbols: set[str]
) -> None:
    """
    Record on each new gradient function what it differentiates.

    Enzyme replaces every `enzyme.autodiff` by a call of a new function, in place,
    so the k-th call of a new function in a caller is the k-th autodiff there.
    """
    functions = {f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp)}
    for caller_name, autodiffs in requests.items():
        caller = functions.get(caller_name)
        calls = [
            c
            for c in (caller.walk() if caller is not None else ())
            if isinstance(c, func.CallOp) and c.callee.root_reference.data not in symbols
        ]
        if len(calls) != len(autodiffs):
            raise PassFailedException(
                f"tapeflow-enzyme: @{caller_name} had {len(autodiffs)} enzyme.autodiff "
                f"ops but calls {len(calls)} new gradient functions after Enzyme"
            )
        for call, request in zip(calls, autodiffs):
            gradient = functions[call.callee.root_reference.data]
            gradient.attributes[GRADIENT_OF] = request.fn
            gradient.attributes[GRADIENT_ACTIVITY] = request.activity
            gradient.attributes[GRADIENT_RET_ACTIVITY] = request.ret_activity
