// RUN: not tapeflow-opt -p 'tapeflow-unroll{factor=2}' %s 2>&1 | filecheck %s
// RUN: not tapeflow-opt -p 'tapeflow-unroll{factor=0}' %s 2>&1 | filecheck %s --check-prefix=FACTOR

// A module Enzyme has not differentiated has no gradient loops to unroll.
// CHECK: tapeflow-opt: error: tapeflow-unroll: the module has no gradient function (no func.func carries 'tapeflow.gradient_of'); differentiate it first with tapeflow-enzyme
// CHECK-NOT: Traceback

// FACTOR: tapeflow-opt: error: tapeflow-unroll: factor must be at least 1, got 0
// FACTOR-NOT: Traceback

func.func @f(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<4xf64>
    %next = arith.addf %acc, %v : f64
    scf.yield %next : f64
  }
  func.return %s : f64
}
