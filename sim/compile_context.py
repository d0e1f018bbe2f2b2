"""
What compiling an op needs from the executor, as a Protocol: the per-dialect
builders (`sim/impls/`) and the code generators of the fast path
(`sim/kernel_compiler.py`, `sim/function_compiler.py`) are written against it,
and `sim.executor.FunctionScope` implements it. So neither imports the
executor, and the executor's internals stay its own.

A compile context is one function being compiled: SSA values have slots in its
frame (a list, one slot per value), and a step is a Python callable that runs an
op on the frame.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from functools import lru_cache
from types import CodeType
from typing import Any, Protocol

from xdsl.ir import Block, Operation, SSAValue

from sim.layouts import Layouts
from sim.storage import RunState
from sim.timing import TimingRecorder
from sim.trace import MemoryTrace

Frame = list[Any]
Step = Callable[[Frame], None]
CompiledFunction = Callable[[Sequence[Any]], tuple[Any, ...]]


class CompileContext(Protocol):
    """The services a builder or a code generator uses while compiling one function."""

    @property
    def fast(self) -> bool:
        """Compile the fast path too (generated code); False: closures only."""

    @property
    def trace(self) -> MemoryTrace | None:
        """Where memory accesses are recorded, if anywhere."""

    @property
    def timing(self) -> TimingRecorder | None:
        """What the run's costs are reported to, if anything."""

    @property
    def layouts(self) -> Layouts:
        """Buffer layouts of the fast path (shared by the whole executor)."""

    @property
    def state(self) -> RunState:
        """Counters, stream stats and the scratchpad of the current run."""

    @property
    def in_kernel(self) -> bool:
        """Compiling the body of a `cgra.kernel`: its ops have no timing of
        their own (the kernel loop is timed as a whole)."""

    def kernel_scope(self) -> AbstractContextManager[None]:
        """Within it, `in_kernel` is true."""

    def slot(self, value: SSAValue) -> int:
        """The frame slot of `value` (a new one the first time)."""

    def alias(self, value: SSAValue, like: SSAValue) -> None:
        """`value` shares the slot of `like` (an op rebuilt to stand for another)."""

    def frame_size(self) -> int:
        """Slots handed out so far (frames must be at least this long)."""

    def step(self, op: Operation) -> Step:
        """`op` compiled to its full step: the op, its timing and its trace record."""

    def plain_step(self, op: Operation) -> Step:
        """`op` compiled without timing and trace record."""

    def traced_step(self, op: Operation, step: Step) -> Step:
        """`step`, recording the access `op` makes first (memory ops only)."""

    def region_steps(self, block: Block) -> tuple[list[Step], list[int]]:
        """The steps of a block's ops but its terminator, and the slots the
        terminator yields."""

    def compiled_step(self, op: Operation) -> Step:
        """The full step `step(op)` compiled for `op` (fast path only)."""

    def kernel_loop(self, op: Operation) -> Step | None:
        """The generated function of kernel loop `op`, if it has one."""

    def add_kernel_loop(self, op: Operation, step: Step) -> None:
        """Remember the generated function of kernel loop `op`."""

    def has_function(self, name: str) -> bool:
        """The module defines function @name."""

    def function(self, name: str) -> CompiledFunction:
        """Function @name, compiled: takes its arguments, returns its results."""


@lru_cache(maxsize=64)
def compiled_code(source: str, filename: str) -> CodeType:
    """`compile(source, filename, "exec")`, remembered for the last 64 sources: the
    code generators give the same source for a kernel whose module was lowered
    once per timing model (the models differ in the schedule, which the generated
    code does not read; a kernel loop's source names its frame slots, bound when
    its code is made (`_bind`), so kernels alike but for their slots share it too), and
    compiling a fully unrolled kernel's takes a second."""
    return compile(source, filename, "exec")


def slot_values(slot: Callable[[SSAValue], int], ops: Iterable[Operation]) -> None:
    """Give every value of `ops` its frame slot now (operands, results, then the
    arguments of their blocks, in that order), so that code made later for a loop
    already under way finds them all in the frames."""
    for o in ops:
        for v in o.operands:
            slot(v)
        for v in o.results:
            slot(v)
        for r in o.regions:
            for b in r.blocks:
                for v in b.args:
                    slot(v)


__all__ = ["CompileContext", "CompiledFunction", "Frame", "Step", "compiled_code", "slot_values"]


class Lazy:
    """A closure step compiled the first time it runs: the fallbacks of the
    generated code rarely do, and compiling them all would double the time it
    takes to compile a kernel. Compiling one may add entries to the function's
    slots, so the frame grows to match."""

    __slots__ = ("_make", "_step", "_ctx")

    def __init__(self, make: Callable[[], Step], ctx: CompileContext):
        self._make = make
        self._step: Step | None = None
        self._ctx = ctx

    def __call__(self, fr: Frame) -> None:
        if self._step is None:
            self._step = self._make()
        size = self._ctx.frame_size()
        if len(fr) < size:
            fr.extend([None] * (size - len(fr)))
        self._step(fr)
