// A loop of run-time bounds (`index` arguments; the test also writes it with
// `i32` bounds) carrying a product across its iterations, and so across its
// tiles once strip-mined, each iteration storing one value to the tape: the
// running product `p = acc * cos(x[i])` scales `y[i]` by `sin(p)`, and the last
// product is added to `y[0]`. Written anew.
func.func @f(%x: memref<40xf64>, %y: memref<40xf64>, %lb: index, %ub: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %one) -> (f64) {
    %k = arith.addi %i, %c0 : index
    %v = memref.load %x[%k] : memref<40xf64>
    %c = math.cos %v : f64
    %p = arith.mulf %acc, %c : f64
    %s = math.sin %p : f64
    %w = memref.load %y[%k] : memref<40xf64>
    %q = arith.mulf %w, %s : f64
    memref.store %q, %y[%k] : memref<40xf64>
    scf.yield %p : f64
  }
  %l = memref.load %y[%c0] : memref<40xf64>
  %z = arith.addf %l, %r : f64
  memref.store %z, %y[%c0] : memref<40xf64>
  return
}

func.func @f_grad(%x: memref<40xf64>, %dx: memref<40xf64>, %y: memref<40xf64>, %dy: memref<40xf64>, %lb: index, %ub: index) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %lb, %ub) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_const>, #enzyme<activity enzyme_const>], ret_activity = []} : (memref<40xf64>, memref<40xf64>, memref<40xf64>, memref<40xf64>, index, index) -> ()
  return
}
