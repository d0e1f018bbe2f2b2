"""
`tapeflow-pack-tapes`: triangular tapes and regions packed in DRAM.

A tape raised from a triangular nest (`tapeflow-raise-tape`) is the bounding box
of its index space, with its ragged extents recorded on the alloc
(`tapeflow.ragged`, see `lowering.ir.ragged`): the passes that prove REV mirrors
FWD and tile the tape (`tapeflow-layers`) read its indices as affine forms, which
a packed position is not. Once they have run, this pass lays out each tape or
region that still has ragged extents as one dimension of exactly the entries of
its ragged space, each access at the entry's packed position (closed-form
polynomials of its indices, emitted as `index` arithmetic): lu's
`!tape.tape<5x?x?xf64>` becomes `!tape.tape<10xf64>`, its `[i, j, k]` becomes
`[i*(i-1)*(i-2)/6 + j*(j-1)/2 + k]`. A region tiled through the scratchpad has
no region accesses left (its DRAM tape is a stack of tiles), so only tapes and
regions still read through the cache change. The size computations the bounding
box needed go if nothing else uses them.

The variants' pipelines run it last among the tape passes (`lowering.pipelines`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from lowering.ir.effects import is_effect_free
from lowering.ir.gradients import require_gradients
from lowering.ir.locations import located
from lowering.ir.polynomials import Monomial, Poly
from lowering.ir.ragged import (
    CLIPPED,
    RAGGED,
    RAGGED_CLIP,
    NotRagged,
    clip_map,
    clipped_extent,
    count,
    dim,
    offset,
    ragged_map,
    sym,
)
from lowering.ir.walk import walk_ops
from tapeflow_dialects import region, tape
from tapeflow_dialects.locations import location_of

PASS = "tapeflow-pack-tapes"

_ACCESSES = {
    tape.AllocOp: (tape.StoreOp, tape.LoadOp, tape.FreeOp),
    region.AllocOp: (region.StoreOp, region.LoadOp, region.FreeOp),
}


@dataclass
class PackReport:
    function: str
    packed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)

    def table(self) -> str:
        lines = [f"@{self.function}: {len(self.packed)} packed"]
        lines += [f"  packed {line}" for line in self.packed]
        lines += [f"  kept as a bounding box: {line}" for line in self.kept]
        return "\n".join(lines)


def pack_module(module: builtin.ModuleOp) -> list[PackReport]:
    """Pack every ragged tape and region of the gradient functions, in place."""
    return [pack_function(f) for f in require_gradients(module, PASS)]


def pack_function(function: func.FuncOp) -> PackReport:
    report = PackReport(function.sym_name.data)
    allocs = [
        op
        for op in walk_ops(function)
        if isinstance(op, tape.AllocOp | region.AllocOp) and RAGGED in op.attributes
    ]
    shared: dict[tuple[object, ...], SSAValue] = {}
    for alloc in allocs:
        old = str(alloc.results[0].type)
        packed, reason = _pack(alloc, shared)
        if packed is not None:
            report.packed.append(f"{old} -> {packed}")
        else:
            report.kept.append(f"{old}: {reason}")
    return report


def _pack(
    alloc: tape.AllocOp | region.AllocOp, shared: dict[tuple[object, ...], SSAValue]
) -> tuple[Attribute | None, str | None]:
    """Pack one alloc (replaced by a packed one) and its accesses: (the packed
    type, None), or (None, why it stays the bounding box)."""
    container = alloc.results[0]
    container_type = container.type
    assert isinstance(container_type, tape.TapeType | region.RegionType)
    try:
        ragged = ragged_map(alloc)
        assert ragged is not None
        clip = clip_map(alloc)
        entries = count(ragged, clip)
        position = offset(ragged)
    except NotRagged as err:
        raise PassFailedException(f"{PASS}: {_where(alloc)}: {err}") from None
    rank = len(container_type.get_shape())
    if ragged.num_dims != rank or ragged.num_symbols != len(alloc.dynamic_sizes):
        raise PassFailedException(
            f"{PASS}: {_where(alloc)}: '{RAGGED}' {ragged} has {ragged.num_dims} dimension(s) "
            f"and {ragged.num_symbols} symbol(s); {container_type} has rank {rank} and "
            f"{len(alloc.dynamic_sizes)} size operand(s)"
        )
    store_op, load_op, free_op = _ACCESSES[type(alloc)]
    users = [use.operation for use in container.uses]
    if any(not isinstance(u, store_op | load_op | free_op) for u in users):
        return None, "used by ops other than its stores, loads and frees"
    symbols = {sym(k): v for k, v in enumerate(alloc.dynamic_sizes)}
    old_sizes = list(alloc.dynamic_sizes)
    size = entries.constant()
    if size is not None and size > 0:
        shape, sizes = [int(size)], []
    else:  # known at run time (or empty: a tape extent is positive or '?')
        key = ("count", entries, clip, tuple(symbols.values()))
        if key not in shared:
            at = _after_definitions(list(symbols.values()), alloc)
            values = dict(symbols)
            if CLIPPED in entries.variables():
                assert clip is not None
                values[CLIPPED] = _emit_clipped(ragged, clip, symbols, at, alloc)
            shared[key] = _emit(entries, values, at, alloc)
        shape, sizes = [DYNAMIC_INDEX], [shared[key]]
    new: tape.AllocOp | region.AllocOp
    if isinstance(alloc, tape.AllocOp):
        assert isinstance(container_type, tape.TapeType)
        name = alloc.value_name.data if alloc.value_name else None
        new = tape.AllocOp(tape.TapeType(shape, container_type.element_type), name, sizes)
    else:
        assert isinstance(container_type, region.RegionType)
        new = region.AllocOp(region.RegionType(shape, container_type.slot_types()), sizes)
    new.attributes.update(
        {k: v for k, v in alloc.attributes.items() if k not in (RAGGED, RAGGED_CLIP)}
    )
    Rewriter.replace_op(alloc, located(new, alloc))
    for user in users:
        if isinstance(user, free_op):
            continue
        assert isinstance(user, store_op | load_op)
        packed = _position(position, symbols, user, shared)
        fixed = list(user.operands)[: len(user.operands) - len(user.indices)]
        user.operands = [*fixed, packed]
    for value in old_sizes:
        _erase_if_dead(value)
    return new.results[0].type, None


def _emit(poly: Poly, values: dict[str, SSAValue], at: InsertPoint, near: Operation) -> SSAValue:
    return poly.emit(values.__getitem__, lambda op: Rewriter.insert_op(located(op, near), at))


def _emit_clipped(
    ragged: AffineMap,
    clip: AffineMap,
    symbols: dict[str, SSAValue],
    at: InsertPoint,
    near: Operation,
) -> SSAValue:
    """The outer iterations that have entries, `min(E_0, ceil(max(r, 0) / c))`
    (`lowering.ir.ragged.clipped_extent`), as `index` arithmetic."""
    outer, r, c = clipped_extent(ragged, clip)
    ops: list[Operation] = []
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    ops.append(zero)
    positive = arith.MaxSIOp(_emit(r, symbols, at, near), zero.result)
    ops.append(positive)
    ending = positive.result
    if c != 1:  # ceil(p / c) of p >= 0: (p + c - 1) / c
        less, by = (arith.ConstantOp(IntegerAttr(v, IndexType())) for v in (c - 1, c))
        up = arith.AddiOp(ending, less.result)
        down = arith.DivSIOp(up.result, by.result)
        ops += [less, by, up, down]
        ending = down.result
    ops.append(least := arith.MinSIOp(_emit(outer, symbols, at, near), ending))
    for op in ops:
        Rewriter.insert_op(located(op, near), at)
    return least.result


def _position(
    position: Poly,
    symbols: dict[str, SSAValue],
    access: Operation,
    shared: dict[tuple[object, ...], SSAValue],
) -> SSAValue:
    """The packed position of `access`'s entry, built level by level. The terms
    whose deepest index is `m` are the entries before `x_m` under the prefix
    `x0 .. x(m-1)` (`lowering.ir.ragged.offset`): an integer, computed (and
    divided by its own denominator) right after the last of `x0 .. xm` is
    defined, so that what depends only on outer indices runs once per outer
    iteration (lu's innermost level is `+ k`), and the tapes of one nest (same
    layout, indices and sizes) share it all."""
    indices = list(access.indices)  # type: ignore[attr-defined]
    names = {**symbols, **{dim(m): v for m, v in enumerate(indices)}}
    partial: SSAValue | None = None
    for m in range(len(indices)):
        level = Poly(
            {t: c for t, c in position.terms.items() if _deepest(t) == m or (m == 0 > _deepest(t))}
        )
        key = (position, m, tuple(indices[: m + 1]), tuple(symbols.values()))
        if key not in shared and not level.terms and partial is not None:
            shared[key] = partial  # no entry lies before x_m under this prefix
        if key not in shared:
            inputs = [*indices[: m + 1], *symbols.values(), *([partial] if partial else [])]
            at = _after_definitions(inputs, access)
            value = _emit(level, names, at, access)
            if partial is not None:
                add = located(arith.AddiOp(partial, value), access)
                Rewriter.insert_op(add, at)
                value = add.result
            shared[key] = value
        partial = shared[key]
    assert partial is not None
    return partial


def _deepest(monomial: Monomial) -> int:
    """The deepest index a monomial uses, -1 for none."""
    return max((int(v[1:]) for v, _ in monomial if v.startswith("d")), default=-1)


def _after_definitions(values: list[SSAValue], access: Operation) -> InsertPoint:
    """Right after the last of `values` is defined, in the innermost block
    around `access` that defines one of them (at its start for a block
    argument): a point that dominates every use of all of them."""
    blocks = []
    block = access.parent_block()
    while block is not None:
        blocks.append(block)
        parent = block.parent_op()
        block = parent.parent_block() if parent is not None else None

    def home(v: SSAValue) -> Block | None:
        return v.owner if isinstance(v.owner, Block) else v.owner.parent_block()

    inner = min((blocks.index(b) for v in values if (b := home(v)) in blocks), default=None)
    if inner is None:  # all defined outside the function (none in practice)
        inner = len(blocks) - 1
    target = blocks[inner]
    defined = [v.op for v in values if isinstance(v, OpResult) and v.op.parent is target]
    last = max(defined, key=target.get_operation_index, default=None)
    anchor = target.first_op if last is None else last.next_op
    assert anchor is not None
    return InsertPoint.before(anchor)


def _erase_if_dead(value: SSAValue) -> None:
    """Erase the pure op computing `value` if nothing uses it any more, then
    its operands' ops likewise (the bounding box's size loops)."""
    if not isinstance(value, OpResult) or value.uses:
        return
    op = value.op
    if any(r.uses for r in op.results) or not is_effect_free(op):
        return
    operands = list(op.operands)
    Rewriter.erase_op(op)
    for operand in operands:
        _erase_if_dead(operand)


def _where(op: Operation) -> str:
    name = op.results[0].name_hint
    return f"the '{op.name}'" + (f" %{name}" if name else "") + f" at {location_of(op)}"


@dataclass(frozen=True)
class TapeflowPackTapesPass(ModulePass):
    """Lay out triangular tapes and regions packed, one entry per point written."""

    name = "tapeflow-pack-tapes"

    stats: bool = False
    """Print, per gradient function, the tapes and regions packed to stderr."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        reports = pack_module(op)
        if self.stats:
            for report in reports:
                print(f"{PASS}: {report.table()}", file=sys.stderr)
