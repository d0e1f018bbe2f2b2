"""
`lowering.ir.verification.verify`, xDSL's `Operation.verify` with each op
signature's generic IRDL check done once: on lowered modules it passes where
`module.verify()` does, checking most placed ops by signature; on every broken
op it raises what `module.verify()` raises, whether the op is the first of its
signature or a later one (a property of the wrong type, a negative cycle, a PE
off the grid, an unknown property, an operand of another type); and an op of a
class whose definition has a constraint variable or a checking trait is never
checked by signature.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, StringAttr, UnregisteredOp, i32
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

from lowering.ir import verification
from sim.models import MODELS
from sim.simulator import prepare
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import cgra
from tapeflow_tools.context import make_context
from targets.hardware import configure


def _lowered(kernel: str, variant: str, unroll: int = 1, model: str = "cgra"):
    ctx = make_context()
    module = parse_kernel(ctx, kernel, "small")
    preset = "Tflow32k" if variant == "tapeflow" else "Enzyme32k"
    prepare(ctx, module, variant, MODELS[model].hardware(configure(preset)), unroll, model=model)
    return module


@pytest.fixture(scope="module")
def lowered():
    """logsum unrolled 4 times for Tflow32k (136 ops): each of its kernels repeats
    the signatures of its compute ops, loads and stores, so every op class below
    has a later op that `verify` checks by signature. A broken module's error
    prints the whole module, twice a test (xDSL's and ours): pathfinder unrolled 8
    times (1,941 ops) took 0.5-2.5 s of CPU a test to say the same."""
    return _lowered("logsum", "tapeflow", 4)


def _later_of_signature(module, cls: type[Operation]) -> Operation:
    """An op of `cls` after another of its signature in its kernel, not the
    kernel's last: `verify` checks it by its signature."""
    for kernel in (op for op in module.walk() if isinstance(op, cgra.KernelOp)):
        seen = set()
        for op in list(kernel.body.block.ops)[:-1]:
            if type(op) is not cls:
                continue
            signature = (
                tuple(o.type for o in op.operands),
                tuple(r.type for r in op.results),
                tuple(op.properties),
            )
            if signature in seen:
                return op
            seen.add(signature)
    raise AssertionError(f"no two {cls.name} of one signature in a kernel")


@pytest.mark.parametrize(
    ("kernel", "variant", "unroll", "model", "unrolled"),
    [
        ("pathfinder", "tapeflow", 8, "cgra", True),
        ("logsum", "tapeflow", 4, "cgra", True),
        ("gravity", "enzyme", 1, "cgra", False),
        ("lenet", "tapeflow", 1, "salam", False),
    ],
)
def test_lowered_modules_pass_mostly_by_signature(kernel, variant, unroll, model, unrolled):
    module = _lowered(kernel, variant, unroll, model)
    module.verify()
    checked = verification._Checked()
    verification._verify_op(module, checked)
    placed = sum(isinstance(op, cgra.PlacedOp) for op in module.walk())
    assert placed > 0
    # Fewer checks in full than placed ops (far fewer in an unrolled body): the
    # rest went by signature.
    assert len(checked.signatures) < (placed / 2 if unrolled else placed)
    assert checked.plans[cgra.ComputeOp] is not None


def _same_error(module) -> None:
    with pytest.raises(VerifyException) as xdsl:
        module.verify()
    with pytest.raises(VerifyException) as ours:
        verification.verify(module)
    assert str(ours.value) == str(xdsl.value)


@pytest.mark.parametrize("cls", [cgra.ComputeOp, cgra.LoadOp, cgra.StoreOp])
@pytest.mark.parametrize(
    "broken",
    [
        {"cycle": IntegerAttr(-1, 64)},  # the class's own check
        {"cycle": IntegerAttr(3, i32)},  # the property's constraint
        {"row": IntegerAttr(99, 64)},  # off the kernel's grid
        {"extra": StringAttr("x")},  # an unknown property: another signature
        {"row": StringAttr("x")},
    ],
    ids=["negative-cycle", "i32-cycle", "off-grid", "unknown-property", "string-row"],
)
def test_a_broken_later_op_raises_as_xdsl_does(lowered, cls, broken):
    module = lowered.clone()
    op = _later_of_signature(module, cls)
    op.properties.update(broken)
    _same_error(module)


def test_a_broken_operand_type_raises_as_xdsl_does(lowered):
    module = lowered.clone()
    op = _later_of_signature(module, cgra.LoadOp)
    # An index where the memory goes: another signature, checked in full.
    index = next(o for o in op.operands[1:])
    op.operands = [index, *op.operands[1:]]
    _same_error(module)


def test_the_first_of_a_signature_broken_raises(lowered):
    module = lowered.clone()
    op = next(o for o in module.walk() if isinstance(o, cgra.ComputeOp))
    op.properties["cycle"] = IntegerAttr(-5, 64)
    _same_error(module)


def test_an_op_and_one_nested_in_it_broken_raise_as_xdsl_does():
    # xDSL checks the loop's place (the last op of the function's body, and no
    # terminator) before the op nested in it (a property of the wrong type).
    ctx = make_context()
    module = Parser(
        ctx,
        """
        func.func @f(%a: i32, %n: index) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          scf.for %i = %c0 to %n step %c1 {
            %x = arith.addi %a, %a : i32
            scf.yield
          }
          func.return
        }
        """,
    ).parse_module()
    returned = next(o for o in module.walk() if isinstance(o, func.ReturnOp))
    returned.detach()
    returned.erase()
    added = next(o for o in module.walk() if isinstance(o, arith.AddiOp))
    added.properties["overflowFlags"] = StringAttr("x")
    with pytest.raises(VerifyException, match="scf.for terminates block"):
        module.verify()
    _same_error(module)


def test_identical_values_are_one_key_and_a_changed_one_misses(lowered):
    checked = verification._Checked()
    verification._verify_op(lowered, checked)
    op = _later_of_signature(lowered, cgra.ComputeOp)
    cycle = op.properties["cycle"]
    assert (cgra.ComputeOp, "property", "cycle", id(cycle)) in checked.values
    fresh = IntegerAttr(cycle.value.data, 64)  # equal, another object: checked anew
    assert (cgra.ComputeOp, "property", "cycle", id(fresh)) not in checked.values
    assert verification._by_signature(op, checked) is True
    op.properties["cycle"] = fresh
    assert verification._by_signature(op, checked) is True
    assert (cgra.ComputeOp, "property", "cycle", id(fresh)) in checked.values
    op.properties["cycle"] = IntegerAttr(-1, 64)
    assert verification._by_signature(op, checked) is None  # left to xDSL, which raises
    op.properties["cycle"] = cycle


def test_classes_that_cannot_go_by_signature():
    # A trait with a check of its own (the operands' and result's types equal).
    assert verification._plan(arith.AddfOp) is None
    # Regions: verified by xDSL after them.
    assert verification._plan(cgra.KernelOp) is None
    # Not an IRDL definition (an op the context does not know).
    assert verification._plan(UnregisteredOp) is None
    assert verification._plan(cgra.ComputeOp) is not None


_TWO_FUNCTIONS = """
func.func @f(%a: i32, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (i32) {
    %x = arith.addi %acc, %a : i32
    scf.yield %x : i32
  }
  func.return %s : i32
}
func.func @g(%b: i32) -> i32 {
  %y = arith.muli %b, %b : i32
  func.return %y : i32
}
"""


def _two_functions():
    return Parser(make_context(), _TWO_FUNCTIONS).parse_module()


def test_isolated_functions_pass_as_xdsl_does(lowered):
    # The functions of a lowered module, and the module: no operand from outside.
    module = lowered.clone()
    checked = verification._Checked()
    verification._verify_op(module, checked)
    assert checked.isolated[func.FuncOp] is not None
    for function in (op for op in module.walk() if isinstance(op, func.FuncOp)):
        IsolatedFromAbove().verify(function)
        verification._isolated(function)
    verification.verify(_two_functions())


@pytest.mark.parametrize("where", ["loop-body", "function-body"])
def test_a_value_from_another_function_raises_as_xdsl_does(where):
    module = _two_functions()
    g_arg = next(o for o in module.walk() if isinstance(o, func.FuncOp) and o.sym_name.data == "g")
    outside = g_arg.body.block.args[0]
    cls = arith.AddiOp if where == "loop-body" else arith.ConstantOp
    if cls is arith.AddiOp:
        op = next(o for o in module.walk() if isinstance(o, cls))
        op.operands = [op.operands[0], outside]
    else:  # the loop's upper bound: an operand of an op in the function's body
        loop = next(o for o in module.walk() if o.name == "scf.for")
        muli = next(o for o in module.walk() if isinstance(o, arith.MuliOp))
        clone = muli.clone()
        loop.parent.insert_op_before(clone, loop)
        clone.operands = [outside, outside]
    with pytest.raises(VerifyException, match="IsolatedFromAbove"):
        IsolatedFromAbove().verify(module.body.block.first_op)
    with pytest.raises(VerifyException, match="IsolatedFromAbove"):
        verification._isolated(module.body.block.first_op)
    _same_error(module)


def test_a_value_of_a_detached_op_raises_as_xdsl_does():
    module = _two_functions()
    muli = next(o for o in module.walk() if isinstance(o, arith.MuliOp))
    loose = muli.clone()  # in no block: its owner's parents never reach the function
    added = next(o for o in module.walk() if isinstance(o, arith.AddiOp))
    added.operands = [added.operands[0], loose.results[0]]
    with pytest.raises(VerifyException, match="IsolatedFromAbove"):
        verification._isolated(module.body.block.first_op)
    _same_error(module)


def test_a_broken_function_raises_as_xdsl_does():
    module = _two_functions()
    function = module.body.block.first_op
    function.properties["sym_name"] = IntegerAttr(3, 64)
    _same_error(module)
    module = _two_functions()
    module.body.block.first_op.properties["extra"] = StringAttr("x")
    _same_error(module)


def test_random_operands_from_elsewhere_are_found_as_xdsl_finds_them(lowered):
    # Each op of a lowered function in turn given an operand from the other
    # functions or from nowhere: rejected exactly where xDSL's walk rejects it.
    import random

    rng = random.Random(7)
    module = lowered.clone()
    functions = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    function = max(functions, key=lambda f: sum(1 for _ in f.walk()))
    ops = [o for o in function.walk() if o is not function and o.operands]
    others = [v for o in _two_functions().walk() for v in o.results]
    own = [v for o in function.walk() if o is not function for v in o.results]
    outcomes = set()
    for op in rng.sample(ops, min(40, len(ops))):
        saved = list(op.operands)
        position = rng.randrange(len(saved))
        replacement = rng.choice(others if rng.random() < 0.5 else own)
        op.operands = [*saved[:position], replacement, *saved[position + 1 :]]
        try:
            IsolatedFromAbove().verify(function)
            expected = None
        except VerifyException as err:
            expected = str(err)
        try:
            verification._isolated(function)
            got = None
        except VerifyException as err:
            got = str(err)
        assert (got is None) == (expected is None)
        outcomes.add(got is None)
        op.operands = saved
    assert outcomes == {True, False}  # both kinds of case met
