"""`math` ops: every one the semantics table knows, as `arith`'s scalar ops."""

from __future__ import annotations

from xdsl.dialects import math

from sim.impls.arith import build_scalar
from sim.impls.registry import impl
from tapeflow_dialects.semantics import OPS

impl(*(op for op in math.Math.operations if op.name in OPS))(build_scalar)
