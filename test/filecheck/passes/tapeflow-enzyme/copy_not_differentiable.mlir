// Enzyme 0.0.16 cannot differentiate memref.copy; its message points at the
// user's op (the module reaches Enzyme with every op's location).
// RUN: not tapeflow-opt -p tapeflow-enzyme %s 2>&1 | filecheck %s

func.func @copy_then_sum(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %t = memref.alloca() : memref<4xf64>
  memref.copy %x, %t : memref<4xf64> to memref<4xf64>
  %v = memref.load %t[%c0] : memref<4xf64>
  return %v : f64
}

func.func @copy_then_sum_grad(%x: memref<4xf64>, %dx: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @copy_then_sum(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}

// CHECK: copy_not_differentiable.mlir:8:3: error: could not compute the adjoint for this operation
