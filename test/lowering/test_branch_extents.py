"""
`lowering.enzyme.nested_caches._index_range`: the range of an index over every
iteration of the loops around it, which decides whether a load under a branch
reads in bounds where the branch is not taken (hand-computed ranges).
"""

from __future__ import annotations

from xdsl.dialects import arith, func

from lowering.enzyme.nested_caches import _index_range, _safe_divisor
from lowering.ir.walk import walk_ops
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser

TEXT = """
func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  %cm1 = arith.constant -1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %k = %c1 to %c10 step %c3 {
      %next = arith.addi %i, %c1 {tag = "next"} : index
      %twice = arith.muli %c2, %i : index
      %odd = arith.subi %twice, %c1 {tag = "odd"} : index
      %back = arith.subi %i, %c2 : index
      %lo = arith.maxsi %back, %c0 {tag = "lo"} : index
      %ahead = arith.addi %i, %c3 : index
      %hi = arith.minsi %ahead, %c5 {tag = "hi"} : index
      %ik = arith.addi %i, %k {tag = "ik"} : index
      %free = arith.addi %i, %n {tag = "free"} : index
      %q = arith.divui %n, %c3 {tag = "q"} : index
      %r = arith.divui %n, %cm1 {tag = "r"} : index
      %z = arith.divui %n, %c0 {tag = "z"} : index
    }
  }
  func.return
}
"""


def _tagged() -> dict[str, arith.ArithOp]:
    module = LocatingParser(make_context(), TEXT, "ranges.mlir").parse_module()
    (function,) = (op for op in module.ops if isinstance(op, func.FuncOp))
    return {
        op.attributes["tag"].data: op  # type: ignore[union-attr]
        for op in walk_ops(function)
        if "tag" in op.attributes
    }


def test_ranges_of_indices_over_the_loops() -> None:
    ops = _tagged()
    assert _index_range(ops["next"].results[0]) == (1, 4)  # i in 0..3
    assert _index_range(ops["odd"].results[0]) == (-1, 5)
    assert _index_range(ops["lo"].results[0]) == (0, 1)
    assert _index_range(ops["hi"].results[0]) == (3, 5)
    assert _index_range(ops["ik"].results[0]) == (1, 10)  # k in {1, 4, 7}
    assert _index_range(ops["free"].results[0]) is None  # an argument: unknown


def test_only_constant_divisors_other_than_zero_and_minus_one_are_safe() -> None:
    ops = _tagged()
    assert _safe_divisor(ops["q"].operands[1])
    assert not _safe_divisor(ops["r"].operands[1])
    assert not _safe_divisor(ops["z"].operands[1])
