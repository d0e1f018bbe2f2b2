"""
Stores of inactive values into active buffers, made correct under Enzyme-MLIR.

The adjoint of `store c -> x[i]`, where `c` carries no derivative, is `dx[i] = 0`;
Enzyme-MLIR 0.0.16 emits none, so the shadow keeps what was accumulated into it
(docs/enzyme-bugs.md has the reproducer). Before Enzyme, each such store is routed
through a rank-0 scratch buffer (`store c -> t; v = load t; store v -> x[i]`), which
Enzyme treats as active and differentiates with exactly the missing adjoint, at
the right place at any depth; no value changes (`v` is `c`). After Enzyme,
`drop_store_routes` removes the route's leftovers from the gradient and
`undo_store_routes` from the primal functions. Which values are inactive is
decided conservatively (active unless shown otherwise). The argument in full:
docs/research/enzyme-output.md.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import affine, arith, builtin, func, memref, scf
from xdsl.dialects.builtin import AnyFloat, MemRefType, UnitAttr
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from lowering.ir.walk import walk_ops
from tapeflow_dialects.enzyme import Activity, AutoDiffOp, FillZeroOp, IgnoreDerivativesOp

STORE_ROUTE = "tapeflow.store_route"
"""Unit attribute on the scratch buffer `route_inactive_stores` creates, so that
`drop_store_routes` finds it (and its twin) in Enzyme's gradient."""

_VIEWS = (
    memref.SubviewOp,
    memref.CastOp,
    memref.ReinterpretCastOp,
    memref.CollapseShapeOp,
    memref.ExpandShapeOp,
)
_INACTIVE_ARGS = (Activity.CONST, Activity.CONSTNONEED)
_STORES = (memref.StoreOp, affine.StoreOp)
_LOADS = (memref.LoadOp, affine.LoadOp)


def _root(buffer: SSAValue) -> SSAValue:
    """The buffer a view is taken of (through subviews, casts, reshapes)."""
    while isinstance(buffer, OpResult) and isinstance(buffer.op, _VIEWS):
        buffer = buffer.op.operands[0]
    return buffer


class InactiveValues:
    """Which values and buffers of one function may carry a derivative."""

    def __init__(self, function: func.FuncOp, activity: Iterable[Activity] | None):
        args = function.body.block.args
        kinds = list(activity) if activity is not None else [Activity.DUP] * len(args)
        self.inactive_args = {a for a, k in zip(args, kinds, strict=False) if k in _INACTIVE_ARGS}
        self.active_locals: set[SSAValue] = set()
        stores = [op for op in walk_ops(function) if isinstance(op, _STORES)]
        changed = True
        while changed:  # a local buffer turns active when an active value is stored into it
            changed = False
            for store in stores:
                root = _root(store.memref)
                if (
                    _is_local(root)
                    and root not in self.active_locals
                    and not self.value_inactive(store.value)
                ):
                    self.active_locals.add(root)
                    changed = True

    def buffer_inactive(self, buffer: SSAValue) -> bool:
        root = _root(buffer)
        if root in self.inactive_args:
            return True
        return _is_local(root) and root not in self.active_locals

    def value_inactive(self, value: SSAValue, seen: set[SSAValue] | None = None) -> bool:
        """
        Whether `value` carries no derivative. Cycles through loop-carried values
        are assumed inactive until something active is found on them.
        """
        if not isinstance(value.type, AnyFloat):
            return True  # integers, indices and flags carry no derivative
        seen = set() if seen is None else seen
        if value in seen:
            return True
        seen.add(value)
        if isinstance(value, BlockArgument):
            if value in self.inactive_args:
                return True
            carried = _carried_in(value)
            return carried is not None and all(self.value_inactive(v, seen) for v in carried)
        op = value.op
        if isinstance(op, IgnoreDerivativesOp):
            return True  # Enzyme passes no derivative through it
        if isinstance(op, _LOADS):
            return self.buffer_inactive(op.memref)
        if isinstance(op, scf.IfOp | scf.ForOp):
            return all(self.value_inactive(v, seen) for v in _yielded(op, value.index))
        if op.regions or not op.name.startswith(("arith.", "math.")):
            return False  # calls, other ops with regions: active unless shown otherwise
        return all(self.value_inactive(o, seen) for o in op.operands)


def _carried_in(arg: BlockArgument) -> list[SSAValue] | None:
    """The values a block argument may take: an `enzyme_const` entry argument
    none; an scf.for's iteration argument its initial and yielded values. Any
    other argument is an unknown (the entry's active arguments among them)."""
    owner = arg.block.parent_op()
    if isinstance(owner, scf.ForOp) and arg.index > 0:
        return _yielded(owner, arg.index - 1)
    return None


def _yielded(op: scf.IfOp | scf.ForOp, k: int) -> list[SSAValue]:
    values: list[SSAValue] = []
    if isinstance(op, scf.ForOp):
        values.append(op.iter_args[k])
    for region in op.regions:
        for block in region.blocks:
            last = block.last_op
            if isinstance(last, scf.YieldOp):
                values.append(last.operands[k])
    return values


def _is_local(buffer: SSAValue) -> bool:
    return isinstance(buffer, OpResult) and isinstance(buffer.op, memref.AllocOp | memref.AllocaOp)


def primal_activities(
    module: builtin.ModuleOp, requests: Iterable[AutoDiffOp]
) -> dict[str, list[Activity] | None]:
    """
    The functions Enzyme differentiates for `requests` and their arguments'
    activities: an argument is inactive only where every request says so. The
    functions they call (Enzyme differentiates those too) get None.
    """
    activities: dict[str, list[Activity] | None] = {}
    for request in requests:
        name = request.fn.root_reference.data
        kinds = [a.data for a in request.activity]
        known = activities.get(name)
        activities[name] = (
            kinds
            if known is None
            else [k if k == j else Activity.DUP for k, j in zip(kinds, known, strict=False)]
        )
    functions = {f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp)}
    pending = list(activities)
    while pending:
        function = functions.get(pending.pop())
        for call in walk_ops(function) if function is not None else ():
            if isinstance(call, func.CallOp):
                callee = call.callee.root_reference.data
                if callee in functions and callee not in activities:
                    activities[callee] = None
                    pending.append(callee)
    return activities


def route_inactive_stores(
    module: builtin.ModuleOp, activities: dict[str, Iterable[Activity] | None]
) -> list[str]:
    """
    In each function of `activities` (a primal Enzyme differentiates, with the
    activities of its arguments; None where unknown, every buffer then counting
    as active), route every store of an inactive float value into an active
    buffer through a scratch buffer. Returns the functions changed.
    """
    changed = []
    functions = {f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp)}
    for name, activity in activities.items():
        function = functions.get(name)
        if function is None or not function.body.blocks:
            continue
        analysis = InactiveValues(function, activity)
        targets = [
            op
            for op in walk_ops(function)
            if isinstance(op, _STORES)
            and isinstance(op.value.type, AnyFloat)
            and not analysis.buffer_inactive(op.memref)
            and analysis.value_inactive(op.value)
        ]
        if targets:
            _route(function.body.block, targets)
            changed.append(name)
    return changed


def _route(entry: Block, stores: list[Operation]) -> None:
    """One scratch per element type, at the function's entry: Enzyme gives it one
    shadow there, outside every loop, and caches nothing for it."""
    scratch: dict[object, SSAValue] = {}
    for store in stores:
        kind = store.value.type
        if kind not in scratch:
            alloca = memref.AllocaOp.get(kind, shape=[])
            alloca.attributes[STORE_ROUTE] = UnitAttr()
            alloca.location = store.location
            if entry.first_op is None:
                entry.add_op(alloca)
            else:
                entry.insert_op_before(alloca, entry.first_op)
            scratch[kind] = alloca.memref
        into = memref.StoreOp.get(store.value, scratch[kind], [])
        back = memref.LoadOp.get(scratch[kind], [])
        for new in (into, back):
            new.location = store.location
        store.parent_block().insert_ops_before([into, back], store)
        store.operands[0] = back.res


def routed_stores(root: Operation) -> list[Operation]:
    """The stores under `root` that `route_inactive_stores` routed: each stores a
    value read back from a scratch buffer."""
    return [
        op
        for op in walk_ops(root)
        if isinstance(op, _STORES)
        and isinstance(op.value, OpResult)
        and isinstance(op.value.op, memref.LoadOp)
        and isinstance(source := op.value.op.memref, OpResult)
        and STORE_ROUTE in source.op.attributes
    ]


def undo_store_routes(function: func.FuncOp) -> None:
    """Each round trip `store c -> t; v = load t` of a scratch buffer of
    `route_inactive_stores` in `function` (a primal as Enzyme returns it, or the
    forward sweep of a gradient) becomes `c`, and the scratch goes."""
    for alloca in [op for op in walk_ops(function) if isinstance(op, memref.AllocaOp)]:
        if STORE_ROUTE in alloca.attributes:
            _forward_round_trips(alloca)


def drop_store_routes(gradient: func.FuncOp) -> None:
    """
    Remove from Enzyme's `gradient` what the scratch buffers of
    `route_inactive_stores` leave: each forward round trip (`undo_store_routes`)
    and the scratch's shadow, which only ever accumulates into itself.
    """
    undo_store_routes(gradient)
    for alloca in [op for op in walk_ops(gradient) if isinstance(op, memref.AllocaOp)]:
        _drop_write_only(alloca)


def _forward_round_trips(alloca: memref.AllocaOp) -> None:
    """Each load of the scratch right after a store into it reads the stored value."""
    for use in list(alloca.memref.uses):
        load = use.operation
        if not isinstance(load, memref.LoadOp):
            continue
        before = load.prev_op
        if isinstance(before, memref.StoreOp) and before.memref is alloca.memref:
            load.res.replace_all_uses_with(before.value)
            load.detach()
            load.erase()
    if all(isinstance(u.operation, memref.StoreOp) and u.index == 1 for u in alloca.memref.uses):
        for use in list(alloca.memref.uses):
            use.operation.detach()
            use.operation.erase()
        alloca.detach()
        alloca.erase()


def _drop_write_only(alloca: memref.AllocaOp) -> None:
    """
    Erase a rank-0 local buffer nothing reads except to accumulate into itself
    (`t += a`: load t, add, store t) -- the shadow of a route's scratch -- and
    the loads that only fed it.
    """
    buffer = alloca.memref
    if not isinstance(buffer.type, MemRefType) or buffer.type.get_shape():
        return
    doomed: list[Operation] = []
    fed: list[SSAValue] = []
    for use in buffer.uses:
        op = use.operation
        if isinstance(op, FillZeroOp) or (isinstance(op, memref.StoreOp) and use.index == 1):
            doomed.append(op)
            continue
        if not isinstance(op, memref.LoadOp) or op.res.uses.get_length() != 1:
            return
        add = next(iter(op.res.uses)).operation
        if not isinstance(add, arith.AddfOp) or add.result.uses.get_length() != 1:
            return
        back = next(iter(add.result.uses)).operation
        if not (
            isinstance(back, memref.StoreOp) and back.memref is buffer and back.value is add.result
        ):
            return
        doomed += [back, add, op]
        fed += [o for o in add.operands if o is not op.res]
    for op in dict.fromkeys(doomed):
        op.detach()
        op.erase()
    alloca.detach()
    alloca.erase()
    for value in fed:  # the shadow loads that only fed the accumulation
        if (
            isinstance(value, OpResult)
            and isinstance(value.op, memref.LoadOp)
            and value.uses.get_length() == 0
        ):
            value.op.detach()
            value.op.erase()
