"""
Memory dependences decided from the indices (`lowering.index_offsets`), and the
scheduler ordering only the accesses that may meet: hand-made cases.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from xdsl.dialects import arith, func, memref, scf
from xdsl.ir import Operation

from lowering.ir.index_offsets import LinearForms, may_meet
from lowering.scheduling.scheduler import Scheduler
from tapeflow_dialects import cgra
from tapeflow_tools.context import make_context
from tapeflow_tools.frontend import parse_module_text
from targets.hardware import MappingConfig, configure

BODY = """
func.func @f(%a: memref<64xf64>, %x: f64, %y: f64, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %ip = arith.addi %i, %c1 : index
    %pi = arith.addi %c1, %i : index
    %i2 = arith.muli %i, %c2 : index
    %i2p = arith.addi %i2, %c2 : index
    %im = arith.subi %ip, %c1 : index
    ACCESSES
    scf.yield
  }
  func.return
}
"""


def _stores(*indices: str) -> tuple[list[Operation], list[memref.StoreOp]]:
    """The loop body's ops (constants hoisted) with one store of %x per index."""
    lines = "\n    ".join(f"memref.store %x, %a[{i}] : memref<64xf64>" for i in indices)
    module = parse_module_text(make_context(), BODY.replace("ACCESSES", lines), "body.mlir")
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    ops = [o for o in loop.body.block.ops if not isinstance(o, arith.ConstantOp | scf.YieldOp)]
    return ops, [o for o in ops if isinstance(o, memref.StoreOp)]


@pytest.mark.parametrize(
    ("first", "second", "meet"),
    [
        ("%i", "%ip", False),  # A[i], A[i+1]
        ("%i", "%i", True),  # the same element
        ("%ip", "%pi", True),  # i+1 and 1+i: the same element
        ("%i", "%im", True),  # (i+1)-1 is i
        ("%i2", "%i2p", False),  # 2i and 2i+2
        ("%c3", "%c5", False),  # two constants
        ("%i", "%j", True),  # unrelated values may be equal
        ("%i", "%c3", True),  # i may be 3
    ],
)
def test_accesses_whose_indices_differ_by_a_constant_are_independent(
    first: str, second: str, meet: bool
) -> None:
    _, (a, b) = _stores(first, second)
    forms = LinearForms()
    keys = [forms.key(list(s.indices), None) for s in (a, b)]
    assert may_meet(*keys) is meet


def test_different_slots_never_meet() -> None:
    forms = LinearForms()
    _, (a, b) = _stores("%i", "%j")
    assert may_meet(forms.key(list(a.indices), 0), forms.key(list(b.indices), 1)) is False
    assert may_meet(forms.key(list(a.indices), 1), forms.key(list(b.indices), 1)) is True


@pytest.mark.parametrize("disambiguate", [True, False])
def test_the_scheduler_orders_only_stores_that_may_meet(disambiguate: bool) -> None:
    """A store to A[i] after one to A[i+1] need not wait for it: its index is
    ready at once, so it issues in cycle 0, before the first store (whose index
    is computed first). A third, to A[i+1] again, issues after the first.
    Without disambiguation every store waits for the one before it."""
    hardware = configure("Enzyme32k")
    hardware = replace(hardware, mapping=MappingConfig(disambiguate=disambiguate))
    ops, (s0, s1, s2) = _stores("%ip", "%i", "%ip")
    place = Scheduler(hardware).schedule(ops, []).place
    cycle = {s: place[s][2] for s in (s0, s1, s2)}
    assert cycle[s2] >= cycle[s0] + 1
    if disambiguate:
        assert cycle[s1] == 0 < cycle[s0]
    else:
        assert cycle[s1] >= cycle[s0] + 1
        assert cycle[s2] >= cycle[s1] + 1


NARROW = """
func.func @f(%k: i32, %n: index) -> (index, index, index, index, index) {
  %c4 = arith.constant 4 : i32
  %m1 = arith.constant -1 : i32
  %c4i = arith.constant 4 : index
  %k4 = arith.addi %k, %c4 : i32
  %wide = arith.index_cast %k : i32 to index
  %wide4 = arith.index_cast %k4 : i32 to index
  %n4 = arith.addi %n, %c4i : index
  %cut = arith.index_cast %n4 : index to i32
  %back = arith.index_cast %cut : i32 to index
  %minus = arith.index_cast %m1 : i32 to index
  func.return %wide, %wide4, %n4, %back, %minus : index, index, index, index, index
}
"""


def test_arithmetic_on_narrower_integers_is_not_looked_into() -> None:
    """`k + 4 : i32` wraps below `k` for `k` above 2**31 - 5, so its value is not
    `k`'s plus 4 after a widening cast: it is a value of its own. A cast that
    truncates (`index` to `i32`) is one too; a widening cast of an argument keeps
    its value, and an `i32` constant is read signed."""
    module = parse_module_text(make_context(), NARROW, "narrow.mlir")
    ret = next(op for op in module.walk() if op.name == "func.return")
    wide, wide4, n4, back, minus = ret.operands
    cut, n = back.owner.operands[0], n4.owner.operands[0]
    forms = LinearForms()
    k, k4 = wide.owner.operands[0], wide4.owner.operands[0]
    assert forms.form(wide) == (((k, 1),), 0)  # the i32 argument's value
    assert forms.form(wide4) == (((k4, 1),), 0)  # a value of its own: not k + 4
    assert forms.form(n4) == (((n, 1),), 4)  # index arithmetic: n + 4
    assert forms.form(back) == (((cut, 1),), 0)  # the truncation is opaque
    assert forms.form(minus) == ((), -1)


ACROSS_KERNELS = """
func.func @f(%a: memref<8x66xf64>, %x: f64, %n: index, %t: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c65 = arith.constant 65 : index
  %row, %next = cgra.kernel 3 rows 4 cols 4 ii 2 -> index, index {
    %m = cgra.op "arith.subi"(%n, %t) at 0, 0 cycle 0 : (index, index) -> index
    %p = cgra.op "arith.addi"(%m, %c1) at 0, 0 cycle 1 : (index, index) -> index
    cgra.yield %m, %p : index, index
  }
  memref.store %x, %a[%next, %c65] : memref<8x66xf64>
  %v = memref.load %a[%row, %c65] : memref<8x66xf64>
  memref.store %v, %a[%next, %c0] : memref<8x66xf64>
  memref.store %v, %a[%row, %c0] : memref<8x66xf64>
  func.return
}
"""


def _across_kernels() -> tuple[func.FuncOp, cgra.KernelOp, list[Operation]]:
    module = parse_module_text(make_context(), ACROSS_KERNELS, "across.mlir")
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    kernel = next(op for op in module.walk() if isinstance(op, cgra.KernelOp))
    after = list(function.body.block.ops)
    ops = after[after.index(kernel) + 1 : -1]
    return function, kernel, ops


def test_indices_a_kernel_run_once_yields_keep_their_forms() -> None:
    """Rows `n - t` and `n - t + 1`, computed in a kernel of their own (as a
    reversed index before a tile loop is) and used by the accesses of another
    kernel: their forms are read through the kernel's yield and its placed
    `subi` and `addi`, so the rows differ by 1 and `a[n-t+1][65]`, `a[n-t][65]`,
    `a[n-t+1][0]` and `a[n-t][0]` are four elements. (Before, each kernel
    result was a value of its own, and the two rows might be equal.)"""
    function, kernel, ops = _across_kernels()
    n, t = function.body.block.args[2:]
    row, following = kernel.results
    forms = LinearForms()
    pair = sorted(((n, 1), (t, -1)), key=lambda term: id(term[0]))
    assert forms.form(row) == (tuple(pair), 0)
    assert forms.form(following) == (tuple(pair), 1)
    accesses = [op for op in ops if isinstance(op, memref.StoreOp | memref.LoadOp)]
    keys = [forms.key(list(op.indices), None) for op in accesses]
    assert not any(may_meet(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :])
    assert may_meet(keys[0], forms.key(list(accesses[0].indices), None))


def test_the_scheduler_reads_indices_through_a_kernel() -> None:
    """The load of `a[n-t][65]` need not wait for the store to `a[n-t+1][65]`
    before it: both issue in cycle 0, on the cache's two ports."""
    hardware = configure("Enzyme32k")
    _, _, ops = _across_kernels()
    store, load = ops[0], ops[1]
    place = Scheduler(hardware).schedule(ops, []).place
    assert place[store][2] == 0
    assert place[load][2] == 0
