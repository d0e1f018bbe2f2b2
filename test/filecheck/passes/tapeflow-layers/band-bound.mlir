// A loop of run-time trip count whose count has a constant bound proven from its
// clamps: the band max(1, i - 1) <= j < min(5, i + 2) runs at most
// (i + 2) - (i - 1) = 3 iterations, of one tape value each. 64 bytes hold 8
// entries: 8 // 3 = 2 outer iterations a tile, 6 rows of one slot, each band
// marked with its bound (the layout gives iteration j of outer iteration i the
// row i * 3 + j; the shorter runs leave theirs empty).
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always}' %S/Inputs/band-bound.mlir | filecheck %s
// CHECK: layer.salloc base 0 capacity 64 : !layer.spad<6x1>
// CHECK: } {tapeflow.trip_bound = 3 : i64}
// CHECK: layer.salloc base 0 capacity 64 : !layer.spad<6x1>
// CHECK: } {tapeflow.trip_bound = 3 : i64}

// 40 bytes hold 5 entries: one outer iteration fits, two do not, so the band's own
// loop is strip-mined, 5 of its iterations a tile, and no bound is marked.
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=40 stream=always}' %S/Inputs/band-bound.mlir | filecheck %s --check-prefix=NARROW
// NARROW: !layer.spad<5x1>
// NARROW-NOT: tapeflow.trip_bound
