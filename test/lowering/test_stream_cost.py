"""
The cost model of `tapeflow-layers{stream=auto}` (`lowering.layers.cost`) on cases
computed by hand from its rules, and `stream=always` as the paper's pass:

- a tape that fits the cache, cut into many small tiles (its REV reads hit), is
  streamed where FWD's first-touch misses and the ports save more than the tiles'
  bookkeeping adds (a DRAM latency of 100), kept where they save less (50);
- a nest far beyond the cache is streamed;
- misses of the tape that fall in the primal's groups save nothing, nor does
  memory time a loop's recurrence hides, unless the primal's own misses (a
  column walked a line an iteration) make the loop memory-bound anyway;
- an access is reused when its element is not one-to-one in the loop indices,
  and hits where an earlier sibling loop touched its elements in the same outer
  iteration;
- a triangular nest's iterations are counted over its outer loops (a bound of a
  function argument gives no count), and a run-time tile loop's count of tiles is
  charged its own ops alone;
- rowlse (a row log-sum-exp, 1000 rows of 4) is streamed by `auto` on the cgra
  machine, its tiles' kernels priced as the lowering computes them (bounds, row
  count and each group's first row), as `always` layers it; a tile loop is not
  charged the bounds its kept loop computes too; batchnorm's kept nest and its
  streamed one compute Enzyme's values;
- the REV layers' waits for their preloads are those `sim.models.streams` times
  for the same sequences (and cases by hand); the small MTTKRP's body layers on
  a 64 B scratchpad are kept, faster than streamed;
- a loop's pipeline fill follows its operands and the accesses that may meet,
  and the runs that follow each other as tiles of one strip-mined loop save it
  but once per chain (by hand);
- a REV layer's run includes each of its short inner loops' pipeline fills, and
  the REV work before a nest hides part of its first preload's wait (by hand);
- a piece of straight-line stores that cuts a kernel whose parts both miss costs
  the overlap of their misses (by hand);
- a loop whose iteration stores more than a straight-line layer holds, cut into
  pieces, loses the overlap of its iterations: each pays the loop's pipeline fill
  (by hand), and that keeps a nest streaming would otherwise take;
  a nest of run-time trip counts that is one such loop is priced an iteration
  by the same rule (its misses grouped as a run's, by hand); conv5u's window
  loop (50 entries a pixel) is kept so, with its height constant or an argument;
- a loop issues at the scheduler's ii with its tape through the cache (kept) or
  the scratchpad (streamed): trisolv's FWD loop 13 and 12, those of its lowered
  kernels, so `auto` streams it.
"""

from __future__ import annotations

from dataclasses import replace
from math import ceil
from pathlib import Path

import numpy as np
import pytest
from stage_checks import kernel_enzyme_outputs, same_bits
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from lowering.ir.loops import enclosing_loops, trip_count
from lowering.layers import cost
from lowering.layers.cost import StreamMachine, _groups, nest_runs, trip_runs
from lowering.scheduling.body import LoopBody
from lowering.scheduling.scheduler import sinks_last
from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_layers import layer_module, nest_choices
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from sim.models.streams import stream_times
from sim.simulator import prepare, simulate
from tapeflow_benchmarks.common import caller_arguments, parse_kernel
from tapeflow_benchmarks.kernels import ALL_KERNELS, NEST_KERNELS
from tapeflow_dialects import cgra, layer, region
from tapeflow_dialects.layer import Phase
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from targets.hardware import Hardware, configure

INPUTS = Path(__file__).parents[1] / "filecheck" / "passes" / "tapeflow-layers" / "Inputs"
CGRA = StreamMachine()  # Tflow32k under cgra: 32 KB, 64 B lines, 8 MSHRs, 2 ports, 100 cycles


def _layered(
    name: str, spad: int, machine: StreamMachine | None, in_flight: int = 1
) -> tuple[ModuleOp, object]:
    path = INPUTS / name
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    (report,) = layer_module(module, spad, in_flight, in_flight, machine=machine)
    return module, report


def _kept(module: ModuleOp) -> list[str]:
    return [
        op.attributes[region.KEPT].data  # type: ignore[attr-defined]
        for op in module.walk()
        if isinstance(op, region.AllocOp) and region.KEPT in op.attributes
    ]


FILL = (1 + 2 + 30 + 4 + 5 + 4 + 1) - 1
"""The REV loop of short-tape and long-tape fills its pipeline in an iteration's
longest latency path, `subi` (1), a load (a cache hit, 2), `cos` (30), `mulf`
(4), `addf` (5), `mulf` (4), the store (1), less the cycle an iteration takes."""


def test_a_tape_that_fits_the_cache_in_small_tiles_is_streamed_where_it_saves_misses() -> None:
    # 64 iterations storing 2 values: FWD's 128 first touches fill 16 lines, 2
    # groups of 8 misses (400 cycles at a DRAM latency of 200, 100 at 50); REV
    # hits. A hit holds one of the 2 ports a cycle (a miss does not): FWD's 64 loads
    # of x and 112 tape hits 88 cycles, REV's 64 stores of dx and 128 tape hits 96,
    # 32 without the tape. A loop's iterations issue at the scheduler's ii: each
    # loop's 3 cache accesses (x and 2 tape stores; 2 tape loads and dx) over the
    # 2 ports take an ii of 2 kept (128 cycles for 64 iterations), its one cache
    # access an ii of 1 streamed (64; the scratchpad's 8 banks take the tape's 2,
    # and 16 PEs a body of 4 or 8 ops): 400 + 88 - 64 in FWD, 128 - 64 in REV,
    # whose memory time (96) the kept loop's ii hides. A 1 KB scratchpad holding 32 tiles:
    # full tiles of 2 iterations (4 entries, 32 B), 32 of them, the tile loop's
    # index their first iteration, their end carried from the tile before (`hi +
    # 2`, computed in the tile loop's kernel beside its work): no kernel of bounds,
    # FWD's or REV's. The ring holds all 32 REV tiles: their preloads are issued
    # at the REV sweep's start, one after the other on the channel (32 B at 9.6
    # bytes a cycle), tile k's there at L + (k + 1) * 10/3 for a DRAM latency L.
    # The first REV layer starts at once and waits ceil(L + 10/3) = L + 4; it runs
    # 2 cycles (no recurrence, one cache access a cycle) and, the first run of its
    # loop, its pipeline's fill (`FILL`, 46), and ends at L + 52. Each later tile
    # continues that pipeline and starts 2 cycles (its run) after the one before,
    # tile k at L + 50 + 2k, after its preload (L + (k + 1) * 10/3, k < 32): none
    # waits, L + 4 in all.
    module, report = _layered("short-tape.mlir", 1024, replace(CGRA, dram_latency=200), 32)
    (choice,) = report.nests  # type: ignore[attr-defined]
    saved = (400 + 88 - 64) + (128 - 64)
    added = 200 + 4
    assert (choice.saved, choice.added, choice.fits) == (saved, added, True)
    assert choice.stream and not _kept(module)
    # At a latency of 1 the FWD loop is no longer memory-bound kept (2 + 88
    # under its 128 cycles of issue): 128 - 64 in each loop, and the tiles add
    # 1 + 4 = 5: streamed.
    module, report = _layered("short-tape.mlir", 1024, replace(CGRA, dram_latency=1), 32)
    (choice,) = report.nests  # type: ignore[attr-defined]
    assert (choice.saved, choice.added) == ((128 - 64) + (128 - 64), 1 + 4)
    assert choice.stream and not _kept(module)
    # With 4 ports as well, the hits hold them 168 / 4 = 42 cycles in FWD (with
    # 3 groups of misses, 3 cycles) and 192 / 4 = 48 in REV, both under the 64
    # the loops take at an ii of 1 either way (3 cache accesses over 4 ports):
    # nothing saved, against the 5 the first tile waits: kept.
    fast = replace(CGRA, dram_latency=1, cache_ports=4)
    module, report = _layered("short-tape.mlir", 1024, fast, 32)
    (choice,) = report.nests  # type: ignore[attr-defined]
    assert (choice.saved, choice.added) == (0, 1 + 4)
    assert not choice.stream
    assert report.layers == [] and len(_kept(module)) == 1  # type: ignore[attr-defined]


def test_a_tile_that_fills_the_scratchpad_waits_for_its_preload() -> None:
    # The same tiles of 2 iterations in a 32 B scratchpad: the ring holds one, so
    # each REV tile's preload is issued when the tile before it ends and arrives a
    # DRAM latency and its transfer (32 B at 9.6 bytes a cycle) later, while its
    # layer starts at once (its bounds carried from the tile before):
    # ceil(100 + 32/9.6) = 104 cycles a REV tile. Each tile after the first
    # continues its loop's pipeline and, after its wait, fills it again (`FILL`):
    # 3328 + 31 * 46 in all, against the 288 streaming saves (at a DRAM latency
    # of 100, 2 groups of FWD misses: 200 + 88 - 64; REV 128 - 64, as above):
    # kept.
    module, report = _layered("short-tape.mlir", 32, CGRA)
    (choice,) = report.nests  # type: ignore[attr-defined]
    assert (choice.saved, choice.added) == ((200 + 88 - 64) + (128 - 64), 32 * 104 + 31 * FILL)
    assert not choice.stream and len(_kept(module)) == 1


def test_a_nest_far_beyond_the_cache_is_streamed() -> None:
    # 8192 iterations: 1024 lines of x and 2048 of tape miss in ceil(3072 / 8) =
    # 384 groups where x alone takes 128 (FWD; REV likewise with dx), and the
    # tape's 16384 - 2048 hits hold the 2 ports 7168 cycles per sweep. Tiles of 32
    # iterations (64 entries of 512 B): 256.
    module, report = _layered("long-tape.mlir", 512, CGRA)
    (choice,) = report.nests  # type: ignore[attr-defined]
    assert choice.saved == 2 * (256 * 100 + 7168)
    # Each tile fills the 512 B scratchpad: a REV tile of 32 iterations (32
    # cycles: no recurrence, one cache access a cycle) has its preload issued when
    # the tile before it ends, and waits for the latency and its transfer (512 B
    # at 9.6 bytes a cycle): ceil(100 + 512/9.6) = 154; each after the first then
    # fills its loop's pipeline again. The bounds (full tiles: the end `hi + 32`)
    # are carried from the tile before, computed in its loop's kernel: none.
    assert choice.added == 256 * 154 + 255 * FILL
    assert choice.stream and not _kept(module)


def test_a_tape_that_evicts_reused_data_saves_those_misses() -> None:
    # The long tape with a load that reuses x[0] in every iteration, so x (64 KB)
    # is reused data: where the tape and the arrays do not fit, each cache's worth
    # of tape (128 KB over 32 KB: 4) may evict the reused lines the cache holds
    # (512) once more, in FWD and in REV, a group of its own each.
    path = INPUTS / "long-tape.mlir"
    text = path.read_text().replace(
        "    %s = math.sin %a : f64\n",
        "    %x0 = memref.load %x[%c0] : memref<8192xf64>\n"
        "    %s0 = math.sin %a : f64\n"
        "    %s = arith.addf %s0, %x0 : f64\n",
    )
    module = LocatingParser(make_context(), text, str(path)).parse_module()
    (report,) = layer_module(module, 512, machine=CGRA)
    (choice,) = report.nests
    assert choice.saved == 2 * (256 * 100 + 7168) + 2 * 4 * 512 * 100


def test_memory_time_under_a_recurrence_is_not_saved() -> None:
    # The long tape with FWD summing sin(x_i): an fadd (5 cycles) carried from one
    # iteration to the next makes FWD take 8192 * 5 = 40960 cycles at least, more
    # than its memory time without the tape (128 groups of misses of x and 7168
    # hits over 2 ports: 16384), less than with it (384 groups, and 8192 - 1024 +
    # 16384 - 2048 hits: 49152); REV as before, 256 groups of 100 cycles and 7168
    # port cycles saved.
    path = INPUTS / "long-tape.mlir"
    text = _summing(path.read_text())
    assert "iter_args" in text and "%more" in text
    module = LocatingParser(make_context(), text, str(path)).parse_module()
    (report,) = layer_module(module, 512, machine=CGRA)
    (choice,) = report.nests
    assert choice.saved == (49152 - 40960) + (256 * 100 + 7168)


def _summing(text: str) -> str:
    """The long tape with FWD summing sin(x_i): an fadd carried across iterations."""
    return text.replace(
        "  scf.for %i = %c0 to %cn step %c1 {\n    %a = memref.load %x",
        "  %zero = arith.constant 0.0 : f64\n"
        "  %sum = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %zero) -> (f64) {\n"
        "    %a = memref.load %x",
    ).replace(
        "slot 1 id 1 : f64, !region.region<8192, [f64, f64]>\n  }",
        "slot 1 id 1 : f64, !region.region<8192, [f64, f64]>\n"
        "    %more = arith.addf %acc, %s : f64\n"
        "    scf.yield %more : f64\n  }",
    )


def test_a_column_walk_misses_a_line_an_iteration_and_hides_no_tape_miss() -> None:
    # The summing long tape with x and dx columns of 8192x8 matrices: each iteration
    # loads x[i][0], 64 B past the last, a line of its own (8192 misses, 1024
    # groups: 102400 cycles, more than the 40960 of the fadd recurrence). The
    # tape's 2048 lines add 256 groups and its 14336 hits 7168 port cycles, all
    # saved in FWD, and likewise in REV (dx[i][0], no recurrence).
    path = INPUTS / "long-tape.mlir"
    text = (
        _summing(path.read_text())
        .replace("memref<8192xf64>", "memref<8192x8xf64>")
        .replace("%x[%i]", "%x[%i, %c0]")
        .replace("%dx[%i]", "%dx[%i, %c0]")
    )
    assert text.count("8192x8xf64") == 4 and "%more" in text
    module = LocatingParser(make_context(), text, str(path)).parse_module()
    (report,) = layer_module(module, 512, machine=CGRA)
    (choice,) = report.nests
    assert choice.saved == 2 * (256 * 100 + 7168)


REUSE = """
func.func @f(%x: memref<65536xf64>, %y: memref<64xf64>, %w: memref<16x3xf64>,
             %s: memref<131072xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %c257 = arith.constant 257 : index
  %z = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c256 step %c1 {
    %first = arith.addi %i, %c1 : index
    %row = arith.muli %i, %c256 : index
    scf.for %j = %first to %c256 step %c1 {
      %ij = arith.addi %row, %j : index
      %jrow = arith.muli %j, %c256 : index
      %ji = arith.addi %jrow, %i : index
      memref.store %z, %x[%ij] : memref<65536xf64>
      memref.store %z, %x[%ji] : memref<65536xf64>
      %i257 = arith.muli %i, %c257 : index
      %j256 = arith.muli %j, %c256 : index
      %skew = arith.addi %i257, %j256 : index
      memref.store %z, %s[%skew] : memref<131072xf64>
    }
  }
  scf.for %p = %c0 to %c16 step %c1 {
    scf.for %k = %c0 to %c3 step %c1 {
      %at = arith.addi %p, %k : index
      memref.store %z, %y[%at] : memref<64xf64>
      memref.store %z, %w[%p, %k] : memref<16x3xf64>
    }
  }
  func.return
}
"""


def test_reuse_and_lines_follow_the_element_s_affine_form() -> None:
    # x[i*256 + j] and x[j*256 + i] with j < 256 touch each element once (one to
    # one in (i, j)): the row walk misses a line every 8 iterations of j, the
    # column walk (2 KB a step) every iteration. s[257i + 256j] is one to one too:
    # 257 di = -256 dj needs di a multiple of 256, beyond i's 256 iterations (no
    # coefficient exceeds the other's span, 256 * 254). y[p + k] is a stencil (p
    # and k both step by 1: reused); w[p][k] of a 16x3 matrix is one to one (p
    # steps 3, past k's span of 2).
    module = LocatingParser(make_context(), REUSE, "reuse.mlir").parse_module()
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    row, column, skew, stencil, matrix = [
        op for op in module.walk() if isinstance(op, memref.StoreOp)
    ]
    accesses = (row, column, skew, stencil, matrix)
    reuse = cost.AccessReuse(function)
    assert [reuse.reused(o) for o in accesses] == [False, False, False, True, False]
    assert [reuse.lines(o, 64, 32768) for o in accesses] == [1 / 8, 1.0, 1.0, 0.0, 1 / 8]
    # Asked again (the cost model asks per nest and per machine): the same answers.
    lines = [reuse.lines(o, 64, 32768) for o in reversed(accesses)]
    assert lines == [1 / 8, 0.0, 1.0, 1.0, 1 / 8]
    # The stencil's neighbouring iterations share its elements, whatever the cache.
    assert reuse.reuse_distance(stencil, 64) == 0 and reuse.lines(stencil, 64, 64) == 0.0
    (i, j) = enclosing_loops(row, function)
    assert cost.loop_extents((i, j)) == [256, 255]


def _covariance(preset: str) -> tuple[func.FuncOp, set[object]]:
    """PolyBench's covariance at the regions stage: its gradient and the region of
    its triangular nest (its only region)."""
    ctx = make_context()
    module = parse_kernel(ctx, "covariance", preset)
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    (alloc,) = [op for op in module.walk() if isinstance(op, region.AllocOp)]
    function = alloc.parent_op()
    assert isinstance(function, func.FuncOp) and not alloc.region.type.is_static()
    return function, {alloc.region}


def test_reuse_beyond_the_cache_misses() -> None:
    # Covariance's triangle (paper size: data 32x16, `for i < 16, j in [i, 16), k <
    # 32` loading data[k][i] and data[k][j], then storing cov[i][j] and cov[j][i]):
    # data[k][i] is reused across j, and one iteration of j walks two columns of 32
    # rows, a row 128 B apart, so a line a row each: 64 lines, all of data's 4 KB,
    # and a line of cov for each store: 66. An LRU cache of fewer lines (2 KB: 32;
    # 4 KB: 64) misses them again, a line an iteration (a stride of 128 B over 64 B
    # lines); 8 KB (128 lines) holds them.
    function, _ = _covariance("paper")
    reuse = cost.AccessReuse(function)
    loads = [
        op
        for op in function.walk()
        if isinstance(op, memref.LoadOp) and len(enclosing_loops(op, function)) == 3
    ]
    first = loads[0]  # FWD's data[k][i]
    assert reuse.reuse_distance(first, 64) == 64 + 2
    assert [reuse.lines(first, 64, size) for size in (2048, 4096, 8192)] == [1.0, 1.0, 0.0]


INVARIANT = """
func.func @f(%a: memref<64xf64>, %b: memref<64x64xf64>, %c: memref<64x64xf64>,
             %d: memref<64x64xf64>, %e: memref<64x64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %x = memref.load %a[%i] : memref<64xf64>
      %y = memref.load %b[%j, %i] : memref<64x64xf64>
      %z = memref.load %c[%j, %i] : memref<64x64xf64>
      %w = memref.load %d[%j, %i] : memref<64x64xf64>
      %s = arith.addf %x, %y : f64
      %t = arith.addf %s, %z : f64
      %u = arith.addf %t, %w : f64
      memref.store %u, %e[%j, %i] : memref<64x64xf64>
    }
  }
  func.return
}
"""


def test_reuse_across_the_innermost_loop_beyond_the_cache_misses() -> None:
    # a[i] is reused across j, the innermost loop: between two uses one iteration
    # of j touches a line of each of b, c, d and e (columns: a row 512 B apart)
    # and a's own, 5 lines. A 256 B cache of 64 B lines (4 lines, LRU) has
    # evicted a's line by its next use: a miss an iteration of j. 32 KB holds it.
    module = LocatingParser(make_context(), INVARIANT, "invariant.mlir").parse_module()
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    reuse = cost.AccessReuse(function)
    first = next(op for op in function.walk() if isinstance(op, memref.LoadOp))
    assert reuse.reused(first) and reuse.reuse_distance(first, 64) == 5
    assert [reuse.lines(first, 64, size) for size in (256, 32768)] == [1.0, 0.0]


SIBLINGS = """
func.func @f(%a: memref<1024x16xf64>, %b: memref<1024x16xf64>, %e: memref<1024x16xf64>,
             %g: memref<1024x16xf64>, %y: memref<16xf64>, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %c1023 = arith.constant 1023 : index
  scf.for %i = %c0 to %c1023 step %c1 {
    %ip = arith.addi %i, %c1 : index
    scf.for %j = %c0 to %c16 step %c1 {
      %v = memref.load %a[%i, %j] : memref<1024x16xf64>
      %r = arith.subi %c15, %j : index
      %w = memref.load %b[%i, %r] : memref<1024x16xf64>
      %s = arith.addf %v, %w : f64
      memref.store %s, %y[%j] : memref<16xf64>
    }
    scf.if %p {
      scf.for %j = %c0 to %c16 step %c1 {
        %v = memref.load %e[%i, %j] : memref<1024x16xf64>
        memref.store %v, %y[%j] : memref<16xf64>
      }
    }
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %g[%i, %j] : memref<1024x16xf64>
      memref.store %v, %y[%j] : memref<16xf64>
    }
    scf.for %k = %c0 to %c16 step %c1 {
      %v = memref.load %a[%i, %k] : memref<1024x16xf64>
      %r = arith.subi %c15, %k : index
      %w = memref.load %b[%i, %r] : memref<1024x16xf64>
      %n = memref.load %a[%ip, %k] : memref<1024x16xf64>
      %x = memref.load %e[%i, %k] : memref<1024x16xf64>
      %z = memref.load %g[%i, %k] : memref<1024x16xf64>
      %s = arith.addf %v, %w : f64
      %t = arith.addf %s, %n : f64
      %u = arith.addf %t, %x : f64
      %q = arith.addf %u, %z : f64
      memref.store %q, %y[%k] : memref<16xf64>
    }
  }
  func.return
}
"""


def test_a_row_an_earlier_sibling_loop_touched_hits() -> None:
    # PolyBench's atax: each iteration of i reads row a[i] in one inner loop, then
    # again in the next. a and b (128 KB each) do not fit a 32 KB cache and no
    # access reuses an element across a loop around it: the first loop's a[i][j]
    # and its reversed b[i][15 - j] miss a line every 8 iterations. The last loop's
    # a[i][k] and b[i][15 - k] touch the elements the first loop did, in the same
    # iteration of i, between them at most that iteration's lines, counted per
    # access (`_carrier_lines`: a 2 + 2 + 2, b 2 + 2, e 2 + 2, g 1 + 2, y all its
    # 2 lines; 19 of the cache's 512): they hit. a[i + 1][k] (the next row), e[i][k]
    # (its earlier loop runs under a branch) and g[i][k] (its earlier loop covers
    # 8 of the 16 elements) still miss; so does a[i][k] in a cache of one line,
    # which an iteration's other lines evict.
    module = LocatingParser(make_context(), SIBLINGS, "siblings.mlir").parse_module()
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    loads = [op for op in function.walk() if isinstance(op, memref.LoadOp)]
    first_a, first_b, _, _, last_a, last_b, next_a, later_e, later_g = loads
    reuse = cost.AccessReuse(function)
    lines = [reuse.lines(o, 64, 32768) for o in loads]
    assert [lines[loads.index(o)] for o in (first_a, first_b)] == [1 / 8, 1 / 8]
    assert [lines[loads.index(o)] for o in (last_a, last_b)] == [0.0, 0.0]
    assert [lines[loads.index(o)] for o in (next_a, later_e, later_g)] == [1 / 8] * 3
    assert reuse.carrier_lines(enclosing_loops(last_a, function)[0], 64) == 6 + 4 + 4 + 3 + 2
    assert reuse.lines(last_a, 64, 64) == 1 / 8


def test_atax_s_second_loop_s_tape_misses_are_saved_where_its_row_hits() -> None:
    # atax with rows of 16 (1024 of them; A 128 KB, past the 32 KB cache): each
    # run of the second inner loop stores 16 tape values (2 lines of first-touch
    # misses) and reads row A[i], which the first loop has just read. Counted as
    # missing too, A's 2 lines fell in the tape's groups and streaming saved
    # little: the nest was kept (cgra: 608,692 cycles, against 514,427 streamed).
    # Hitting, the tape's misses are each run's only group: streamed.
    kernel = replace(ALL_KERNELS["atax"], sizes={"rows": {"M": 1024, "N": 16}})
    ctx = make_context()
    module = LocatingParser(ctx, kernel.mlir("rows"), "atax.rows.mlir").parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    (report,) = layer_module(module, 512, 2, 4, CGRA)
    assert report.nests and all(choice.stream for choice in report.nests)  # type: ignore[attr-defined]
    assert not report.kept, report.table()


def test_a_triangle_whose_reuse_misses_saves_its_tape_s_groups() -> None:
    # Covariance's triangle on a 2 KB cache: its 136 runs of k (32 iterations) are
    # memory-bound with or without the tape. FWD: data[k][i] and data[k][j] miss a
    # line an iteration (above), 64 misses, 8 groups of 8 (800 cycles), no hit; the
    # tape's 2 stores an iteration add 64 * 8 B = 8 lines, 9 groups (900) and 128 -
    # 72 = 56 hits over 2 ports (28): 128 cycles a run, over a recurrence (the
    # fadd's) far below 800. REV: the loads and stores of d_data[k][i] and
    # d_data[k][j] miss a line an iteration each (128 misses, 16 groups); the tape
    # (69,632 B with the arrays, beyond the cache) misses in REV too, its 2 loads 8
    # lines: 17 groups, and (6 * 32 - 136) / 2 = 28 port cycles: 128 a run again.
    function, triangle = _covariance("paper")
    small = replace(CGRA, cache_bytes=2048)
    assert cost.saved_cycles(function, triangle, small) == 2 * 136 * (100 + 28)


def test_always_streams_what_auto_keeps() -> None:
    module, report = _layered("short-tape.mlir", 32, None)
    assert not _kept(module) and not report.nests  # type: ignore[attr-defined]
    assert [(r.rows, r.slots, r.instances) for r in report.layers] == [(2, 2, 32)]  # type: ignore[attr-defined]


def test_nest_choices_are_the_pass_s_for_each_machine() -> None:
    # short-tape in a 1 KB scratchpad of 32 tiles at a 1-cycle DRAM and 4 cache
    # ports is kept (above); at 1000 cycles and 2 ports its 2 groups of FWD misses
    # alone save 2000 cycles, more than the 1000 + 4 its first REV tile waits for
    # its preload (above; its tiles' bounds are carried, no kernel): streamed.
    fast = replace(CGRA, dram_latency=1, cache_ports=4)
    slow = replace(CGRA, dram_latency=1000)
    path = INPUTS / "short-tape.mlir"
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    text = str(module)
    found = nest_choices(module, 1024, [fast, slow], 32, 32)
    assert str(module) == text  # one layering for all, the module left as it was
    assert [[c.stream for c in nests] for (nests,) in found] == [[False], [True]]
    assert found[1][0][0].saved >= 2 * 1000
    assert found[1][0][0].added == 1000 + 4
    for choices, machine in zip(found, (fast, slow), strict=True):
        layered = _layered("short-tape.mlir", 1024, machine, 32)
        assert choices == (tuple(layered[1].nests),)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("primal", "tape", "saved"),
    [
        (0.5, 0.5, 0.0),  # rows of 4 words of x and of tape: both miss every 2nd row
        (1250.0, 2500.0, 469 - 157),  # one long window: the tape's misses add groups
        (0.0, 0.25, 0.25),  # no primal miss: a tape line every 4th run costs a group
    ],
)
def test_tape_misses_cost_only_the_groups_they_add(
    primal: float, tape: float, saved: float
) -> None:
    assert _groups(primal, tape, 8) - _groups(primal, 0.0, 8) == pytest.approx(saved)


TRIANGLE = """
func.func @f(%n: index, %x: memref<16x32xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %z = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c16 step %c1 {
    %i2 = arith.addi %i, %c1 : index
    scf.for %j = %i to %c16 step %c1 {
      scf.for %k = %c0 to %c32 step %c1 {
        scf.for %m = %k to %i2 step %c1 {
          memref.store %z, %x[%j, %k] : memref<16x32xf64>
        }
      }
    }
    scf.for %r = %c0 to %n step %c1 {
      memref.store %z, %x[%i, %r] : memref<16x32xf64>
    }
  }
  func.return
}
"""


def _nests() -> tuple[tuple[scf.ForOp, ...], tuple[scf.ForOp, ...]]:
    module = LocatingParser(make_context(), TRIANGLE, "triangle.mlir").parse_module()
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    first, second = [op for op in module.walk() if isinstance(op, memref.StoreOp)]
    return enclosing_loops(first, function), enclosing_loops(second, function)


def test_a_triangular_nest_is_counted_over_its_outer_loops() -> None:
    (i, j, k, m), _ = _nests()
    # j runs 16 - i times: 136 (i, j) pairs, each of 32 k; m runs i + 1 - k times
    # where k <= i: for each i, (16 - i) * sum_{k <= i} (i + 1 - k).
    assert nest_runs((i,)) == 16 and nest_runs((i, j)) == 136
    assert nest_runs((i, j, k)) == 136 * 32
    want = sum((16 - a) * (a + 1) * (a + 2) // 2 for a in range(16))
    assert nest_runs((i, j, k, m)) == want


def test_a_triangular_nest_s_runs_are_priced_per_trip_count() -> None:
    (i, j, k, m), _ = _nests()
    # k runs 32 trips in each of the 136 (i, j) pairs; m runs i + 1 - k trips: for
    # each i, 16 - i runs (one per j) of each count 1 .. i + 1 (one per k <= i) and
    # 32 - (i + 1) runs of 0 (the k beyond i).
    assert trip_runs((i, j, k)) == {32: 136}
    want: dict[int, int] = {}
    for a in range(16):
        for n in [*range(1, a + 2), *[0] * (32 - (a + 1))]:
            want[n] = want.get(n, 0) + (16 - a)
    assert trip_runs((i, j, k, m)) == want
    assert sum(want.values()) == nest_runs((i, j, k))
    assert sum(n * c for n, c in want.items()) == nest_runs((i, j, k, m))


def test_a_bound_of_an_argument_or_too_many_outer_iterations_gives_no_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (i, j, k, m), (_, r) = _nests()
    assert nest_runs((i, r)) is None
    monkeypatch.setattr(cost, "ENUMERATED_POINTS", 100)
    assert nest_runs((i, j, k)) == 136 * 32  # 16 outer iterations visited
    assert nest_runs((i, j, k, m)) is None  # 16 + 136 outer iterations to visit


def _rowlse(preset: str) -> ModuleOp:
    ctx = make_context()
    module = parse_kernel(ctx, "rowlse", preset)
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    return module


def test_rowlse_is_streamed_by_auto_its_tiles_priced_as_lowered() -> None:
    # 1000 rows of 4: a tile of 16 entries (512 B, 4 tiles in flight) holds 3 rows
    # of 5 values (4 of the row, its sum): 334 tiles, 668 layers. Two groups of
    # stores a row (the row's 4 in its inner loop, rows 0-3; the sum in the row's
    # body, row 4), so each tile also computes each group's first row. FWD's tile
    # at p: `1000 - p`, `min(3, .)`, `p + .` (3 ops in a chain); its row count
    # `min(15, 5000 - 5p)` (3); its first rows `0 - 5p` and `4 - 5p` (2): 3.
    # REV's tile ending at h: `min(h, 3)`, `h - .` (2); its row count `min(15,
    # 5h)` (2); its first rows `(h - 1) * 5` and `+ 4` (3): 3. Each row's own
    # first row (`5i + base`) runs in the row's kernels: nothing more. 334 * (3 +
    # 3) cycles and the REV preloads' waits.
    (always,) = layer_module(_rowlse("paper"), 512, 2, 4)
    assert always.dynamic_layers == 668 and not always.kept
    module = _rowlse("paper")
    (auto,) = layer_module(module, 512, 2, 4, CGRA)
    assert auto.dynamic_layers == 668 and not auto.kept
    function = next(
        op
        for op in module.walk()
        if isinstance(op, func.FuncOp) and op.sym_name.data == "differowlse"
    )
    layers = [op for op in function.walk() if isinstance(op, layer.LayerOp)]
    partners = cost._partners(function)
    chains = {
        op.phase.data: cost._tile_chain(op, cost._fwd_of(op, partners), set()) for op in layers
    }
    assert chains == {Phase.FWD: 3, Phase.REV: 3}
    rev = {op: 334 for op in layers if op.phase.data is Phase.REV}
    waits = cost.preload_waits(function, rev, CGRA, 512)
    (choice,) = auto.nests
    assert choice.stream and choice.added == 334 * (3 + 3) + waits


def test_a_tile_count_is_charged_its_own_ops_alone() -> None:
    # lu's tile loops of run-time trip count (its triangular nests) run over their
    # iterations, a tile a step. FWD's runs over its loop's own bounds, 0 to the
    # outer index, and carries each tile's end from the tile before: the first
    # tile's, `min(T, trip)`, is computed per run, one op. REV's runs over the
    # iteration that ends each tile, from the end of its first tile, last = (trip
    # - 1) rem T + 1, to last + trip, both computed per run: `subi`, `remsi`,
    # `addi`, `addi`, a chain of 4; its first tile, carried, is `[0, last)`: no
    # op more. REV's trip is computed from Enzyme's reversed index (`subi`s that
    # its loads and stores of the tape read too, streamed or not): not part of
    # the count.
    ctx = make_context()
    module = parse_kernel(ctx, "lu", "small")
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    layer_module(module, 512, 2, 4)
    tile_loops = [
        op
        for op in module.walk()
        if isinstance(op, layer.LayerOp)
        and any(isinstance(o, scf.ForOp) for o in op.body.block.ops)  # a strip-mined loop
        and trip_count(op.parent_op()) is None  # type: ignore[arg-type]
    ]
    assert len(tile_loops) == 4  # FWD and REV of lu's two triangular nests
    for op in tile_loops:
        loop = op.parent_op()
        assert isinstance(loop, scf.ForOp)
        charged = cost._tile_count(loop)
        ops = [o.name for o in charged if not isinstance(o, arith.ConstantOp)]
        if op.phase.data is Phase.FWD:
            assert ops == ["arith.minsi"] and cost._depth(charged, set()) == 1
        else:
            assert ops == ["arith.subi", "arith.remsi", "arith.addi", "arith.addi"]
            assert cost._depth(charged, set()) == 4


def test_a_tile_loop_is_not_charged_the_bounds_the_kept_loop_computes() -> None:
    # triangular-rows with `j < i + 1`: FWD's tile loop runs over the loop's own
    # bounds, 0 to `i + 1`, an `addi` the kept loop computes too: not charged; the
    # first tile's end it carries, `min(8, i + 1)`, is (1 op).
    # REV's trip count is Enzyme's `8 - r` (the `i + 1` of the mirrored row), the
    # kept REV loop's bound: its tile loop is charged `last = (trip - 1) rem 8 + 1`
    # and `last + trip` alone: `subi`, `remsi`, `addi`, `addi`, a chain of 4.
    path = INPUTS / "triangular-rows.mlir"
    text = path.read_text().replace(
        "    %s = scf.for %j = %c0 to %i step",
        "    %i1 = arith.addi %i, %c1 : index\n    %s = scf.for %j = %c0 to %i1 step",
    )
    ctx = make_context()
    module = LocatingParser(ctx, text, str(path)).parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    layer_module(module, 64, 1, 1)
    charged = {
        op.phase.data: cost._tile_count(op.parent_op())  # type: ignore[arg-type]
        for op in module.walk()
        if isinstance(op, layer.LayerOp) and trip_count(op.parent_op()) is None  # type: ignore[arg-type]
    }
    names = {
        phase: [o.name for o in ops if not isinstance(o, arith.ConstantOp)]
        for phase, ops in charged.items()
    }
    assert names == {
        Phase.FWD: ["arith.minsi"],
        Phase.REV: ["arith.subi", "arith.remsi", "arith.addi", "arith.addi"],
    }
    assert [cost._depth(charged[p], set()) for p in (Phase.FWD, Phase.REV)] == [1, 4]


def test_lu_is_streamed_whole_and_exact() -> None:
    # PolyBench's lu at paper size on Tflow32k: its triangular nests' short runs of
    # `k` are memory-bound kept (their tape's first touches), its REV reads of a
    # 174 KB tape miss, and a REV tile's bounds take 5 integer ops: the cost model
    # streams both nests, and the gradient is Enzyme's, bit for bit.
    hardware = configure("Tflow32k")
    ctx = make_context()
    module = parse_kernel(ctx, "lu", "paper")
    tape_bytes = prepare(ctx, module, "tapeflow", hardware)
    assert not _kept(module)
    args = caller_arguments(module, "lu", "paper")
    result = simulate(module, "lu_grad", args, hardware, tape_bytes)
    want = kernel_enzyme_outputs(NEST_KERNELS["lu"], "paper")
    problem = same_bits({k: np.asarray(v) for k, v in result.outputs.items()}, want)
    assert problem is None, problem


@pytest.mark.parametrize("by_cost", [True, False])
def test_both_choices_compute_the_enzyme_values(by_cost: bool) -> None:
    # At paper size on Tflow32k the cost model keeps one of batchnorm's nests;
    # off, it streams every nest.
    hardware = configure("Tflow32k")
    _run_by_cost(hardware, by_cost, "batchnorm", "paper")


def _run_by_cost(hardware: Hardware, by_cost: bool, key: str, size: str) -> int:
    """Cycles of kernel `key`'s tapeflow run at `size` on `hardware` with the cost
    model on or off, after checking that it keeps a nest exactly when on and that
    its gradient is Enzyme's, bit for bit."""
    machine = replace(hardware, mapping=replace(hardware.mapping, stream_by_cost=by_cost))
    ctx = make_context()
    module = parse_kernel(ctx, key, size)
    tape_bytes = prepare(ctx, module, "tapeflow", machine)
    assert bool(_kept(module)) is by_cost
    args = caller_arguments(module, key, size)
    result = simulate(module, f"{key}_grad", args, machine, tape_bytes)
    want = kernel_enzyme_outputs(ALL_KERNELS[key], size)
    problem = same_bits({k: np.asarray(v) for k, v in result.outputs.items()}, want)
    assert problem is None, problem
    return result.report["cycles"]["total"]


def _stream_times_waits(layers: list[cost.RevLayer], ring: cost.Ring) -> int:
    """The waits of the REV layers `layers` and their pipelines' refills, timed by
    the `cgra` model's streams (`sim.models.streams.stream_times`): each layer two
    windows, its gap (ending with its stream op) and its run (a kernel loop),
    from the REV sweep's start."""
    spent = np.array([c for each in layers for c in (each.gap, each.run)], dtype=np.int64)
    tiles = [
        [1, each.entries, 2 * i + 1, 2 * i + 2, 2 * i, each.nbytes, 0]
        for i, each in enumerate(layers)
    ]
    kernels = np.arange(1, spent.size, 2, dtype=np.int64)
    refill = np.zeros(spent.size, dtype=np.int64)
    refill[kernels] = [each.refill for each in layers]
    times = stream_times(
        spent,
        tiles,
        kernels,
        refill,
        ring.capacity,
        ring.latency,
        ring.bytes_per_cycle,
        0,
        ring.runahead,
    )
    return int(times.stalled.sum() + times.refilled.sum())


@pytest.mark.parametrize("seed", range(8))
def test_rev_waits_are_the_cgra_streams_waits(seed: int) -> None:
    # Sequences of REV layers of different tiles, runs and gaps (a tile loop's,
    # a body layer's, a piece's neighbours), rings of 1 to 8 full tiles, with and
    # without runahead, transfers of no time to 8 bytes a cycle, tiles whose
    # pipelines fill again after a wait: the cost model's waits and refills are
    # those the `cgra` model's streams time.
    rng = np.random.default_rng(seed)
    ring = cost.Ring(
        int(rng.choice([8, 16, 64])),
        int(rng.choice([0, 50, 100])),
        float(rng.choice([1.0, 8.0, 1e9])),
        bool(seed % 2),
    )
    layers = [
        cost.RevLayer(
            int(rng.choice([1, 2, 4, 8])),
            float(rng.integers(1, 80)),
            float(rng.integers(0, 20)),
            int(rng.choice([8, 32, 64])),
            refill=float(rng.choice([0, 0, 7, 30])),
        )
        for _ in range(int(rng.integers(20, 60)))
    ]
    assert cost.rev_waits(layers, ring) == _stream_times_waits(layers, ring)


def test_rev_waits_by_hand() -> None:
    def tiles(n: int, nbytes: int = 0) -> list[cost.RevLayer]:
        return [cost.RevLayer(8, 10.0, 0.0, nbytes)] * n

    # Two tiles in the ring, runahead: tiles 0 and 1 are issued at once and arrive
    # at 100; tile 0 waits 100 (it starts at 0), tile 1 none (it starts at 110);
    # tile 2 is issued when tile 0 ends (110), arrives at 210, and waits 90 (it
    # would start at 120); tile 3 none; in steady state (100 + 10) / 2 - 10 = 45 a
    # tile.
    assert cost.rev_waits(tiles(6), cost.Ring(16, 100, 1e9)) == 100 + 0 + 90 + 0 + 90 + 0
    # Without runahead a preload waits for the start of the layer before: tile 1
    # is issued when tile 0 starts (100) and arrives at 200, 90 after its start;
    # each later one likewise: 90 a tile, the ring's room aside.
    assert cost.rev_waits(tiles(6), cost.Ring(16, 100, 1e9, False)) == 100 + 5 * 90
    # A tile that fills the ring, 80 bytes at 8 a cycle: each waits the latency and
    # its transfer, 110.
    assert cost.rev_waits(tiles(6, 80), cost.Ring(8, 100, 8.0)) == 6 * 110
    # Layers of another nest take their room and their time; their waits are not
    # counted: every layer fills the ring and waits 100, three of six counted.
    mixed = [replace(each, charged=i % 2 == 0) for i, each in enumerate(tiles(6))]
    assert cost.rev_waits(mixed, cost.Ring(8, 100, 1e9)) == 3 * 100
    # A tile continuing its loop's pipeline fills it again after its wait (20
    # cycles): with two tiles in the ring, tile 0 waits 100, refills 20 and ends
    # at 130; tile 2, issued then, arrives at 230, waits 90 (it would start at
    # 140), refills 20 and ends at 260; tile 4 likewise; tiles 1, 3, 5 wait none.
    refilled = [replace(each, refill=20.0) for each in tiles(6)]
    assert cost.rev_waits(refilled, cost.Ring(16, 100, 1e9)) == 100 + 20 + 2 * (90 + 20)
    # Beyond `PRELOAD_LAYERS` layers, the rest wait as the last half placed did.
    n = 3 * cost.PRELOAD_LAYERS
    assert cost.rev_waits(iter(tiles(n)), cost.Ring(8, 100, 1e9), n) == n * 100
    # Another nest's layers filling that budget first do not leave the priced nest
    # unsampled: placing goes on until a charged layer has waited (each of these
    # tiles fills the ring and waits the latency, 100 cycles, whatever comes
    # before it), and the 100 charged ones wait 100 each.
    others = [replace(each, charged=False) for each in tiles(cost.PRELOAD_LAYERS)]
    assert cost.rev_waits(iter(others + tiles(100)), cost.Ring(8, 100, 1e9), 100) == 100 * 100


def test_small_mttkrp_s_body_layers_are_kept_on_a_64_byte_scratchpad() -> None:
    # The small MTTKRP on a 64 B scratchpad, every nest streamed: one body layer
    # an `l` iteration (4 entries) beside a piece of one value, each waiting for
    # its preload about a latency. The body-layered nest was streamed while the
    # waits of body layers and pieces were not charged; now it is kept, the
    # gradient is Enzyme's, and the run is faster than streaming every nest.
    hardware = configure("Tflow32k")
    hardware = replace(hardware, scratchpad=replace(hardware.scratchpad, size_bytes=64))
    kept = _run_by_cost(hardware, True, "mttkrp", "small")
    assert kept < _run_by_cost(hardware, False, "mttkrp", "small")


def test_the_machine_s_bandwidth_and_runahead_reach_the_cost_model() -> None:
    # The simulator's lowering passes the cost model its machine's stream rate
    # (19.2 GB/s at 1 GHz: 19.2 bytes a cycle, against the default 9.6 at 2 GHz)
    # and runahead, so a run fixes them (`run_key`) where the cost model chooses.
    from lowering.pipelines import stream_options
    from sim.simulator import lowering_key, run_key

    hardware = configure("Tflow32k")
    assert stream_options(hardware) == {}
    slower = replace(hardware, clock_ghz=1.0)
    behind = replace(hardware, mapping=replace(hardware.mapping, runahead=False))
    assert stream_options(slower) == {"dram_bytes_per_cycle": 19.2}
    assert stream_options(behind) == {"runahead": False}
    assert run_key(slower) != run_key(hardware)
    assert lowering_key(slower) == lowering_key(hardware)


def test_a_kept_region_read_outside_the_kernels_is_lowered_and_exact() -> None:
    # The small NN on Tflow2k keeps the nest of a 3-value region (its REV pieces
    # would each wait for their preloads), whose FWD store sits in a kernel loop
    # and whose REV load, without `mapping.place_straight_line`, stays outside the
    # kernels: placing the store (`cgra.store`, no id) once made the module fail
    # its FtoR check. It verifies, and the gradient is Enzyme's.
    hardware = configure("Tflow2k")
    hardware = replace(hardware, mapping=replace(hardware.mapping, place_straight_line=False))
    ctx = make_context()
    module = parse_kernel(ctx, "nn", "small")
    tape_bytes = prepare(ctx, module, "tapeflow", hardware)
    assert any("cost model" in reason for reason in _kept(module))
    args = caller_arguments(module, "nn", "small")
    result = simulate(module, "nn_grad", args, hardware, tape_bytes)
    want = kernel_enzyme_outputs(ALL_KERNELS["nn"], "small")
    problem = same_bits({k: np.asarray(v) for k, v in result.outputs.items()}, want)
    assert problem is None, problem


@pytest.mark.parametrize("name", ["mixed.mlir", "two-loops.mlir"])
def test_a_timeline_shared_by_the_nests_prices_each_as_its_own(name: str) -> None:
    # The pass prices every nest of a layered function on one `RevTimeline`,
    # whose roots' REV layers are worked out once; each nest's added cycles, in
    # either order, are those a timeline of its own gives.
    module, _ = _layered(name, 64, None)
    (function,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    nests = [{op.region} for op in function.walk() if isinstance(op, region.AllocOp)]
    assert len(nests) >= 2
    alone = [cost.added_cycles(function, nest, CGRA, 64) for nest in nests]
    for order in (nests, nests[::-1]):
        timeline = cost.RevTimeline(function, CGRA)
        shared = [cost.added_cycles(function, nest, CGRA, 64, timeline) for nest in order]
        assert shared == (alone if order is nests else alone[::-1])


def _loops(function: func.FuncOp) -> list[scf.ForOp]:
    return [op for op in function.walk() if isinstance(op, scf.ForOp)]


def test_a_pipeline_fills_along_operands_and_accesses_that_may_meet() -> None:
    # y[k] += x[k]; y[k] *= x[k]: load x (2) and y (2), addf at 2 (5), store y at
    # 7 (1); the second load of y waits for that store, at 8 (2), mulf at 10 (4),
    # store at 14, done at 15. Five cache accesses an iteration on two ports, no
    # recurrence (each iteration its own y[k]): 3 cycles an iteration, fill 12.
    text = """
    func.func @f(%x: memref<8xf64>, %y: memref<8xf64>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      scf.for %k = %c0 to %c8 step %c1 {
        %a = memref.load %x[%k] : memref<8xf64>
        %b = memref.load %y[%k] : memref<8xf64>
        %s = arith.addf %a, %b : f64
        memref.store %s, %y[%k] : memref<8xf64>
        %c = memref.load %y[%k] : memref<8xf64>
        %p = arith.mulf %a, %c : f64
        memref.store %p, %y[%k] : memref<8xf64>
      }
      func.return
    }
    """
    module = LocatingParser(make_context(), text, "fill").parse_module()
    (loop,) = _loops(next(op for op in module.walk() if isinstance(op, func.FuncOp)))
    assert cost.iteration_cycles(loop, CGRA) == 3
    assert cost.pipeline_fill(loop, CGRA) == 12


def _rows_of_runs(after_rev: str) -> func.FuncOp:
    """rows-of-runs.mlir with `after_rev` at the end of each row's REV body,
    layered in tiles of 16 (128 B)."""
    path = INPUTS / "rows-of-runs.mlir"
    text = path.read_text().replace(
        "    }\n  }\n  region.free", "    }\n" + after_rev + "  }\n  region.free"
    )
    module = LocatingParser(make_context(), text, str(path)).parse_module()
    layer_module(module, 128, 1, 1, machine=None)
    return next(op for op in module.walk() if isinstance(op, func.FuncOp))


@pytest.mark.parametrize("after", [False, True])
def test_runs_that_follow_each_other_as_tiles_fill_their_pipeline_once(after: bool) -> None:
    # Four rows of 32, tiles of 16 (128 B): streamed, each phase's four runs of its
    # inner loop are tiles of one strip-mined loop with only straight-line ops
    # between, so the `cgra` model fills each loop's pipeline once, not four times.
    # FWD: load x (2), store at 2 (1): 3 cycles, 1 an iteration (one access on two
    # ports): fill 2. REV: subi (1), load at 1 (2), mulf at 3 (4), store at 7 (1):
    # fill 7. Three runs continued in each: 3 * 2 + 3 * 7 = 27. A store after REV's
    # inner loop (the last op of the row's body, a loop's kernel) leaves every REV
    # run its own fill: 6.
    after_rev = "    memref.store %seed, %dx[%i, %c0] : memref<4x32xf64>\n"
    function = _rows_of_runs(after_rev if after else "")
    regions = {op.region for op in function.walk() if isinstance(op, region.AllocOp)}
    inner = [loop for loop in _loops(function) if "tapeflow.rows_per_iteration" in loop.attributes]
    assert [cost.pipeline_fill(loop, CGRA) for loop in inner] == [2, 7]
    assert cost.continued_fills(function, regions, CGRA) == (6 if after else 27)
    timeline = cost.RevTimeline(function, CGRA)  # its fills, kept per loop, are read
    assert cost.continued_fills(function, regions, CGRA, timeline) == (6 if after else 27)


@pytest.mark.parametrize("between", [False, True])
def test_a_tile_continues_its_pipeline_only_with_no_loop_between(between: bool) -> None:
    # rows-of-runs streamed in tiles of 16 (128 B): each REV row is 2 tiles of 16
    # iterations at a cycle each (16), the REV loop's fill 7 (subi 1, load 2, mulf
    # 4, store 1, less the cycle). Consecutive tiles of the loop continue its
    # pipeline (run 16, a refill of 7 charged only after a wait); only the sweep's
    # first tile fills (23). A loop of 4 after each row's tile loop is another loop
    # kernel between two rows: each row's first tile fills again (23, no refill).
    loop_after = (
        "    scf.for %z = %c0 to %c4 step %c1 {\n"
        "      memref.store %seed, %dx[%i, %z] : memref<4x32xf64>\n    }\n"
    )
    function = _rows_of_runs(loop_after if between else "")
    rev = [o for o in function.walk() if isinstance(o, layer.LayerOp) and o.phase.data is Phase.REV]
    layers = list(cost.RevTimeline(function, CGRA).layers(set(rev)))
    first, continued = (23.0, 0.0), (16.0, 7.0)
    row = [first, continued] if between else [continued, continued]
    expected = [first, continued] + row * 3
    assert [(each.run, each.refill) for each in layers] == expected


@pytest.mark.parametrize("name", ["mixed.mlir", "two-loops.mlir"])
def test_machines_equal_in_what_a_timeline_reads_share_it(name: str) -> None:
    # `nest_choices` shares one `RevTimeline` among machines equal in
    # `RevTimeline.reads` (a cache sweep's): each machine's added cycles on the
    # shared timeline, made on another machine, are those its own timeline gives,
    # for machines that differ in every other number the cost model reads.
    module, _ = _layered(name, 64, None)
    (function,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    nests = [{op.region} for op in function.walk() if isinstance(op, region.AllocOp)]
    others = [
        replace(CGRA, cache_bytes=1024, cache_line_bytes=32, cache_mshrs=1),
        replace(CGRA, dram_latency=400, dram_bytes_per_cycle=1.0, runahead=False),
        replace(CGRA, dram_latency=10, dram_bytes_per_cycle=64.0, cache_bytes=1 << 20),
    ]
    shared = cost.RevTimeline(function, CGRA)
    for machine in others:
        assert cost.RevTimeline.reads(machine) == cost.RevTimeline.reads(CGRA)
        for nest in nests:
            own = cost.added_cycles(function, nest, machine, 64)
            assert cost.added_cycles(function, nest, machine, 64, shared) == own
    # Priced together (one timeline), the machines choose as each priced alone.
    path = INPUTS / name
    source = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    machines = [CGRA, *others]
    together = nest_choices(source, 64, machines)
    assert together == [nest_choices(source, 64, [m])[0] for m in machines]
    assert len({tuple(c.added for f in m for c in f) for m in together}) > 1  # they differ


def test_a_tile_of_short_rows_runs_each_row_s_pipeline_fill() -> None:
    # 32 rows of 4, tiles of 16 entries (4 rows; 128 B): the cgra model runs each
    # row's inner loop as a kernel run of its own, 4 iterations of a cycle (a load
    # and a store on two ports) and its pipeline's fill, subi (1), load (2), mulf
    # (4), store (1), less the cycle: 7; the row's `subi` 1. A REV layer runs
    # 4 * (4 + 7 + 1) = 48 cycles, its bound 1 before it.
    path = INPUTS / "short-rows.mlir"
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    layer_module(module, 128, 1, 1, machine=None)
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    rev = [o for o in function.walk() if isinstance(o, layer.LayerOp) and o.phase.data is Phase.REV]
    (row,) = [loop for loop in _loops(rev[0]) if len(_loops(loop)) == 1]
    assert cost.iteration_cycles(row, CGRA) == 1 and cost.pipeline_fill(row, CGRA) == 7
    layers = list(cost.RevTimeline(function, CGRA).layers(set(rev)))
    assert [(each.run, each.gap, each.refill) for each in layers] == [(48, 1, 0)] * 8
    # On 512 B (4 tiles in the ring; 128 B move in 128 / 9.6 cycles) the 4 first
    # preloads are issued at once and arrive at 113.3, 126.7, 140 and 153.3: tile 0
    # waits 113 (it starts at 1) and ends at 162, tiles 1-3 start at 163, 212, 261.
    # Tile 4 is issued when tile 0 ends, arrives at 275.3 and starts at 310; tiles
    # 5-7 likewise (arriving 324.3, 373.3, 422.3; starting 359, 408, 457): 113 in
    # all. With the fills left out (runs of 20) tile 4 would wait 50.
    assert cost.preload_waits(function, {op: 8 for op in rev}, CGRA, 512) == 113


def test_rev_layers_on_a_branch_s_else_side_are_placed() -> None:
    # short-rows' REV nest on the else side of a branch, as Enzyme's REV of a
    # `while` loop turned into a `for` holds its body (the then side skips the
    # trips past the exit): the timeline takes the side that holds the REV layers
    # as run, so the 8 tiles are placed as in the test above (the branch's
    # comparison is one more cycle of work before the first, which waits 112, not
    # 113). Taking the then side placed none: no wait was charged.
    path = INPUTS / "short-rows.mlir"
    head, rest = path.read_text().split("  scf.for %r = ")
    nest, tail = rest.split("  region.free")
    nested = "\n".join(
        "  " + line if line else line for line in ("  scf.for %r = " + nest).split("\n")
    )
    text = (
        head
        + "  %done = arith.cmpf olt, %seed, %seed : f64\n  scf.if %done {\n  } else {\n"
        + nested
        + "  }\n  region.free"
        + tail
    )
    module = LocatingParser(make_context(), text, str(path)).parse_module()
    layer_module(module, 128, 1, 1, machine=None)
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    rev = [o for o in function.walk() if isinstance(o, layer.LayerOp) and o.phase.data is Phase.REV]
    layers = list(cost.RevTimeline(function, CGRA).layers(set(rev)))
    assert [(each.run, each.gap) for each in layers] == [(48, 2)] + [(48, 1)] * 7
    assert cost.preload_waits(function, {op: 8 for op in rev}, CGRA, 512) == 112


def test_the_rev_work_before_a_nest_hides_its_first_preload() -> None:
    # The REV sweep starts with a loop of 32 iterations scaling dx[p][0] (a load
    # and a store on two ports, a cycle an iteration; fill: load 2, mulf 4, store
    # 1, less the cycle: 6), 38 cycles, before the REV nest of short-rows. Its
    # first preload, issued at the sweep's start, arrives at 113.3 while its layer
    # starts at 38 + 1: it waits 75, not 113, and starts at 114 as before, so the
    # later tiles wait none as before (above): 75 in all.
    path = INPUTS / "short-rows.mlir"
    scale = """  scf.for %p = %c0 to %c32 step %c1 {
    %o = memref.load %dx[%p, %c0] : memref<32x4xf64>
    %n = arith.mulf %o, %seed : f64
    memref.store %n, %dx[%p, %c0] : memref<32x4xf64>
  }
  scf.for %r = """
    text = path.read_text().replace("  scf.for %r = ", scale)
    module = LocatingParser(make_context(), text, str(path)).parse_module()
    layer_module(module, 128, 1, 1, machine=None)
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    rev = [o for o in function.walk() if isinstance(o, layer.LayerOp) and o.phase.data is Phase.REV]
    before = [loop for loop in function.body.block.ops if isinstance(loop, scf.ForOp)][1]
    assert cost.iteration_cycles(before, CGRA) == 1 and cost.pipeline_fill(before, CGRA) == 6
    layers = list(cost.RevTimeline(function, CGRA).layers(set(rev)))
    assert [(each.run, each.gap) for each in layers] == [(48, 38 + 1)] + [(48, 1)] * 7
    assert cost.preload_waits(function, {op: 8 for op in rev}, CGRA, 512) == 75


CUT = """
func.func private @diffef(%x: memref<3x8xf64>, %dx: memref<3x8xf64>, %w: memref<3xf64>,
                          %y: memref<3xf64>, %dy: memref<3xf64>) attributes {
    tapeflow.gradient_of = @f,
    tapeflow.activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>,
                         #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>],
    tapeflow.ret_activity = []} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %k = region.alloc : !region.region<3x8, [f64]>
  %v = region.alloc : !region.region<3, [f64]>
  scf.for %i = %c0 to %c3 step %c1 {
    %s = scf.for %j = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
      %a = memref.load %x[%i, %j] : memref<3x8xf64>
      %e = math.sin %a : f64
      region.store %e, %k[%i, %j] slot 0 id 0 : f64, !region.region<3x8, [f64]>
      %n = arith.addf %acc, %e : f64
      scf.yield %n : f64
    }
    BEFORE
    region.store %u, %v[%i] slot 0 id 0 : f64, !region.region<3, [f64]>
    AFTER
  }
  scf.for %ri = %c0 to %c3 step %c1 {
    %i = arith.subi %c2, %ri : index
    %u = region.load %v[%i] slot 0 from 0 : !region.region<3, [f64]> -> f64
    %g = memref.load %dy[%i] : memref<3xf64>
    %d = arith.mulf %g, %u : f64
    scf.for %rj = %c0 to %c8 step %c1 {
      %j = arith.subi %c7, %rj : index
      %e = region.load %k[%i, %j] slot 0 from 0 : !region.region<3x8, [f64]> -> f64
      %h = arith.mulf %d, %e : f64
      memref.store %h, %dx[%i, %j] : memref<3x8xf64>
    }
  }
  region.free %v : !region.region<3, [f64]>
  region.free %k : !region.region<3x8, [f64]>
  func.return
}
"""
WEIGHT = """%b = memref.load %w[%i] : memref<3xf64>
    %u = arith.addf %s, %b : f64"""
OUTPUT = """%t = math.tanh %u : f64
    memref.store %t, %y[%i] : memref<3xf64>"""


def _cut_added(before: str, after: str, machine: StreamMachine) -> float:
    text = CUT.replace("BEFORE", before).replace("AFTER", after)
    module = LocatingParser(make_context(), text, "cut.mlir").parse_module()
    layer_module(module, 512, 1, 1, machine=None)
    (function,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    pieces = [
        op
        for op in function.walk()
        if isinstance(op, layer.LayerOp)
        and op.phase.data is Phase.FWD
        and not any(isinstance(o, scf.ForOp) for o in op.walk())
    ]
    assert len(pieces) == 1  # the value of each `i` is a piece beside the `j` loop
    (nest,) = [{o.region} for o in pieces[0].walk() if isinstance(o, region.StoreOp)]
    return cost.added_cycles(function, nest, machine, 512)


def test_a_piece_s_cut_kernel_costs_the_miss_overlap_it_breaks() -> None:
    # The value of each `i` is a piece beside the `j` loop: it cuts the kernel of
    # the ops after the loop in two. The cgra model times each part as a kernel,
    # max(compute, memory): a run in which both parts miss waits a DRAM latency
    # for each, where the whole kernel waited one. The arrays (x and dx 192 B, w,
    # y and dy 24 B each, a line each) fit the 32 KB cache: each line misses
    # once, when first touched. Before the piece, w's line; after it, y's: both
    # miss on the first run, one latency more (100 cycles), than with the store
    # of y before the piece, where nothing after it misses.
    joined = _cut_added(f"{WEIGHT}\n    {OUTPUT}", "", CGRA)
    assert _cut_added(WEIGHT, OUTPUT, CGRA) == joined + 100
    # Nothing before the piece misses (u computed from the loop's sum alone):
    # cutting the kernel breaks no overlap.
    alone = "%u = arith.addf %s, %s : f64"
    assert _cut_added(alone, OUTPUT, CGRA) == _cut_added(f"{alone}\n    {OUTPUT}", "", CGRA)
    # Arrays beyond a 64 B cache: w[i] and y[i] miss a line every 8 runs (8 B
    # strides, 64 B lines), 3/8 of a miss each over the 3 runs: the cut adds
    # 3/8 of a latency.
    small = replace(CGRA, cache_bytes=64)
    joined = _cut_added(f"{WEIGHT}\n    {OUTPUT}", "", small)
    assert _cut_added(WEIGHT, OUTPUT, small) == joined + 3 / 8 * 100


def test_a_loop_cut_into_pieces_loses_its_iterations_overlap() -> None:
    # Each of 1024 FWD iterations stores 40 values, more than a straight-line
    # layer of a 512 B scratchpad holds with 2 layers in flight (32 entries): its
    # body becomes pieces, layers of one iteration, run one after the other. Kept,
    # the loop issues an iteration a cycle (no recurrence, one cache access: the
    # load of x) and fills its pipeline once: its latency path, the load (a hit,
    # 2), 39 sines (30 each) and the last store (1), less that cycle: 1,172. REV's:
    # `subi` (1), a load (2), a cosine (30), the chain of 39 `addf` (5 each), the
    # `mulf` (4) and the store (1), less its cycle: 232. Cut into pieces, every
    # iteration pays them.
    fwd_fill = 2 + 39 * 30 + 1 - 1
    rev_fill = 1 + 2 + 30 + 39 * 5 + 4 + 1 - 1
    path = INPUTS / "deep-body.mlir"
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert [cost.pipeline_fill(loop, CGRA) for loop in loops] == [fwd_fill, rev_fill]
    module, report = _layered_with("deep-body.mlir", 512, CGRA, 2, 4)
    (choice,) = report.nests  # type: ignore[attr-defined]
    lost = 1024 * (fwd_fill + rev_fill)
    # Without the lost overlap the rest of what streaming adds (the pieces' cut
    # kernels and stream ops, the REV pieces' waits) is below what it saves at
    # most: the overlap decides, and the nest is kept.
    assert choice.added - lost < choice.saved < choice.added
    assert not choice.stream and _kept(module)


def test_a_run_time_loop_cut_into_pieces_is_priced_an_iteration() -> None:
    # The same FWD chain in a loop of run-time trip count `n`, and a REV chain of
    # its own: s = sin(s + a_k), k from 39 down, each step an `addf` (5) and a sine
    # (30) after the loads (`subi` 1, a load 2): its fill 1 + 2 + 40 * 35 + 1 - 1.
    # No count of the runs, but both what the cut loses and what streaming can
    # save grow with the iterations: an iteration loses the two fills, and saves
    # at most what the windows' rule gives an iteration of a long run, its misses
    # in groups of 8 (no rounding). Each loop's iteration: 40 tape accesses (5
    # lines of 64 B, missed in FWD and in REV: the tape's size grows with `n`) and
    # one primal access (x's load, dx's store; the arrays, of dynamic shape, are
    # taken to hit). Memory kept: 5 / 8 groups of 100 cycles, 62.5, and 36 hits
    # over 2 ports, 18: 80.5; streamed: x's or dx's hit, 0.5. Compute: kept, 41
    # cache accesses over 2 ports, ii 21; streamed, the ops over the 4x4 grid's 16
    # PEs: FWD's 80 (a load, 39 sines, 40 stores) ii 5, REV's 122 (a `subi`, 40
    # loads, 40 `addf`, 40 sines, a store) ii 8. Saved: (80.5 - 5) + (80.5 - 8).
    fwd_fill = 2 + 39 * 30 + 1 - 1
    rev_fill = 1 + 2 + 40 * (5 + 30) + 1 - 1
    path = INPUTS / "deep-body-n.mlir"
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert [cost._intervals(loop.body.block, _tape(loop), CGRA) for loop in loops] == [
        (ceil(41 / 2), ceil(80 / 16)),
        (ceil(41 / 2), ceil(122 / 16)),
    ]

    def saved(latency: int) -> float:
        kept = 5 / 8 * latency + (1 + 40 - 5) / 2
        return (kept - 5) + (kept - 8)

    assert saved(100) == 148
    module, report = _layered_with("deep-body-n.mlir", 512, CGRA, 2, 4)
    (choice,) = report.nests  # type: ignore[attr-defined]
    assert (choice.added, choice.saved) == (fwd_fill + rev_fill, saved(100))
    assert choice.per_iteration and not choice.stream and _kept(module)
    # At a DRAM latency of 200 (the earlier bound, 4 * 5 lines * 200 = 4,000
    # cycles, streamed it) an iteration saves at most 273 cycles: still kept.
    module, report = _layered_with("deep-body-n.mlir", 512, replace(CGRA, dram_latency=200), 2, 4)
    (choice,) = report.nests  # type: ignore[attr-defined]
    assert choice.saved == saved(200) == 273 and not choice.stream and _kept(module)
    # The saving passes the loss (2,575) from a latency of 2,042 on (1.25 L + 23):
    # streamed there, as every nest of run-time trip counts is otherwise (no
    # choice recorded).
    assert saved(2041) < fwd_fill + rev_fill < saved(2042)
    module, report = _layered_with("deep-body-n.mlir", 512, replace(CGRA, dram_latency=2041), 2, 4)
    assert [c.stream for c in report.nests] == [False] and _kept(module)  # type: ignore[attr-defined]
    module, report = _layered_with("deep-body-n.mlir", 512, replace(CGRA, dram_latency=2042), 2, 4)
    assert not report.nests and not _kept(module)  # type: ignore[attr-defined]


def _tape(loop: scf.ForOp) -> list[region.StoreOp | region.LoadOp]:
    return [o for o in loop.body.block.ops if isinstance(o, region.StoreOp | region.LoadOp)]


def test_conv5u_n_s_run_time_rows_keep_its_window_loop_as_conv5u_s() -> None:
    # conv5u with its image height an argument (24 rows at run time): its nest
    # has no count of its runs, but its layers are pieces of one pixel of the
    # window loop (24 pixels a row) and of its REV loop. A pixel loses the two
    # loops' fills and saves what a run of 24 pixels saves by the windows' rule
    # over 24. FWD's by hand: 50 tape stores a pixel (6.25 lines), 150 lines a
    # run in ceil(150 / 8) = 19 groups of 100 cycles, and (51 + 50) * 24 - 150 =
    # 2,274 hits over 2 ports: 3,037 kept; streamed, 51 primal hits a pixel,
    # 612; compute kept 24 * ceil(101 / 2) = 1,224, streamed 24 * ceil(51 / 2) =
    # 624: 3,037 - 624 = 2,413 a run, about 100.5 a pixel. Kept as conv5u is
    # (the constant height's 123,856 saved at most over 576 pixels, 215 a pixel).
    ctx = make_context()
    module = LocatingParser(
        ctx, ALL_KERNELS["conv5u_n"].mlir("paper"), "conv5u_n.mlir"
    ).parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    inner = [op for op in module.walk() if isinstance(op, scf.ForOp) and _tape(op)]
    assert [trip_count(loop) for loop in inner] == [24, 24]
    fills = sum(cost.pipeline_fill(loop, CGRA) for loop in inner)
    fwd = cost._intervals(inner[0].body.block, _tape(inner[0]), CGRA)
    assert fwd == (ceil(101 / 2), ceil(51 / 2))
    fwd_run = (19 * 100 + ((51 + 50) * 24 - 150) / 2) - 24 * ceil(51 / 2)
    assert fwd_run == 2413
    (report,) = layer_module(module, 512, 2, 4, CGRA)
    (choice,) = report.nests  # type: ignore[attr-defined]
    assert choice.per_iteration and choice.added == fills
    assert fwd_run / 24 < choice.saved < 123_856 / 576 < choice.added
    assert not choice.stream and report.kept, report.table()


def test_conv5u_s_window_loop_cut_into_pieces_is_kept() -> None:
    # conv5u at paper size: 576 pixels whose written-out 5x5 window caches 50
    # entries each, more than a straight-line layer on Tflow32k (32). Streamed
    # whole it measured 0.626x of Enzyme32k under cgra, kept 1.036x
    # (research/stream-cost.md, "A loop cut into pieces"): each pixel's FWD and
    # REV pieces lose the kept loops' fills, and that decides the choice.
    ctx = make_context()
    module = LocatingParser(ctx, ALL_KERNELS["conv5u"].mlir("paper"), "conv5u.mlir").parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    inner = [
        op
        for op in module.walk()
        if isinstance(op, scf.ForOp)
        and any(isinstance(o, region.StoreOp | region.LoadOp) for o in op.body.block.ops)
    ]
    fills = sum(cost.pipeline_fill(loop, CGRA) for loop in inner)
    # A pixel's tape: the two loaded operands of each of the window's 25 products.
    stores = [op for op in module.walk() if isinstance(op, region.StoreOp)]
    assert len(stores) == 2 * 5 * 5
    assert all(isinstance(op.operands[0].owner, memref.LoadOp) for op in stores)
    (report,) = layer_module(module, 512, 2, 4, CGRA)
    (choice,) = report.nests  # type: ignore[attr-defined]
    assert len(inner) == 2 and fills > 0
    assert choice.added - 24 * 24 * fills < choice.saved < choice.added
    assert not choice.stream and report.kept, report.table()


def test_pieces_of_one_entry_an_iteration_lose_no_overlap_to_the_cost_model() -> None:
    # nn at the small size: its per-neuron values (one entry an iteration of loops
    # of 3 and 4 trips) are layered as pieces, layers of one iteration, though a
    # straight-line layer on Tflow32k holds 32 entries: the layers do not cut those
    # loops for want of room, and the cost model charges them no lost overlap.
    # Measured under cgra (tapeflow, Tflow32k): charged, the model kept those two
    # nests, 2,049 cycles; streamed, 1,915 (the choice it makes again).
    ctx = make_context()
    module = LocatingParser(ctx, ALL_KERNELS["nn"].mlir("small"), "nn.mlir").parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    per_iteration = [
        sum(isinstance(o, region.StoreOp) for o in op.body.block.ops)
        for op in module.walk()
        if isinstance(op, scf.ForOp)
    ]
    assert max(per_iteration) <= 32
    (report,) = layer_module(module, 512, 2, 4, CGRA)
    nests = report.nests  # type: ignore[attr-defined]
    small = [c for c in nests if c.regions.endswith(("region<4, [f64]>", "region<3, [f64]>"))]
    assert len(small) == 4
    # The two nests the lost overlap kept (#1 and #2, measured faster streamed).
    assert small[0].stream and small[1].stream, report.table()


def _layered_with(
    name: str, spad: int, machine: StreamMachine, tiles: int, loop_tiles: int
) -> tuple[ModuleOp, object]:
    path = INPUTS / name
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    (report,) = layer_module(module, spad, tiles, loop_tiles, machine=machine)
    return module, report


def _direct_waits(layers: list[cost.RevLayer], ring: cost.Ring, count: int) -> float:
    """`rev_waits` as its rule reads, step by step over the whole sequence: each
    layer placed from an empty ring, the charged ones' waits (and refills) summed
    until `PRELOAD_LAYERS` layers from the first charged one, the rest of the
    `count` as the last half of those."""
    resident: list[tuple[float, int]] = []
    end = channel = issued = 0.0
    previous = -1.0
    waits: list[float] = []
    first = next((i for i, each in enumerate(layers) if each.charged), len(layers))
    for i, each in enumerate(layers):
        if i - first >= cost.PRELOAD_LAYERS:
            tail = waits[len(waits) // 2 :]
            return sum(waits) + (count - len(waits)) * sum(tail) / len(tail)
        entries = min(each.entries, ring.capacity)
        at = issued if ring.runahead or previous < issued else previous
        while resident and (
            resident[0][0] <= at or sum(n for _, n in resident) + entries > ring.capacity
        ):
            at = max(at, resident.pop(0)[0])
        arrival = max(at + ring.latency, channel) + each.nbytes / ring.bytes_per_cycle
        channel, issued = arrival, at
        start = end + each.gap
        wait = max(0, ceil(arrival - start))
        refill = each.refill if wait else 0.0
        if each.charged:
            waits.append(wait + refill)
        previous = start + wait
        end = previous + refill + each.run
        resident.append((end, entries))
    return sum(waits)


@pytest.mark.parametrize("seed", range(6))
def test_a_sequence_s_placement_is_shared_by_the_nests_priced_on_it(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A REV sweep's placement on a ring is made once and read by every nest priced
    # on it: each nest's waits (random nests of random sequences, their layers
    # interleaved, asked for in random order on random rings, the budget of placed
    # layers cut to 16 so that the rest is extrapolated) are those placing the
    # nest's own sequence, its layers charged and the others not, from the
    # sweep's start gives, step by step.
    monkeypatch.setattr(cost, "PRELOAD_LAYERS", 16)
    rng = np.random.default_rng(seed)
    ops = [object() for _ in range(6)]
    items = []
    for place in range(int(rng.integers(4, 12))):
        for _ in range(int(rng.integers(1, 9))):
            each = cost.RevLayer(
                int(rng.choice([1, 2, 4, 8])),
                float(rng.integers(1, 80)),
                float(rng.integers(0, 20)),
                int(rng.choice([8, 32, 64])),
                refill=float(rng.choice([0, 0, 7, 30])),
            )
            items.append((ops[int(rng.integers(0, len(ops)))], place, each))
    sweep = cost._Sequence(iter(items))  # type: ignore[arg-type]
    rings = [
        cost.Ring(int(rng.choice([8, 16, 64])), int(rng.choice([0, 50, 100])), bw, bool(ahead))
        for bw in (1.0, 8.0, 1e9)
        for ahead in (0, 1)
    ]
    for _ in range(40):
        charged = {ops[int(i)] for i in rng.choice(len(ops), int(rng.integers(1, 4)), False)}
        ring = rings[int(rng.integers(0, len(rings)))]
        last = max((place for op, place, _ in items if op in charged), default=-1)
        if last < 0:
            continue
        layers = [
            replace(each, charged=op in charged) for op, place, each in items if place <= last
        ]
        count = sum(each.charged for each in layers) + int(rng.integers(0, 50))
        want = _direct_waits(layers, ring, count)
        assert sweep.charged_waits(charged, last, ring, count) == want  # type: ignore[arg-type]
        assert cost.rev_waits(layers, ring, count) == want


class _Forgets(dict):  # type: ignore[type-arg]
    """A memo that keeps nothing: each REV layer's run worked out at each run."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


@pytest.mark.parametrize(
    ("key", "spad"),
    [("lenet", 512), ("lenet", 64), ("gravity", 64), ("lu", 512), ("trmm", 128)],
)
def test_a_kernel_s_nests_wait_as_their_own_sequences_do(key: str, spad: int) -> None:
    # Real sweeps (small size, layered as the pass does; lu's and trmm's
    # triangular nests run tiles of as many lengths as rows): the sequence of
    # REV layers, each kind of run made once, is the one worked out at each
    # layer; every nest's waits on the shared timeline, on rings of the machine
    # and others, are those placing its own sequence step by step gives.
    ctx = make_context()
    module = parse_kernel(ctx, key, "small")
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    layer_module(module, spad, 2, 4)
    nests: dict[SSAValue, set[layer.LayerOp]] = {}
    for op in module.walk():
        if isinstance(op, layer.LayerOp) and op.phase.data is Phase.REV:
            function = op.parent_op()
            while not isinstance(function, func.FuncOp):
                function = function.parent_op()
            for o in op.walk():
                if isinstance(o, region.LoadOp | region.StoreOp):
                    nests.setdefault(o.region, set()).add(op)
    assert nests
    timeline = cost.RevTimeline(function, CGRA)
    direct = cost.RevTimeline(function, CGRA)
    direct._made = _Forgets()
    every = set().union(*nests.values())
    assert list(timeline.layers(every)) == list(direct.layers(every))
    for ring in (
        cost.Ring(spad // 16, 100, 9.6),
        cost.Ring(spad // 16, 400, 1.0, False),
        cost.Ring(4 * spad // 16, 10, 64.0),
    ):
        for rev in [*nests.values(), set().union(*nests.values())]:
            runs = {op: 3 for op in rev}
            layers = list(timeline.layers(rev))
            want = _direct_waits(layers, ring, sum(runs.values()))
            assert timeline.waits(runs, ring) == want


def _kernel_iis(module: ModuleOp, opening: str) -> list[int]:
    """The ii of each `cgra` kernel of the lowered `module` whose body's first
    memory access is `opening` (`cgra.load`/`cgra.store` text, up to its buffer)."""
    found = []
    for op in module.walk():
        if isinstance(op, cgra.KernelOp):
            text = [str(o) for o in op.body.block.ops if isinstance(o, cgra.LoadOp | cgra.StoreOp)]
            if text and opening in text[0]:
                found.append(op.ii.value.data)
    return found


def test_a_loop_s_issue_is_the_scheduler_s_with_the_tape_in_the_cache_or_not() -> None:
    # PolyBench's trisolv (N = 96) on Tflow32k: FWD's inner loop reads L[i][j]
    # and x[j], stores both to the tape and accumulates x[i] through memory.
    # Kept, the scheduler places its accesses in program order: the two loads
    # and the two tape stores take the 2 cache ports in the first cycles, the
    # recurrence's load of x[i] a cycle later, and the loop issues at ii 13;
    # streamed, the tape's scratchpad stores go last (`sinks_last`) and the
    # loop issues at 12, as the recurrence allows. The cost model prices the
    # loop at those intervals (`_intervals`), those of the kernels
    # `tapeflow-to-cgra` makes with the tape read through the cache (the aos
    # variant, as a kept nest) and streamed; the 4,560 iterations' cycle each
    # outweighs the tiles' cost, and `auto` streams the triangle too, with
    # Enzyme's gradient bit for bit.
    ctx = make_context()
    module = parse_kernel(ctx, "trisolv", "paper")
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    inner = [
        op
        for op in module.walk()
        if isinstance(op, scf.ForOp)
        and any(isinstance(o, region.StoreOp) for o in op.body.block.ops)
        and not any(isinstance(o, scf.ForOp) for o in op.body.walk())
    ]
    (fwd,) = inner
    tape = [o for o in fwd.body.block.ops if isinstance(o, region.StoreOp)]
    assert len(tape) == 2
    assert cost._intervals(fwd.body.block, tape, CGRA) == (13, 12)

    hardware = configure("Tflow32k")
    iis = {}
    for variant in ("aos", "tapeflow"):
        ctx = make_context()
        lowered = parse_kernel(ctx, "trisolv", "paper")
        prepare(ctx, lowered, variant, hardware)
        if variant == "tapeflow":
            assert not _kept(lowered)
        # The FWD inner loop's kernel opens with its load of L (%arg0).
        iis[variant] = _kernel_iis(lowered, "cgra.load %arg0[")
    assert iis == {"aos": [13], "tapeflow": [12]}
    _run_by_cost(hardware, False, "trisolv", "paper")


def test_sinks_last_takes_the_accesses_priced_through_the_scratchpad() -> None:
    # A body's tape stores priced as streamed go last, as a FWD tile's scratchpad
    # stores do; a body that also loads from the scratchpad (a REV tile) keeps
    # its order.
    text = """
    func.func @f(%x: memref<8xf64>, %y: memref<8xf64>) {
      %c0 = arith.constant 0 : index
      %t = region.alloc : !region.region<8, [f64]>
      %a = memref.load %x[%c0] : memref<8xf64>
      region.store %a, %t[%c0] slot 0 id 0 : f64, !region.region<8, [f64]>
      %b = arith.addf %a, %a : f64
      memref.store %b, %y[%c0] : memref<8xf64>
      %r = region.load %t[%c0] slot 0 from 0 : !region.region<8, [f64]> -> f64
      func.return
    }
    """
    module = LocatingParser(make_context(), text, "f").parse_module()
    kinds = memref.LoadOp | memref.StoreOp | region.StoreOp | region.LoadOp | arith.AddfOp
    ops = [o for o in module.walk() if isinstance(o, kinds)]
    load, store, add, primal_store, tape_load = ops
    body = [load, store, add, primal_store]
    assert sinks_last(body) == body
    assert sinks_last(body, {store}) == [load, add, primal_store, store]
    assert sinks_last([*body, tape_load], {store, tape_load}) == [*body, tape_load]
    hw = configure("Tflow32k")
    kinds = LoopBody.of(body, hw, {store}).kinds
    assert kinds == ["cache", "spad", None, "cache"]
    # A tape load taken through the scratchpad takes the scratchpad's latency
    # (a stream load's), not the cache's; stores issue in one cycle either way.
    read = LoopBody.of([*body, tape_load], hw, {store, tape_load})
    assert read.kinds[-1] == "spad"
    assert hw.scratchpad.latency != hw.cache.hit_latency
    assert read.latencies[0] == hw.cache.hit_latency
    assert read.latencies[1] == 1
    assert read.latencies[-1] == hw.scratchpad.latency
    assert LoopBody.of([*body, tape_load], hw).latencies[-1] == hw.cache.hit_latency


def _row_loss(run_time: bool) -> ModuleOp:
    """row-loss.mlir (8 rows of 24; with `run_time`, over %n rows) at the region
    stage."""
    path = INPUTS / "row-loss.mlir"
    text = path.read_text()
    if run_time:
        text = text.replace("%i = %c0 to %c8 step", "%i = %c0 to %n step")
    ctx = make_context()
    module = LocatingParser(ctx, text, str(path)).parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    raise_module(module)
    form_regions(module)
    return module


def test_a_piece_between_the_runs_of_tiles_breaks_their_chains() -> None:
    # Layered as on Tflow32k (512 B: tiles of 16 entries, 8 iterations; a row's
    # 24 iterations and its dot product, 49 entries, fit no layer): each row's
    # inner loop is 3 tiles and its dot product a piece. REV visits each row's
    # piece, then its tiles; without the piece between them (kept: a cache load
    # among the row's straight-line ops), the tiles of the 8 rows would form one
    # chain, so streaming the piece breaks 7 chains (FWD's runs end with the
    # row's ops after the loop either way). Each restart is the REV loop's fill
    # and, as the loop walks d_x[i][k] along k, a DRAM latency less the steady
    # rate's share: 100 * (1 - 1/8) = 87.5 cycles. The REV loop's fill: `subi`
    # (1), the tape load at 1 (2), `mulf` at 3 (4), `addf` into d_w at 7 (5), its
    # store at 12 (1): 13 cycles, less the 2 an iteration takes (four cache
    # accesses on two ports), 11. The tiles' nest breaks none.
    module = _row_loss(run_time=False)
    (function,) = [
        op
        for op in module.walk()
        if isinstance(op, func.FuncOp) and op.sym_name.data.startswith("diffe")
    ]
    cut = cost.CutLoops(function.clone(), CGRA)  # the function before layering
    layer_module(module, 512, 2, 4)
    allocs = [op for op in function.walk() if isinstance(op, region.AllocOp)]
    (piece,) = [a.region for a in allocs if len(a.region.type.shape) == 1]  # type: ignore[attr-defined]
    (tiles,) = [a.region for a in allocs if len(a.region.type.shape) == 2]  # type: ignore[attr-defined]
    (rev_loop,) = [
        loop
        for loop in _loops(function)
        if "tapeflow.rows_per_iteration" in loop.attributes
        and isinstance(loop.parent_op(), layer.LayerOp)
        and loop.parent_op().phase.data is Phase.REV  # type: ignore[union-attr]
    ]
    assert cost.pipeline_fill(rev_loop, CGRA) == 11
    # A REV row walks d_x[i][k] once: 24 elements, 3 lines, charged to its load
    # and to its store (`AccessReuse.lines` prices each access); d_w's stay cached.
    assert cut.run_misses(rev_loop, function) == 6
    assert cost.restart_cycles(rev_loop, CGRA, 6) == 98.5
    assert cost.restart_cycles(rev_loop, CGRA, 0) == 0  # a run that hits: no wait
    assert cut.broken(function, {piece}) == 7 * 98.5
    assert cut.broken(function, {tiles}) == 0
    # Tiles of a nest kept run through the cache: no chain to break.
    assert cut.broken(function, {piece}, tiles_kept={tiles}) == 0
    # On this machine the tiles' nest is kept (`nest_choices`), so the piece is
    # not charged restarts of tiles that do not exist; it is kept on its other
    # costs.
    module = _row_loss(run_time=False)
    ((choices,),) = nest_choices(module, 512, [CGRA], 2, 4)
    (rows,) = [c for c in choices if "region<8x24," in c.regions]
    (choice,) = [c for c in choices if "region<8, [f64]>" in c.regions]
    assert not rows.stream and not choice.stream
    assert choice.added < 7 * 98.5
    # With a DRAM latency of 10 cycles the tiles stream, and the piece is charged
    # the 7 restarts: 11 + 10 * (1 - 1/8) = 19.75 cycles each.
    fast = replace(CGRA, dram_latency=10)
    module = _row_loss(run_time=False)
    ((choices,),) = nest_choices(module, 512, [fast], 2, 4)
    (rows,) = [c for c in choices if "region<8x24," in c.regions]
    (choice,) = [c for c in choices if "region<8, [f64]>" in c.regions]
    assert rows.stream and not choice.stream
    assert choice.saved < 7 * 19.75 <= choice.added


def test_pieces_between_run_time_runs_of_tiles_are_priced_an_iteration() -> None:
    # The same rows over a run-time count: no count of the runs, so the piece's
    # nest is priced an iteration of its loop (`CutLoops.breaks`): each REV row
    # restarts the tiles' chain once, against what streaming a row's one value
    # saves at most (its value's store and load, a line's share each).
    module = _row_loss(run_time=True)
    ((choices,),) = nest_choices(module, 512, [CGRA], 2, 4)
    (piece,) = [c for c in choices if not c.stream]
    assert piece.per_iteration and piece.breaks
    assert piece.added == 98.5 > piece.saved
    assert "stand between another nest's tiles" in piece.reason
