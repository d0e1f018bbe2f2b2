"""
`lowering.ir.walk.walk_ops` yields what xDSL's `walk()` yields, in its order:
for lowered modules of real kernels (the module, each region and each block),
for random nests of ops with regions, and for walks whose caller erases the op
it meets, inserts an op after it or gives it a region as it goes. Inside
`frozen_walks`, the walks read from a list made once are the same.
"""

from __future__ import annotations

import random

import pytest
from xdsl.dialects import test
from xdsl.dialects.builtin import IntAttr, ModuleOp
from xdsl.ir import Block, Operation, Region

from lowering.ir.walk import _frozen, frozen_walks, walk_ops
from sim.models import MODELS
from sim.simulator import prepare
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_tools.context import make_context
from targets.hardware import configure


def _same_everywhere(root: Operation) -> None:
    assert list(walk_ops(root)) == list(root.walk())
    for op in root.walk():
        assert list(walk_ops(op)) == list(op.walk())
        for region in op.regions:
            assert list(walk_ops(region)) == list(region.walk())
            for block in region.blocks:
                assert list(walk_ops(block)) == list(block.walk())


@pytest.mark.parametrize(
    "kernel, variant, unroll",
    [("pathfinder", "tapeflow", 2), ("nn", "enzyme", 1), ("lenet", "tapeflow", 1)],
)
def test_lowered_modules(kernel, variant, unroll):
    ctx = make_context()
    module = parse_kernel(ctx, kernel, "small")
    _same_everywhere(module)  # the primal, before differentiation
    preset = "Tflow32k" if variant == "tapeflow" else "Enzyme32k"
    prepare(ctx, module, variant, MODELS["cgra"].hardware(configure(preset)), unroll)
    _same_everywhere(module)
    _same_frozen(module)


def _same_frozen(root: Operation) -> None:
    """Within `frozen_walks` of `root` (and of one of its ops, nested), every walk
    is xDSL's; on leaving, nothing stays frozen."""
    inner = next((op for op in root.walk() if op.regions and op is not root), root)
    with frozen_walks(root):
        with frozen_walks(inner, root):
            _same_everywhere(root)
        _same_everywhere(root)
        assert _frozen  # the outer one still holds `root`
    assert not _frozen
    with frozen_walks(inner):  # an op first, then the root around it
        with frozen_walks(root):
            _same_everywhere(root)
        _same_everywhere(root)
    assert not _frozen


def _random_nest(rng: random.Random, depth: int, counter: list[int]) -> Operation:
    """An op labelled by its creation order, with 0-2 regions of 0-2 blocks of
    0-4 ops each, nested up to `depth`."""
    regions = []
    if depth > 0:
        for _ in range(rng.randrange(3)):
            blocks = []
            for _ in range(rng.randrange(3)):
                ops = [_random_nest(rng, depth - 1, counter) for _ in range(rng.randrange(5))]
                blocks.append(Block(ops))
            regions.append(Region(blocks))
    counter[0] += 1
    return test.TestOp(regions=regions, attributes={"n": IntAttr(counter[0])})


@pytest.mark.parametrize("seed", range(30))
def test_random_nests(seed):
    rng = random.Random(seed)
    root = ModuleOp([_random_nest(rng, 4, [0]) for _ in range(rng.randrange(1, 4))])
    _same_everywhere(root)
    _same_frozen(root)


def _label(op: Operation) -> int:
    label = op.attributes.get("n")
    return 0 if label is None else label.data  # type: ignore[attr-defined]


def _mutating_walk(walk, root: Operation, plan: dict[int, str]) -> list[int]:
    """The labels `walk(root)` yields while the op labelled n, when met, is
    erased, has an op inserted after it, or is given one more region, of one op
    (`plan`)."""
    seen = []
    for op in walk(root):
        seen.append(_label(op))
        action = plan.get(_label(op))
        if action == "erase" and op.parent is not None:
            op.parent.erase_op(op)
        elif action == "insert-after" and op.parent is not None:
            op.parent.insert_op_after(test.TestOp(attributes={"n": IntAttr(-_label(op))}), op)
        elif action == "add-region":
            inner = test.TestOp(attributes={"n": IntAttr(10_000 + _label(op))})
            op.add_region(Region(Block([inner])))
    return seen


@pytest.mark.parametrize("seed", range(30))
def test_walks_that_change_the_ir_as_they_go(seed):
    rng = random.Random(seed)
    counter = [0]
    root = ModuleOp([_random_nest(rng, 3, counter) for _ in range(rng.randrange(1, 4))])
    plan = {
        n: rng.choice(["erase", "insert-after", "add-region"])
        for n in range(1, counter[0] + 1)
        if rng.random() < 0.3
    }
    theirs = _mutating_walk(lambda r: r.walk(), root.clone(), plan)
    ours = _mutating_walk(walk_ops, root.clone(), plan)
    assert ours == theirs
