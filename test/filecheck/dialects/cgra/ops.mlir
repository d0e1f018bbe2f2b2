// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s > %t.custom && tapeflow-opt %s --print-op-generic | tapeflow-opt > %t.generic && diff %t.custom %t.generic

// A kernel iterated by a loop: cache loads of the input, a multiply, a tape
// value stored to the scratchpad and streamed out, all placed and scheduled.
// CHECK-LABEL: func.func @kernel
// CHECK:      %{{.*}} = cgra.kernel 0 rows 4 cols 4 ii 2 -> f64 {
// CHECK-NEXT:   %[[A:.*]] = cgra.load %{{.*}}[%{{.*}}] cache at 0, 0 cycle 0 : memref<8xf64> -> f64
// CHECK-NEXT:   %[[M:.*]] = cgra.op "arith.mulf"(%[[A]], %[[A]]) at 0, 1 cycle 3 attrs {fastmath = #arith.fastmath<fast>} : (f64, f64) -> f64
// CHECK-NEXT:   %[[C:.*]] = cgra.op "arith.cmpf"(%[[A]], %[[M]]) at 1, 1 cycle 7 : (f64, f64) -> i1
// CHECK-NEXT:   cgra.store %[[M]], %{{.*}}[%{{.*}}] spad slot 1 at 0, 2 cycle 7 : f64, !layer.spad<4x2>
// CHECK-NEXT:   cgra.store %[[M]], %{{.*}}[%{{.*}}] cache at 0, 3 cycle 7 : f64, memref<8xf64>
// CHECK-NEXT:   cgra.stream fwd %{{.*}} rows %{{.*}} tape %{{.*}} id 0 cycle 8 : !layer.spad<4x2>
// CHECK-NEXT:   cgra.barrier
// CHECK-NEXT:   cgra.yield %[[M]] : f64
func.func @kernel(%x: memref<8xf64>, %i: index) -> f64 {
  %tape = stream.alloc bytes 4096 : !stream.tape
  %c4 = arith.constant 4 : index
  %out = layer.layer 0 fwd partner 1 -> f64 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x2>
    %k = cgra.kernel 0 rows 4 cols 4 ii 2 -> f64 {
      %a = cgra.load %x[%i] cache at 0, 0 cycle 0 : memref<8xf64> -> f64
      %m = cgra.op "arith.mulf"(%a, %a) at 0, 1 cycle 3 attrs {fastmath = #arith.fastmath<fast>} : (f64, f64) -> f64
      %c = cgra.op "arith.cmpf"(%a, %m) at 1, 1 cycle 7 : (f64, f64) -> i1
      cgra.store %m, %tile[%i] spad slot 1 at 0, 2 cycle 7 : f64, !layer.spad<4x2>
      cgra.store %m, %x[%i] cache at 0, 3 cycle 7 : f64, memref<8xf64>
      cgra.stream fwd %tile rows %c4 tape %tape id 0 cycle 8 : !layer.spad<4x2>
      cgra.barrier
      cgra.yield %m : f64
    }
    layer.barrier %k : f64
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x2>
    layer.barrier
  }
  func.return %out : f64
}
