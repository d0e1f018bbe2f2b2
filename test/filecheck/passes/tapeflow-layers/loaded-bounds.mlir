// An inner loop whose bounds are loaded values (CSR row pointers), which Enzyme
// caches on the tape for REV. Each bound is a tape element: FWD's loaded value is
// the one it stores to slot 0 (1) of the per-row region at [i], REV's bound is its
// load of that element at [3 - u], the mirrored row. The mirror is proven for
// every value the pointers hold, and the inner loop is strip-mined with a
// run-time number of tiles; the per-row values are pieces of each row.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stats=true}' %S/Inputs/loaded-bounds.mlir 2>&1 >/dev/null | filecheck %s
// CHECK:      @diffef: 3 FWD/REV layer pairs
// CHECK-NEXT:   layer 0/1 !region.region<4x?, [index, f64, f64]>: 2x3 entries, tile of iterations, runs ceil(trip count / 2) times per run of the loops around it (known at run time)
// CHECK-NEXT:   layer 2/3 !region.region<4, [index, index, f64]>: 1x2 entries, piece of an iteration, runs 4 times
// CHECK-NEXT:   layer 4/5 !region.region<4, [index, index, f64]>: 1x1 entries, piece of an iteration, runs 4 times
// CHECK-NOT:  kept

// Through the whole pipeline: every tape value goes through the scratchpad.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=64}' %S/Inputs/loaded-bounds.mlir | filecheck %s --check-prefix=PIPE
// PIPE-LABEL: func.func private @diffef
// PIPE-NOT:   region.
// PIPE:       stream.fwd
// PIPE:       stream.rev
