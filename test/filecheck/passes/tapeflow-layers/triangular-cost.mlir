// The cost model counts a triangular nest's iterations over its outer loop, so
// such a nest gets an estimate (a nest bounded by a function argument still gets
// none: run-time-nest.mlir).
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=512 loop-tiles-in-flight=8 stats=true}' %S/Inputs/triangular-rows.mlir 2>&1 >/dev/null | filecheck %s
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=512 loop-tiles-in-flight=8}' %S/Inputs/triangular-rows.mlir | filecheck %s --check-prefix=REV

// Enzyme caches x[j] per (i, j), 28 values in the 8 runs of the inner loop, of
// 0, 1, ..., 7 iterations, each trip count priced apart (the window's cycles,
// max(compute, memory), are convex in it). The tape and the arrays fit the 32 KB
// cache: REV hits. A FWD run of n iterations touches n * 8 / 64 lines of tape, one
// group of misses in that fraction of the runs (12.5n cycles), and its n loads of
// x and 7n/8 tape hits hold the 2 ports 15n/16 cycles (n/2 without the tape); its
// sum carries an fadd (5 cycles) from one iteration to the next, 5n cycles a run
// of more than one iteration. Streaming saves 12.5 + 15/16 - 1/2 = 12.9375 cycles
// on the run of 1 and 12.5n + 15n/16 - 5n = 8.4375n on a run of n >= 2: 12.9375 +
// 8.4375 * 27 = 240.75 in FWD. A REV run's n tape loads and 2n accesses of dx
// (1.5n cycles of ports) hide under its own sum's 5n, but for the run of 1
// (1.5 against 1): 0.5. In all, 241.25. (The per-row values' nest is kept: below.)
// CHECK: layer 0/1 !region.region<8x?, [f64]>: 8x1 entries, tile of iterations
// CHECK: nest #0 !region.region<8, [f64]>: kept (cost model: streaming saves at most 108 cycles
// CHECK: nest #1 !region.region<8x?, [f64]>: streamed (cost model: streaming saves at most 241 cycles, adds

// The per-row values, a piece of one entry per outer iteration, are kept: the
// 8 REV pieces' waits for their preloads (the first the whole latency) and
// their kernels add more than the nest saves, 108 cycles at most. Inside the
// outer loop, after REV reads that row's value through the cache, the end of
// REV's first tile of the inner loop, (trip - 1) rem 8 + 1, is computed per run
// (the trip is Enzyme's reversed index `7 - i`, the loop's upper bound), and the
// tile loop runs from it to it plus the trip count, over the iteration that ends
// each tile, and carries both bounds of its tile: the first one [0, first)
// (`lb` is 0), each next one [hi, hi + 8), computed in the tile's loop.
// REV:      region.load %{{.*}} : !region.region<8, [f64]> -> f64
// REV:      %[[M1:[^ ]+]] = arith.subi %[[TRIP:[^ ]+]], %{{.*}} : index
// REV:      %[[REM:[^ ]+]] = arith.remsi %[[M1]], %{{.*}} : index
// REV:      %[[FIRST:[^ ]+]] = arith.addi %[[REM]], %{{.*}} : index
// REV-NEXT: %[[END:[^ ]+]] = arith.addi %[[FIRST]], %[[TRIP]] : index
// REV:      scf.for %{{.*}} = %[[FIRST]] to %[[END]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[LO:[^ ]+]] = %{{.*}}, %[[HI:[^ ]+]] = %[[FIRST]], %{{.*}} = %[[FIRST]])
// REV-NEXT:   layer.layer 1 rev partner 0
// REV-NEXT:     layer.salloc base 0 capacity 512 : !layer.spad<8x1>
// REV-NEXT:     scf.for %{{.*}} = %[[LO]] to %[[HI]] step
