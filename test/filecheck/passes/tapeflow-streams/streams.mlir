// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always},tapeflow-streams' %S/../tapeflow-layers/Inputs/two-loops.mlir | filecheck %s
// RUN: not tapeflow-opt -p 'tapeflow-streams' %S/../tapeflow-layers/Inputs/two-loops.mlir 2>&1 | filecheck %s --check-prefix=UNLAYERED

// One DRAM tape per region, sized to hold all of it. Each FWD layer ends with a
// FWD-stream of the rows it filled (a tile of iterations: the row count the tile
// loop carries beside the tile's bounds, from the tile before; 1 for a piece);
// each REV layer preloads, before its loop, the tile of its partner's stream.

// CHECK-LABEL: func.func private @diffef
// CHECK:        %[[A:.*]] = region.alloc : !region.region<8, [f64, f64]>
// CHECK-NEXT:   %[[TA:.*]] = stream.alloc bytes 128 : !stream.tape
// CHECK-NEXT:   %[[B:.*]] = region.alloc : !region.region<2, [{{.*}}]>
// CHECK-NEXT:   %[[TB:.*]] = stream.alloc bytes 144 : !stream.tape
// The tile loop's index is the tile's first iteration; it carries the tile's end
// and row count.
// CHECK:        scf.for %[[LO:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[HI:[^ ]+]] = %{{.*}}, %[[ROWS:[^ ]+]] = %{{.*}}) -> (index, index) {
// CHECK-NEXT:   layer.layer 0 fwd partner 1 -> index, index {
// CHECK-NEXT:     %[[TILE0:[^ ]+]] = layer.salloc base 0 capacity 64 : !layer.spad<4x2>
// CHECK-NEXT:     scf.for %{{.*}} = %[[LO]] to %[[HI]]
// CHECK:          stream.fwd %[[TILE0]] rows %[[ROWS]] to %[[TA]] id 0 : !layer.spad<4x2>
// CHECK-NEXT:     layer.barrier
// CHECK:        layer.layer 2 fwd partner 3 {
// CHECK-NEXT:     %[[TILE2:[^ ]+]] = layer.salloc base 0 capacity 64 : !layer.spad<1x8>
// CHECK-COUNT-8:  region.store
// CHECK-NEXT:     %[[ONE:[^ ]+]] = arith.constant 1 : index
// CHECK-NEXT:     stream.fwd %[[TILE2]] rows %[[ONE]] to %[[TB]] id 2 : !layer.spad<1x8>
// CHECK:        layer.layer 4 fwd partner 5 {
// CHECK:          stream.fwd %{{.*}} rows %{{.*}} to %[[TB]] id 4 : !layer.spad<1x1>
// CHECK:        layer.layer 5 rev partner 4 -> f64 {
// CHECK-NEXT:     %[[TILE5:[^ ]+]] = layer.salloc base 0 capacity 64 : !layer.spad<1x1>
// CHECK-NEXT:     %[[ONE5:[^ ]+]] = arith.constant 1 : index
// CHECK-NEXT:     stream.rev %[[TB]] rows %[[ONE5]] to %[[TILE5]] of 4 : !layer.spad<1x1>
// CHECK-NEXT:     region.load
// CHECK:        layer.layer 3 rev partner 2 -> f64, f64 {
// CHECK-NEXT:     %[[TILE3:[^ ]+]] = layer.salloc
// CHECK-NEXT:     arith.constant 1 : index
// CHECK-NEXT:     stream.rev %[[TB]] rows %{{.*}} to %[[TILE3]] of 2 : !layer.spad<1x8>
// Full tiles: REV's tile at u runs [u, u + 4), as FWD's does.
// CHECK:        scf.for %[[RLO:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[RHI:[^ ]+]] = %{{.*}}, %[[RROWS:[^ ]+]] = %{{.*}}) -> (index, index) {
// CHECK-NEXT:   layer.layer 1 rev partner 0 -> index, index {
// CHECK-NEXT:     %[[TILE1:[^ ]+]] = layer.salloc base 0 capacity 64 : !layer.spad<4x2>
// CHECK-NEXT:     stream.rev %[[TA]] rows %[[RROWS]] to %[[TILE1]] of 0 : !layer.spad<4x2>
// CHECK-NEXT:     scf.for %{{.*}} = %[[RLO]] to %[[RHI]]

// UNLAYERED: error: tapeflow-streams: @diffef is at the region stage (region.alloc/store/load ops, no layers), but tapeflow-streams takes the layer stage; run tapeflow-layers first
