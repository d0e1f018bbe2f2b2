// `stream=auto` (the default) streams a nest only where the cost model finds it
// saves more cycles than its tiles add; `stream=always` streams every nest.
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=1024 tiles-in-flight=32 loop-tiles-in-flight=32 dram-latency=0 stats=true}' %S/Inputs/short-tape.mlir 2>%t.short | filecheck %s --check-prefix=KEEP
// RUN: filecheck %s --check-prefix=KEEPSTATS < %t.short
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=1024 tiles-in-flight=32 loop-tiles-in-flight=32 stats=true}' %S/Inputs/short-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=STREAM
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=32 stats=true}' %S/Inputs/short-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=WHOLE
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=1024 tiles-in-flight=32 loop-tiles-in-flight=32 stream=always stats=true}' %S/Inputs/short-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=ALWAYS
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=512 stats=true}' %S/Inputs/long-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=LONG
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=512 cache-bytes=1048576 dram-latency=0 stats=true}' %S/Inputs/long-tape.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BIGCACHE
// RUN: not tapeflow-opt -p 'tapeflow-layers{stream=never}' %S/Inputs/short-tape.mlir 2>&1 | filecheck %s --check-prefix=BAD

// 64 iterations, 2 tape values each (1 KB): the tape and the arrays (2 KB) fit the
// 32 KB cache, so REV reads hit and streaming saves only FWD's first-touch misses
// (128 words, 16 lines: 2 groups of 8 misses, 200 cycles) and the ports a hit holds
// a cycle, down to the 64 cycles a loop of 64 iterations takes at least (FWD: x's
// 64 hits and the tape's 112 hold the 2 ports 88 cycles: 200 + 88 - 64; REV: 96
// with the tape, 32 without, down to 64), 256 cycles. A 1 KB scratchpad of 32
// tiles in flight gives tiles of 2 iterations (32 B): 32 full tiles, the tile
// loop's index their first iteration, so each layer's bounds (FWD's and, the tiles
// being full, REV's alike) are a kernel of 1 integer op (`t + 2`; the row count is
// the constant 2), 1 cycle: 64. A REV tile runs 2 cycles (one cache access a
// cycle) while the ring holds 32 tiles, so it waits (100 + 2) / 32 - 2 cycles for
// its preload, 38 in all: 102, less than 256: streamed.
// STREAM: nest #0 %t: streamed (cost model: streaming saves at most 256 cycles, adds 102)

// A 32 B scratchpad holds a single such tile: each REV tile's preload is issued
// when the tile before it ends and waits the whole latency, (100 + 2) - 2: 3200
// cycles more, kept.
// WHOLE: nest #0 %t: kept (cost model: streaming saves at most 256 cycles, adds 3264)

// With a DRAM latency of 0 cycles, the FWD misses save nothing: the ports save
// 88 - 64 in FWD and 32 in REV, 56, less than the tiles' 64 (a REV tile now waits
// (0 + 2) / 32 - 2 < 0 cycles: none): kept.
// KEEP: region.alloc {tapeflow.kept = "cost model: streaming would add 64 cycles of tile bookkeeping and preload waits and save at most 56 (tape misses and cache-port cycles; the tape and arrays fit the cache)"}
// KEEP-NOT: layer.layer
// KEEPSTATS:      tapeflow-layers: @diffef: 0 FWD/REV layer pairs, 0 layers executed (scratchpad 1024 B)
// KEEPSTATS-NEXT:   region #0 %t kept in DRAM, read through the cache: cost model: streaming would add 64 cycles
// KEEPSTATS-NEXT:   nest #0 %t: kept (cost model: streaming saves at most 56 cycles, adds 64)
// ALWAYS:      tapeflow-layers: @diffef: 1 FWD/REV layer pairs, 64 layers executed (scratchpad 1024 B)
// ALWAYS-NEXT:   layer 0/1 %t: 2x2 entries, tile of iterations, runs 32 times
// ALWAYS-NOT:  nest

// 8192 iterations (128 KB of tape, 64 KB each of x and dx): nothing fits the
// cache. Each sweep's 1024 lines of x (or dx) and 2048 of tape miss in 384 groups
// where x alone takes 128: 256 groups of 100 cycles, plus the tape's 14336 hits
// over 2 ports, 7168 cycles, in each sweep: 65536. Tiles of 32 iterations: 256
// full tiles of 2 cycles (1 FWD, 1 REV), 512; each tile fills the 512 B
// scratchpad, so a REV tile of 32 cycles waits (100 + 32) - 32 for its preload:
// 25600 more, 26112.
// LONG:      layer 0/1 %t: 32x2 entries, tile of iterations, runs 256 times
// LONG-NEXT: nest #0 %t: streamed (cost model: streaming saves at most 65536 cycles, adds 26112)

// The model reads the machine it is given: with a 1 MB cache and free misses only
// the ports are saved, down to the 8192 cycles each loop takes at least (FWD: x's
// 8192 hits and the tape's 14336 hold the 2 ports 11264 cycles; REV: 12288, the
// tape hitting): 3072 + 4096 = 7168, still more than the tiles add (a preload
// arrives at once: no wait).
// BIGCACHE: nest #0 %t: streamed (cost model: streaming saves at most 7168 cycles, adds 512)

// BAD: tapeflow-layers: option stream must be one of auto, always, got 'never'
