"""
The executor's one error type, and the messages that locate it: every fault of
a program run is reported at the op that caused it, as `file:line:col: ...`
(`tapeflow_dialects.locations.location_of`), never as a Python traceback.
"""

from __future__ import annotations

from xdsl.ir import Operation

from tapeflow_dialects.locations import location_of


class ExecutionError(Exception):
    """The program cannot be executed (unsupported op, bad input, bad tape use,
    undefined behaviour); the message says where and why."""


def fault(op: Operation, what: str) -> ExecutionError:
    """`what` went wrong at `op`: `file:line:col: what`."""
    return ExecutionError(f"{location_of(op)}: {what}")


def unsupported(op: Operation, why: str, name: str | None = None) -> ExecutionError:
    """The executor cannot run `op` (or the op `name` it stands for)."""
    return fault(op, f"cannot execute '{name or op.name}': {why}")


def undefined(op: Operation, name: str, why: object) -> ExecutionError:
    """Op `name` at `op` has no defined result (MLIR's undefined behaviour),
    e.g. `why` = 'divides by zero'."""
    return fault(op, f"'{name}' {why}")


def nonpositive_step(op: Operation, step: int) -> ExecutionError:
    """An `scf.for` ran with a step that is not positive (MLIR requires > 0)."""
    return fault(op, f"'scf.for' step must be positive, got {step}")


__all__ = ["ExecutionError", "fault", "nonpositive_step", "undefined", "unsupported"]
