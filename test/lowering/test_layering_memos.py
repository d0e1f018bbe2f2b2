"""
What `tapeflow-layers` reads many times over is worked out once, with the same
answers as worked out afresh:

- the cost model's walks of a function and of its layered copy, read from lists
  made once (`lowering.ir.walk.frozen_walks`): the pass's output, its reports
  and the choices `nest_choices` makes are those of walks made each time;
- an access's element coefficients (`cost._element`), `_affine`'s and
  `_loop_indices`' answers shared by the accesses of one nest;
- byte offsets (`cost._byte_offset`) and the mirror check (`state._mirror_error`)
  with one `IndexEvaluator` shared by the accesses evaluated at one iteration or
  in one nest.

On real kernels (fully unrolled bodies among them) and on random kernels.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import replace

import pytest
from xdsl.dialects import memref, scf
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import PassFailedException

import lowering.tapeflow_layers as layers_pass
from lowering.ir.bulk import clone_op
from lowering.ir.index_eval import IndexEvaluator
from lowering.ir.loops import enclosing_loops
from lowering.layers import cost, state
from lowering.layers.cost import StreamMachine
from lowering.tapeflow_layers import TapeflowLayersPass, layer_module, nest_choices
from sim.simulator import _front_end, _passes
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import region
from tapeflow_tools.context import make_context
from targets.hardware import configure

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, reject, settings  # noqa: E402
from random_kernels import RandomKernel, kernels  # noqa: E402

MACHINES = [StreamMachine(), replace(StreamMachine(), cache_bytes=1024, cache_mshrs=1)]


def _stage(ctx, module, unroll: int, spad: int):  # type: ignore[no-untyped-def]
    """`module` lowered as `prepare` lowers it under cgra, up to `tapeflow-layers`,
    and that pass."""
    hardware = configure("Tflow32k")
    hardware = replace(hardware, scratchpad=replace(hardware.scratchpad, size_bytes=spad))
    _front_end(ctx, module, False)
    passes, cut = _passes(ctx, module, "tapeflow", hardware, unroll, "cgra", None, False)
    PassPipeline(passes[:cut]).apply(ctx, module)
    layers = passes[cut]
    assert isinstance(layers, TapeflowLayersPass)
    return module, layers


def _text(module: Operation) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def _machine(layers: TapeflowLayersPass) -> StreamMachine:
    return StreamMachine(
        **{f: getattr(layers, f) for f in StreamMachine.__dataclass_fields__}  # type: ignore[arg-type]
    )


def _check_frozen_walks(module, layers: TapeflowLayersPass, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Layering and choosing with the walks frozen and made afresh agree."""
    found = []
    for frozen in (True, False):
        with monkeypatch.context() as patch:
            if not frozen:
                patch.setattr(layers_pass, "frozen_walks", lambda *_: contextlib.nullcontext())
            copy = clone_op(module)
            choices = nest_choices(copy, layers.spad_bytes, MACHINES, layers.tiles_in_flight)
            reports = layer_module(
                copy,
                layers.spad_bytes,
                layers.tiles_in_flight,
                layers.loop_tiles_in_flight,
                _machine(layers),
            )
            found.append((_text(copy), [r.table() for r in reports], choices))
    assert found[0] == found[1]


def _check_shared_answers(module: Operation) -> tuple[int, int]:
    """Each access's coefficients, loop indices, byte offsets and mirror check
    with answers shared, as worked out alone; the offsets and the mirrors
    checked."""
    offsets = mirrors = 0
    for function in (op for op in module.walk() if op.name == "func.func"):
        memos: dict[tuple[scf.ForOp, ...], tuple[dict, dict]] = {}
        evaluators: dict = {}
        shared: dict = {}
        stores: dict = {}
        for op in function.walk():
            if isinstance(op, region.StoreOp):
                stores[(op.region, op.store_id)] = op
            if not isinstance(op, memref.LoadOp | memref.StoreOp):
                continue
            loops = enclosing_loops(op, function)
            ivs = {loop.body.block.args[0] for loop in loops}
            memo = memos.setdefault(loops, ({}, {}))
            assert cost._element(op, ivs, memo) == cost._element(op, ivs)
            for index in op.indices:
                assert cost._loop_indices(index, ivs, memo[1]) == cost._loop_indices(index, ivs)
            bounds = [cost.static_bounds_of(loop) for loop in loops]
            if any(b is None for b in bounds):
                continue
            for step in range(3):  # the loops at their first iterations
                at = {
                    loop.body.block.args[0]: b[0] + step * b[2]  # type: ignore[index]
                    for loop, b in zip(loops, bounds, strict=True)
                }
                key = tuple(at.items())
                evaluator = shared.setdefault(key, IndexEvaluator((), at))
                assert cost._byte_offset(op, at, evaluator) == cost._byte_offset(op, at)
                offsets += 1
        for op in function.walk():
            if isinstance(op, region.LoadOp):
                store = stores.get((op.region, op.loaded_id))
                if store is not None:
                    alone = state._mirror_error(store, op, function)
                    assert state._mirror_error(store, op, function, evaluators) == alone
                    mirrors += 1
    return offsets, mirrors


@pytest.mark.parametrize(
    ("key", "unroll", "spad"),
    [
        ("pathfinder", 1024, 512),
        ("logsum", 1024, 512),
        ("lenet", 1, 512),
        ("nn", 1, 64),
        ("massspring", 1, 512),
        ("gravity", 2, 64),
    ],
)
def test_real_kernels(key, unroll, spad, monkeypatch):
    ctx = make_context()
    module, layers = _stage(ctx, parse_kernel(ctx, key, "small"), unroll, spad)
    offsets, mirrors = _check_shared_answers(module)
    assert offsets and mirrors
    _check_frozen_walks(module, layers, monkeypatch)
    layered = clone_op(module)
    layers.apply(ctx, layered)
    _check_shared_answers(layered)  # tile loops, pieces and layers around the accesses


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(kernels(max_nests=2))
def test_random_kernels(kernel: RandomKernel) -> None:
    ctx = make_context()
    module = Parser(ctx, kernel.text).parse_module()
    try:
        module, layers = _stage(ctx, module, 2, 64)
    except PassFailedException:
        reject()  # a kernel the passes before layering refuse (their own tests cover it)
    _check_shared_answers(module)
    with pytest.MonkeyPatch.context() as patch:
        _check_frozen_walks(module, layers, patch)
