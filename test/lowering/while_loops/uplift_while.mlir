// A counted while loop with a run-time start, bound and step: the shape of
// MLIR's own test of the while-to-for uplifting (mlir/test/Dialect/SCF/
// uplift-while.mlir, @uplift_while: `scf.while (%i = %begin)`, `cmpi slt %i,
// %end`, `%i + %step` in the after region), its opaque test ops replaced by
// arithmetic on buffers. Written anew.
func.func @f(%x: memref<9xf64>, %y: memref<9xf64>, %begin: index, %end: index, %step: index) {
  %zero = arith.constant 0.0 : f64
  %r:2 = scf.while (%i = %begin, %acc = %zero) : (index, f64) -> (index, f64) {
    %c = arith.cmpi slt, %i, %end : index
    scf.condition(%c) %i, %acc : index, f64
  } do {
  ^bb0(%i2: index, %a2: f64):
    %v = memref.load %x[%i2] : memref<9xf64>
    %w = memref.load %y[%i2] : memref<9xf64>
    %s = math.sin %v : f64
    %m = arith.mulf %s, %w : f64
    %n = arith.addf %a2, %m : f64
    %p = arith.mulf %n, %w : f64
    memref.store %p, %y[%i2] : memref<9xf64>
    %next = arith.addi %i2, %step : index
    scf.yield %next, %n : index, f64
  }
  return
}
func.func @f_grad(%x: memref<9xf64>, %dx: memref<9xf64>, %y: memref<9xf64>, %dy: memref<9xf64>, %begin: index, %end: index, %step: index) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %begin, %end, %step) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_const>, #enzyme<activity enzyme_const>, #enzyme<activity enzyme_const>], ret_activity = []} : (memref<9xf64>, memref<9xf64>, memref<9xf64>, memref<9xf64>, index, index, index) -> ()
  return
}
