// A loop whose trip count is an argument (`for i < n`), on a buffer of dynamic
// shape: the running product of sin(x[i]) (written here, in the style of
// Enzyme-MLIR's reverse-mode loop tests, enzyme/test/MLIRTest/for.mlir, with the
// bound made an argument).
func.func @prod(%x: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (f64) {
    %xi = memref.load %x[%i] : memref<?xf64>
    %e = math.sin %xi : f64
    %next = arith.mulf %acc, %e : f64
    scf.yield %next : f64
  }
  return %s : f64
}
func.func @prod_grad(%x: memref<?xf64>, %dx: memref<?xf64>, %n: index) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @prod(%x, %dx, %n, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<?xf64>, memref<?xf64>, index, f64) -> f64
  return %r : f64
}
