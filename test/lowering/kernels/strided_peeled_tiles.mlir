// Source: MLIR's test/Dialect/SCF/for-loop-peeling.mlir (@fully_static_bounds):
// `scf.for %iv = 0 to 17 step 4` whose body takes the tile size
// min(4, 17 - iv), the loop MLIR's loop peeling splits into full tiles and a
// partial one. Written anew with values to differentiate: each tile of x is
// scaled by a running sum carried from tile to tile, into y. 17 is not a multiple
// of 4: the loop runs 5 times (iv = 0, 4, 8, 12, 16), the last tile has one
// element, and Enzyme-MLIR 0.0.16 alone sizes the caches of this loop for
// (17 - 0) / 4 = 4 iterations and runs its reverse sweep over i = 16 - i'
// (docs/enzyme-bugs.md).
func.func @f(%x: memref<17xf64>, %y: memref<17xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c17 = arith.constant 17 : index
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %total = scf.for %iv = %c0 to %c17 step %c4 iter_args(%carry = %one) -> (f64) {
    %left = arith.subi %c17, %iv : index
    %size = arith.minsi %c4, %left : index
    %tile = scf.for %j = %c0 to %size step %c1 iter_args(%acc = %carry) -> (f64) {
      %k = arith.addi %iv, %j : index
      %v = memref.load %x[%k] : memref<17xf64>
      %w = memref.load %y[%k] : memref<17xf64>
      %s = math.sin %v : f64
      %p = arith.mulf %s, %acc : f64
      %q = arith.mulf %p, %w : f64
      memref.store %q, %y[%k] : memref<17xf64>
      %n = arith.addf %acc, %v : f64
      scf.yield %n : f64
    }
    %damped = arith.mulf %tile, %half : f64
    scf.yield %damped : f64
  }
  memref.store %total, %y[%c0] : memref<17xf64>
  return
}

func.func @f_grad(%x: memref<17xf64>, %dx: memref<17xf64>, %y: memref<17xf64>, %dy: memref<17xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<17xf64>, memref<17xf64>, memref<17xf64>, memref<17xf64>) -> ()
  return
}
