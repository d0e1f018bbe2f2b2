"""
The reference executor: runs a function of a module at any stage of the flow,
value for value.

It is the yardstick every pass is checked against (the passes move tape data,
they never change arithmetic), so it favours plain, checkable semantics over
speed: memrefs are numpy arrays, scalars are Python values computed as
`tapeflow_dialects.semantics` says, and every tape access is checked (a tape
entry read before it was written is an error, not a silent zero).

Each function is compiled once into Python closures over a frame of slots, one
slot per SSA value, each made by the builder registered for its op class
(`sim/impls/`, one module per dialect). By default (`fast=True`) the executor
runs generated Python for each function body and kernel loop
(`sim/function_compiler.py`, `sim/kernel_compiler.py`), which falls back to the
closures for anything unusual; `fast=False` runs the closures alone, the
reference that path is tested against. An op it does not support, and every
fault of a run, is an `ExecutionError` that names the op and where it was
written. The TapeFlow stages (`region`, `layer`, `stream`, `cgra`) run as the
hardware would run them, every misuse an error. `Executor.stats` counts the
stream traffic and the scratchpad's peak occupancy of the last `run`.

The supported ops, the faults, and how regions, layers, the scratchpad and
streams behave at run time: docs/research/executor.md.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue

from sim import impls
from sim.compile_context import CompiledFunction, Frame, Step
from sim.errors import ExecutionError, fault
from sim.function_compiler import compile_function
from sim.impls.func import Return
from sim.instrument import timed, traced
from sim.layouts import Layouts
from sim.storage import RunState, Scratchpad
from sim.timing import TimingRecorder
from sim.trace import MemoryTrace
from tapeflow_dialects.enzyme import (
    GRADIENT_ACTIVITY,
    GRADIENT_RET_ACTIVITY,
    ActivityAttr,
    ArgumentRole,
    gradient_argument_roles,
)


class Executor:
    """Runs functions of one module. `run` takes and returns Python/numpy values."""

    def __init__(
        self,
        module: ModuleOp,
        trace: MemoryTrace | None = None,
        timing: TimingRecorder | None = None,
        fast: bool = True,
    ):
        self.module = module
        self.fast = fast
        """Run function bodies and kernel loops as generated Python; False runs
        everything with the closures, the reference the fast path is tested
        against."""
        self.trace = trace
        """If given, every memref, tape and region access is recorded into it."""
        self.timing = timing
        """If given, the run is reported to it as kernel loops, ops and streams."""
        self.layouts = Layouts()
        """Buffer layouts of the fast path's generated code."""
        self.state = RunState()
        """Counters, stream stats and the scratchpad, shared by every step."""
        self.functions: dict[str, func.FuncOp] = {
            op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)
        }
        self._compiled: dict[str, CompiledFunction] = {}

    @property
    def ops_executed(self) -> int:
        """Float ops executed by all runs so far."""
        return self.state.ops_executed

    @property
    def stats(self) -> dict[str, int]:
        """Stream traffic and peak scratchpad occupancy of the current (or last) run."""
        return self.state.stats

    @property
    def scratchpad(self) -> Scratchpad | None:
        """The scratchpad of the current (or last) run, made by its first salloc."""
        return self.state.scratchpad

    def run(self, name: str, args: Sequence[Any]) -> tuple[Any, ...]:
        """Run function @name on `args` (numpy arrays for memrefs, Python scalars);
        returns its results. Raises `ExecutionError` for anything it cannot run."""
        if name not in self.functions:
            raise ExecutionError(
                f"no function @{name} in the module (found: "
                f"{', '.join('@' + f for f in self.functions) or 'none'})"
            )
        self.state.start_run()
        function = self.function(name)
        try:
            return function(args)
        except RecursionError:  # not at a call (they report it): nested regions
            raise fault(self.functions[name], f"@{name} nests regions too deeply to run") from None

    def function(self, name: str) -> CompiledFunction:
        """Function @name compiled (the first time it is asked for)."""
        compiled = self._compiled.get(name)
        if compiled is None:
            compiled = self._compiled[name] = self._compile(name)
        return compiled

    def has_function(self, name: str) -> bool:
        return name in self.functions

    def _compile(self, name: str) -> CompiledFunction:
        fn = self.functions[name]
        if fn.is_declaration:
            raise ExecutionError(f"@{name} is only declared, it has no body")
        scope = FunctionScope(self)
        block = fn.body.block
        arg_slots = [scope.slot(a) for a in block.args]
        try:
            steps = [scope.step(op) for op in block.ops]
        except RecursionError:
            raise fault(fn, f"@{name} nests regions too deeply to compile") from None

        shadows = _shadow_positions(fn) if self.trace is not None else []
        trace = self.trace

        def frame_of(args: Sequence[Any]) -> Frame:
            if len(args) != len(arg_slots):
                raise ExecutionError(f"@{name} takes {len(arg_slots)} arguments, got {len(args)}")
            for i in shadows:  # a gradient's shadow arguments: its traffic is `shadow`
                if isinstance(args[i], np.ndarray):
                    trace.mark_shadow(args[i])  # type: ignore[union-attr]
            frame: Frame = [None] * scope.frame_size()
            for slot, value in zip(arg_slots, args, strict=False):
                frame[slot] = value
            return frame

        def closures(frame: Frame) -> tuple[Any, ...]:
            try:
                for step in steps:
                    step(frame)
            except Return as ret:
                return ret.values
            return ()

        body = compile_function(scope, fn, closures) if self.fast else None
        scope.compiled()
        if body is not None:

            def fast_call(args: Sequence[Any]) -> tuple[Any, ...]:
                return body(frame_of(args))

            return fast_call

        def call(args: Sequence[Any]) -> tuple[Any, ...]:
            return closures(frame_of(args))

        return call


def _shadow_positions(fn: func.FuncOp) -> list[int]:
    """The positions of a gradient function's shadow arguments (the activities
    `tapeflow-enzyme` records on it); none for any other function."""
    activity = fn.attributes.get(GRADIENT_ACTIVITY)
    ret_activity = fn.attributes.get(GRADIENT_RET_ACTIVITY)
    if not isinstance(activity, ArrayAttr) or not isinstance(ret_activity, ArrayAttr):
        return []
    roles = gradient_argument_roles(
        [a.data for a in activity.data if isinstance(a, ActivityAttr)],
        [a.data for a in ret_activity.data if isinstance(a, ActivityAttr)],
    )
    if len(roles) != len(fn.args):
        return []
    return [i for i, role in enumerate(roles) if role is ArgumentRole.SHADOW]


class FunctionScope:
    """One function being compiled: the frame slots of its values and the steps
    of its ops. It is the `sim.compile_context.CompileContext` the builders and
    code generators see.

    The steps hold their scope, and the executor holds the steps: the scope
    holds the executor by a weak reference and forgets its steps once the
    function is compiled (`compiled`), so that what a run compiles is freed by
    reference counting when the executor goes, not left in reference cycles
    for the cycle collector to find (a walk of every young object)."""

    def __init__(self, executor: Executor):
        self._executor = weakref.ref(executor)
        # What the run is observed by, and shares (the executor's, fixed).
        self.fast = executor.fast
        self.trace = executor.trace
        self.timing = executor.timing
        self.layouts = executor.layouts
        self.state = executor.state
        self.slots: dict[int, int] = {}
        """Each value's slot, by the value's `id` (an `SSAValue` hashes and
        compares by identity, through a Python-level `__hash__` that a fully
        unrolled kernel's hundreds of thousands of lookups pay for)."""
        self._held: list[SSAValue] = []
        """The values `slots` has, kept alive so that no id is reused (a value
        of an op rebuilt while compiling may be freed)."""
        self._steps: dict[Operation, Step] | None = {}
        self._kernel_loops: dict[Operation, Step] | None = {}
        self._kernel_depth = 0

    @property
    def executor(self) -> Executor:
        executor = self._executor()
        if executor is None:
            raise ExecutionError("a compiled function ran after its executor was freed")
        return executor

    def compiled(self) -> None:
        """The function's code is made: the steps and kernel loops looked up
        while making it are no longer asked for (a fallback compiled later, as
        it first runs, is not kept either)."""
        self._steps = self._kernel_loops = None

    @property
    def in_kernel(self) -> bool:
        return self._kernel_depth > 0

    @contextmanager
    def kernel_scope(self) -> Iterator[None]:
        self._kernel_depth += 1
        try:
            yield
        finally:
            self._kernel_depth -= 1

    # Frame slots.
    def slot(self, value: SSAValue) -> int:
        slots = self.slots
        slot = slots.get(id(value))
        if slot is None:
            slot = slots[id(value)] = len(slots)
            self._held.append(value)
        return slot

    def alias(self, value: SSAValue, like: SSAValue) -> None:
        slot = self.slot(like)
        if id(value) not in self.slots:
            self._held.append(value)
        self.slots[id(value)] = slot

    def frame_size(self) -> int:
        return len(self.slots)

    # Steps.
    def plain_step(self, op: Operation) -> Step:
        return impls.build(self, op)

    def traced_step(self, op: Operation, step: Step) -> Step:
        return traced(self, op, step)

    def step(self, op: Operation) -> Step:
        step = self.plain_step(op)
        if self.timing is not None:
            step = timed(self, op, step)
        if self.trace is not None:
            step = traced(self, op, step)
        if self.fast and self._steps is not None:
            self._steps[op] = step
        return step

    def region_steps(self, block: Block) -> tuple[list[Step], list[int]]:
        body = list(block.ops)
        terminator = body[-1]
        steps = [self.step(o) for o in body[:-1]]
        return steps, [self.slot(v) for v in terminator.operands]

    def compiled_step(self, op: Operation) -> Step:
        assert self._steps is not None, "asked for a step after the function was compiled"
        return self._steps[op]

    def kernel_loop(self, op: Operation) -> Step | None:
        return None if self._kernel_loops is None else self._kernel_loops.get(op)

    def add_kernel_loop(self, op: Operation, step: Step) -> None:
        if self._kernel_loops is not None:
            self._kernel_loops[op] = step

    # Functions.
    def has_function(self, name: str) -> bool:
        return self.executor.has_function(name)

    def function(self, name: str) -> CompiledFunction:
        return self.executor.function(name)


__all__ = ["ExecutionError", "Executor", "FunctionScope"]
