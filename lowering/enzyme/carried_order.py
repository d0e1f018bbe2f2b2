"""
Loop-carried values ordered so that Enzyme-MLIR pairs each with its own adjoint.

Enzyme-MLIR 0.0.16 (enzyme-ad) reverses an `scf.for` into a loop that carries one
adjoint per carried value that is active (its initial value or its result carries a
derivative), in order. After that reverse loop it adds result `k` to the adjoint of
the `k`-th initial value *that carries a derivative itself*, counting only those:
where a carried value initialised by a constant (`sum = 0`) but active in the loop
comes before one initialised by an active value (`x = x0`), `x0` receives the
adjoint of `sum`'s initial value (docs/enzyme-bugs.md has the reproducer). The
pairing is right exactly where the active positions with an active initial value
come before those with an inactive one, so each loop (`scf.for`, and `affine.for`,
which `lower-affine` turns into one) reaches Enzyme with the carried values whose
initial value carries no derivative moved after the others, in their order. The
loop computes the same values; only the order of its iteration arguments and
results changes, in the module handed to Enzyme and in the primal it returns.

Which initial values carry no derivative is decided by `InactiveValues`, the
analysis of `lowering/enzyme/inactive_stores.py` (a value counts as active unless
shown otherwise).
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import affine, builtin, func, scf
from xdsl.dialects.builtin import AnyFloat

from lowering.enzyme.inactive_stores import InactiveValues
from lowering.ir.walk import walk_ops
from tapeflow_dialects.enzyme import Activity

Loop = scf.ForOp | affine.ForOp


def order_carried_values(
    module: builtin.ModuleOp, activities: dict[str, Iterable[Activity] | None]
) -> int:
    """In each function of `activities` (as `route_inactive_stores` takes them),
    move each loop's carried floats whose initial value is inactive after the
    others. Returns the number of loops reordered."""
    functions = {f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp)}
    reordered = 0
    for name, activity in activities.items():
        function = functions.get(name)
        if function is None or not function.body.blocks:
            continue
        analysis = InactiveValues(function, activity)
        loops = [op for op in walk_ops(function) if isinstance(op, Loop)]
        for loop in reversed(loops):  # inner loops first: an outer one moves their region
            order = _order(loop, analysis)
            if order is not None:
                _permute(loop, order)
                reordered += 1
    return reordered


def _order(loop: Loop, analysis: InactiveValues) -> list[int] | None:
    """The positions in their new order (stable: active initial values first), or
    None where the order is already right."""
    inits = loop.iter_args if isinstance(loop, scf.ForOp) else loop.inits
    late = [isinstance(init.type, AnyFloat) and analysis.value_inactive(init) for init in inits]
    order = [k for k, moved in enumerate(late) if not moved] + [
        k for k, moved in enumerate(late) if moved
    ]
    return None if order == sorted(order) else order


def _permute(loop: Loop, order: list[int]) -> None:
    """Rebuild `loop` with its carried values in `order` (old positions)."""
    body = loop.body.block
    old_args = list(body.args[1:])
    for k in order:
        new = body.insert_arg(old_args[k].type, len(body.args))
        old_args[k].replace_all_uses_with(new)
    for arg in old_args:
        body.erase_arg(arg)
    terminator = body.last_op
    assert terminator is not None
    carried = list(terminator.operands)
    terminator.operands = [carried[k] for k in order]
    count = len(loop.results)
    bounds = list(loop.operands[: len(loop.operands) - count])
    inits = list(loop.operands[len(loop.operands) - count :])
    rebuilt = type(loop).create(
        operands=bounds + [inits[k] for k in order],
        result_types=[loop.results[k].type for k in order],
        properties=dict(loop.properties),
        attributes=dict(loop.attributes),
        regions=[loop.detach_region(loop.body)],
    )
    rebuilt.location = loop.location
    block = loop.parent_block()
    assert block is not None
    block.insert_op_before(rebuilt, loop)
    for new_index, k in enumerate(order):
        loop.results[k].replace_all_uses_with(rebuilt.results[new_index])
    loop.detach()
    loop.erase()
