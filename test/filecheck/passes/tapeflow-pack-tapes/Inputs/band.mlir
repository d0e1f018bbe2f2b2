// Input of pack.mlir (CLIPPED): a band clipped at the matrix edge (Numerical
// Recipes' bandec: row i's columns j = i+4 to 12) over n rows, a run-time count.
// Rows past i = 8 have no column (their bounds cross), so the packed count sums
// the rows below min(n, 8).
func.func @f(%x: memref<16xf64>, %y: memref<16xf64>, %n: index, %lo: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c1 {
    %lb = arith.addi %i, %c4 : index
    %ub = arith.addi %c12, %c0 : index
    %xi = memref.load %x[%i] : memref<16xf64>
    %ci = math.cos %xi : f64
    %r = scf.for %j = %lb to %ub step %c1 iter_args(%acc = %ci) -> (f64) {
      %xj = memref.load %x[%j] : memref<16xf64>
      %s = math.sin %xj : f64
      %p = arith.mulf %s, %acc : f64
      %t = arith.addf %p, %xj : f64
      scf.yield %t : f64
    }
    %q = arith.mulf %r, %ci : f64
    memref.store %q, %y[%i] : memref<16xf64>
  }
  return
}
func.func @f_grad(%x: memref<16xf64>, %dx: memref<16xf64>, %y: memref<16xf64>,
                  %dy: memref<16xf64>, %n: index, %lo: index) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %n, %lo)
    <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>,
                  #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>],
      ret_activity = []}>
    : (memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>, index, index) -> ()
  return
}

