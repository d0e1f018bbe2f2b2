// Bad or unpromising input: a clear message, never a traceback.
// RUN: not tapeflow-opt -p tapeflow-raise-tape %s 2>&1 | filecheck %s --check-prefix=UNDIFFERENTIATED
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape' %S/Inputs/no-cache.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NOCACHE
// RUN: not tapeflow-opt -p tapeflow-raise-tape %S/Inputs/bad-activity.mlir 2>&1 | filecheck %s --check-prefix=ACTIVITY
// RUN: tapeflow-opt -p tapeflow-raise-tape %S/Inputs/only-kept.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=KEPT

// A module Enzyme has not differentiated has no tape to raise.
// UNDIFFERENTIATED: tapeflow-opt: error: tapeflow-raise-tape: the module has no gradient function (no func.func carries 'tapeflow.gradient_of'); differentiate it first with tapeflow-enzyme
// UNDIFFERENTIATED-NOT: Traceback

// A linear function: Enzyme needs no value from FWD, so there is no cache. The
// module passes through unchanged, with a warning.
// NOCACHE: tapeflow-raise-tape: warning: @diffescale has no Enzyme cache buffer (Enzyme saved no values for the reverse sweep); there is no tape to raise
// NOCACHE-NOT: Traceback

// Enzyme saved values, but none in a buffer a tape can express: the warning says
// so, and what was kept, instead of "Enzyme saved no values".
// KEPT: tapeflow-raise-tape: warning: @diffef: no buffer of the gradient is raised to a tape; kept as they are (and run as they are): %snap (memref<4xf64>): used by 'memref.copy', which a tape cannot express
// KEPT-NOT: saved no values

// ACTIVITY: tapeflow-opt: error: tapeflow-raise-tape: gradient function @diffeg has 2 arguments, but its activities call for 3 (primal arguments, shadows of duplicated ones, seeds of active results)
// ACTIVITY-NOT: Traceback

func.func @f(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf64>
  func.return %v : f64
}
