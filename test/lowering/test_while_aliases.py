"""A while loop whose exit reads memory through a reduction loop, where the loop
writes that memory under another name (a memref it carries, a second
`memref.get_global` of one global): `tapeflow-while-to-for` must not take its
exit from the memory as it was before the loop ran. Each case is run before and after the
rewrite by the reference executor; the two must agree."""

import numpy as np
import pytest
from xdsl.dialects import builtin

from lowering.tapeflow_while_to_for import while_to_for
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

HEAD = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c20 = arith.constant 20 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %ten = arith.constant 10.0 : f64
"""


def loop(read: str, write: str, carried: bool) -> str:
    """The while loop over `write` whose exit sums `read`."""
    # exit: k < 20 && sum_j read[j] + x < 10; body: write[0] += 1, x += 1
    if carried:
        args, types, sig = (
            f"%k = %c0, %buf = {write}, %x = %zero",
            "index, memref<3xf64>, f64",
            "(index, memref<3xf64>, f64)",
        )
        fwd, bb, w, yl = (
            "%k, %buf, %x",
            "^bb0(%k2: index, %buf2: memref<3xf64>, %x2: f64):",
            "%buf2",
            "%k3, %buf2, %x3",
        )
    else:
        args, types, sig = "%k = %c0, %x = %zero", "index, f64", "(index, f64)"
        fwd, bb, w, yl = "%k, %x", "^bb0(%k2: index, %x2: f64):", write, "%k3, %x3"
    n = 3 if carried else 2
    xr = "%r#2" if carried else "%r#1"
    return f"""
  %r:{n} = scf.while ({args}) : {sig} -> {sig} {{
    %s = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {{
      %v = memref.load {read}[%j] : memref<3xf64>
      %t = arith.addf %acc, %v : f64
      scf.yield %t : f64
    }}
    %lim = arith.cmpi slt, %k, %c20 : index
    %sum = arith.addf %s, %x : f64
    %go = arith.cmpf olt, %sum, %ten : f64
    %c = arith.andi %lim, %go : i1
    scf.condition(%c) {fwd} : {types}
  }} do {{
  {bb}
    %old = memref.load {w}[%c0] : memref<3xf64>
    %new = arith.addf %old, %one : f64
    memref.store %new, {w}[%c0] : memref<3xf64>
    %k3 = arith.addi %k2, %c1 : index
    %x3 = arith.addf %x2, %one : f64
    scf.yield {yl} : {types}
  }}
  memref.store {xr}, %out[%c0] : memref<1xf64>
  return
}}
"""


CASES = {
    # the loop writes %a through a memref it carries (%buf = %a)
    "carried_memref": "func.func @f(%a: memref<3xf64>, %out: memref<1xf64>) {"
    + HEAD
    + loop("%a", "%a", carried=True),
    # two get_global of one global: the loop writes through one, the exit reads the other
    "two_get_globals": 'memref.global "private" @G : memref<3xf64> = dense<0.0>\n'
    "func.func @f(%a: memref<3xf64>, %out: memref<1xf64>) {"
    + HEAD
    + "  %g1 = memref.get_global @G : memref<3xf64>\n  %g2 = memref.get_global @G : memref<3xf64>\n"
    + loop("%g2", "%g1", carried=False),
    # the same buffer by one name is refused too
    "same_buffer": "func.func @f(%a: memref<3xf64>, %out: memref<1xf64>) {"
    + HEAD
    + loop("%a", "%a", carried=False),
    # the exit reads a buffer the loop does not write: rewritten, same result
    "distinct_buffers": "func.func @f(%a: memref<3xf64>, %out: memref<1xf64>) {"
    + HEAD
    + "  %w = memref.alloc() : memref<3xf64>\n"
    + loop("%a", "%w", carried=False),
}


def parse(text: str) -> builtin.ModuleOp:
    return LocatingParser(make_context(), text, "alias.mlir").parse_module()


@pytest.mark.parametrize("name", sorted(CASES))
def test_rewrite_keeps_the_trip_count(name: str) -> None:
    args = {"arg0": np.zeros(3), "arg1": np.zeros(1)}
    want = run_function(parse(CASES[name]), "f", {k: v.copy() for k, v in args.items()})
    module = parse(CASES[name])
    while_to_for(module)
    module.verify()
    got = run_function(module, "f", {k: v.copy() for k, v in args.items()})
    for k in want:
        assert np.array_equal(want[k], got[k]), (name, k, want[k], got[k])
