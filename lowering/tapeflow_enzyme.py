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
the module, which xDSL does not read; they are dropped. Importing Enzyme maps a
~0.5 GB library, so it happens only when the pass runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, PassFailedException

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


def run_enzyme(module_text: str, pipeline: str) -> str:
    """Enzyme's pass pipeline on MLIR text; failures become PassFailedException."""
    try:
        from enzyme_ad.jax import enzyme_call
    except ImportError as err:
        raise PassFailedException(
            "tapeflow-enzyme needs Enzyme-MLIR from the PyPI package 'enzyme-ad' "
            f"(pip install enzyme-ad), which could not be imported: {err}"
        ) from None
    try:
        # No function names: Enzyme then keeps every symbol's name.
        _, result = enzyme_call.run_pass_pipeline([], module_text, pipeline)
    except ValueError as err:
        raise PassFailedException(
            f"Enzyme rejected the module (pipeline '{pipeline}'): "
            f"{strip_locations(str(err)).strip()}"
        ) from None
    return result


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
        result = strip_locations(run_enzyme(text.getvalue(), self.pipeline))
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
