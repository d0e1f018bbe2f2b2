// RUN: not tapeflow-opt -p tapeflow-enzyme %s 2>&1 | filecheck %s

// A strided affine.for whose lower bound is the max of two expressions cannot be
// given step 1 in affine form: refused at the loop, saying why, rather than
// differentiated with caches one entry short.
// CHECK: strided-refused.mlir:[[# @LINE + 4]]:5: tapeflow-enzyme: this 'affine.for' with step 3 has a lower bound that is the max of several expressions, which tapeflow-unit-steps cannot normalize to step 1
func.func @g(%x: memref<16xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %t = 0 to 2 {
    affine.for %i = max affine_map<(d0) -> (d0, 2)>(%t) to 9 step 3 {
      %v = affine.load %x[%i] : memref<16xf64>
      %s = arith.mulf %v, %v : f64
      affine.store %s, %x[%i] : memref<16xf64>
    }
  }
  return
}
func.func @g_grad(%x: memref<16xf64>, %dx: memref<16xf64>) {
  enzyme.autodiff @g(%x, %dx) {activity = [#enzyme<activity enzyme_dup>], ret_activity = []} : (memref<16xf64>, memref<16xf64>) -> ()
  return
}
