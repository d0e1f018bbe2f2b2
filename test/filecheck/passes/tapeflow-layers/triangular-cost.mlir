// The cost model counts a triangular nest's iterations over its outer loop, so
// such a nest gets an estimate (a nest bounded by a function argument still gets
// none: run-time-nest.mlir).
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stats=true}' %S/Inputs/triangular-rows.mlir 2>&1 >/dev/null | filecheck %s

// Enzyme caches x[j] per (i, j), 28 values in the 8 runs of the inner loop, 3.5
// iterations a run on average. The tape and the arrays fit the 32 KB cache: REV
// hits. A FWD run touches 3.5 * 8 / 64 = 0.4375 lines of tape, one group of misses
// in that fraction of the runs (43.75 cycles), and its 3.5 loads of x and 3.0625
// tape hits (3.5 stores, 0.4375 misses) hold the 2 ports 3.28125 cycles (1.75
// without the tape); its sum carries an fadd (5 cycles) from one iteration to the
// next, 17.5 cycles a run, so streaming saves 43.75 + 3.28125 - 17.5 = 29.53125
// cycles a run. A REV run's 3.5 tape loads and 7 accesses of dx (5.25 cycles of
// ports) hide under its own sum's 17.5: nothing. In all, 8 * 29.53125 = 236.25.
// CHECK: layer 0/1 !region.region<8x?, [f64]>: 8x1 entries, tile of iterations
// CHECK: nest #1 !region.region<8x?, [f64]>: streamed (cost model: streaming saves at most 236 cycles, adds
