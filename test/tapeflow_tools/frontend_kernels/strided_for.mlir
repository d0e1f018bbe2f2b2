// Enzyme-MLIR 0.0.16 alone gives the caches of `scf.for %i = %lb to %ub step %s`
// (ub - lb) / s entries, rounded down (docs/enzyme-bugs.md). Here
// `for i = 1 to 8 step 2` runs 4 times (i = 1, 3, 5, 7) and would cache x[i] for
// the reverse sweep in a memref<3xf64>, the fourth store out of bounds;
// tapeflow-enzyme hands Enzyme the loop with step 1 (`tapeflow-unit-steps`). The
// gradient of y[i] = x[i] * y[i] is dx[i] = y[i] * dy[i], dy[i] = x[i] * dy[i].
func.func @f(%x: memref<9xf64>, %y: memref<9xf64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c1 to %c8 step %c2 {
    %v = memref.load %x[%i] : memref<9xf64>
    %w = memref.load %y[%i] : memref<9xf64>
    %m = arith.mulf %v, %w : f64
    memref.store %m, %y[%i] : memref<9xf64>
  }
  return
}
func.func @f_grad(%x: memref<9xf64>, %dx: memref<9xf64>, %y: memref<9xf64>, %dy: memref<9xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<9xf64>, memref<9xf64>, memref<9xf64>, memref<9xf64>) -> ()
  return
}
