// A row of a matrix viewed per iteration (memref.subview at a row index loaded
// from memory that the loop then overwrites), as Polygeist emits `double *r =
// A[rows[i]]`, in a loop nest marked `enzyme.cache_use_tensor`: Enzyme caches
// the row indices (tensor<3xindex>) and the inner loop's values (a tensor<4xf64>
// per outer iteration, inserted into a tensor<3x4xf64>), and views the shadow's
// row again in the reverse sweep. After Enzyme-MLIR's
// enzyme/test/MLIR/ReverseMode/scf_for.mlir and scf_for_memref.mlir.
func.func @k(%A: memref<3x4xf64>, %rows: memref<3xindex>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
    %r = memref.load %rows[%i] : memref<3xindex>
    %row = memref.subview %A[%r, 0] [1, 4] [1, 1] : memref<3x4xf64> to memref<4xf64, strided<[1], offset: ?>>
    %t = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc2 = %acc) -> (f64) {
      %v = memref.load %row[%j] : memref<4xf64, strided<[1], offset: ?>>
      %sq = arith.mulf %v, %v : f64
      %q = arith.addf %sq, %acc2 : f64
      scf.yield %q : f64
    } {enzyme.cache_use_tensor}
    %next = arith.addi %r, %c1 : index
    %wrapped = arith.remui %next, %c3 : index
    memref.store %wrapped, %rows[%i] : memref<3xindex>
    scf.yield %t : f64
  } {enzyme.cache_use_tensor}
  return %s : f64
}
func.func @k_grad(%A: memref<3x4xf64>, %dA: memref<3x4xf64>, %rows: memref<3xindex>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%A, %dA, %rows, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<3x4xf64>, memref<3x4xf64>, memref<3xindex>, f64) -> f64
  return %r : f64
}
