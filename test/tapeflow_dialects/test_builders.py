"""Building TapeFlow IR from Python: constructors, verifiers and printing."""

from __future__ import annotations

import pytest
from xdsl.builder import Builder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, ModuleOp, f64
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from tapeflow_dialects import cgra, enzyme, layer, region, stream, tape


def _function(name: str, arg_types, build) -> ModuleOp:
    block = Block(arg_types=arg_types)
    builder = Builder(InsertPoint.at_end(block))
    build(builder, *block.args)
    builder.insert(func.ReturnOp())
    return ModuleOp([func.FuncOp(name, (arg_types, []), Region(block))])


def test_tape_store_load_roundtrip_and_sizes() -> None:
    tape_type = tape.TapeType([8, 4], f64)
    assert tape_type.entries() == 32 and tape_type.size_bytes() == 256

    def build(b: Builder, v, i, j) -> None:
        t = b.insert(tape.AllocOp(tape_type, "sub")).tape
        b.insert(tape.StoreOp(v, t, [i, j], 0))
        loaded = b.insert(tape.LoadOp(t, [j, i], 0))
        assert loaded.result.type == f64
        b.insert(tape.FreeOp(t))

    module = _function("f", [f64, IndexType(), IndexType()], build)
    module.verify()
    text = str(module)
    assert 'tape.alloc name "sub" : !tape.tape<8x4xf64>' in text
    assert "from 0 : !tape.tape<8x4xf64> -> f64" in text


def test_tape_load_without_store_is_rejected() -> None:
    def build(b: Builder, i) -> None:
        t = b.insert(tape.AllocOp(tape.TapeType([8], f64))).tape
        b.insert(tape.LoadOp(t, [i], 4))

    with pytest.raises(VerifyException, match="reads the value of store 4"):
        _function("f", [IndexType()], build).verify()


def test_region_struct_layout() -> None:
    region_type = region.RegionType([8], [f64, IndexType(), f64])
    assert [region_type.slot_offset(s) for s in range(3)] == [0, 8, 16]
    assert region_type.struct_bytes() == 24
    assert region_type.size_bytes() == 8 * 24

    def build(b: Builder, v, i) -> None:
        r = b.insert(region.AllocOp(region_type)).region
        b.insert(region.StoreOp(v, r, [i], 2, 7))
        assert b.insert(region.LoadOp(r, [i], 2, 7)).result.type == f64
        b.insert(region.StoreOp(v, r, [i], 3, 8))

    with pytest.raises(VerifyException, match="slot 3 is out of range"):
        _function("f", [f64, IndexType()], build).verify()


def test_layers_streams_and_partners() -> None:
    tile_type = layer.SpadType(4, 3)
    assert tile_type.size_bytes() == 96

    def build(b: Builder, v) -> None:
        t = b.insert(stream.AllocOp(1024)).tape
        rows = b.insert(arith.ConstantOp.from_int_and_width(4, IndexType())).result
        row = b.insert(arith.ConstantOp.from_int_and_width(1, IndexType())).result

        fwd_body = Block()
        fb = Builder(InsertPoint.at_end(fwd_body))
        tile = fb.insert(layer.SAllocOp(tile_type, 0, 512)).tile
        fb.insert(stream.StoreOp(v, tile, row, 2, 0))
        fb.insert(stream.FwdOp(tile, rows, t, 0))
        fb.insert(layer.BarrierOp())
        b.insert(layer.LayerOp(0, layer.Phase.FWD, 1, Region(fwd_body)))

        rev_body = Block()
        rb = Builder(InsertPoint.at_end(rev_body))
        tile = rb.insert(layer.SAllocOp(tile_type, 0, 512)).tile
        rb.insert(stream.RevOp(t, rows, tile, 0))
        value = rb.insert(stream.LoadOp(tile, row, 2, 0, f64)).result
        rb.insert(layer.BarrierOp([value]))
        rev = b.insert(layer.LayerOp(1, layer.Phase.REV, 0, Region(rev_body), [f64]))
        assert rev.salloc.base.value.data == 0

    module = _function("f", [f64], build)
    module.verify()
    assert "layer.layer 1 rev partner 0 -> f64" in str(module)


def test_salloc_beyond_capacity_is_rejected() -> None:
    body = Block()
    Builder(InsertPoint.at_end(body)).insert(layer.SAllocOp(layer.SpadType(8, 8), 8, 512))
    Builder(InsertPoint.at_end(body)).insert(layer.BarrierOp())
    op = layer.LayerOp(0, layer.Phase.FWD, 1, Region(body))
    with pytest.raises(VerifyException, match="beyond the configured scratchpad of 512"):
        op.salloc.verify()


def test_cgra_placement_checks_grid() -> None:
    def build(b: Builder, a) -> None:
        body = Block()
        kb = Builder(InsertPoint.at_end(body))
        kb.insert(cgra.ComputeOp("arith.mulf", [a, a], [f64], (1, 5), 0))
        kb.insert(cgra.YieldOp())
        b.insert(cgra.KernelOp(0, (2, 8), 1, Region(body)))

    _function("ok", [f64], build).verify()  # (1, 5) is inside a 2x8 grid

    def build_outside(b: Builder, a) -> None:
        body = Block()
        kb = Builder(InsertPoint.at_end(body))
        kb.insert(cgra.ComputeOp("arith.mulf", [a, a], [f64], (2, 0), 0))
        kb.insert(cgra.YieldOp())
        b.insert(cgra.KernelOp(0, (2, 8), 1, Region(body)))

    with pytest.raises(VerifyException, match=r"PE \(2, 0\), outside the 2x8 grid"):
        _function("bad", [f64], build_outside).verify()


def test_enzyme_autodiff_counts_shadows_and_seeds() -> None:
    def build(b: Builder, x, dx, seed) -> None:
        op = enzyme.AutoDiffOp(
            "f", [x, dx, seed], [f64], [enzyme.Activity.DUP], [enzyme.Activity.ACTIVE]
        )
        assert op.expected_input_count() == 3
        b.insert(op)
        cache = b.insert(enzyme.InitOp(enzyme.CacheType(f64))).result
        b.insert(enzyme.PushOp(cache, seed))
        assert b.insert(enzyme.PopOp(cache)).result.type == f64

    from xdsl.dialects.builtin import MemRefType

    mem = MemRefType(f64, [4])
    module = _function("g", [mem, mem, f64], build)
    with pytest.raises(VerifyException, match="there is no function @f"):
        module.verify()
    module.body.block.add_op(func.FuncOp.external("f", [mem], [f64]))
    module.verify()
    assert "<{activity = [#enzyme.activity<enzyme_dup>]" in str(module)
