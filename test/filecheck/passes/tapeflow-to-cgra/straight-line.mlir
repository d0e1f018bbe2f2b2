// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=64 unroll=4 stream=always},tapeflow-to-cgra{stats=true}' %S/../../../../examples/fig9-conv.mlir 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=64 unroll=4 stream=always},tapeflow-to-cgra{stats=true place-straight-line=false}' %S/../../../../examples/fig9-conv.mlir 2>%t.off | filecheck %s --check-prefix=OFF
// RUN: filecheck %s --check-prefix=OFF-STATS < %t.off

// The Figure 9 convolution unrolled by 4 on a 64 B scratchpad (8 entries): an
// unrolled iteration writes 16 tape values, so `tapeflow-layers` cuts it into
// pieces of 8, layers of straight-line dataflow with no loop (`stream=always`: on
// so small a scratchpad the cost model keeps them, each REV piece waiting for its
// preload). Each piece's ops become one `cgra.kernel` that runs once where they
// were; the values the rest of the layer uses (the barrier's) are its results;
// the tile's allocation stays before it and its stream after it.
//
// The REV layers hold only their loads (their pieces' tape values); the REV
// computation that uses them follows the layers in the loop body, a straight-line
// run too, placed as a kernel run once per iteration (the paper's Algorithm 2
// puts it with the REV layers). So is every other run of ops outside a kernel:
// the loop bodies' index arithmetic, the code around the loops.

// CHECK-LABEL: func.func private @diffeconv
// CHECK:        layer.layer 0 fwd partner 1
// CHECK-NEXT:     %[[TILE:[^ ]+]] = layer.salloc base 0 capacity 64 : !layer.spad<1x8>
// CHECK:          %[[I:[^ ,]+]], %[[A:[^ ,]+]], %[[B:[^ ,]+]], %[[C:[^ ,]+]], %[[D:[^ ,]+]] = cgra.kernel {{[0-9]+}} rows 4 cols 4 ii {{[0-9]+}} -> index, f64, f64, f64, f64 {
// CHECK:            cgra.store %{{.*}}, %[[TILE]][%{{.*}}] spad slot 0 at
// CHECK:            cgra.op "math.tanh"
// CHECK:            cgra.yield
// CHECK-NEXT:     }
// CHECK:          stream.fwd %[[TILE]]
// CHECK-NEXT:     layer.barrier %[[I]], %[[A]], %[[B]], %[[C]], %[[D]] :
// CHECK:        layer.layer 3 rev partner 2
// CHECK:          stream.rev
// CHECK:          cgra.kernel {{[0-9]+}} rows 4 cols 4 ii {{[0-9]+}}
// CHECK:            cgra.load %{{.*}} spad slot 7 at
// CHECK:        layer.layer 1 rev partner 0
// CHECK:          layer.barrier
// CHECK-NEXT:   }
// The REV computation after the layers, in the loop body: one kernel.
// CHECK-NEXT:   %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = cgra.kernel {{[0-9]+}} rows 4 cols 4 ii {{[0-9]+}} -> f64, f64, f64, f64 {
// CHECK:          cgra.op "math.tanh"
// CHECK:          cgra.store %{{.*}}, %{{.*}}[%{{.*}}] cache at

// STATS: tapeflow-to-cgra: @diffeconv: 0 kernels (ii -), 11 straight-line kernels, 2 loops left unmapped

// With place-straight-line=false only the layers' pieces are placed: the REV
// computation stays op by op in the loop body.
// OFF:        layer.layer 1 rev partner 0
// OFF:          layer.barrier
// OFF-NEXT:   }
// OFF-NEXT:   arith.mulf
// OFF-STATS: tapeflow-to-cgra: @diffeconv: 0 kernels (ii -), 4 straight-line kernels, 2 loops left unmapped
