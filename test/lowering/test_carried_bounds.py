"""
A strip-mined innermost loop's tiles carry their bounds from the tile before
(`lowering.layers.tiles.strip_mine`): the tile loop carries the tile's end (both
bounds in REV where its first tile is partial) and its row count, and the tile's
loop computes the next tile's as loop-invariant ops of its own body. Checked on
`two-loops.mlir` (loop A: 8 iterations of 2 tape values) by hand: the tiles each
sweep runs, the ops the tile's loop adds, none left before it, and the cost
model's bookkeeping charge, none a tile. And a loop of run-time bounds, `index`
or `i32`, streamed whole: no trip, one partial tile, several from an `lb` other
than 0, each computing the Enzyme stage's bits.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from stage_checks import assert_matches_central_differences, differentiate, same_bits
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from lowering.ir.index_eval import IndexEvaluator
from lowering.ir.loops import trip_count
from lowering.layers import cost
from lowering.layers.records import CARRIED_BOUNDS
from lowering.tapeflow_layers import layer_module
from lowering.tapeflow_pipeline import TapeflowPipelinePass
from lowering.tapeflow_regions import form_regions
from sim.simulator import prepare
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import cgra, layer
from tapeflow_dialects.layer import Phase
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function
from targets.hardware import configure

INPUTS = Path(__file__).parents[1] / "filecheck" / "passes" / "tapeflow-layers" / "Inputs"


def _layered(spad: int) -> ModuleOp:
    path = INPUTS / "two-loops.mlir"
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    layer_module(module, spad, 1, 1)  # no machine: every nest streamed
    return module


def _tiles(op: layer.LayerOp) -> list[tuple[int, int, int]]:
    """The (start, end, row count) of each tile the layer `op` runs, read off the
    IR: the tile loop's constant bounds and first carried values, then each tile's
    next ones, evaluated from the values of the tile before."""
    tile_loop = op.parent_op()
    assert isinstance(tile_loop, scf.ForOp)
    (mined,) = (o for o in op.body.block.ops if isinstance(o, scf.ForOp))
    count = mined.attributes[CARRIED_BOUNDS].value.data  # type: ignore[attr-defined]
    args = tile_loop.body.block.args
    carried = args[len(args) - count :]
    nexts = list(mined.body.block.last_op.operands)[-count:]  # type: ignore[union-attr]
    lb, ub, step = (IndexEvaluator(()).value(v) for v in tile_loop.operands[:3])
    values = [int(IndexEvaluator(()).value(v)) for v in tile_loop.iter_args[-count:]]
    tiles = []
    for index in range(int(lb), int(ub), int(step)):
        given: dict[SSAValue, int] = {args[0]: index, **dict(zip(carried, values, strict=True))}
        evaluator = IndexEvaluator((), given)
        lo, hi = (int(evaluator.value(v)) for v in (mined.lb, mined.ub))
        tiles.append((lo, hi, values[-1]))
        values = [int(evaluator.value(v)) for v in nexts]
    return tiles


def _tiled_layers(module: ModuleOp) -> dict[Phase, layer.LayerOp]:
    return {
        op.phase.data: op
        for op in module.walk()
        if isinstance(op, layer.LayerOp)
        and any(isinstance(o, scf.ForOp) for o in op.body.block.ops)
    }


def test_a_partial_tile_s_bounds_come_from_the_tile_before() -> None:
    # 48 B: tiles of 3 of loop A's 8 iterations. FWD: [0, 3), [3, 6), [6, 8), the
    # last of 2 rows (an iteration is a row). REV reads the tiles last first: its
    # loop runs iteration u where FWD ran 7 - u, so its first tile is FWD's last,
    # [0, 2) of 2 rows, then [2, 5) and [5, 8).
    layers = _tiled_layers(_layered(48))
    assert _tiles(layers[Phase.FWD]) == [(0, 3, 3), (3, 6, 3), (6, 8, 2)]
    assert _tiles(layers[Phase.REV]) == [(0, 2, 2), (2, 5, 3), (5, 8, 3)]
    for op in layers.values():
        # Nothing is computed in a tile before its loop; the loop computes the next
        # tile's: FWD's end `hi + min(3, 8 - hi)` (3 ops), REV's `hi + 3` (1 op).
        assert [o.name for o in op.body.block.ops if not isinstance(o, arith.ConstantOp)] == [
            "layer.salloc",
            "scf.for",
            "layer.barrier",
        ]
        (mined,) = (o for o in op.body.block.ops if isinstance(o, scf.ForOp))
        added = [
            o.name
            for o in mined.body.block.ops
            if isinstance(o, arith.SubiOp | arith.MinSIOp | arith.AddiOp)
        ]
        if op.phase.data is Phase.FWD:
            assert added == ["arith.subi", "arith.minsi", "arith.addi"]
        else:  # after Enzyme's reversed index, `7 - u`, of the loop's own body
            assert added == ["arith.subi", "arith.addi"]
        # The cost model charges a tile its chain of ops before its loop: none.
        assert cost._tile_chain(op, layers[Phase.FWD], set()) == 0


def test_whole_tiles_carry_their_end_and_a_constant_row_count() -> None:
    # 64 B: tiles of 4, both whole: [0, 4) and [4, 8) of 4 rows in each sweep, the
    # next end `hi + 4`.
    layers = _tiled_layers(_layered(64))
    for op in layers.values():
        assert _tiles(op) == [(0, 4, 4), (4, 8, 4)]


def test_no_kernel_runs_before_a_tile_s_loop_once_placed() -> None:
    # softdtw (small) streamed whole on Tflow32k under `cgra`: each tile of its two
    # strip-mined band loops ran a kernel of its bounds (3 integer ops in a chain)
    # before its loop; now a tile holds its loop's kernel alone.
    hardware = configure("Tflow32k")
    hardware = replace(hardware, mapping=replace(hardware.mapping, stream_by_cost=False))
    ctx = make_context()
    module = parse_kernel(ctx, "softdtw", "small")
    prepare(ctx, module, "tapeflow", hardware)
    tiles = [op for op in module.walk() if isinstance(op, layer.LayerOp)]
    assert {op.phase.data for op in tiles} == {Phase.FWD, Phase.REV}
    for op in tiles:
        kernels = [o for o in op.body.block.ops if isinstance(o, cgra.KernelOp)]
        assert kernels == []
        (mined,) = (o for o in op.body.block.ops if isinstance(o, scf.ForOp))
        assert CARRIED_BOUNDS in mined.attributes
        tile_loop = op.parent_op()
        assert isinstance(tile_loop, scf.ForOp) and trip_count(tile_loop) != 1


def test_a_loop_of_branches_computes_its_tiles_bounds_before_its_loop() -> None:
    # ifstore: the tape is stored under an `scf.if`, so the tile's loop is no
    # kernel (its ops run one after another, an iteration at a time) and would
    # compute the next tile's bounds every iteration: its tiles compute theirs
    # before the loop, once a tile, as they did.
    path = INPUTS / "ifstore.mlir"
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    form_regions(module)
    layer_module(module, 16, 1, 1)
    layers = _tiled_layers(module)
    assert set(layers) == {Phase.FWD, Phase.REV}
    for op in layers.values():
        (mined,) = (o for o in op.body.block.ops if isinstance(o, scf.ForOp))
        assert CARRIED_BOUNDS not in mined.attributes
        assert len(op.results) == 0


CARRIED_LOOP = Path(__file__).parent / "inputs" / "carried_loop.mlir"


def _carried_loop(kind: str) -> str:
    """`carried_loop.mlir`, its bounds of `kind`: `index` as written, or `i32`
    (the loop then counts in i32 and casts its index for the loads)."""
    text = CARRIED_LOOP.read_text()
    if kind == "index":
        return text
    for old, new in (
        ("%lb: index, %ub: index", "%lb: i32, %ub: i32"),
        ("index, index) -> ()", "i32, i32) -> ()"),
        ("%c1 = arith.constant 1 : index", "%c1 = arith.constant 1 : i32"),
        ("-> (f64) {", "-> (f64) : i32 {"),
        ("%k = arith.addi %i, %c0 : index", "%k = arith.index_cast %i : i32 to index"),
    ):
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("kind", ["index", "i32"])
@pytest.mark.parametrize(("lb", "ub"), [(0, 0), (2, 3), (1, 7), (3, 37)])
def test_carried_bounds_keep_the_enzyme_values(kind: str, lb: int, ub: int) -> None:
    """Streamed whole (`stream=always`) in scratchpads of tiles of 2, 3 and 6
    iterations: no trip, one partial tile, several with a partial last one, from
    an `lb` other than 0, in the loop's own integer type; the caller computes the
    Enzyme stage's bits, and its gradient is central differences'."""
    text = _carried_loop(kind)
    rng = np.random.default_rng(lb * 40 + ub)
    dtype = np.int64 if kind == "index" else np.int32
    given = {
        **{f"arg{a}": rng.uniform(-1, 1, 40) for a in range(4)},
        "arg4": np.array(lb, dtype=dtype),
        "arg5": np.array(ub, dtype=dtype),
    }
    enzyme = differentiate(text)
    reference = run_function(enzyme, "f_grad", {k: v.copy() for k, v in given.items()})
    primal = LocatingParser(make_context(), text, "carried.mlir").parse_module()
    assert_matches_central_differences(
        primal,
        [given["arg0"], given["arg2"], given["arg4"], given["arg5"]],
        [given["arg1"], given["arg3"], None, None],
        [reference["arg1"], reference["arg3"]],
        f"carried {kind} [{lb}, {ub})",
    )
    for spad in (32, 48, 96):  # tiles of 2, 3 and 6 iterations of 2 tape values
        for unroll in (1, 2):
            module = enzyme.clone()
            TapeflowPipelinePass(spad_bytes=spad, unroll=unroll, stream="always").apply(
                make_context(), module
            )
            module.verify()
            mined = [
                o
                for o in module.walk()
                if isinstance(o, scf.ForOp) and CARRIED_BOUNDS in o.attributes
            ]
            assert len(mined) == 2, (spad, unroll)  # FWD's and REV's strip-mined loops
            got = run_function(module, "f_grad", {k: v.copy() for k, v in given.items()})
            assert same_bits(got, reference) is None, (spad, unroll)
