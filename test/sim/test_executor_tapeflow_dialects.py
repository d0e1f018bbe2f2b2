"""The reference executor on the `region`, `layer` and `stream` dialects."""

from __future__ import annotations

import numpy as np
import pytest

from sim.executor import ExecutionError, Executor
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser, verify_located
from tapeflow_tools.tapeflow_run import run_function


def _module(text: str):
    # Every case is valid IR: the errors below are the ones only running can find.
    module = LocatingParser(make_context(), text, "case.mlir").parse_module()
    verify_located(module)
    return module


def _run(text: str, name: str, *args):
    return Executor(_module(text)).run(name, list(args))


# --------------------------------------------------------------------- region

REGION_ROUND_TRIP = """
    func.func @f(%x: f64) -> (f64, f64, index) {
      %r = region.alloc : !region.region<4, [f64, index]>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %two = arith.constant 2.0 : f64
      %ten = arith.constant 10.0 : f64
      %zero = arith.constant 0.0 : f64
      %a4 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> (f64) {
        %sq = arith.muli %i, %i : index
        region.store %a, %r[%i] slot 0 id 0 : f64, !region.region<4, [f64, index]>
        region.store %sq, %r[%i] slot 1 id 1 : index, !region.region<4, [f64, index]>
        %ii = arith.index_cast %i : index to i64
        %fi = arith.sitofp %ii : i64 to f64
        %d = arith.mulf %a, %two : f64
        %n = arith.addf %d, %fi : f64
        scf.yield %n : f64
      }
      %acc, %ksum = scf.for %j = %c0 to %c4 step %c1
          iter_args(%s = %zero, %ks = %c0) -> (f64, index) {
        %k = arith.subi %c3, %j : index
        %ak = region.load %r[%k] slot 0 from 0 : !region.region<4, [f64, index]> -> f64
        %q = region.load %r[%k] slot 1 from 1 : !region.region<4, [f64, index]> -> index
        %q64 = arith.index_cast %q : index to i64
        %fq = arith.sitofp %q64 : i64 to f64
        %s10 = arith.mulf %s, %ten : f64
        %t = arith.addf %s10, %ak : f64
        %u = arith.addf %t, %fq : f64
        %ks2 = arith.addi %ks, %q : index
        scf.yield %u, %ks2 : f64, index
      }
      region.free %r : !region.region<4, [f64, index]>
      func.return %a4, %acc, %ksum : f64, f64, index
    }"""


def test_region_round_trip_through_two_slots_in_reverse() -> None:
    # FWD: a0 = 1, a(i+1) = 2 a(i) + i -> a = 1, 2, 5, 12, 27; slot 1 holds i*i.
    # REV reads k = 3, 2, 1, 0: acc = (((12+9)*10 + 5+4)*10 + 2+1)*10 + 1+0 = 21931.
    a4, acc, ksum = _run(REGION_ROUND_TRIP, "f", 1.0)
    assert (a4, acc, ksum) == (27.0, 21931.0, 14)
    assert type(a4) is float and type(acc) is float and type(ksum) is int


def test_region_round_trip_through_run_function() -> None:
    out = run_function(_module(REGION_ROUND_TRIP), "f", {"arg0": np.array(1.0)})
    assert float(out["result0"]) == 27.0
    assert float(out["result1"]) == 21931.0
    assert int(out["result2"]) == 14


REGION_MISUSE = """
    func.func @f(%i: index, %j: index, %v: f64) -> f64 {
      %r = region.alloc : !region.region<4, [f64, f64]>
      region.store %v, %r[%i] slot 1 id 0 : f64, !region.region<4, [f64, f64]>
      %x = region.load %r[%j] slot 1 from 0 : !region.region<4, [f64, f64]> -> f64
      region.free %r : !region.region<4, [f64, f64]>
      func.return %x : f64
    }
    func.func @after_free(%v: f64) -> f64 {
      %c0 = arith.constant 0 : index
      %r = region.alloc : !region.region<4, [f64]>
      region.store %v, %r[%c0] slot 0 id 0 : f64, !region.region<4, [f64]>
      region.free %r : !region.region<4, [f64]>
      %x = region.load %r[%c0] slot 0 from 0 : !region.region<4, [f64]> -> f64
      func.return %x : f64
    }"""


def test_region_load_before_store_is_an_error() -> None:
    assert _run(REGION_MISUSE, "f", 2, 2, 2.5) == (2.5,)
    with pytest.raises(
        ExecutionError,
        match=r"^case.mlir:5:7: 'region.load' \(slot 1, from store 0\) reads entry "
        r"\[3\] before it was written$",
    ):
        _run(REGION_MISUSE, "f", 2, 3, 2.5)


def test_region_index_out_of_range_is_an_error() -> None:
    # numpy would wrap -1 to the last struct; the region must not.
    for bad in (4, -1):
        with pytest.raises(
            ExecutionError,
            match=rf"^case.mlir:4:7: 'region.store' entry \[{bad}\] slot 1 is out of "
            r"range for !region.region<4, \[f64, f64\]>$",
        ):
            _run(REGION_MISUSE, "f", bad, 0, 2.5)


def test_region_use_after_free_is_an_error() -> None:
    with pytest.raises(
        ExecutionError,
        match=r"^case.mlir:14:7: 'region.load' uses !region.region<4, \[f64\]> after "
        r"its region.free$",
    ):
        _run(REGION_MISUSE, "after_free", 1.0)


# ------------------------------------------------------------ layer and stream

STRIP_MINED = """
    func.func @f(%x: memref<7xf64>, %out: memref<7xf64>) -> f64 {
      %tape = stream.alloc bytes BUDGET : !stream.tape
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c7 = arith.constant 7 : index
      %zero = arith.constant 0.0 : f64
      %ten = arith.constant 10.0 : f64
      %hundred = arith.constant 100.0 : f64
      scf.for %t = %c0 to %c7 step %c4 {
        layer.layer 0 fwd partner 1 {
          %tile = layer.salloc base 0 capacity 128 : !layer.spad<4x2>
          %left = arith.subi %c7, %t : index
          %n = arith.minsi %left, %c4 : index
          scf.for %i = %c0 to %n step %c1 {
            %e = arith.addi %t, %i : index
            %v = memref.load %x[%e] : memref<7xf64>
            stream.store %v, %tile[%i] slot 0 id 0 : f64, !layer.spad<4x2>
            stream.store %e, %tile[%i] slot 1 id 1 : index, !layer.spad<4x2>
          }
          stream.fwd %tile rows %n to %tape id 0 : !layer.spad<4x2>
          layer.barrier
        }
      }
      %acc = scf.for %j = %c0 to %c2 step %c1 iter_args(%a = %zero) -> (f64) {
        %back = arith.subi %c1, %j : index
        %t = arith.muli %back, %c4 : index
        %sum = layer.layer 1 rev partner 0 -> f64 {
          %tile = layer.salloc base 0 capacity 128 : !layer.spad<4x2>
          %left = arith.subi %c7, %t : index
          %n = arith.minsi %left, %c4 : index
          stream.rev %tape rows %n to %tile of 0 : !layer.spad<4x2>
          %s = scf.for %i = %c0 to %n step %c1 iter_args(%p = %zero) -> (f64) {
            %v = stream.load %tile[%i] slot 0 from 0 : !layer.spad<4x2> -> f64
            %e = stream.load %tile[%i] slot 1 from 1 : !layer.spad<4x2> -> index
            %e64 = arith.index_cast %e : index to i64
            %fe = arith.sitofp %e64 : i64 to f64
            %v10 = arith.mulf %v, %ten : f64
            %w = arith.addf %v10, %fe : f64
            %here = arith.addi %t, %i : index
            memref.store %w, %out[%here] : memref<7xf64>
            %p2 = arith.addf %p, %v : f64
            scf.yield %p2 : f64
          }
          layer.barrier %s : f64
        }
        %a100 = arith.mulf %a, %hundred : f64
        %a2 = arith.addf %a100, %sum : f64
        scf.yield %a2 : f64
      }
      func.return %acc : f64
    }"""


def test_strip_mined_fwd_and_rev_layers_stream_tiles_lifo() -> None:
    # Tiles of 4 and 3 rows: (4 + 3) rows x 2 slots x 8 bytes = 112 bytes of tape.
    executor = Executor(_module(STRIP_MINED.replace("BUDGET", "112")))
    x = np.arange(1.0, 8.0)
    out = np.zeros(7)
    (acc,) = executor.run("f", [x, out])
    # REV takes the 3-row tile first (5 + 6 + 7 = 18), then the 4-row one (10).
    assert acc == 18.0 * 100.0 + 10.0
    # Each REV row finds its own FWD row: out[e] = 10 x[e] + e.
    assert out.tolist() == [10.0, 21.0, 32.0, 43.0, 54.0, 65.0, 76.0]
    assert executor.stats == {
        "stream_bytes_written": 112,
        "stream_bytes_read": 112,
        "stream_tiles_written": 2,
        "stream_tiles_read": 2,
        "spad_peak_entries_full": 8,
        # A tape of fixed size (no slabs); both tiles are on it before REV pops one.
        "stream_slabs": 0,
        "tape_high_water_bytes": 112,
    }


def test_stream_tape_over_its_budget_is_an_error() -> None:
    with pytest.raises(
        ExecutionError,
        match=r"^case.mlir:23:11: 'stream.fwd' \(id 0\) pushes 48 bytes onto a tape of "
        r"104 bytes that already holds 64$",
    ):
        text = STRIP_MINED.replace("BUDGET", "104")
        _run(text, "f", np.arange(1.0, 8.0), np.zeros(7))


SCRATCHPAD_LOAD = """
    func.func @f(%i: index, %j: index, %v: f64) -> f64 {
      layer.layer 0 fwd partner 1 {
        %tile = layer.salloc base 2 capacity 64 : !layer.spad<3x2>
        stream.store %v, %tile[%i] slot 1 id 3 : f64, !layer.spad<3x2>
        layer.barrier
      }
      %x = layer.layer 1 rev partner 0 -> f64 {
        %tile = layer.salloc base 2 capacity 64 : !layer.spad<3x2>
        %x = stream.load %tile[%j] slot 1 from 3 : !layer.spad<3x2> -> f64
        layer.barrier %x : f64
      }
      func.return %x : f64
    }"""


def test_stream_load_of_an_empty_entry_is_an_error() -> None:
    # No stream: the REV layer reads the tile the FWD layer left in the scratchpad.
    assert _run(SCRATCHPAD_LOAD, "f", 1, 1, 4.5) == (4.5,)
    # Row 2, slot 1 of a 3x2 tile at entry 2 is entry 2 + 2*2 + 1 = 7.
    with pytest.raises(
        ExecutionError,
        match=r"^case.mlir:10:9: 'stream.load' \(slot 1, from store 3\) reads "
        r"scratchpad entry 7 \(row 2\) before a REV stream or store filled it$",
    ):
        _run(SCRATCHPAD_LOAD, "f", 1, 2, 4.5)


def test_stream_store_outside_its_tile_is_an_error() -> None:
    with pytest.raises(
        ExecutionError,
        match=r"^case.mlir:5:9: 'stream.store' entry \(row 3, slot 1\) is outside its "
        r"tile of 3 rows x 2 slots$",
    ):
        _run(SCRATCHPAD_LOAD, "f", 3, 0, 4.5)


TWO_STREAMS = """
    func.func @f(%v: f64, %w: f64, %n: index, %m: index, %first: i1) -> f64 {
      %tape = stream.alloc bytes 1024 : !stream.tape
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      layer.layer 0 fwd partner 2 {
        %tile = layer.salloc base 0 capacity 256 : !layer.spad<2x1>
        stream.store %v, %tile[%c0] slot 0 id 0 : f64, !layer.spad<2x1>
        stream.store %v, %tile[%c1] slot 0 id 1 : f64, !layer.spad<2x1>
        stream.fwd %tile rows %c2 to %tape id 0 : !layer.spad<2x1>
        layer.barrier
      }
      layer.layer 1 fwd partner 3 {
        %tile = layer.salloc base 4 capacity 256 : !layer.spad<2x1>
        stream.store %w, %tile[%c0] slot 0 id 2 : f64, !layer.spad<2x1>
        stream.fwd %tile rows %n to %tape id 1 : !layer.spad<2x1>
        layer.barrier
      }
      %x = scf.if %first -> (f64) {
        %y = layer.layer 2 rev partner 0 -> f64 {
          %tile = layer.salloc base 0 capacity 256 : !layer.spad<2x1>
          stream.rev %tape rows %c2 to %tile of 0 : !layer.spad<2x1>
          %y = stream.load %tile[%c1] slot 0 from 1 : !layer.spad<2x1> -> f64
          layer.barrier %y : f64
        }
        scf.yield %y : f64
      } else {
        %y = layer.layer 3 rev partner 1 -> f64 {
          %tile = layer.salloc base 4 capacity 256 : !layer.spad<2x1>
          stream.rev %tape rows %m to %tile of 1 : !layer.spad<2x1>
          %y = stream.load %tile[%c0] slot 0 from 2 : !layer.spad<2x1> -> f64
          layer.barrier %y : f64
        }
        scf.yield %y : f64
      }
      func.return %x : f64
    }"""


def test_stream_rev_pops_the_top_tile() -> None:
    # FWD-stream 1 pushed last, so its one-row tile (holding %w) comes back first.
    assert _run(TWO_STREAMS, "f", 3.0, 5.0, 1, 1, False) == (5.0,)


def test_stream_rev_of_another_fwd_stream_is_an_error() -> None:
    # REV layer 2 runs first, but the top of the tape is FWD-stream 1's tile.
    with pytest.raises(
        ExecutionError,
        match=r"^case.mlir:23:11: 'stream.rev' expects the tile of FWD-stream 0 \(2 "
        r"rows x 1 slots\), but the top of the tape is the tile of FWD-stream 1 \(1 "
        r"rows x 1 slots\)$",
    ):
        _run(TWO_STREAMS, "f", 3.0, 5.0, 1, 1, True)


def test_stream_rev_of_other_rows_is_an_error() -> None:
    with pytest.raises(
        ExecutionError,
        match=r"^case.mlir:31:11: 'stream.rev' expects the tile of FWD-stream 1 \(0 "
        r"rows x 1 slots\), but the top of the tape is the tile of FWD-stream 1 \(1 "
        r"rows x 1 slots\)$",
    ):
        _run(TWO_STREAMS, "f", 3.0, 5.0, 1, 0, False)


UNWRITTEN_ROW = """
    func.func @f(%v: f64) -> f64 {
      %tape = stream.alloc bytes 1024 : !stream.tape
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      layer.layer 0 fwd partner 1 {
        %tile = layer.salloc base 0 capacity 256 : !layer.spad<2x1>
        stream.store %v, %tile[%c0] slot 0 id 0 : f64, !layer.spad<2x1>
        stream.fwd %tile rows %c2 to %tape id 0 : !layer.spad<2x1>
        layer.barrier
      }
      %y = layer.layer 1 rev partner 0 -> f64 {
        %tile = layer.salloc base 0 capacity 256 : !layer.spad<2x1>
        stream.rev %tape rows %c2 to %tile of 0 : !layer.spad<2x1>
        %y = stream.load %tile[%c1] slot 0 from 0 : !layer.spad<2x1> -> f64
        layer.barrier %y : f64
      }
      func.return %y : f64
    }"""


def test_an_unwritten_entry_streams_back_empty() -> None:
    # FWD fills row 0 only and spills two rows; the entry of row 1 travels with its
    # empty bit, so the REV load of it fails instead of reading a stale value.
    with pytest.raises(
        ExecutionError,
        match=r"^case.mlir:16:9: 'stream.load' \(slot 0, from store 0\) reads "
        r"scratchpad entry 1 \(row 1\) before a ",
    ):
        _run(UNWRITTEN_ROW, "f", 3.0)


SALLOC_CAPACITIES = """
    func.func @f(%v: f64) -> f64 {
      layer.layer 0 fwd partner 1 {
        %tile = layer.salloc base 0 capacity 128 : !layer.spad<2x2>
        layer.barrier
      }
      %x = func.call @g(%v) : (f64) -> f64
      %y = layer.layer 1 rev partner 0 -> f64 {
        %tile = layer.salloc base 0 capacity 128 : !layer.spad<2x2>
        layer.barrier %x : f64
      }
      func.return %y : f64
    }
    func.func @g(%v: f64) -> f64 {
      layer.layer 2 fwd partner 3 {
        %tile = layer.salloc base 0 capacity 256 : !layer.spad<2x2>
        layer.barrier
      }
      %y = layer.layer 3 rev partner 2 -> f64 {
        %tile = layer.salloc base 0 capacity 256 : !layer.spad<2x2>
        layer.barrier %v : f64
      }
      func.return %y : f64
    }"""


def test_salloc_capacities_that_disagree_are_an_error() -> None:
    executor = Executor(_module(SALLOC_CAPACITIES))
    # A function called from the run shares the caller's scratchpad.
    with pytest.raises(
        ExecutionError,
        match=r"^case.mlir:16:9: 'layer.salloc' names a scratchpad of 256 bytes, but "
        r"this run's scratchpad has 128 bytes \(set by the 'layer.salloc' at "
        r"case.mlir:4:9\)$",
    ):
        executor.run("f", [1.0])
    # Each run has its own scratchpad: @g alone sizes it to 256 bytes.
    assert executor.run("g", [2.0]) == (2.0,)
    assert executor.scratchpad is not None and executor.scratchpad.capacity == 256
