"""
`lowering.ir.bulk`: `new_op`, `append_ops` and `erase_ops` leave the IR exactly
as xDSL's `Operation.create`, `Block.add_op` and `Rewriter.erase_op(op,
safe_erase=False)` do, op by op (every field of the op, each value's uses in
order), and `tapeflow-to-cgra`, which builds its kernels with them, lowers real
kernels and random bodies to the same text as with those xDSL calls.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from xdsl.dialects import arith, builtin, test
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.printer import Printer
from xdsl.rewriter import Rewriter

import lowering.tapeflow_to_cgra as to_cgra
from lowering.ir import bulk
from sim.models import MODELS
from sim.simulator import prepare
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import cgra
from tapeflow_dialects.cgra import MemPath, MemPathAttr, i64_attr, opcode_attr
from tapeflow_tools.context import make_context
from targets.hardware import configure


def _uses(value: SSAValue) -> list[tuple[int, int]]:
    """`value`'s uses in use-list order: (id of the user, operand position)."""
    return [(id(use.operation), use.index) for use in value.uses]


def _fields(op: Operation) -> dict[str, object]:
    """Every field of `op`, values by identity where they are IR."""
    found: dict[str, object] = {}
    for name, value in vars(op).items():
        if name in ("_operands", "results"):
            found[name] = (type(value), [(type(v), id(v.type)) for v in value])
        elif name == "_operand_uses":
            found[name] = [(type(u), u.index) for u in value]
        else:
            found[name] = value
    return found


def _values(count: int) -> tuple[Block, list[SSAValue]]:
    block = Block(arg_types=[builtin.i32] * count)
    return block, list(block.args)


_LOCATION = builtin.FileLineColLoc(
    builtin.StringAttr("k.mlir"), builtin.IntAttr(3), builtin.IntAttr(4)
)


def _placed_compute(operands: Sequence[SSAValue], cycle: int) -> dict[str, object]:
    return {
        "operands": operands,
        "result_types": [builtin.i32],
        "properties": {
            "row": i64_attr(0),
            "col": i64_attr(1),
            "cycle": i64_attr(cycle),
            "opcode": opcode_attr("arith.addi"),
        },
        "location": _LOCATION,
    }


def _made(values: list[SSAValue]) -> list[tuple[type[Operation], dict[str, object]]]:
    return [
        (cgra.ComputeOp, _placed_compute([values[0], values[1], values[0]], 7)),
        (
            cgra.StoreOp,
            {
                "operands": [values[2], values[0]],
                "result_types": [],
                "properties": {
                    "row": i64_attr(1),
                    "col": i64_attr(1),
                    "cycle": i64_attr(2),
                    "path": MemPathAttr(MemPath.CACHE),
                },
                "location": builtin.UnknownLoc(),
            },
        ),
        (cgra.ComputeOp, _placed_compute([values[2]], 9)),
    ]


def test_new_op_is_create() -> None:
    _, mine_values = _values(3)
    _, their_values = _values(3)
    for (cls, args), (_, their_args) in zip(_made(mine_values), _made(their_values), strict=True):
        made = bulk.new_op(cls, **args)  # type: ignore[arg-type]
        reference = cls.create(**their_args)  # type: ignore[arg-type]
        assert type(made) is type(reference)
        mine, theirs = _fields(made), _fields(reference)
        assert mine.keys() == theirs.keys()
        assert mine == theirs
        for n, value in enumerate(args["operands"]):  # type: ignore[arg-type]
            assert made.operands[n] is value and made._operand_uses[n].operation is made
    # Every value lists its uses in the same order (the latest op's first).
    assert [[i for _, i in _uses(v)] for v in mine_values] == [
        [i for _, i in _uses(v)] for v in their_values
    ]
    assert [len(list(v.uses)) for v in mine_values] == [3, 1, 2]


def test_new_op_falls_back_to_create_where_a_default_is_filled() -> None:
    """An op class whose definition gives a default (`arith.addi`'s overflow flags)
    is made by `create` itself, which fills the default in."""
    _, values = _values(2)
    made = bulk.new_op(arith.AddiOp, values, [builtin.i32], {}, builtin.UnknownLoc())
    assert "overflowFlags" in made.properties
    assert (
        made.properties
        == arith.AddiOp.create(operands=values, result_types=[builtin.i32]).properties
    )


def _chain(block: Block, values: list[SSAValue], count: int, rng: random.Random) -> list[Operation]:
    """`count` ops, each reading two values made before it (the block's arguments
    or earlier ops' results)."""
    ops: list[Operation] = []
    pool = list(values)
    for _ in range(count):
        op = test.TestOp.create(
            operands=[rng.choice(pool), rng.choice(pool)], result_types=[builtin.i32]
        )
        ops.append(op)
        pool.append(op.results[0])
    return ops


def _links(block: Block) -> list[tuple[int, int | None, int | None, int | None]]:
    return [
        (id(op), id(op.prev_op) if op.prev_op else None, id(op.next_op) if op.next_op else None)
        + (id(op.parent),)
        for op in block.ops
    ]


@pytest.mark.parametrize("seed", range(20))
def test_append_and_erase_are_add_op_and_erase_op(seed: int) -> None:
    rng = random.Random(seed)
    twins = []
    arguments, heads = rng.randint(1, 4), rng.randint(0, 2)
    for _ in range(2):
        block, values = _values(arguments)
        head = [test.TestOp.create() for _ in range(heads)]
        for op in head:
            block.add_op(op)
        twins.append((block, values, head))
    count = rng.randint(1, 40)
    chains = []
    for (block, values, _), bulky in zip(twins, (True, False), strict=True):
        ops = _chain(block, values, count, random.Random(seed))
        if bulky:
            bulk.append_ops(block, ops)
        else:
            for op in ops:
                block.add_op(op)
        chains.append(ops)
    for (block, _, _), ops in zip(twins, chains, strict=True):
        assert [id(op) for op in block.ops][-count:] == [id(op) for op in ops]
        assert block.last_op is ops[-1] and block.first_op is next(iter(block.ops))
    assert len(_links(twins[0][0])) == len(_links(twins[1][0]))
    # Erase a random suffix, last first, then a random subset, leaving some values
    # used by ops that stay (they read erased values then, as with xDSL).
    cut = rng.randint(0, count)
    chosen = sorted(rng.sample(range(cut), rng.randint(0, cut)), reverse=True)
    picks = list(range(count - 1, cut - 1, -1)) + chosen
    for ops, bulky in zip(chains, (True, False), strict=True):
        doomed = [ops[i] for i in picks]
        if bulky:
            bulk.erase_ops(doomed)
        else:
            for op in doomed:
                Rewriter.erase_op(op, safe_erase=False)
    left = [
        [(i, [type(v).__name__ for v in op.operands]) for i, op in enumerate(ops) if op.parent]
        for ops in chains
    ]
    assert left[0] == left[1]
    for (block, _, head), ops in zip(twins, chains, strict=True):
        assert [op for op in block.ops] == head + [op for op in ops if op.parent is block]
        for op in ops:
            if op.parent is None:
                assert not op._operand_uses and op.parent is None
    uses = [
        [
            [(ops.index(u.operation) if u.operation in ops else -1, u.index) for u in v.uses]
            for v in values
        ]
        for (_, values, _), ops in zip(twins, chains, strict=True)
    ]
    assert uses[0] == uses[1]
    results = [
        [[(ops.index(u.operation), u.index) for u in op.results[0].uses] for op in ops]
        for ops in chains
    ]
    assert results[0] == results[1]


@pytest.mark.parametrize("released", [True, False])
def test_released_ops_are_freed_without_the_cycle_collector(released: bool) -> None:
    """Erased ops and their results are held by nothing but each other: with the
    cycle collector paused, reference counting frees them once `release` has cut
    the op's link to its results, and not before (the cycle that link makes).
    The values they read keep only the uses of the ops that stay."""
    import gc
    import weakref

    block, values = _values(2)
    ops = _chain(block, values, 12, random.Random(7))
    bulk.append_ops(block, ops)
    kept, doomed = ops[:4], ops[4:]
    results = [op.results[0] for op in doomed]
    watched = [weakref.ref(x) for x in (*doomed, *results)]
    enabled = gc.isenabled()
    gc.disable()
    try:
        bulk.erase_ops(doomed[::-1])
        if released:
            bulk.release(doomed)
            assert all(not op.results for op in doomed)
            assert all(r.owner is op for r, op in zip(results, doomed, strict=True))
        del ops, doomed, results
        alive = sum(ref() is not None for ref in watched)
    finally:
        if enabled:
            gc.enable()
    assert alive == (0 if released else len(watched))
    assert [op for op in block.ops] == kept
    for value in (*values, *(op.results[0] for op in kept)):
        assert all(use.operation in kept for use in value.uses)


def test_release_takes_erased_ops_alone() -> None:
    block, values = _values(1)
    ops = _chain(block, values, 2, random.Random(1))
    bulk.append_ops(block, ops)
    with pytest.raises(ValueError, match="erased ops"):
        bulk.release(ops)
    assert all(op.results for op in ops)


def _reference_new_op(
    cls: type[Operation],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: dict[str, Attribute],
    location: Attribute,
) -> Operation:
    return cls.create(
        operands=operands,
        result_types=result_types,
        properties=properties,
        location=location,  # type: ignore[arg-type]
    )


def _reference_append(block: Block, ops: Sequence[Operation]) -> None:
    for op in ops:
        block.add_op(op)


def _reference_erase(ops: Sequence[Operation]) -> None:
    for op in ops:
        Rewriter.erase_op(op, safe_erase=False)


def _text(module: builtin.ModuleOp) -> str:
    import io

    out = io.StringIO()
    Printer(stream=out, print_generic_format=True, print_debuginfo=True).print_op(module)
    return out.getvalue()


def _lowered(kernel: str, variant: str, unroll: int, model: str) -> str:
    ctx = make_context()
    module = parse_kernel(ctx, kernel, "small")
    preset = "Tflow32k" if variant == "tapeflow" else "Enzyme32k"
    prepare(ctx, module, variant, MODELS[model].hardware(configure(preset)), unroll, model=model)
    return _text(module)


@pytest.mark.parametrize(
    ("kernel", "variant", "unroll", "model"),
    [
        ("pathfinder", "tapeflow", 8, "cgra"),
        ("logsum", "enzyme", 4, "salam"),
        ("nn", "tapeflow", 2, "cgra"),
        ("gravity", "aos", 1, "cgra"),
    ],
)
def test_kernels_lower_as_with_xdsls_calls(
    kernel: str, variant: str, unroll: int, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _lowered(kernel, variant, unroll, model)
    with monkeypatch.context() as patch:
        patch.setattr(to_cgra, "new_op", _reference_new_op)
        patch.setattr(to_cgra, "append_ops", _reference_append)
        patch.setattr(to_cgra, "erase_ops", _reference_erase)
        reference = _lowered(kernel, variant, unroll, model)
    assert "cgra.kernel" in built
    assert built == reference


def _shape(root: Operation, copied: dict[SSAValue, SSAValue] | None = None) -> list[object]:
    """Everything of `root` and the ops in it a clone copies, by position: each
    op's class, properties, attributes, location, results' types and name hints,
    its operands (a value made inside `root` by where it is made, any other by
    identity), its regions' blocks and their arguments, and each value's uses in
    use-list order (by the user's position and operand index). `copied`: values
    made outside `root` -> what they copy (told by that)."""
    copies = {id(new): old for old, new in (copied or {}).items()}
    ops = list(root.walk())
    position = {op: n for n, op in enumerate(ops)}
    blocks = [block for op in ops for r in op.regions for block in r.blocks]
    block_position = {block: n for n, block in enumerate(blocks)}

    def value(v: SSAValue) -> object:
        owner = v.owner
        if isinstance(owner, Operation) and owner in position:
            return ("result", position[owner], v.index)  # type: ignore[attr-defined]
        if isinstance(owner, Block) and owner in block_position:
            return ("arg", block_position[owner], v.index)  # type: ignore[attr-defined]
        if id(v) in copies:
            return ("copy", id(copies[id(v)]))
        return ("outside", id(v))

    def uses(v: SSAValue) -> list[tuple[int, int]]:
        return [(position.get(u.operation, -1), u.index) for u in v.uses]

    shape: list[object] = []
    for op in ops:
        shape.append(
            (
                type(op),
                op.properties,
                op.attributes,
                op.location,
                [(r.type, r.name_hint, uses(r)) for r in op.results],
                [value(v) for v in op.operands],
                [u.index for u in op._operand_uses],
                [u.operation is op for u in op._operand_uses],
                [
                    [
                        (
                            block_position[b],
                            [(a.type, a.name_hint, a.location, uses(a)) for a in b.args],
                        )
                        for b in r.blocks
                    ]
                    for r in op.regions
                ],
                [[b.parent is r for b in r.blocks] for r in op.regions],
                [r.parent is op for r in op.regions],
                op.parent is None if op is root else position[op.parent_op()],  # type: ignore[index]
            )
        )
    return shape


def _stages(kernel: str, variant: str, unroll: int) -> list[builtin.ModuleOp]:
    """The kernel's module after each pass of the variant's pipeline."""
    from xdsl.passes import PassPipeline

    from sim.simulator import _front_end, _passes

    ctx = make_context()
    module = parse_kernel(ctx, kernel, "small")
    preset = "Tflow32k" if variant == "tapeflow" else "Enzyme32k"
    hardware = MODELS["cgra"].hardware(configure(preset))
    _front_end(ctx, module, False)
    passes, _ = _passes(ctx, module, variant, hardware, unroll, "cgra", None, False)
    stages = [module.clone()]
    for one in passes:
        PassPipeline((one,)).apply(ctx, module)
        stages.append(module.clone())
    return stages


@pytest.mark.parametrize(
    ("kernel", "variant", "unroll"),
    [("pathfinder", "tapeflow", 8), ("logsum", "enzyme", 4), ("nn", "tapeflow", 1)],
)
def test_clone_op_is_clone(kernel: str, variant: str, unroll: int) -> None:
    for module in _stages(kernel, variant, unroll):
        for root in [module]:
            made = bulk.clone_op(root)
            reference = root.clone()
            assert _shape(made) == _shape(reference)
            assert _text_of(made) == _text_of(reference)
        # With a mapper: the ops of a function's body, each cloned with one
        # mapper (as a loop's unrolling clones a body), read the copies before.
        function = next(iter(module.ops))
        if function.regions:
            mine: dict[SSAValue, SSAValue] = {}
            theirs: dict[SSAValue, SSAValue] = {}
            block = function.regions[0].blocks.first
            assert block is not None
            copies = [(bulk.clone_op(op, mine), op.clone(value_mapper=theirs)) for op in block.ops]
            assert len(mine) == len(theirs)
            for made, reference in copies:
                assert _shape(made, mine) == _shape(reference, theirs)


def _text_of(op: Operation) -> str:
    import io

    out = io.StringIO()
    Printer(stream=out, print_generic_format=True, print_debuginfo=True).print_op(op)
    return out.getvalue()


@pytest.mark.usefixtures("collector_sees_this_test_only")
@pytest.mark.parametrize(
    ("kernel", "variant", "unroll", "model"),
    [("pathfinder", "tapeflow", 8, "cgra"), ("logsum", "enzyme", 4, "salam")],
)
def test_a_released_module_is_freed_without_the_cycle_collector(
    kernel: str, variant: str, unroll: int, model: str
) -> None:
    """Every op, value, use, block and region of a lowered module is freed by
    reference counting once `release_tree` has cut the module's links and the
    module is dropped, with the cycle collector paused; without the cut, none is
    (each is on a cycle: parent pointers, use lists, results' owners)."""
    import gc
    import weakref

    for released in (True, False):
        ctx = make_context()
        module = parse_kernel(ctx, kernel, "small")
        preset = "Tflow32k" if variant == "tapeflow" else "Enzyme32k"
        hardware = MODELS[model].hardware(configure(preset))
        prepare(ctx, module, variant, hardware, unroll, model=model)
        assert "cgra.kernel" in _text(module)
        gc.collect()
        enabled = gc.isenabled()
        gc.disable()
        try:
            ops = list(module.walk())
            blocks = [block for op in ops for r in op.regions for block in r.blocks]
            regions = [r for op in ops for r in op.regions]
            values = [v for op in ops for v in op.results]
            values += [a for block in blocks for a in block.args]
            uses = [u for v in values for u in v.uses]
            watched = [weakref.ref(x) for x in (*ops, *blocks, *regions, *values, *uses)]
            del ops, blocks, regions, values, uses
            if released:
                bulk.release_tree(module)
                assert not module.regions and not module.results
            del module
            alive = sum(ref() is not None for ref in watched)
        finally:
            if enabled:
                gc.enable()
        assert len(watched) > 300
        assert alive == (0 if released else len(watched)), (released, alive)
        gc.collect()
        assert all(ref() is None for ref in watched)


def test_release_tree_takes_a_detached_op() -> None:
    block, values = _values(1)
    ops = _chain(block, values, 2, random.Random(3))
    bulk.append_ops(block, ops)
    with pytest.raises(ValueError, match="detached"):
        bulk.release_tree(ops[0])
    assert ops[0].results[0].first_use is not None and ops[0].next_op is ops[1]


def _reference_placed(
    op: Operation, schedule: to_cgra.Schedule, operands: list[SSAValue]
) -> Operation:
    """A scheduled op's placed form, made the plain way: its place looked up by
    the op, its properties and attributes copied into a new dictionary each
    time, the op made by `Operation.create`."""
    from xdsl.dialects import memref
    from xdsl.dialects.builtin import DictionaryAttr, StringAttr

    from lowering.scheduling.body import memory_kind
    from tapeflow_dialects import region, stream
    from tapeflow_dialects.container_ops import SlotAccess

    row, col, cycle = schedule.place[op]
    properties: dict[str, Attribute] = {
        "row": builtin.IntegerAttr(row, builtin.i64),
        "col": builtin.IntegerAttr(col, builtin.i64),
        "cycle": builtin.IntegerAttr(cycle, builtin.i64),
    }
    kind = memory_kind(op)
    if kind is None:
        properties["opcode"] = StringAttr(op.name)
        attrs = {**op.properties, **op.attributes}
        if attrs:
            properties["attrs"] = DictionaryAttr(attrs)
        return cgra.ComputeOp.create(
            operands=operands,
            result_types=[r.type for r in op.results],
            properties=properties,
            location=op.location,  # type: ignore[arg-type]
        )
    properties["path"] = MemPathAttr(MemPath.SPAD if kind == "spad" else MemPath.CACHE)
    if isinstance(op, SlotAccess):
        properties["slot"] = builtin.IntegerAttr(op.slot_index, builtin.i64)
    if isinstance(op, memref.LoadOp | region.LoadOp | stream.LoadOp):
        return cgra.LoadOp.create(
            operands=operands,
            result_types=[op.results[0].type],
            properties=properties,
            location=op.location,  # type: ignore[arg-type]
        )
    return cgra.StoreOp.create(
        operands=operands,
        properties=properties,
        location=op.location,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("kernel", "variant", "unroll", "model"),
    [
        ("pathfinder", "enzyme", 8, "cgra"),
        ("logsum", "tapeflow", 4, "salam"),
        ("lenet", "tapeflow", 1, "cgra"),
    ],
)
def test_placed_ops_are_made_as_one_by_one(
    kernel: str, variant: str, unroll: int, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tapeflow-to-cgra`'s placer (each op's place by its id, what its class
    decides once per class, a `cgra.op`'s attributes once per set of attribute
    objects) lowers real kernels to the text the plain construction gives."""
    built = _lowered(kernel, variant, unroll, model)
    with monkeypatch.context() as patch:
        patch.setattr(
            to_cgra._Placer,
            "placed",
            lambda self, op, operands: _reference_placed(op, self.schedule, operands),
        )
        reference = _lowered(kernel, variant, unroll, model)
    assert "cgra.op" in built and "cgra.load" in built
    assert built == reference


def _functions(module: builtin.ModuleOp) -> list[Operation]:
    return [op for op in module.ops if op.regions and op.regions[0].blocks.first is not None]


def _paused_alive(make: object, drop: object) -> tuple[int, list[object]]:
    """With the cycle collector paused: `make()` gives IR objects to watch, then
    `drop()` runs; the number watched and those still alive after."""
    import gc
    import weakref

    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        watched = [weakref.ref(x) for x in make()]  # type: ignore[operator]
        drop()  # type: ignore[operator]
        alive = [ref() for ref in watched if ref() is not None]
    finally:
        if enabled:
            gc.enable()
    return len(watched), alive


def _objects(ops: list[Operation]) -> list[object]:
    blocks = [block for op in ops for r in op.regions for block in r.blocks]
    values = [v for op in ops for v in op.results] + [a for b in blocks for a in b.args]
    return [*ops, *blocks, *values, *(u for v in values for u in v.uses)]


@pytest.mark.parametrize("released", [True, False])
def test_released_blocks_are_freed_without_the_cycle_collector(released: bool) -> None:
    """A lowered function's body, detached: `release_blocks` cuts its links and
    reference counting frees every op, block, value and use once dropped; erased
    as xDSL erases a block, none is."""
    ctx = make_context()
    module = parse_kernel(ctx, "pathfinder", "small")
    prepare(ctx, module, "enzyme", configure("Enzyme32k"), 1024)
    function = max(_functions(module), key=lambda f: sum(1 for _ in f.walk()))
    body = function.regions[0]
    kept: list[Block] = []
    counted: list[int] = []

    def make() -> list[object]:
        kept.extend(body.detach_block(b) for b in list(body.blocks))
        ops = [op for block in kept for op in block.walk()]
        counted.append(len(ops))
        return _objects(ops)

    def drop() -> None:
        if released:
            bulk.release_blocks(kept)
        else:
            for block in kept:
                block.erase(safe_erase=False)
        kept.clear()

    watched, alive = _paused_alive(make, drop)
    assert watched > 300
    if released:
        assert not alive
    else:  # every op is on a cycle (its results name it): none is freed
        assert sum(isinstance(x, Operation) for x in alive) == counted[0]


def test_release_blocks_takes_detached_blocks() -> None:
    block, values = _values(1)
    ops = _chain(block, values, 2, random.Random(3))
    bulk.append_ops(block, ops)
    region = Region([block])
    with pytest.raises(ValueError, match="detached"):
        bulk.release_blocks([block])
    assert block.parent is region and ops[0].next_op is ops[1]


def test_the_body_tapeflow_layers_replaces_is_freed_without_the_cycle_collector() -> None:
    """`tapeflow-layers` replaces each gradient's body by its layered copy: the
    body it replaced is freed by reference counting (the pass releases it), with
    the cycle collector paused; the module is then placed and verified as ever."""
    from xdsl.passes import PassPipeline

    from lowering.pipelines import hardware_pipeline, parse_pipeline

    ctx = make_context()
    module = parse_kernel(ctx, "pathfinder", "small")
    hardware = MODELS["cgra"].hardware(configure("Tflow32k"))
    parse_pipeline("tapeflow-enzyme,tapeflow-measure-tape").apply(ctx, module)
    passes = parse_pipeline(hardware_pipeline("tapeflow", hardware, 4)).passes
    cut = next(n for n, p in enumerate(passes) if p.name == "tapeflow-layers")
    PassPipeline(passes[:cut]).apply(ctx, module)

    from lowering.tapeflow_layers import _region_gradients

    def make() -> list[object]:
        functions = _region_gradients(module)  # the functions the pass layers
        assert functions
        return _objects([op for f in functions for op in f.walk() if op is not f])

    def drop() -> None:
        passes[cut].apply(ctx, module)

    watched, alive = _paused_alive(make, drop)
    assert watched > 300
    # Nothing of the replaced body is left but a few loops' emptied shells,
    # which the pass's memos of loops may hold: no value, use or block.
    assert all(isinstance(x, Operation) and not x.regions and not x.results for x in alive)
    assert len(alive) < watched / 100
    PassPipeline(passes[cut + 1 :]).apply(ctx, module)
    module.verify()
    assert "cgra.kernel" in _text(module)


def test_the_lowering_memo_frees_the_module_it_no_longer_keeps() -> None:
    """A `LoweringMemo` that keeps another pipeline's module (the next variant's)
    releases the one it kept, which only it held: freed by reference counting."""
    from sim.simulator import LoweringMemo

    ctx = make_context()
    first = parse_kernel(ctx, "pathfinder", "small")
    prepare(ctx, first, "enzyme", configure("Enzyme32k"), 4)
    memo = LoweringMemo(4)
    memo.keep((), first)
    second = parse_kernel(ctx, "logsum", "small")

    def make() -> list[object]:
        assert memo.module is not None
        return _objects(list(memo.module.walk()))

    watched, alive = _paused_alive(make, lambda: memo.keep((), second))
    assert watched > 300 and not alive
    assert memo.module is not None and _text(memo.module) == _text(second)
