"""
`lowering.ir.effects.is_effect_free` answers as MLIR's op definitions do
(`mlir/include/mlir/Dialect/Arith/IR/ArithOps.td`, `MemRefOps.td`): the sign
extension is `Pure` and the unsigned remainder `NoMemoryEffect` there, though
xDSL 0.74 declares both without an effect trait; a store writes memory.
"""

from __future__ import annotations

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, MemRefType, f64, i32, i64
from xdsl.traits import is_side_effect_free
from xdsl.utils.test_value import create_ssa_value

from lowering.ir.effects import is_effect_free


def test_the_ops_xdsl_declares_without_effects_are_free_of_them() -> None:
    a, b = create_ssa_value(IndexType()), create_ssa_value(IndexType())
    rem = arith.RemUIOp(a, b)
    ext = arith.ExtSIOp(create_ssa_value(i32), i64)
    for op in (rem, ext):
        assert is_effect_free(op), op.name


def test_other_ops_answer_as_xdsl_does() -> None:
    a, b = create_ssa_value(IndexType()), create_ssa_value(IndexType())
    buffer = create_ssa_value(MemRefType(f64, [4]))
    store = memref.StoreOp.get(create_ssa_value(f64), buffer, [a])
    add, rem = arith.AddiOp(a, b), arith.RemSIOp(a, b)
    assert not is_effect_free(store)
    for op in (store, add, rem):
        assert is_effect_free(op) == is_side_effect_free(op), op.name
