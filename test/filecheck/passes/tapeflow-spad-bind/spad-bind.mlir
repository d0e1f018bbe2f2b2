// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always},tapeflow-streams,tapeflow-spad-bind' %S/../tapeflow-layers/Inputs/two-loops.mlir | filecheck %s
// RUN: not tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always},tapeflow-spad-bind' %S/../tapeflow-layers/Inputs/two-loops.mlir 2>&1 | filecheck %s --check-prefix=UNSTREAMED

// Every region access becomes a scratchpad access: offsets in the order of the
// FWD layer's stores, the same offset for the matching REV load, and the row of
// the iteration in the tile (counted backwards in REV). The regions disappear.

// CHECK-LABEL: func.func private @diffef
// CHECK-NOT:    region.
// The tile loop's index is the tile's first iteration.
// CHECK:        scf.for %[[LO:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-NEXT:   layer.layer 0 fwd partner 1 -> index, index {
// CHECK-NEXT:     %[[TILE0:[^ ]+]] = layer.salloc base 0 capacity 64 : !layer.spad<4x2>
// CHECK:          scf.for %[[I:[^ ]+]] = %[[LO]] to %{{.*}} step %{{.*}} iter_args(
// CHECK-NEXT:       %[[ROW:[^ ]+]] = arith.subi %[[I]], %[[LO]] : index
// CHECK:            stream.store %{{.*}}, %[[TILE0]][%[[ROW]]] slot 0 id 0 : f64, !layer.spad<4x2>
// CHECK-NEXT:       stream.store %{{.*}}, %[[TILE0]][%[[ROW]]] slot 1 id 1 : f64, !layer.spad<4x2>
// CHECK:        layer.layer 2 fwd partner 3 {
// CHECK-NEXT:     %[[TILE2:[^ ]+]] = layer.salloc
// CHECK-NEXT:     %[[ZERO:[^ ]+]] = arith.constant 0 : index
// CHECK-NEXT:     stream.store %{{.*}}, %[[TILE2]][%[[ZERO]]] slot 0 id 0
// CHECK-NEXT:     stream.store %{{.*}}, %[[TILE2]][%[[ZERO]]] slot 1 id 1
// CHECK:          stream.store %{{.*}}, %[[TILE2]][%[[ZERO]]] slot 7 id 7
// CHECK:        layer.layer 4 fwd partner 5 {
// The ninth store is the first of its own layer: offset 0.
// CHECK:          stream.store %{{.*}}, %{{.*}}[%{{.*}}] slot 0 id 8 : f64, !layer.spad<1x1>
// CHECK:        layer.layer 5 rev partner 4 -> f64 {
// CHECK:          stream.load %{{.*}}[%{{.*}}] slot 0 from 8 : !layer.spad<1x1> -> f64
// CHECK:        layer.layer 3 rev partner 2 -> f64, f64 {
// CHECK:          stream.load %{{.*}}[%{{.*}}] slot 0 from 0 : !layer.spad<1x8> -> f64
// CHECK-NEXT:     stream.load %{{.*}}[%{{.*}}] slot 4 from 4 : !layer.spad<1x8> -> f64
// Full tiles: REV's tile at u runs [u, u + 4), as FWD's does, its end carried.
// CHECK:        scf.for %[[RLO:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[RHI:[^ ]+]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (index, index) {
// CHECK-NEXT:   layer.layer 1 rev partner 0 -> index, index {
// CHECK-NEXT:     %[[TILE1:[^ ]+]] = layer.salloc
// CHECK:          scf.for %[[J:[^ ]+]] = %[[RLO]] to %[[RHI]] step %{{.*}} iter_args(
// Row = (iterations in the tile - 1) - (j - lo).
// CHECK-NEXT:       %[[POS:[^ ]+]] = arith.subi %[[J]], %[[RLO]] : index
// CHECK-NEXT:       %[[COUNT:[^ ]+]] = arith.subi %[[RHI]], %[[RLO]] : index
// CHECK-NEXT:       %[[C1:[^ ]+]] = arith.constant 1 : index
// CHECK-NEXT:       %[[LAST:[^ ]+]] = arith.subi %[[COUNT]], %[[C1]] : index
// CHECK-NEXT:       %[[RROW:[^ ]+]] = arith.subi %[[LAST]], %[[POS]] : index
// CHECK:            stream.load %[[TILE1]][%[[RROW]]] slot 0 from 0 : !layer.spad<4x2> -> f64
// CHECK-NEXT:       stream.load %[[TILE1]][%[[RROW]]] slot 1 from 1 : !layer.spad<4x2> -> f64

// UNSTREAMED: error: tapeflow-spad-bind: @diffef is at the layer stage (layer.layer ops, no streams), but tapeflow-spad-bind takes the stream stage; run tapeflow-streams first
