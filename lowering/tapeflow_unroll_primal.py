"""
`tapeflow-unroll-primal{factor=N}`: unroll the primal's loops before
differentiation, as clang's `#pragma clang loop unroll_count(N)` does before the
authors' Enzyme for LLVM sees the loop (their kernels are compiled by clang, pragma
applied, then differentiated): Enzyme then differentiates the unrolled body, and
its caches sit between the copies as theirs do.

Which loops, in every function the module differentiates (the `fn` of an
`enzyme.autodiff`), and in every function for an annotated loop:

- an `scf.for` annotated `{tapeflow.unroll = N : i64}` (the pragma's count, on
  that loop, N >= 1), whatever `factor` says; the annotation is consumed;
- with `factor` above 1, every innermost `scf.for` with constant bounds.

A loop of T iterations asked for N (N < T) runs T // N trips of N copies, then
the T % N iterations left as copies in line after it, in the order clang's
unrolled loop runs them (LLVM's `UnrollLoop` keeps the count and exits the last
trip early); N >= T unrolls it fully. Copy k sees the induction variable plus k
steps, the iter_args flow from copy to copy, and the step grows N-fold
(`tapeflow-enzyme` counts a strided loop in unit steps for Enzyme-MLIR,
`tapeflow-unit-steps`). Inner loops are unrolled before the loops
around them. An annotated loop whose bounds or step are not constant, or an
annotation that is not a positive integer, is refused by location. The pass runs
before `tapeflow-enzyme`: a module that already holds gradients is refused.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, builtin, func, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.gradients import gradient_functions
from lowering.ir.index_eval import loop_name, static_bounds
from lowering.ir.unrolling import peel_remainder, unroll_loop
from lowering.ir.walk import walk_ops
from tapeflow_dialects.enzyme import AutoDiffOp
from tapeflow_dialects.locations import location_of

PASS = "tapeflow-unroll-primal"

UNROLL = "tapeflow.unroll"
"""The annotation on an `scf.for`: its unroll count, as `unroll_count(N)`."""


def _annotation(loop: scf.ForOp) -> int | None:
    attr = loop.attributes.get(UNROLL)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr) or attr.value.data < 1:
        raise PassFailedException(
            f"{PASS}: {loop_name(loop)} has {UNROLL} = {attr}; the unroll count must be "
            "a positive integer (e.g. {tapeflow.unroll = 8 : i64})"
        )
    return attr.value.data


def _innermost(loop: scf.ForOp) -> bool:
    return not any(isinstance(op, scf.ForOp) for op in walk_ops(loop.body))


def _requests(module: builtin.ModuleOp, factor: int) -> list[tuple[scf.ForOp, int]]:
    """Each loop to unroll and the count asked for it, inner loops first."""
    differentiated = {
        op.fn.root_reference.data for op in walk_ops(module) if isinstance(op, AutoDiffOp)
    }
    found: list[tuple[scf.ForOp, int]] = []
    for function in module.body.block.ops:
        if not isinstance(function, func.FuncOp):
            continue
        mine = function.sym_name.data in differentiated
        for loop in walk_ops(function):
            if isinstance(loop, affine.ForOp) and UNROLL in loop.attributes:
                raise PassFailedException(
                    f"{PASS}: cannot unroll the affine.for at {location_of(loop)} as its "
                    f"{UNROLL} asks: only an scf.for is unrolled (write the loop as an scf.for)"
                )
        for loop in reversed([op for op in walk_ops(function) if isinstance(op, scf.ForOp)]):
            asked = _annotation(loop)
            if asked is not None:
                if static_bounds(loop) is None:
                    raise PassFailedException(
                        f"{PASS}: cannot unroll {loop_name(loop)} as its {UNROLL} asks: "
                        "its bounds and step are not all constants"
                    )
                found.append((loop, asked))
            elif mine and factor > 1 and _innermost(loop) and static_bounds(loop) is not None:
                found.append((loop, factor))
    return found


def unroll_primal(module: builtin.ModuleOp, factor: int) -> list[int]:
    """Unroll the module's primal loops in place (as the pass); the factor each
    unrolled loop got, inner loops first (1 for a loop left as it was)."""
    if factor < 1:
        raise PassFailedException(f"{PASS}: factor must be at least 1, got {factor}")
    if gradients := gradient_functions(module):
        raise PassFailedException(
            f"{PASS}: @{gradients[0].sym_name.data} is already a gradient; unroll the "
            "primal before tapeflow-enzyme differentiates it"
        )
    factors: list[int] = []
    for loop, asked in _requests(module, factor):
        bounds = static_bounds(loop)
        assert bounds is not None
        chosen = max(1, min(asked, bounds.trips))
        if chosen > 1:
            if rest := bounds.trips % chosen:
                peel_remainder(loop, bounds.lb, bounds.step, bounds.trips, rest)
            unroll_loop(loop, chosen, bounds.step, lambda _: False)
        loop.attributes.pop(UNROLL, None)
        factors.append(chosen)
    return factors


@dataclass(frozen=True)
class TapeflowUnrollPrimalPass(ModulePass):
    """Unroll the primal's loops before `tapeflow-enzyme`, as clang's unroll
    pragma does before the authors' Enzyme."""

    name = "tapeflow-unroll-primal"

    factor: int = 1
    """Copies of the body of every innermost constant-bound loop of a
    differentiated function (a remainder of the trip count follows in line); 1
    unrolls only the loops annotated `tapeflow.unroll`."""

    stats: bool = False
    """Print the factor of every loop considered, inner loops first, to stderr."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        factors = unroll_primal(op, self.factor)
        if self.stats:
            listed = ", ".join(str(f) for f in factors) or "none"
            print(f"{PASS}: {len(factors)} loops considered (factors {listed})", file=sys.stderr)
