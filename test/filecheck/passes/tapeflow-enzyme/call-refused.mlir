// A call of a recursive function that touches memory cannot be inlined, and
// Enzyme-MLIR 0.0.16 differentiates no such call: the error says why (the
// callee touches memory) and what to write instead.
// RUN: not tapeflow-opt -p tapeflow-enzyme %s 2>&1 | filecheck %s

func.func @halve(%x: memref<4xf64>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f64
  %v = memref.load %x[%i] : memref<4xf64>
  %w = arith.mulf %v, %half : f64
  memref.store %w, %x[%i] : memref<4xf64>
  %more = arith.cmpi ugt, %i, %c0 : index
  scf.if %more {
    %j = arith.subi %i, %c1 : index
    func.call @halve(%x, %j) : (memref<4xf64>, index) -> ()
  }
  return
}
func.func @f(%x: memref<4xf64>) {
  %c3 = arith.constant 3 : index
  func.call @halve(%x, %c3) : (memref<4xf64>, index) -> ()
  return
}
func.func @f_grad(%x: memref<4xf64>, %dx: memref<4xf64>) {
  enzyme.autodiff @f(%x, %dx) <{activity = [#enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<4xf64>, memref<4xf64>) -> ()
  return
}
// CHECK: call-refused.mlir:[[# @LINE - 7]]:3: error: cannot differentiate a call in reverse mode whose callee touches memory
// CHECK: note: Enzyme-MLIR 0.0.16 differentiates a call in reverse mode only where the callee reads and writes no memory
// CHECK-SAME: recursive function
// CHECK-NOT: scratch buffer
