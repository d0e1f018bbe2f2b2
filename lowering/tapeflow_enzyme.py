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
seeds without re-deriving Enzyme's calling convention. A module already
differentiated (gradient functions, no `enzyme.autodiff` left) passes through, so
the variants' pipelines can start here from either stage; a module with neither is
an error.

Enzyme gets every op's location and keeps it: the gradient's ops, and Enzyme's
own diagnostics, point into the user's file (`lowering/enzyme/upstream_mlir.py`).
`lower-affine` runs first (kernels may use affine loops); loops annotated
`tapeflow.unroll` are unrolled before Enzyme, as clang's pragma (`tapeflow-unroll-primal`).

Where Enzyme-MLIR 0.0.16 is wrong, the module reaches it rewritten
(docs/enzyme-bugs.md): stores of values without a derivative routed through a
scratch buffer and back (`lowering/enzyme/inactive_stores.py`), loops of step 1
only (`tapeflow-unit-steps`), carried values in the order its reverse expects
(`lowering/enzyme/carried_order.py`), ops it refuses replaced
(`lowering/enzyme/refused_ops.py`); after it, the caches of loops that may run no
iteration are sized at least zero (`lowering/enzyme/empty_loops.py`). Only
Enzyme's native module is loaded, when the pass runs (it maps a ~0.5 GB library).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from io import StringIO

from xdsl.context import Context
from xdsl.dialects import affine, builtin, func, memref, scf
from xdsl.dialects.builtin import AnyFloat, FileLineColLoc, MemRefType
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, PassFailedException

from lowering.enzyme.carried_order import order_carried_values
from lowering.enzyme.empty_loops import clamp_cache_sizes
from lowering.enzyme.inactive_stores import (
    drop_store_routes,
    primal_activities,
    route_inactive_stores,
    routed_stores,
    undo_store_routes,
)
from lowering.enzyme.refused_ops import (
    MEMORY_REFUSAL,
    differentiated_functions,
    inline_memory_calls,
    restore_derivative_ops,
    rewrite_refused_ops,
)
from lowering.enzyme.upstream_mlir import (
    Locator,
    MlirCrashed,
    MlirRejected,
    Position,
    resolve_locations,
    run_pipeline,
)
from lowering.ir.gradients import gradient_functions
from lowering.ir.locations import where
from lowering.ir.walk import walk_ops
from lowering.tapeflow_unit_steps import strided_loops_left, unit_steps
from lowering.tapeflow_unroll_primal import UNROLL, unroll_primal
from lowering.tapeflow_while_to_for import while_to_for
from tapeflow_dialects.enzyme import (
    GRADIENT_ACTIVITY,
    GRADIENT_OF,
    GRADIENT_RET_ACTIVITY,
    AutoDiffOp,
)

DEFAULT_PIPELINE = (
    "lower-affine,canonicalize,enzyme,canonicalize,remove-unnecessary-enzyme-ops,"
    "canonicalize,enzyme-simplify-math,cse"
)
"""Lower affine loops, canonicalize the primal, differentiate, lower the caches to
memref buffers, and tidy the result. The primal is canonicalized before Enzyme sees
it: otherwise the canonicalization after `enzyme` folds a one-trip FWD loop whose
REV twin still pops its caches once per trip, and the gradient pops an empty cache
(Enzyme-MLIR 0.0.16; found by the random-kernel property test)."""


AUTODIFF = re.compile(r"\benzyme\.autodiff\b")
"""An `enzyme.autodiff` op in Enzyme's printed output: the pipeline did not differentiate."""

RETRY_PIPELINE = (
    "lower-affine,canonicalize,enzyme,remove-unnecessary-enzyme-ops,canonicalize,"
    "remove-unnecessary-enzyme-ops,canonicalize,enzyme-simplify-math,cse"
)
"""The default pipeline with the caches lowered before the first canonicalization
after `enzyme` (and once more after it, for the caches it frees). Run only where
the default fails with `RETRY_ON`: that canonicalization folds a one-iteration
loop that Enzyme's checkpointing creates (the block of a 2-trip checkpointed
loop), and the caches pushed in the forward block then have no loop holding their
pops (Enzyme-MLIR 0.0.16; found by the random-kernel property test). It is not the
default because it changes the arithmetic Enzyme's other gradients come out with
(a `negf` and `addf` where the default has one `subf`)."""

RETRY_ON = "no scf.for holding their pops to pair it with"


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
    Where each op of `text` (the printed `module`) came from in the user's file,
    for what MLIR locates in its input text (block arguments, which xDSL prints
    without a location, and ops with none).

    The printed text parses back to the same ops in the same order, so the k-th op
    started in the text is the k-th op of a walk of `module`. xDSL prints one op
    per line, so the line is enough to find it.

    The text is parsed again only when a position is first asked for: Enzyme-MLIR
    keeps the locations the printed ops carry, so a gradient that differentiates
    asks for none (the second parse took 35-60 ms, a third to a half of the pass on
    the nest kernels with Enzyme's output memoised), while a diagnostic for an op
    without one does. The walk reads `module` at that first call, so `module` must
    not change in between: the pass asks only while it reads Enzyme's diagnostics
    and output, before it touches the module.
    """
    table: dict[int, Position] | None = None

    def locate(line: int, col: int) -> Position | None:
        nonlocal table
        if table is None:
            table = {}
            parser = _PositionParser(ctx, text)
            try:
                parser.parse_module()
            except ParseError:
                return None
            for (start, _), op in zip(parser.starts, walk_ops(module), strict=False):
                loc = op.location
                if isinstance(loc, FileLineColLoc):
                    table.setdefault(start, (loc.filename.data, loc.line.data, loc.column.data))
        return table.get(line)

    return locate


@dataclass(frozen=True)
class TapeflowEnzymePass(ModulePass):
    """Replace each `enzyme.autodiff` by a call of Enzyme's gradient function."""

    name = "tapeflow-enzyme"

    pipeline: str = DEFAULT_PIPELINE
    """Enzyme-MLIR pass pipeline; the default lowers caches to memref buffers."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        requests = _autodiff_requests(op)
        if not requests:
            if not gradient_functions(op):
                raise PassFailedException(
                    "tapeflow-enzyme: the module has no enzyme.autodiff to differentiate "
                    "(and no gradient function tapeflow-enzyme made); add an "
                    "enzyme.autodiff caller of the function to differentiate"
                )
            return  # already differentiated: the variants' pipelines start here too
        if not self.pipeline.strip():
            raise PassFailedException(
                "tapeflow-enzyme: option pipeline is empty: Enzyme's pipeline must run its "
                f"differentiation pass, 'enzyme' (the default: {DEFAULT_PIPELINE})"
            )
        _refuse_written_globals(op, requests)
        if any(
            isinstance(loop, scf.ForOp | affine.ForOp) and UNROLL in loop.attributes
            for loop in walk_ops(op)
        ):
            unroll_primal(op, 1)  # the annotated loops only, as clang's pragma
        primals = [ad.fn.root_reference.data for ads in requests.values() for ad in ads]
        inline_memory_calls(op, primals)  # Enzyme-MLIR refuses calls that touch memory
        left = while_to_for(op)  # Enzyme-MLIR differentiates scf.for, not scf.while
        _refuse_strided_loops_left(op)
        unit_steps(op)  # Enzyme-MLIR reverses a strided loop as if its step were 1
        rewrite_refused_ops(op, differentiated_functions(op, primals))
        symbols = {f.sym_name.data for f in op.body.block.ops if isinstance(f, func.FuncOp)}
        activities = primal_activities(op, (r for rs in requests.values() for r in rs))
        order_carried_values(op, activities)  # Enzyme-MLIR pairs carried adjoints by rank
        routed = route_inactive_stores(op, activities)
        text = StringIO()
        Printer(stream=text, print_debuginfo=True).print_op(op)
        locate = _locator(ctx, op, text.getvalue())
        try:
            try:
                result = run_pipeline(text.getvalue(), self.pipeline, locate, what="Enzyme")
            except MlirRejected as err:
                if self.pipeline != DEFAULT_PIPELINE or RETRY_ON not in str(err):
                    raise
                result = run_pipeline(text.getvalue(), RETRY_PIPELINE, locate, what="Enzyme")
        except MlirCrashed as err:
            raise PassFailedException(f"{err}{_crash_suspects(op)}") from None
        except MlirRejected as err:
            notes = "".join(
                f"\n{each.where()}note: tapeflow-while-to-for could not rewrite this "
                f"'scf.while' into an 'scf.for': {each.reason}"
                for each in left
            )
            checkpointed = _checkpoint_notes(op, str(err)) or _call_note(str(err))
            notes += checkpointed or (_route_note(routed) if routed else "")
            if not notes:
                raise
            raise PassFailedException(f"{err}{notes}") from None
        if AUTODIFF.search(result):
            raise PassFailedException(
                f"tapeflow-enzyme: Enzyme's pipeline '{self.pipeline}' left enzyme.autodiff "
                "undifferentiated: it must run Enzyme's differentiation pass, 'enzyme' (the "
                f"default: {DEFAULT_PIPELINE})"
            )
        try:
            differentiated = Parser(
                ctx, resolve_locations(result, locate), "<enzyme output>"
            ).parse_module()
        except ParseError as err:
            raise PassFailedException(
                f"tapeflow-enzyme could not read Enzyme's output back: {err}"
            ) from None
        _locate_created_ops(differentiated)
        _annotate_gradients(differentiated, requests, symbols)
        for function in differentiated.body.block.ops:
            if isinstance(function, func.FuncOp) and function.sym_name.data in routed:
                undo_store_routes(function)
        for gradient in gradient_functions(differentiated):
            drop_store_routes(gradient)
            clamp_cache_sizes(gradient, "tapeflow-enzyme")  # a loop may run no iteration
        for function in differentiated.body.block.ops:
            if isinstance(function, func.FuncOp):
                restore_derivative_ops(function)
        block = op.body.block
        for old in list(block.ops):
            old.detach()
            old.erase()
        for new in list(differentiated.body.block.ops):
            new.detach()
            block.add_op(new)


def _route_note(routed: list[str]) -> str:
    """Enzyme's rejection may come from the stores `route_inactive_stores` made
    active; without the route their gradient would be wrong."""
    names = ", ".join(f"@{name}" for name in routed)
    return (
        f"\nnote: tapeflow-enzyme handed Enzyme the stores of values without a "
        f"derivative in {names} as active stores of the same values, so that their "
        "adjoint zeroes the shadow (docs/enzyme-bugs.md); Enzyme's rejection may "
        "concern those stores"
    )


def _call_note(error: str) -> str:
    """What Enzyme's refusal of a call that touches memory means."""
    if MEMORY_REFUSAL not in error:
        return ""
    return (
        "\nnote: Enzyme-MLIR 0.0.16 differentiates a call in reverse mode only where the "
        "callee reads and writes no memory (it does not save what the callee overwrites); "
        "tapeflow-enzyme inlines the calls of the module's functions, but not those of a "
        "recursive function or of a declaration: write the recursion as a loop, or define "
        "the function in the module"
    )


CHECKPOINTING = "enzyme.enable_checkpointing"
CHECKPOINT_REJECTION = "'scf.yield' op must be the last operation in the parent block"
"""What Enzyme-MLIR 0.0.16 says where it cannot checkpoint a loop that stores a
value read from memory into an argument's buffer (not every such loop: those of
docs/enzyme-bugs.md)."""


def _checkpoint_notes(module: builtin.ModuleOp, error: str) -> str:
    """Where Enzyme rejects a checkpointed loop with `CHECKPOINT_REJECTION`: each
    loop marked `CHECKPOINTING` that stores a float, and in it each store
    `route_inactive_stores` made one of those Enzyme rejects."""
    if CHECKPOINT_REJECTION not in error:
        return ""
    notes = ""
    for loop in walk_ops(module):
        if not (isinstance(loop, scf.ForOp | affine.ForOp) and CHECKPOINTING in loop.attributes):
            continue
        if not any(
            isinstance(store, memref.StoreOp | affine.StoreOp)
            and isinstance(store.value.type, AnyFloat)
            for store in walk_ops(loop)
        ):
            continue
        notes += (
            f"\n{where(loop)}note: Enzyme-MLIR 0.0.16 rejects its own output for some "
            "checkpointed loops that store a value read from memory into an argument's "
            f"buffer (docs/enzyme-bugs.md); differentiate this loop without {CHECKPOINTING}"
        )
        notes += "".join(
            f"\n{where(store)}note: this store of a value without a derivative is such a "
            "store: tapeflow-enzyme hands it to Enzyme read back from a scratch buffer, so "
            "that its adjoint zeroes the shadow Enzyme-MLIR would leave stale "
            "(docs/enzyme-bugs.md)"
            for store in routed_stores(loop)
        )
    return notes


def _refuse_strided_loops_left(module: builtin.ModuleOp) -> None:
    for loop in strided_loops_left(module):
        raise PassFailedException(
            f"{where(loop)}tapeflow-enzyme: this 'affine.for' with step "
            f"{loop.step.value.data} has a lower bound that is the max of several "
            "expressions, which tapeflow-unit-steps cannot normalize to step 1; "
            "Enzyme-MLIR reverses a strided loop as if its step were 1 "
            "(docs/enzyme-bugs.md), so the gradient would be wrong: write the loop with "
            "one lower bound, or as an scf.for"
        )


def _refuse_written_globals(
    module: builtin.ModuleOp, requests: dict[str, list[AutoDiffOp]]
) -> None:
    """A `memref.global` that a differentiated function writes would carry
    derivatives that Enzyme-MLIR 0.0.16 drops without a word (it gives a global no
    shadow, so the gradient through it comes out 0): refused at the write. A
    constant table (only read) is fine."""
    functions = {f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp)}
    reached: list[str] = [ad.fn.root_reference.data for ads in requests.values() for ad in ads]
    seen: set[str] = set()
    while reached:
        name = reached.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        for op in walk_ops(functions[name]):
            if isinstance(op, func.CallOp):
                reached.append(op.callee.root_reference.data)
            if not isinstance(op, memref.GetGlobalOp):
                continue
            views = [op.memref]
            for view in views:  # the global, and views of it
                for use in list(view.uses):
                    user = use.operation
                    if isinstance(user, memref.SubviewOp | memref.CastOp):
                        views.append(user.results[0])
                    written = (isinstance(user, memref.StoreOp) and use.index == 1) or (
                        isinstance(user, memref.CopyOp) and use.index == 1
                    )
                    if written:
                        global_name = op.name_.root_reference.data
                        raise PassFailedException(
                            f"{where(user)}'{user.name}' writes the memref.global "
                            f"@{global_name} in @{name}, which enzyme.autodiff "
                            "differentiates: Enzyme-MLIR gives a global no shadow, so the "
                            "derivatives that flow through it would be silently lost; pass "
                            "the buffer as an argument (enzyme_dup) instead"
                        )


def _crash_suspects(module: builtin.ModuleOp) -> str:
    """What Enzyme-MLIR 0.0.16 is known to crash on, where the module has it: a
    memref carried from one loop iteration to the next (ping-pong buffers swapped
    through `iter_args`; it traps in the `enzyme` pass)."""
    found = []
    for op in walk_ops(module):
        if isinstance(op, scf.ForOp | scf.WhileOp) and any(
            isinstance(r.type, MemRefType) for r in op.results
        ):
            loc = op.location
            where = (
                f"{loc.filename.data}:{loc.line.data}:{loc.column.data}: "
                if isinstance(loc, FileLineColLoc)
                else ""
            )
            found.append(
                f"\n{where}note: '{op.name}' carries a memref from one iteration to the "
                "next, which Enzyme-MLIR 0.0.16 crashes on: select the buffer from the "
                "iteration number instead (arith.select on the parity), or copy"
            )
    return "".join(found)


def _locate_created_ops(module: builtin.ModuleOp) -> None:
    """Ops that Enzyme creates with no location of their own (the accumulation of
    adjoints) take the location of the op they sit in."""
    for op in walk_ops(module):
        parent = op.parent_op()
        if not isinstance(op.location, FileLineColLoc) and parent is not None:
            if isinstance(parent.location, FileLineColLoc):
                op.location = parent.location


def _enclosing_function(op: Operation) -> str:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent.sym_name.data if isinstance(parent, func.FuncOp) else ""


def _autodiff_requests(module: builtin.ModuleOp) -> dict[str, list[AutoDiffOp]]:
    """The `enzyme.autodiff` ops of each function, in program order."""
    requests: dict[str, list[AutoDiffOp]] = {}
    for op in walk_ops(module):
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
            for c in (walk_ops(caller) if caller is not None else ())
            if isinstance(c, func.CallOp) and c.callee.root_reference.data not in symbols
        ]
        if len(calls) != len(autodiffs):
            raise PassFailedException(
                f"tapeflow-enzyme: @{caller_name} had {len(autodiffs)} enzyme.autodiff "
                f"ops but calls {len(calls)} new gradient functions after Enzyme"
            )
        for call, request in zip(calls, autodiffs, strict=True):
            gradient = functions[call.callee.root_reference.data]
            gradient.attributes[GRADIENT_OF] = request.fn
            gradient.attributes[GRADIENT_ACTIVITY] = request.activity
            gradient.attributes[GRADIENT_RET_ACTIVITY] = request.ret_activity
