"""Ops a pass creates keep the source location of the op they replace, so that
diagnostics on lowered IR still point into the user's file."""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation

OpT = TypeVar("OpT", bound=Operation)


def located(new: OpT, old: Operation) -> OpT:
    """`new`, placed where the op it replaces was written."""
    new.location = old.location
    return new


def where(op: Operation) -> str:
    """`file:line:col: ` of `op` for a diagnostic, or nothing where it has no file
    location."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}: "
    return ""
