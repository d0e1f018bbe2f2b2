// `stream=auto` (the default) streams a nest only where the cost model finds it
// saves more cycles than its tiles add; `stream=always` streams every nest.
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=1024 tiles-in-flight=32 loop-tiles-in-flight=32 dram-latency=1 cache-ports=4 stats=true}' %S/Inputs/short-tape.mlir 2>%t.short | filecheck %s --check-prefix=KEEP
// RUN: filecheck %s --check-prefix=KEEPSTATS < %t.short
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=1024 tiles-in-flight=32 loop-tiles-in-flight=32 dram-latency=200 stats=true}' %S/Inputs/short-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=STREAM
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=1024 tiles-in-flight=32 loop-tiles-in-flight=32 dram-latency=200 runahead=false stats=true}' %S/Inputs/short-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BEHIND
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=1024 tiles-in-flight=32 loop-tiles-in-flight=32 stats=true}' %S/Inputs/short-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=FIRST
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=32 stats=true}' %S/Inputs/short-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=WHOLE
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=1024 tiles-in-flight=32 loop-tiles-in-flight=32 stream=always stats=true}' %S/Inputs/short-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=ALWAYS
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=512 stats=true}' %S/Inputs/long-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=LONG
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=512 cache-bytes=1048576 dram-latency=0 dram-bytes-per-cycle=1000000.0 stats=true}' %S/Inputs/long-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BIGCACHE
// RUN: not tapeflow-opt -p 'tapeflow-layers{stream=never}' %S/Inputs/short-tape.mlir 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not tapeflow-opt -p 'tapeflow-layers{dram-bytes-per-cycle=0.0}' %S/Inputs/short-tape.mlir 2>&1 | filecheck %s --check-prefix=BADRATE
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=128 stats=true}' %S/Inputs/rows-of-runs.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=FILLS

// 64 iterations, 2 tape values each (1 KB): the tape and the arrays (2 KB) fit the
// 32 KB cache, so REV reads hit and streaming saves only FWD's first-touch misses
// (128 words, 16 lines: 2 groups of 8 misses, 400 cycles at a DRAM latency of
// 200) and the ports a hit holds a cycle, down to the cycles a loop's iterations
// issue in: each loop's 3 cache accesses (x and 2 tape stores; 2 tape loads and
// dx) over the 2 ports take an ii of 2 kept, 128 cycles for 64 iterations, its
// one cache access an ii of 1 streamed, 64 (FWD: x's 64 hits and the tape's 112
// hold the 2 ports 88 cycles: 400 + 88 - 64; REV: 96 with the tape, under the
// 128 it issues in kept, 32 without, under 64: 128 - 64), 488 cycles. A 1 KB scratchpad of 32 tiles in flight gives tiles of 2 iterations
// (32 B): 32 full tiles, the tile loop's index their first iteration, each
// tile's end (`hi + 2`; the row count is the constant 2) carried from the tile
// before, whose loop computes it beside its work: no kernel of bounds, FWD's or
// REV's. The ring holds all 32 REV tiles: their preloads are issued at the REV
// sweep's start, 32 B each at 9.6 bytes a cycle after the latency, tile k's there
// at 200 + (k + 1) * 10/3. The first REV layer waits ceil(200 + 10/3) = 204
// cycles, starts at 204 and runs 2 cycles (one cache access a cycle) and its
// loop's pipeline fill, the first run of the REV loop (46 cycles, an iteration's
// longest latency path, `subi` 1, a load 2, `cos` 30, `mulf` 4, `addf` 5, `mulf`
// 4, the store 1, less the cycle an iteration takes): it ends at 252. Each later
// tile continues that pipeline and starts 2 cycles after the one before, tile k
// at 250 + 2k, after its preload: 204, less than 488: streamed.
// STREAM: nest #0 %t: streamed (cost model: streaming saves at most 488 cycles, adds 204)

// Without runahead a REV preload is issued no earlier than the previous REV
// layer's start: the first tile waits 204 cycles, starts at 204 and ends at 252;
// every later tile, issued at the start of the one before and starting 48 cycles
// after it (after its wait, the refill of 46 and its run of 2), waits ceil(200 +
// 10/3 - 48) = 156 and fills 46: 204 + 31 * 202 = 6466, kept.
// BEHIND: nest #0 %t: kept (cost model: streaming saves at most 488 cycles, adds 6466)

// At a latency of 100 the FWD misses save 224 cycles (200 + 88 - 64) and REV
// 64, 288; the first REV tile waits ceil(100 + 10/3) = 104, the later ones
// none: 104, streamed.
// FIRST: nest #0 %t: streamed (cost model: streaming saves at most 288 cycles, adds 104)

// A 32 B scratchpad holds a single such tile: each REV tile's preload is issued
// when the tile before it ends and waits the latency and its transfer, ceil(100 +
// 10/3) = 104, and every tile after the first fills its loop's pipeline again,
// 46: 32 * 104 + 31 * 46, kept.
// WHOLE: nest #0 %t: kept (cost model: streaming saves at most 288 cycles, adds 4754)

// With a DRAM latency of 1 cycle and 4 cache ports, the hits hold the ports 168 /
// 4 = 42 cycles in FWD (3 more of misses) and 192 / 4 = 48 in REV, under the 64
// cycles each loop takes: nothing saved, against the first REV tile's wait,
// ceil(1 + 10/3) = 5: kept.
// KEEP: region.alloc {tapeflow.kept = "cost model: streaming would add 5 cycles of tile bookkeeping and preload waits and save at most 0 (tape misses, cache-port cycles, loop issue and pipeline fills; the tape and arrays fit the cache)"}
// KEEP-NOT: layer.layer
// KEEPSTATS:      tapeflow-layers: @diffef: 0 FWD/REV layer pairs, 0 layers executed (scratchpad 1024 B)
// KEEPSTATS-NEXT:   region #0 %t kept in DRAM, read through the cache: cost model: streaming would add 5 cycles
// KEEPSTATS-NEXT:   nest #0 %t: kept (cost model: streaming saves at most 0 cycles, adds 5)
// ALWAYS:      tapeflow-layers: @diffef: 1 FWD/REV layer pairs, 64 layers executed (scratchpad 1024 B)
// ALWAYS-NEXT:   layer 0/1 %t: 2x2 entries, tile of iterations, runs 32 times
// ALWAYS-NOT:  nest

// 8192 iterations (128 KB of tape, 64 KB each of x and dx): nothing fits the
// cache. Each sweep's 1024 lines of x (or dx) and 2048 of tape miss in 384 groups
// where x alone takes 128: 256 groups of 100 cycles, plus the tape's 14336 hits
// over 2 ports, 7168 cycles, in each sweep: 65536. Tiles of 32 iterations: 256
// full tiles, their bounds carried (no kernel); each tile fills the 512 B
// scratchpad, so a REV tile's preload is issued when the tile before it ends and
// waits the latency and its transfer (512 B at 9.6 bytes a cycle), ceil(100 +
// 512/9.6) = 154, and every tile after the first fills its loop's pipeline
// again, 46 (above): 256 * 154 + 255 * 46.
// LONG:      layer 0/1 %t: 32x2 entries, tile of iterations, runs 256 times
// LONG-NEXT: nest #0 %t: streamed (cost model: streaming saves at most 65536 cycles, adds 51154)

// The model reads the machine it is given: with a 1 MB cache and free misses only
// the ports are saved (FWD: x's 8192 hits and the tape's 14336 hold the 2 ports
// 11264 cycles; REV: 12288, the tape hitting), and the loops' issue: each loop's
// 3 cache accesses over the 2 ports issue at an ii of 2 kept (16384 cycles, more
// than its ports' time), its one at 1 streamed (8192, more than x's or dx's 4096):
// 8192 in each loop, 16384. With no latency and a transfer of next to no time
// (`dram-bytes-per-cycle` 10^6), a REV tile's preload, issued when the tile
// before it ends (the scratchpad holds one), arrives a fraction of a cycle after
// the tile would start: the first waits a cycle, each later one a cycle and its
// loop's pipeline fill again (46), 1 + 255 * 47 = 11986: streamed.
// BIGCACHE: nest #0 %t: streamed (cost model: streaming saves at most 16384 cycles, adds 11986)

// BAD: tapeflow-layers: option stream must be one of auto, always, got 'never'
// BADRATE: tapeflow-layers: option dram-bytes-per-cycle must be a positive number, got 0.0

// Four rows of 32 (1 KB of tape beside 2 KB of arrays: all fit the cache). FWD's
// inner loop saves per run its 4 lines of first-touch misses, one group of 100
// cycles, and the ports its 32 tape stores hold (100 + (64 - 4)/2 against 32/2,
// both above its 32 cycles of recurrence): 98, 392 for the 4 runs; REV's reads
// hit, its 64 accesses hold the ports 32 cycles, no more than its recurrence.
// Streamed in tiles of 16, each phase's runs are tiles of one strip-mined loop,
// nothing but straight-line ops between them: 3 of the 4 runs keep their loop's
// pipeline, FWD's fill 2 (a load, 2 cycles, then the store, 1, against 1 cycle
// an iteration) and REV's 7 (subi 1, load 2, mulf 4, store 1, against 1): 27.
// FILLS: nest #0 %t: kept (cost model: streaming saves at most 419 cycles, adds {{[0-9]+}})
