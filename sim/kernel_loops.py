"""
The parts of a kernel loop, as the kernel compiler and the kernel table both read
them: an `scf.for` whose body is one `cgra.kernel` and the loop's yield, or a
`cgra.kernel` run once where it stands (a loop of one trip).
"""

from __future__ import annotations

from typing import NamedTuple

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from tapeflow_dialects import cgra


class KernelParts(NamedTuple):
    kernel: cgra.KernelOp
    loop_yield: Operation | None
    """The loop's `scf.yield`; None for a kernel run once."""
    block_args: list[SSAValue]
    """The loop body's arguments (induction variable, carried values); [] run once."""
    placed: list[Operation]
    """The kernel's placed ops, without its yield."""
    kernel_yield: Operation


def kernel_parts(loop: scf.ForOp | cgra.KernelOp) -> KernelParts:
    """The parts of `loop` (a kernel loop, or a kernel run once)."""
    if isinstance(loop, cgra.KernelOp):
        kernel, loop_yield, block_args = loop, None, []
    else:
        kernel, loop_yield = list(loop.body.block.ops)
        block_args = list(loop.body.block.args)
    assert isinstance(kernel, cgra.KernelOp)
    placed = list(kernel.body.block.ops)
    kernel_yield = placed.pop()
    return KernelParts(kernel, loop_yield, block_args, placed, kernel_yield)
