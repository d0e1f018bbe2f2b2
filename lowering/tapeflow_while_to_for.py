"""
`tapeflow-while-to-for`: `scf.while` loops become `scf.for` loops, which
Enzyme-MLIR can differentiate (0.0.16 rejects an active `scf.while`: "could not
compute the adjoint for this operation").

Each rewrite runs the loop's `before` region `n + 1` times and its `after` region
`n` times, in the original order, so stores in either region happen as before;
it changes only how the trip count `n` is known:

* **counted**: a counter test on a carried index or integer (signed or unsigned)
  advanced by a positive invariant step: `scf.for` over the count, then one more
  `before` for the results;
* **bounded**: a counter test among other conjuncts: `scf.for` up to the bound
  with a carried `done` flag;
* **counted by a first run**: a data-dependent exit without a counter, whose
  control slice is free of side effects: a counting loop first, then the replay
  as `scf.for` (what Enzyme does in LLVM for a loop of unknown trip count).

A loop none of these fits is left as it is, with the reason. The conditions of
each rewrite and why it is sound: docs/research/loop-rewrites.md, "While loops".
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.enzyme.cache_accesses import buffer_root, written_roots
from lowering.ir.effects import is_effect_free
from lowering.ir.index_builder import IndexBuilder
from lowering.ir.loops import constant_value
from lowering.ir.walk import walk_ops
from tapeflow_dialects.upstream_syntax import IfOp, WhileOp

PASS = "tapeflow-while-to-for"

# The `scf.if` and `scf.while` made here are the subclasses that print as MLIR
# reads them (`tapeflow_dialects.upstream_syntax`): the module goes to Enzyme as text.

_BELOW = {"slt": 0, "sle": 1, "ult": 0, "ule": 1}
"""Counter tests `%k pred %ub`: the exclusive bound is `%ub + this`."""
_ABOVE = {"sgt": 0, "sge": 1, "ugt": 0, "uge": 1}
"""The same tests written `%ub pred %k`."""
_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
"""`arith.cmpi`'s predicates, by their number."""


@dataclass(frozen=True)
class Counter:
    """A carried index `%k = lb, lb + step, ...` tested against `%ub`."""

    position: int
    """Its position among the loop's arguments."""
    lower: SSAValue
    upper: SSAValue
    upper_offset: int
    """The exclusive bound on `%k` is `upper + upper_offset`."""
    step: SSAValue | int
    """A positive constant, or a value defined outside the loop (with which the
    loop terminates only if it is positive, as `scf.for` requires)."""
    test: SSAValue
    """The `arith.cmpi` that tests it."""
    unsigned: bool = False
    """The test compares unsigned (`ult`, `ule`, `ugt`, `uge`): the counter and its
    bounds are then counted as unsigned values."""


@dataclass(frozen=True)
class Left:
    """A while loop no method applies to, and why."""

    op: scf.WhileOp
    reason: str

    def where(self) -> str:
        loc = self.op.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}: "
        return ""


def _condition(op: scf.WhileOp) -> scf.ConditionOp:
    terminator = op.before_region.block.last_op
    assert isinstance(terminator, scf.ConditionOp)
    return terminator


def _yield(op: scf.WhileOp) -> scf.YieldOp:
    terminator = op.after_region.block.last_op
    assert isinstance(terminator, scf.YieldOp)
    return terminator


def _defined_outside(value: SSAValue, op: Operation) -> bool:
    owner = value.owner
    parent = owner if isinstance(owner, Operation) else owner.parent_op()
    return parent is None or not op.is_ancestor(parent)


def _conjuncts(value: SSAValue) -> list[SSAValue]:
    """The terms of an `arith.andi` tree (the value itself if it is not one)."""
    if isinstance(value, OpResult) and isinstance(value.op, arith.AndIOp):
        return _conjuncts(value.op.lhs) + _conjuncts(value.op.rhs)
    return [value]


def _plus(value: SSAValue, base: SSAValue, op: Operation) -> SSAValue | int | None:
    """`x` if `value` is `base + x` (`x` a constant or a value defined outside
    `op`), 0 if it is `base`, else None."""
    if value is base:
        return 0
    if not isinstance(value, OpResult) or not isinstance(value.op, arith.AddiOp):
        return None
    operands = list(value.op.operands)
    if base not in operands:
        return None
    other = operands[1 - operands.index(base)]
    known = constant_value(other)
    if known is not None:
        return known
    return other if _defined_outside(other, op) else None


def find_counter(op: scf.WhileOp) -> Counter | None:
    """A conjunct of the condition that tests a counted integer or index argument
    (C's `int i` comes as an `i32`): `%t < %ub`
    (or `<=`, or `%ub > %t`, signed or unsigned), `%t` an argument `%k` or `%k + c`
    (a do-while's update in the before region), `%k` advanced by the after region
    (`yield %k' + c2` of the forwarded `%k` or `%t`) by a positive step."""
    found = _find_counter(op)
    return found if isinstance(found, Counter) else None


def _find_counter(op: scf.WhileOp) -> Counter | str:
    """`find_counter`'s counter, or what in the condition was not one."""
    before, after = op.before_region.block, op.after_region.block
    forwarded = list(_condition(op).args)
    yielded = list(_yield(op).operands)
    missed: list[str] = []
    for term in _conjuncts(_condition(op).condition):
        if not isinstance(term, OpResult) or not isinstance(term.op, arith.CmpiOp):
            continue
        name = _PREDICATES[term.op.predicate.value.data]
        if name in _BELOW:
            tested, ub, offset = term.op.lhs, term.op.rhs, _BELOW[name]
        elif name in _ABOVE:
            ub, tested, offset = term.op.lhs, term.op.rhs, _ABOVE[name]
        else:
            missed.append(f"'arith.cmpi {name}' is not an ordering test")
            continue
        if not _defined_outside(ub, op):
            missed.append(f"the bound of 'arith.cmpi {name}' is computed in the loop")
            continue
        for position, k in enumerate(before.args):
            before_step = _plus(tested, k, op)
            if not isinstance(before_step, int):
                continue  # the before region may add a constant only
            for q, value in enumerate(forwarded):
                if value is not k and value is not tested:
                    continue
                after_step = _plus(yielded[position], after.args[q], op)
                if after_step is None:
                    continue
                step = after_step
                if value is tested and before_step:
                    if not isinstance(step, int):
                        continue
                    step += before_step
                if isinstance(step, int) and step <= 0:
                    continue
                return Counter(
                    position,
                    op.arguments[position],
                    ub,
                    offset - before_step,
                    step,
                    term,
                    name.startswith("u"),
                )
        missed.append(
            f"'arith.cmpi {name}' does not test a loop argument (plus a constant) that the "
            "loop advances by a positive constant or loop-invariant step"
        )
    if not missed:
        return "its condition has no integer comparison ('arith.cmpi')"
    return "; ".join(missed)


# ------------------------------------------------------------------ slices


def _slice(op: scf.WhileOp) -> tuple[set[int], set[int], list[Operation]] | str:
    """The control slice: the argument and forwarded positions and the ops of both
    regions the condition depends on; a reason if it has side effects or reads
    memory the loop writes."""
    before, after = op.before_region.block, op.after_region.block
    forwarded = list(_condition(op).args)
    yielded = list(_yield(op).operands)
    args: set[int] = set()
    fwd: set[int] = set()
    ops: set[Operation] = set()
    work: list[SSAValue] = [_condition(op).condition]
    while work:
        value = work.pop()
        if value in before.args:
            p = before.args.index(value)
            if p not in args:
                args.add(p)
                work.append(yielded[p])
            continue
        if value in after.args:
            q = after.args.index(value)
            if q not in fwd:
                fwd.add(q)
                work.append(forwarded[q])
            continue
        if _defined_outside(value, op):
            continue
        owner = value.owner
        if not isinstance(owner, Operation) or owner.parent_block() not in (before, after):
            return "its condition depends on a value computed in a nested region"
        if owner not in ops:
            ops.add(owner)
            work.extend(owner.operands)
            work.extend(_used_inside(owner))
    written = written_roots(op)
    written_keys = None if written is None else {_buffer_key(root) for root in written}
    for each in ops:
        for inner in walk_ops(each):
            if isinstance(inner, memref.LoadOp):
                read = _buffer_key(buffer_root(inner.memref))
                if written_keys is None or read in written_keys:
                    return (
                        "its exit condition depends on memory the loop writes "
                        f"('{inner.name}' of a buffer a store in the loop changes)"
                    )
                if written_keys and (read is None or None in written_keys):
                    return (
                        "its exit condition reads memory the loop may write under "
                        f"another name ('{inner.name}' and the loop's stores: a buffer "
                        "that is not a function argument, an allocation or a global "
                        "may be any of them)"
                    )
            elif inner is not each and isinstance(inner, scf.YieldOp):
                continue
            elif isinstance(inner, scf.ForOp) or (not inner.regions and is_effect_free(inner)):
                continue
            else:
                return f"its exit condition depends on '{inner.name}', which has side effects"
    order = [o for block in (before, after) for o in block.ops if o in ops]
    return args, fwd, order


def _buffer_key(root: SSAValue) -> object | None:
    """What tells a buffer apart from every other: an argument of the function
    (distinct memref arguments do not alias, as C's `restrict`), an allocation, or
    a global by its symbol (two `memref.get_global` of one symbol are one buffer);
    None for any other root (a loop's or a region's block argument, a `select` or
    `scf.if` result), which may be any buffer."""
    if isinstance(root, BlockArgument):
        owner = root.block.parent_op()
        if isinstance(owner, func.FuncOp) and root.block is owner.body.block:
            return root
        return None
    if isinstance(root, OpResult):
        if isinstance(root.op, memref.AllocOp | memref.AllocaOp):
            return root
        if isinstance(root.op, memref.GetGlobalOp):
            return ("global", root.op.name_.root_reference.data)
    return None


def _used_inside(op: Operation) -> list[SSAValue]:
    """The values the ops nested in `op`'s regions use that are defined outside
    `op` (a reduction loop in the control slice reads the while loop's
    arguments in its body, not as its operands)."""
    used: list[SSAValue] = []
    for inner in walk_ops(op):
        if inner is op:
            continue
        for operand in inner.operands:
            owner = operand.owner
            parent = owner if isinstance(owner, Operation) else owner.parent_op()
            if parent is None or not op.is_ancestor(parent):
                used.append(operand)
    return used


# ------------------------------------------------------------------ cloning


def _clone_body(
    block: Block,
    mapping: dict[SSAValue, SSAValue],
    at: InsertPoint,
    only: Sequence[Operation] | None = None,
) -> list[SSAValue]:
    """Clone `block`'s ops (or `only` those) at `at` under `mapping`; the
    terminator's operands, mapped."""
    for each in block.ops if only is None else only:
        if each is block.last_op:
            continue
        clone = each.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, at)
    terminator = block.last_op
    assert terminator is not None
    operands = (
        list(terminator.args)
        if isinstance(terminator, scf.ConditionOp)
        else list(terminator.operands)
    )
    return [mapping.get(v, v) for v in operands]


def _zero(value_type: Attribute, at: InsertPoint) -> SSAValue | None:
    if isinstance(value_type, IndexType | IntegerType):
        const = arith.ConstantOp(IntegerAttr(0, value_type))
    elif isinstance(value_type, AnyFloat):
        const = arith.ConstantOp(FloatAttr(0.0, value_type))
    else:
        return None
    Rewriter.insert_op(const, at)
    return const.result


# ------------------------------------------------------------------ rewrites


@dataclass(frozen=True)
class _Space:
    """The `scf.for` a counter becomes: `lower to upper step 1`, and the counter's
    value after the last iteration."""

    counter: Counter
    lower: SSAValue
    upper: SSAValue
    one: SSAValue
    last: SSAValue

    counter_lower: SSAValue
    """The counter's first value, as an index."""
    counter_step: SSAValue | int

    def value(self, iv: SSAValue, body: Block) -> SSAValue:
        """The counter's value in the iteration `iv`, of the counter's type
        (computed at the start of `body` where it is not `iv` itself)."""
        at = InsertPoint.at_start(body)
        value = iv
        if self.counter.step != 1 or self.counter.unsigned:
            build = IndexBuilder(at)
            value = build.value(build.add(self.counter_lower, build.mul(iv, self.counter_step)))
        return _cast(value, self.counter.lower.type, at)


def _space(counter: Counter, at: InsertPoint) -> _Space:
    """The loop over the counter's values. With a step other than 1 it is
    normalized, `0 to trips step 1` with `k = lb + t * step`: Enzyme-MLIR 0.0.16
    sizes the caches of `scf.for lb to ub step s` as `(ub - lb) / s` rounded
    down, one entry short when `s` does not divide `ub - lb`."""
    build = IndexBuilder(at)
    # An integer counter is counted in index (sign-extended where its test is
    # signed, zero-extended where it is unsigned).
    unsigned = counter.unsigned
    lower = _cast(counter.lower, IndexType(), at, unsigned)
    step = (
        counter.step
        if isinstance(counter.step, int)
        else _cast(counter.step, IndexType(), at, unsigned)
    )
    upper = build.value(
        build.add(_cast(counter.upper, IndexType(), at, unsigned), counter.upper_offset)
    )
    # The loop's trip count when step > 0, exact where ub - lb overflows the
    # signed range (`IndexBuilder.trips`); with lb >= ub it is 0 for any step,
    # and with lb < ub and step <= 0 the while loop never ends.
    trips = build.trips(lower, upper, step, unsigned)
    last = _cast(build.value(build.add(lower, build.mul(trips, step))), counter.lower.type, at)
    one = build.value(1)
    # `scf.for` compares signed: an unsigned count runs from 0 to its trip count.
    if counter.step == 1 and not unsigned:
        return _Space(counter, lower, upper, one, last, lower, step)
    return _Space(counter, build.value(0), build.value(trips), one, last, lower, step)


def _cast(value: SSAValue, to: Attribute, at: InsertPoint, unsigned: bool = False) -> SSAValue:
    """`value` as a `to` (an index or integer), by `arith.index_cast` if needed;
    an `unsigned` integer narrower than the index is zero-extended first."""
    if value.type == to:
        return value
    if unsigned and isinstance(value.type, IntegerType) and value.type.width.data < 64:
        wide = arith.ExtUIOp(value, IntegerType(64))
        Rewriter.insert_op(wide, at)
        value = wide.result
    cast = arith.IndexCastOp(value, to)
    Rewriter.insert_op(cast, at)
    return cast.result


def _counted(op: scf.WhileOp, counter: Counter) -> None:
    """`scf.for %k = lb to ub step s` carrying the other arguments, then `before`."""
    before, after = op.before_region.block, op.after_region.block
    at = InsertPoint.before(op)
    space = _space(counter, at)
    others = [p for p in range(len(before.args)) if p != counter.position]
    body = Block(arg_types=[IndexType(), *(before.args[p].type for p in others)])
    loop = scf.ForOp(space.lower, space.upper, space.one, [op.arguments[p] for p in others], body)
    Rewriter.insert_op(loop, at)
    mapping: dict[SSAValue, SSAValue] = {
        before.args[counter.position]: space.value(body.args[0], body)
    }
    mapping.update({before.args[p]: body.args[1 + i] for i, p in enumerate(others)})
    forwarded = _clone_body(before, mapping, InsertPoint.at_end(body))
    mapping.update(dict(zip(after.args, forwarded, strict=False)))
    yielded = _clone_body(after, mapping, InsertPoint.at_end(body))
    body.add_op(scf.YieldOp(*(yielded[p] for p in others)))
    final: dict[SSAValue, SSAValue] = {before.args[counter.position]: space.last}
    final.update({before.args[p]: loop.results[i] for i, p in enumerate(others)})
    results = _clone_body(before, final, InsertPoint.before(op))
    Rewriter.replace_op(op, [], results)


def _bounded(op: scf.WhileOp, counter: Counter) -> str | None:
    """`scf.for %k = lb to bound` with a `done` flag (see the module's doc)."""
    before, after = op.before_region.block, op.after_region.block
    fwd_types = [v.type for v in _condition(op).args]
    at = InsertPoint.before(op)
    initial_fwd = []
    for t in fwd_types:
        zero = _zero(t, at)
        if zero is None:
            return f"it forwards a {t}, which the bounded form cannot carry"
        initial_fwd.append(zero)
    space = _space(counter, at)
    false = arith.ConstantOp(IntegerAttr(0, IntegerType(1)))
    true = arith.ConstantOp(IntegerAttr(1, IntegerType(1)))
    Rewriter.insert_op([false, true], at)
    others = [p for p in range(len(before.args)) if p != counter.position]
    carried_types = [IntegerType(1), *(before.args[p].type for p in others), *fwd_types]
    body = Block(arg_types=[IndexType(), *carried_types])
    loop = scf.ForOp(
        space.lower,
        space.upper,
        space.one,
        [false.result, *(op.arguments[p] for p in others), *initial_fwd],
        body,
    )
    Rewriter.insert_op(loop, at)
    done, args, fwd = (
        body.args[1],
        list(body.args[2 : 2 + len(others)]),
        list(body.args[2 + len(others) :]),
    )
    # done: nothing more runs.
    skip = Block()
    skip.add_op(scf.YieldOp(done, *args, *fwd))
    # not done: before, then after if its condition holds.
    run = Block()
    mapping: dict[SSAValue, SSAValue] = {
        before.args[counter.position]: space.value(body.args[0], run)
    }
    mapping.update({before.args[p]: args[i] for i, p in enumerate(others)})
    _clone_body(before, mapping, InsertPoint.at_end(run))
    condition = mapping.get(_condition(op).condition, _condition(op).condition)
    forwarded = [mapping.get(v, v) for v in _condition(op).args]
    go, stop = Block(), Block()
    inner = dict(mapping)
    inner.update(dict(zip(after.args, forwarded, strict=False)))
    yielded = _clone_body(after, inner, InsertPoint.at_end(go))
    go.add_op(scf.YieldOp(false.result, *(yielded[p] for p in others), *forwarded))
    stop.add_op(scf.YieldOp(true.result, *args, *forwarded))
    step_if = IfOp(condition, carried_types, [go], [stop])
    run.add_op(step_if)
    run.add_op(scf.YieldOp(*step_if.results))
    guard = IfOp(done, carried_types, [skip], [run])
    body.add_op(guard)
    body.add_op(scf.YieldOp(*guard.results))
    # After the loop: the failed before's values, or one more before.
    ended, again = Block(), Block()
    ended.add_op(scf.YieldOp(*loop.results[1 + len(others) :]))
    final: dict[SSAValue, SSAValue] = {before.args[counter.position]: space.last}
    final.update({before.args[p]: loop.results[1 + i] for i, p in enumerate(others)})
    results = _clone_body(before, final, InsertPoint.at_end(again))
    again.add_op(scf.YieldOp(*results))
    finish = IfOp(loop.results[0], fwd_types, [ended], [again])
    Rewriter.insert_op(finish, at)
    Rewriter.replace_op(op, [], list(finish.results))
    return None


def _counted_by_first_run(
    op: scf.WhileOp, args: set[int], fwd: set[int], ops: list[Operation]
) -> None:
    """A counting `scf.while` over the control slice, then `scf.for %t = 0 to %n`."""
    before, after = op.before_region.block, op.after_region.block
    at = InsertPoint.before(op)
    build = IndexBuilder(at)
    zero, one = build.value(0), build.value(1)
    carried = sorted(args)
    forwarded = sorted(fwd)
    # The counting loop: (n, slice arguments), forwarding (n, slice values).
    count_before = Block(arg_types=[IndexType(), *(before.args[p].type for p in carried)])
    mapping: dict[SSAValue, SSAValue] = {
        before.args[p]: count_before.args[1 + i] for i, p in enumerate(carried)
    }
    _clone_body(
        before,
        mapping,
        InsertPoint.at_end(count_before),
        [o for o in ops if o.parent_block() is before],
    )
    condition = _condition(op)
    count_before.add_op(
        scf.ConditionOp(
            mapping.get(condition.condition, condition.condition),
            count_before.args[0],
            *(mapping.get(condition.args[q], condition.args[q]) for q in forwarded),
        )
    )
    count_after = Block(arg_types=[IndexType(), *(after.args[q].type for q in forwarded)])
    mapping = {after.args[q]: count_after.args[1 + i] for i, q in enumerate(forwarded)}
    _clone_body(
        after,
        mapping,
        InsertPoint.at_end(count_after),
        [o for o in ops if o.parent_block() is after],
    )
    next_n = arith.AddiOp(count_after.args[0], one)
    count_after.add_op(next_n)
    yielded = _yield(op).operands
    count_after.add_op(scf.YieldOp(next_n, *(mapping.get(yielded[p], yielded[p]) for p in carried)))
    counting = WhileOp(
        [zero, *(op.arguments[p] for p in carried)],
        [IndexType(), *(after.args[q].type for q in forwarded)],
        [count_before],
        [count_after],
    )
    Rewriter.insert_op(counting, at)
    # The replay: every argument carried, both regions in order.
    body = Block(arg_types=[IndexType(), *(a.type for a in before.args)])
    loop = scf.ForOp(zero, counting.results[0], one, list(op.arguments), body)
    Rewriter.insert_op(loop, at)
    mapping = dict(zip(before.args, body.args[1:], strict=False))
    values = _clone_body(before, mapping, InsertPoint.at_end(body))
    mapping.update(dict(zip(after.args, values, strict=False)))
    body.add_op(scf.YieldOp(*_clone_body(after, mapping, InsertPoint.at_end(body))))
    results = _clone_body(
        before, dict(zip(before.args, loop.results, strict=False)), InsertPoint.before(op)
    )
    Rewriter.replace_op(op, [], results)


def rewrite_while(op: scf.WhileOp) -> str | None:
    """Rewrite one `scf.while` (see the module's doc); the reason if no method
    applies. The ops made take the loop's location (the cloned ones keep theirs)."""
    block, before, after = op.parent_block(), op.prev_op, op.next_op
    reason = _rewrite_while(op)
    if reason is None and block is not None:
        current = before.next_op if before is not None else block.first_op
        while current is not None and current is not after:
            for each in walk_ops(current):
                if not isinstance(each.location, FileLineColLoc):
                    each.location = op.location
            current = current.next_op
    return reason


def _rewrite_while(op: scf.WhileOp) -> str | None:
    counter = find_counter(op)
    if counter is not None and _conjuncts(_condition(op).condition) == [counter.test]:
        _counted(op, counter)
        return None
    found = _slice(op)
    if not isinstance(found, str):
        _counted_by_first_run(op, *found)
        return None
    if counter is not None:
        return _bounded(op, counter)
    return f"{found}, and no counter bounds its trip count: {_find_counter(op)}"


def while_to_for(module: builtin.ModuleOp) -> list[Left]:
    """Rewrite every `scf.while` of `module`, innermost first; those left, with why."""
    left: list[Left] = []
    whiles = [o for o in walk_ops(module) if isinstance(o, scf.WhileOp)]
    for op in reversed(whiles):  # nested loops (later in the walk) first
        reason = rewrite_while(op)
        if reason is not None:
            left.append(Left(op, reason))
    return left


@dataclass(frozen=True)
class TapeflowWhileToForPass(ModulePass):
    """Rewrite `scf.while` loops into `scf.for` loops Enzyme can differentiate."""

    name = "tapeflow-while-to-for"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for each in while_to_for(op):
            print(
                f"{each.where()}warning: {PASS}: 'scf.while' left as it is: {each.reason}",
                file=sys.stderr,
            )
