// A do-while: the counter is advanced in the before region, which also does the
// work (the form of Enzyme-JAX's test/lit_tests/canonicalizefor/doWhile.mlir:
// `%updated = %i + 1; cmpi slt %updated, %c5; scf.condition(...) %updated`,
// its keepalive op replaced by an update of a buffer). The before region runs
// once more than the after region. Written anew.
func.func @f(%x: memref<6xf64>, %y: memref<6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.while (%i = %c0) : (index) -> index {
    %v = memref.load %x[%i] : memref<6xf64>
    %w = memref.load %y[%i] : memref<6xf64>
    %e = math.exp %v : f64
    %m = arith.mulf %e, %w : f64
    memref.store %m, %y[%i] : memref<6xf64>
    %updated = arith.addi %i, %c1 : index
    %cond = arith.cmpi slt, %updated, %c5 : index
    scf.condition(%cond) %updated : index
  } do {
  ^bb0(%new_i: index):
    %v = memref.load %x[%new_i] : memref<6xf64>
    %c = math.cos %v : f64
    memref.store %c, %x[%new_i] : memref<6xf64>
    scf.yield %new_i : index
  }
  return
}
func.func @f_grad(%x: memref<6xf64>, %dx: memref<6xf64>, %y: memref<6xf64>, %dy: memref<6xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>) -> ()
  return
}
