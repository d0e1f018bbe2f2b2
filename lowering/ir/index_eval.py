"""
Evaluating tape index expressions over a loop nest, for the passes that must prove
which store wrote the element a load reads (unrolling re-pairs store and load
copies; layering checks that REV runs the FWD iterations backwards).

The index of a tape access is an expression of `arith.constant`, `addi`, `subi`,
`muli`, divisions, `maxsi/minsi` and `index_cast` over loop induction variables.
Evaluated with numpy, each loop gets one axis, so an index becomes an array that
broadcasts over the loop nest's iteration space.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from tapeflow_dialects.locations import location_of
from tapeflow_dialects.semantics import UndefinedBehavior, cast_array, int_binary_array


class CannotEvaluate(Exception):
    """An index the evaluator cannot follow; the message says which."""


@dataclass(frozen=True)
class Bounds:
    lb: int
    step: int
    trips: int


def constant_int(value: SSAValue) -> int | None:
    if isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp):
        attr = value.op.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def static_bounds(loop: scf.ForOp) -> Bounds | None:
    """Constant lower bound, step and trip count of `loop`, if it has them."""
    lb, ub, step = (constant_int(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return Bounds(lb, step, max(0, -(-(ub - lb) // step)))


def loop_name(loop: scf.ForOp) -> str:
    return f"the scf.for at {location_of(loop)}"


_BINARY: tuple[type[Operation], ...] = (
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.FloorDivSIOp,
    arith.DivSIOp,
    arith.RemSIOp,
    arith.MaxSIOp,
    arith.MinSIOp,
    arith.DivUIOp,
    arith.RemUIOp,
    arith.CeilDivSIOp,
)
"""Integer ops an index may be computed with; what each computes (wrap-around,
signed and unsigned readings, division by zero) is `tapeflow_dialects.semantics`."""
PURE_INDEX_OPS = (arith.ConstantOp, arith.IndexCastOp, *_BINARY)
"""The ops an evaluable index may be computed with (all pure)."""


class IndexEvaluator:
    """Index values over the iteration space of `loops` (outermost first); the
    values `given` (e.g. the induction variables of outer loops at one of their
    iterations) are taken as they are."""

    def __init__(self, loops: Sequence[scf.ForOp], given: Mapping[SSAValue, int] | None = None):
        self.loops = tuple(loops)
        self.axis = {loop: n for n, loop in enumerate(self.loops)}
        self._cache: dict[SSAValue, np.ndarray] = {
            v: np.asarray(n, dtype=np.int64) for v, n in (given or {}).items()
        }

    def along(self, loop: scf.ForOp, values: np.ndarray) -> np.ndarray:
        shape = [1] * len(self.loops)
        shape[self.axis[loop]] = values.size
        return values.reshape(shape)

    def bounds(self, loop: scf.ForOp) -> Bounds:
        bounds = static_bounds(loop)
        if bounds is None:
            raise CannotEvaluate(
                f"the indices depend on {loop_name(loop)}, whose bounds are not constant"
            )
        return bounds

    def value(self, v: SSAValue) -> np.ndarray:
        if v in self._cache:
            return self._cache[v]
        if isinstance(v, BlockArgument):
            owner = v.block.parent_op()
            if not (isinstance(owner, scf.ForOp) and v.index == 0 and owner in self.axis):
                raise CannotEvaluate(
                    "an index is a block argument that is no induction variable of an "
                    "enclosing scf.for"
                )
            b = self.bounds(owner)
            result = self.along(owner, b.lb + b.step * np.arange(b.trips, dtype=np.int64))
        else:
            assert isinstance(v, OpResult)
            defining = v.op
            constant = constant_int(v)
            if constant is not None:
                result = np.asarray(constant, dtype=np.int64)
            elif isinstance(defining, arith.IndexCastOp):
                convert = cast_array(defining.name, defining.input.type, defining.result.type)
                result = convert(self.value(defining.input))
            elif isinstance(defining, _BINARY):
                lhs, rhs = self.value(defining.operands[0]), self.value(defining.operands[1])
                apply = int_binary_array(defining.name, defining.results[0].type)
                try:
                    result = apply(lhs, rhs)
                except UndefinedBehavior as err:  # e.g. divides by zero
                    raise CannotEvaluate(f"an index {err} ('{defining.name}')") from None
            else:
                raise CannotEvaluate(f"an index is computed by '{defining.name}'")
        self._cache[v] = result
        return result

    def flat_elements(self, indices: Sequence[SSAValue], shape: Sequence[int]) -> np.ndarray:
        """The row-major element each iteration touches, over the full iteration
        space (one axis per loop); -1 where the indices fall outside `shape`."""
        grid = tuple(self.bounds(loop).trips for loop in self.loops)
        values = [np.broadcast_to(self.value(i), grid) for i in indices]
        if not values:
            return np.zeros(grid, dtype=np.int64)
        stacked = np.stack(values)
        limits = np.array(shape, np.int64).reshape((-1,) + (1,) * len(grid))
        inside = np.all((stacked >= 0) & (stacked < limits), axis=0)
        if inside.all():  # the usual case: no mask to gather and scatter through
            return np.asarray(np.ravel_multi_index(tuple(stacked), tuple(shape)), np.int64)
        flat = np.full(grid, -1, dtype=np.int64)
        flat[inside] = np.ravel_multi_index(tuple(stacked[:, inside]), tuple(shape))
        return flat
