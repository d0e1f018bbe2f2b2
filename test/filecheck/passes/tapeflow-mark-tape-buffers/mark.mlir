// RUN: tapeflow-opt -p 'tapeflow-mark-tape-buffers{stats=true}' %S/../tapeflow-raise-tape/classify.mlir 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: tapeflow-opt -p 'tapeflow-mark-tape-buffers,tapeflow-mark-tape-buffers' %S/../tapeflow-raise-tape/classify.mlir | filecheck %s
// RUN: not tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-mark-tape-buffers' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=LATE

// The Enzyme baseline's tape: the same buffers tapeflow-raise-tape would raise
// (%cache and %leak, see classify.mlir) are marked, and nothing else changes: the
// buffers stay memrefs, reached through the same subview. Marking twice is marking once.

// CHECK-LABEL: func.func private @diffef
// CHECK:        %cache = memref.alloc() {tapeflow.tape} : memref<4x8xf64>
// CHECK-NEXT:   %leak = memref.alloc() {tapeflow.tape} : memref<4xindex>
// CHECK-NEXT:   %tmp = memref.alloc() : memref<4xf64>
// CHECK-NEXT:   %dead = memref.alloc() : memref<4xf64>
// CHECK-NEXT:   %late = memref.alloc() : memref<4xf64>
// CHECK-NEXT:   %passed = memref.alloc() : memref<4xf64>
// CHECK:        memref.subview %cache
// CHECK-NOT:    tape.

// STATS: tapeflow-mark-tape-buffers: @diffef: 2 cache buffers marked

// LATE: error: tapeflow-mark-tape-buffers: @diffef is at the tape stage (tape.alloc/store/load ops), past the Enzyme-gradient or Enzyme-baseline stage tapeflow-mark-tape-buffers takes; run tapeflow-mark-tape-buffers before tapeflow-raise-tape
