// Source: MLIR's `scf.for` description (mlir/include/mlir/Dialect/SCF/IR/SCFOps.td):
// the bounds give a half-open range [lb, ub), so a loop whose upper bound is at or
// below its lower bound runs no iteration. The README's recurrence
// (a_{i+1} = sin(x_i) a_i + x_i) over a window [lo, hi) of x that the caller picks
// at run time, each step's value times x_i stored to y_i; a window with hi <= lo is
// empty and leaves y as it was.
func.func @f(%x: memref<16xf64>, %y: memref<16xf64>, %lo: index, %hi: index) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<16xf64>
    %s = math.sin %xi : f64
    %p = arith.mulf %s, %acc : f64
    %t = arith.addf %p, %xi : f64
    %v = arith.mulf %xi, %t : f64
    memref.store %v, %y[%i] : memref<16xf64>
    scf.yield %t : f64
  }
  return
}

func.func @f_grad(%x: memref<16xf64>, %dx: memref<16xf64>, %y: memref<16xf64>, %dy: memref<16xf64>, %lo: index, %hi: index) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %lo, %hi) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>, index, index) -> ()
  return
}
