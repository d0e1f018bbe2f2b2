// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=64 unroll=4},tapeflow-to-cgra{stats=true}' %S/../../../../examples/fig9-conv.mlir 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats

// The Figure 9 convolution unrolled by 4 on a 64 B scratchpad (8 entries): an
// unrolled iteration writes 16 tape values, so `tapeflow-layers` cuts it into
// pieces of 8, layers of straight-line dataflow with no loop. Each piece's ops
// become one `cgra.kernel` that runs once where they were; the values the rest of
// the layer uses (the barrier's) are its results; the tile's allocation stays
// before it and its stream after it.

// CHECK-LABEL: func.func private @diffeconv
// CHECK:        layer.layer 0 fwd partner 1
// CHECK-NEXT:     %[[TILE:[^ ]+]] = layer.salloc base 0 capacity 64 : !layer.spad<1x8>
// CHECK:          %[[I:[^ ,]+]], %[[A:[^ ,]+]], %[[B:[^ ,]+]], %[[C:[^ ,]+]], %[[D:[^ ,]+]] = cgra.kernel 0 rows 4 cols 4 ii {{[0-9]+}} -> index, f64, f64, f64, f64 {
// CHECK:            cgra.store %{{.*}}, %[[TILE]][%{{.*}}] spad slot 0 at
// CHECK:            cgra.op "math.tanh"
// CHECK:            cgra.yield
// CHECK-NEXT:     }
// CHECK:          stream.fwd %[[TILE]]
// CHECK-NEXT:     layer.barrier %[[I]], %[[A]], %[[B]], %[[C]], %[[D]] :
// CHECK:        layer.layer 3 rev partner 2
// CHECK:          stream.rev
// CHECK:          cgra.kernel 2 rows 4 cols 4 ii {{[0-9]+}}
// CHECK:            cgra.load %{{.*}} spad slot 7 at

// STATS: tapeflow-to-cgra: @diffeconv: 0 kernels (ii -), 4 straight-line layer kernels, 2 loops left unmapped
