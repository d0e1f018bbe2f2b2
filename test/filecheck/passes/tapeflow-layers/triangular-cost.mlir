// The cost model counts a triangular nest's iterations over its outer loop, so
// such a nest gets an estimate (a nest bounded by a function argument still gets
// none: run-time-nest.mlir).
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stats=true}' %S/Inputs/triangular-rows.mlir 2>&1 >/dev/null | filecheck %s

// Enzyme caches x[j] per (i, j), 28 values in the 8 runs of the inner loop, 3.5
// iterations a run on average. The tape and the arrays fit the 32 KB cache: REV
// hits, so streaming saves FWD's first-touch misses (a run touches 3.5 * 8 / 64 =
// 0.4375 lines, one group of misses in that fraction of the runs: 43.75 cycles)
// and the ports (3.5 accesses over 2 ports in each sweep: 1.75 + 1.75), per run:
// 8 * (43.75 + 1.75) + 8 * 1.75 = 378 cycles.
// CHECK: layer 0/1 !region.region<8x?, [f64]>: 8x1 entries, tile of iterations
// CHECK: nest #1 !region.region<8x?, [f64]>: streamed (cost model: streaming saves at most 378 cycles, adds
