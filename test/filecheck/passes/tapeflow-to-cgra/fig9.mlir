// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=64 stream=always},tapeflow-to-cgra{stats=true}' %S/../../../../examples/fig9-conv.mlir 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-to-cgra' %S/../../../../examples/fig9-conv.mlir | filecheck %s --check-prefix=ENZYME
// RUN: not tapeflow-opt -p 'tapeflow-enzyme,tapeflow-to-cgra{rows=0}' %S/../../../../examples/fig9-conv.mlir 2>&1 | filecheck %s --check-prefix=GRID

// The Figure 9 convolution under TapeFlow: each strip-mined loop body becomes a
// kernel iterated by its loop. The image comes through the cache; the four tape
// values go to scratchpad slots 0-3 of the tile row and come back from them in
// REV. The cache accepts 2 accesses per cycle: 5 per iteration need ii >= 3.

// CHECK-LABEL: func.func private @diffeconv
// CHECK:        layer.layer 0 fwd partner 1 -> index, index {
// CHECK:          %[[TILE:[^ ]+]] = layer.salloc base 0 capacity 64 : !layer.spad<2x4>
// CHECK:          scf.for
// CHECK:            cgra.kernel 0 rows 4 cols 4 ii 3 -> index, index {
// CHECK:              %[[X:[^ ]+]] = cgra.load %{{.*}}[%{{.*}}] cache at {{[0-3]}}, {{[0-3]}} cycle {{[0-9]+}} : memref<19xf64> -> f64
// CHECK-NEXT:         cgra.store %[[X]], %[[TILE]][%[[ROW:[^ ]+]]] spad slot 0 at
// CHECK:              cgra.store %{{.*}}, %[[TILE]][%[[ROW]]] spad slot 1 at
// CHECK:              cgra.store %{{.*}}, %[[TILE]][%[[ROW]]] spad slot 2 at
// CHECK:              cgra.store %{{.*}}, %[[TILE]][%[[ROW]]] spad slot 3 at
// CHECK:              cgra.op "math.tanh"
// CHECK:              cgra.yield
// CHECK:          stream.fwd %[[TILE]]
// CHECK:        layer.layer 1 rev partner 0
// CHECK:          %[[RTILE:[^ ]+]] = layer.salloc
// CHECK:          stream.rev %{{.*}} to %[[RTILE]] of 0
// CHECK:            cgra.kernel 1 rows 4 cols 4 ii {{[0-9]+}} -> f64, f64, f64, f64, index, index {
// CHECK:              cgra.load %[[RTILE]][%{{.*}}] spad slot 0 at
// CHECK:              cgra.load %[[RTILE]][%{{.*}}] spad slot 3 at

// STATS: tapeflow-to-cgra: @diffeconv: 2 kernels (ii 3, {{[0-9]+}}), {{[0-9]+}} straight-line kernels, 0 loops left unmapped

// The Enzyme baseline: the tape is Enzyme's cache buffers, through the cache.
// ENZYME:      cgra.kernel 0 rows 4 cols 4 ii {{[0-9]+}} {
// ENZYME:        cgra.store %{{.*}}, %{{.*}}[%{{.*}}] cache at {{.*}} : f64, memref<16xf64>
// ENZYME-NOT:    spad

// GRID: error: tapeflow-to-cgra: option rows must be at least 1, got 0
