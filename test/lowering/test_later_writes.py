"""
`lowering.ir.later_writes`: whether a store that runs after a load can write the
element it read. Each case is worked out by hand from the loop bounds.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import func, memref
from xdsl.parser import Parser

from lowering.ir.later_writes import LaterWrites
from tapeflow_tools.context import make_context


def _answer(body: str, args: str = "%x: memref<8x8xf64>, %n: index") -> bool:
    text = f"""
    func.func @f({args}) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %v = arith.constant 1.0 : f64
      {body}
      return
    }}
    """
    module = Parser(make_context(), text).parse_module()
    function = next(op for op in module.ops if isinstance(op, func.FuncOp))
    load = next(op for op in function.walk() if isinstance(op, memref.LoadOp))
    store = next(op for op in function.walk() if isinstance(op, memref.StoreOp))
    return LaterWrites(function).may_write_after(load, store)


CASES = [
    # The same iteration writes row i + 1, later ones rows i + 2 .. 4: never i.
    (
        "later rows only",
        """scf.for %i = %c0 to %c4 step %c1 {
             %a = memref.load %x[%i, %c0] : memref<8x8xf64>
             %i1 = arith.addi %i, %c1 : index
             memref.store %a, %x[%i1, %c0] : memref<8x8xf64>
           }""",
        False,
    ),
    # The store comes first in the body: iteration i + 1 writes row i + 1 ... but
    # the load read row i + 1 in iteration i: the next iteration overwrites it.
    (
        "the next iteration's earlier store",
        """scf.for %i = %c0 to %c4 step %c1 {
             memref.store %v, %x[%i, %c0] : memref<8x8xf64>
             %i1 = arith.addi %i, %c1 : index
             %a = memref.load %x[%i1, %c0] : memref<8x8xf64>
           }""",
        True,
    ),
    # Rows 2i and 2i + 1 (i < 4): the later iterations' odd rows never meet 2i.
    (
        "parity by interval: rows 2i + 2k + 1",
        """scf.for %i = %c0 to %c4 step %c1 {
             %t = arith.muli %i, %c2 : index
             %a = memref.load %x[%t, %c0] : memref<8x8xf64>
             %t1 = arith.addi %t, %c1 : index
             memref.store %a, %x[%t1, %c0] : memref<8x8xf64>
           }""",
        False,
    ),
    # An inner loop: the same i, a later j writes column j' + 1 >= j + 2; a
    # later i writes another row.
    (
        "nested, later column and later row",
        """scf.for %i = %c0 to %c4 step %c1 {
             scf.for %j = %c0 to %c4 step %c1 {
               %a = memref.load %x[%i, %j] : memref<8x8xf64>
               %j1 = arith.addi %j, %c1 : index
               memref.store %a, %x[%i, %j1] : memref<8x8xf64>
             }
           }""",
        False,
    ),
    # Iteration (i, j + 1) writes column j of row i, which (i, j) read.
    (
        "nested, an earlier column of a later j",
        """scf.for %i = %c0 to %c4 step %c1 {
             scf.for %j = %c1 to %c4 step %c1 {
               %a = memref.load %x[%i, %j] : memref<8x8xf64>
               %j0 = arith.subi %j, %c1 : index
               memref.store %a, %x[%i, %j0] : memref<8x8xf64>
             }
           }""",
        True,
    ),
    (
        "nested, the next j's column",
        """scf.for %i = %c0 to %c4 step %c1 {
             scf.for %j = %c0 to %c4 step %c1 {
               %j1 = arith.addi %j, %c1 : index
               %a = memref.load %x[%i, %j1] : memref<8x8xf64>
               memref.store %a, %x[%i, %j] : memref<8x8xf64>
             }
           }""",
        True,
    ),
    # After the loop nest: row 4 against rows 0 .. 3.
    (
        "a later top-level store",
        """scf.for %i = %c0 to %c4 step %c1 {
             %a = memref.load %x[%i, %c0] : memref<8x8xf64>
           }
           memref.store %v, %x[%c4, %c0] : memref<8x8xf64>""",
        False,
    ),
    # Bounds not known: nothing is proved.
    (
        "a run-time bound",
        """scf.for %i = %c0 to %n step %c1 {
             %a = memref.load %x[%i, %c0] : memref<8x8xf64>
             %i1 = arith.addi %i, %c1 : index
             memref.store %a, %x[%i1, %c0] : memref<8x8xf64>
           }""",
        True,
    ),
    # An index the forms do not read (a load's value): nothing is proved.
    (
        "an index loaded from memory",
        """scf.for %i = %c0 to %c4 step %c1 {
             %a = memref.load %x[%i, %c0] : memref<8x8xf64>
             %k = arith.addi %n, %i : index
             memref.store %a, %x[%k, %c0] : memref<8x8xf64>
           }""",
        True,
    ),
    # An scf.if around the store: not followed.
    (
        "a store under a branch",
        """%t = arith.cmpi ult, %n, %c4 : index
           scf.for %i = %c0 to %c4 step %c1 {
             %a = memref.load %x[%i, %c0] : memref<8x8xf64>
             scf.if %t {
               %i1 = arith.addi %i, %c1 : index
               memref.store %a, %x[%i1, %c0] : memref<8x8xf64>
             }
           }""",
        True,
    ),
]


@pytest.mark.parametrize(("name", "body", "may"), CASES, ids=[c[0] for c in CASES])
def test_may_write_after(name: str, body: str, may: bool) -> None:
    assert _answer(body) is may
