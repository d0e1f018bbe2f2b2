// Source: MLIR's test/Dialect/SCF/for-loop-peeling.mlir
// (@fully_static_bounds_integers): an `scf.for` over i32 bounds, 0 to 17 step 4,
// its induction variable cast to index for the tile size min(4, 17 - iv). Written
// anew with values to differentiate: a prefix product of each tile of x scales y,
// and the tiles' last products multiply into y[0]. 17 - 0 is not a multiple of 4:
// 5 iterations, the last with one element.
func.func @f(%x: memref<17xf64>, %y: memref<17xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c17 = arith.constant 17 : index
  %lb = arith.constant 0 : i32
  %step = arith.constant 4 : i32
  %ub = arith.constant 17 : i32
  %one = arith.constant 1.0 : f64
  %r = scf.for %iv = %lb to %ub step %step iter_args(%all = %one) -> (f64) : i32 {
    %start = arith.index_cast %iv : i32 to index
    %left = arith.subi %c17, %start : index
    %size = arith.minsi %c4, %left : index
    %prod = scf.for %j = %c0 to %size step %c1 iter_args(%p = %one) -> (f64) {
      %k = arith.addi %start, %j : index
      %v = memref.load %x[%k] : memref<17xf64>
      %w = memref.load %y[%k] : memref<17xf64>
      %p2 = arith.mulf %p, %v : f64
      %t = math.tanh %p2 : f64
      %u = arith.addf %w, %t : f64
      memref.store %u, %y[%k] : memref<17xf64>
      scf.yield %p2 : f64
    }
    %all2 = arith.mulf %all, %prod : f64
    scf.yield %all2 : f64
  }
  %y0 = memref.load %y[%c0] : memref<17xf64>
  %z = arith.addf %y0, %r : f64
  memref.store %z, %y[%c0] : memref<17xf64>
  return
}

func.func @f_grad(%x: memref<17xf64>, %dx: memref<17xf64>, %y: memref<17xf64>, %dy: memref<17xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<17xf64>, memref<17xf64>, memref<17xf64>, memref<17xf64>) -> ()
  return
}
