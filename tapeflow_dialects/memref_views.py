"""
What a `memref.subview` selects, as both the passes and the executor read it.

Enzyme reaches the slice of a cache buffer that one outer iteration fills through a
rank-reducing subview (`%alloc[%i, 0] [1, 16] [1, 1]` viewed as `memref<16xf64>`).
A pass that rewrites the buffer into a tape has to turn an access of the view back
into an access of the buffer, and the executor has to build the same view; both use
the rules here so that they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import SSAValue


@dataclass(frozen=True)
class SubviewGeometry:
    """Per source dimension: offset (an int, or the SSA value of a dynamic one), size, stride."""

    offsets: tuple[int | SSAValue, ...]
    sizes: tuple[int | SSAValue, ...]
    """A size is an int, or the SSA value of a dynamic one (Enzyme views one row of
    a cache whose extent is a loop's run-time trip count: `[%i, 0] [1, %n] [1, 1]`)."""
    strides: tuple[int, ...]
    kept: tuple[int, ...]
    """The source dimensions the view keeps, in order; the others are dropped."""

    @property
    def dropped(self) -> tuple[int, ...]:
        return tuple(d for d in range(len(self.sizes)) if d not in self.kept)


class UnsupportedSubview(ValueError):
    """A subview with dynamic strides (Enzyme does not produce them)."""


def subview_geometry(op: memref.SubviewOp) -> SubviewGeometry:
    """
    The offsets, sizes, strides and kept dimensions of a subview.

    A rank-reducing subview drops unit-size dimensions; as in MLIR's own rule when
    the layout does not say otherwise, the leftmost unit dimensions are dropped.
    """
    if op.strides:
        raise UnsupportedSubview("subviews with dynamic strides are not supported")
    dynamic = iter(op.offsets)
    offsets = tuple(
        next(dynamic) if off == DYNAMIC_INDEX else off for off in op.static_offsets.get_values()
    )
    dynamic_sizes = iter(op.sizes)
    sizes = tuple(
        next(dynamic_sizes) if size == DYNAMIC_INDEX else size
        for size in op.static_sizes.get_values()
    )
    strides = tuple(op.static_strides.get_values())
    result_type = op.result.type
    assert isinstance(result_type, MemRefType)
    to_drop = len(sizes) - len(result_type.get_shape())
    dropped = [d for d, s in enumerate(sizes) if s == 1][:to_drop] if to_drop else []
    kept = tuple(d for d in range(len(sizes)) if d not in dropped)
    return SubviewGeometry(offsets, sizes, strides, kept)
