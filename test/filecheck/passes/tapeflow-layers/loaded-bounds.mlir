// An inner loop whose bounds are loaded values (CSR row pointers), which Enzyme
// caches on the tape for REV. Each bound is a tape element: FWD's loaded value is
// the one it stores to slot 0 (1) of the per-row region at [i], REV's bound is its
// load of that element at [3 - u], the mirrored row. The mirror is proven for
// every value the pointers hold, and the inner loop is strip-mined with a
// run-time number of tiles. The per-row values (the two bounds, stored before the
// inner loop, and the activation's argument, after it) are one piece of each row:
// the bounds' stores are sunk past the inner loop, which touches nothing of their
// region, to join the piece after it.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always stats=true}' %S/Inputs/loaded-bounds.mlir 2>&1 >/dev/null | filecheck %s
// CHECK:      @diffef: 2 FWD/REV layer pairs
// CHECK-NEXT:   layer 0/1 !region.region<4x?, [index, f64, f64]>: 2x3 entries, tile of iterations, runs ceil(trip count / 2) times per run of the loops around it (known at run time)
// CHECK-NEXT:   layer 2/3 !region.region<4, [index, index, f64]>: 1x3 entries, piece of an iteration, runs 4 times
// CHECK-NOT:  kept
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always}' %S/Inputs/loaded-bounds.mlir | filecheck %s --check-prefix=SUNK
// SUNK-LABEL: func.func private @diffef
// SUNK:         region.alloc(%{{.*}}) : !region.region<4x?, [index, f64, f64]>
// SUNK:         %[[LO:[^ ]+]] = memref.load %{{.*}} : memref<5xindex>
// SUNK-NOT:     region.store %[[LO]]
// SUNK:         %[[HI:[^ ]+]] = memref.load %{{.*}} : memref<5xindex>
// SUNK-NOT:     region.store %[[HI]]
// SUNK:         layer.layer 0 fwd partner 1
// SUNK:         layer.layer 2 fwd partner 3 {
// SUNK-NEXT:      layer.salloc base 0 capacity 64 : !layer.spad<1x3>
// SUNK-NEXT:      region.store %[[LO]]
// SUNK-NEXT:      region.store %[[HI]]
// SUNK-NEXT:      region.store
// SUNK-NEXT:      layer.barrier

// Through the whole pipeline: every tape value goes through the scratchpad.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=64 stream=always}' %S/Inputs/loaded-bounds.mlir | filecheck %s --check-prefix=PIPE
// PIPE-LABEL: func.func private @diffef
// PIPE-NOT:   region.
// PIPE:       stream.fwd
// PIPE:       stream.rev
