"""Ops a pass creates keep the source location of the op they replace, so that
diagnostics on lowered IR still point into the user's file."""

from __future__ import annotations

from typing import TypeVar

from xdsl.ir import Operation

OpT = TypeVar("OpT", bound=Operation)


def located(new: OpT, old: Operation) -> OpT:
    """`new`, placed where the op it replaces was written."""
    new.location = old.location
    return new
