// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s > %t.custom && tapeflow-opt %s --print-op-generic | tapeflow-opt > %t.generic && diff %t.custom %t.generic

// FWD fills a scratchpad tile and streams it to the DRAM tape; REV preloads the
// same tile and reads it back.
// CHECK-LABEL: func.func @streams
// CHECK:      %[[T:.*]] = stream.alloc bytes 4096 : !stream.tape
// CHECK:      layer.layer 0 fwd partner 1 {
// CHECK-NEXT:   %[[F:.*]] = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
// CHECK-NEXT:   stream.store %{{.*}}, %[[F]][%{{.*}}] slot 2 id 5 : f64, !layer.spad<4x3>
// CHECK-NEXT:   stream.fwd %[[F]] rows %{{.*}} to %[[T]] id 0 : !layer.spad<4x3>
// CHECK-NEXT:   layer.barrier
// CHECK:      layer.layer 1 rev partner 0 -> f64 {
// CHECK-NEXT:   %[[R:.*]] = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
// CHECK-NEXT:   stream.rev %[[T]] rows %{{.*}} to %[[R]] of 0 : !layer.spad<4x3>
// CHECK-NEXT:   %{{.*}} = stream.load %[[R]][%{{.*}}] slot 2 from 5 : !layer.spad<4x3> -> f64
func.func @streams(%v: f64, %row: index) -> f64 {
  %tape = stream.alloc bytes 4096 : !stream.tape
  %c4 = arith.constant 4 : index
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    stream.store %v, %tile[%row] slot 2 id 5 : f64, !layer.spad<4x3>
    stream.fwd %tile rows %c4 to %tape id 0 : !layer.spad<4x3>
    layer.barrier
  }
  %out = layer.layer 1 rev partner 0 -> f64 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    stream.rev %tape rows %c4 to %tile of 0 : !layer.spad<4x3>
    %w = stream.load %tile[%row] slot 2 from 5 : !layer.spad<4x3> -> f64
    layer.barrier %w : f64
  }
  func.return %out : f64
}
