// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s > %t.custom && tapeflow-opt %s --print-op-generic | tapeflow-opt > %t.generic && diff %t.custom %t.generic

// A tape of known size reserves its bytes; a slab tape grows by slabs of S bytes.
// CHECK-LABEL: func.func @tapes
// CHECK-NEXT:   %{{.*}} = stream.alloc bytes 256 : !stream.tape
// CHECK-NEXT:   %{{.*}} = stream.alloc slab 4096 : !stream.tape
func.func @tapes() {
  %fixed = stream.alloc bytes 256 : !stream.tape
  %grows = stream.alloc slab 4096 : !stream.tape
  func.return
}
