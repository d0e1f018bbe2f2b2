// A loop whose iteration holds an inner loop's tape and a per-iteration value, and
// fits a tile only once, is strip-mined into tiles of one iteration when every
// group of its stores keeps a row per inner iteration: logistic regression (8
// samples of 4 features) caches 2 values per feature and 2 per sample, 10 entries
// in 5 rows of 2 slots; a tile of a 128 B scratchpad (16 entries) holds one sample.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=128 stream=always stats=true}' %S/../../../../tapeflow_benchmarks/mlir/logreg.small.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=ONE
// ONE:      @diffelogreg: 1 FWD/REV layer pairs, 16 layers executed
// ONE-NEXT:   layer 0/1 !region.region<8x4, [f64, f64]>, !region.region<8, [f64, f64]>: 5x2 entries, tile of iterations, runs 8 times

// MTTKRP caches 2 values per inner iteration and 1 per outer one: in one tile they
// would share 1 slot, each inner iteration's 2 values taking 2 rows, each with a
// row index of its own. Where only one iteration fits (64 B), the inner loop is
// tiled and the per-iteration value is a piece.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always stats=true}' %S/../../../../tapeflow_benchmarks/mlir/mttkrp.small.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=PIECE
// PIECE:      layer 0/1 !region.region<3x4x5x2, [f64, f64]>: 2x2 entries, tile of iterations, runs 60 times
// PIECE-NEXT: layer 2/3 !region.region<3x4x5, [f64]>: 1x1 entries, piece of an iteration, runs 60 times
