// A region tapeflow-layers kept (tapeflow.kept) is left as it is by the binding:
// its alloc, accesses and free stay (a region in DRAM, read through the cache),
// while the layered region's accesses become scratchpad slots and its region goes.
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always},tapeflow-streams,tapeflow-spad-bind' %S/../tapeflow-layers/Inputs/mixed.mlir | filecheck %s

// CHECK-LABEL: func.func private @diffef
// CHECK-NOT:   region.alloc : !region.region<3x8, [f64, i1]>
// CHECK:       %[[K:[^ ]+]] = region.alloc {tapeflow.kept = {{.*}}} : !region.region<3x8, [f64]>
// CHECK:       stream.store %{{.*}} slot 0 id 0 : f64, !layer.spad<4x2>
// CHECK-NEXT:  stream.store %{{.*}} slot 1 id 1 : i1, !layer.spad<4x2>
// CHECK:       region.store %{{.*}}, %[[K]][%{{.*}}, %{{.*}}] slot 0 id 0
// CHECK:       region.load %[[K]][%{{.*}}, %{{.*}}] slot 0 from 0
// CHECK:       stream.load %{{.*}} slot 0 from 0 : !layer.spad<4x2> -> f64
// CHECK:       region.free %[[K]]
// CHECK-NOT:   region.free
