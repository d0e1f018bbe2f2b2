// An unsigned counter: C's `for (unsigned i = 0; i <= last; i += 3) { acc +=
// exp(-x[i]) * y[i]; y[i] = acc; }` (the counters of `unsigned` and `size_t`
// loops), as a while loop on an i32 compared with `ule`: counted (zero-extended,
// 0 to the unsigned trip count). Written anew.
func.func @f(%x: memref<10xf64>, %y: memref<10xf64>, %last: index) {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %zero = arith.constant 0.0 : f64
  %bound = arith.index_cast %last : index to i32
  %r:2 = scf.while (%i = %c0, %acc = %zero) : (i32, f64) -> (i32, f64) {
    %c = arith.cmpi ule, %i, %bound : i32
    scf.condition(%c) %i, %acc : i32, f64
  } do {
  ^bb0(%i2: i32, %acc2: f64):
    %k = arith.index_cast %i2 : i32 to index
    %v = memref.load %x[%k] : memref<10xf64>
    %nv = arith.negf %v : f64
    %e = math.exp %nv : f64
    %w = memref.load %y[%k] : memref<10xf64>
    %p = arith.mulf %e, %w : f64
    %s = arith.addf %acc2, %p : f64
    memref.store %s, %y[%k] : memref<10xf64>
    %i3 = arith.addi %i2, %c3 : i32
    scf.yield %i3, %s : i32, f64
  }
  return
}
func.func @f_grad(%x: memref<10xf64>, %dx: memref<10xf64>, %y: memref<10xf64>, %dy: memref<10xf64>, %last: index) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %last) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_const>], ret_activity = []}> : (memref<10xf64>, memref<10xf64>, memref<10xf64>, memref<10xf64>, index) -> ()
  return
}
