// RUN: tapeflow-opt -p tapeflow-regions %S/../tapeflow-pack-tapes/Inputs/triangle.mlir | filecheck %s

// A triangular tape's ragged extents (lowering/ir/ragged.py) go to its region,
// for tapeflow-pack-tapes.
// CHECK: region.alloc(%{{.*}}) {tapeflow.ragged = affine_map<(d0, d1)[s0] -> (4, d0)>} : !region.region<4x?, [f64]>
// CHECK-NOT: tape.alloc
