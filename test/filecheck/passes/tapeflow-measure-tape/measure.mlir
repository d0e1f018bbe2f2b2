// The tape's size, recorded on the gradient: Inputs/gradient.mlir caches one
// f64 per iteration of a 4-trip loop, 4 x 8 = 32 bytes.
// RUN: tapeflow-opt -p tapeflow-measure-tape %S/../Inputs/gradient.mlir | filecheck %s
// A raised tape is no longer Enzyme's: the pass refuses it.
// RUN: not tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-measure-tape' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=LOWERED
// A gradient with no cache has a tape of 0 bytes.
// RUN: tapeflow-opt -p tapeflow-enzyme,tapeflow-measure-tape %S/../tapeflow-raise-tape/Inputs/no-cache.mlir | filecheck %s --check-prefix=EMPTY

// CHECK:      func.func private @diffef
// CHECK-SAME: tapeflow.tape_bytes = 32 : i64
// CHECK:      memref.alloc() : memref<4xf64>

// LOWERED: error: tapeflow-measure-tape: @diffef is past the Enzyme-gradient stage; the tape is measured on the gradient as Enzyme made it (run this pass right after tapeflow-enzyme)

// EMPTY: tapeflow.tape_bytes = 0 : i64
