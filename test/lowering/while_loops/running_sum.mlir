// Accumulate until a threshold: `k = 0; s = 0; while (s < t) { s += x[k]^2;
// y[k] = s * y[k]; k++; }` -- a data-dependent exit whose loop writes memory
// (y) that its condition does not read (the shape of a line search or of a
// cumulative-sum cutoff, e.g. numpy.searchsorted on a running sum). Written anew.
func.func @f(%x: memref<8xf64>, %y: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %t = arith.constant 2.0 : f64
  %r:2 = scf.while (%k = %c0, %s = %zero) : (index, f64) -> (index, f64) {
    %c = arith.cmpf olt, %s, %t : f64
    scf.condition(%c) %k, %s : index, f64
  } do {
  ^bb0(%k2: index, %s2: f64):
    %v = memref.load %x[%k2] : memref<8xf64>
    %sq = arith.mulf %v, %v : f64
    %ns = arith.addf %s2, %sq : f64
    %w = memref.load %y[%k2] : memref<8xf64>
    %p = arith.mulf %ns, %w : f64
    memref.store %p, %y[%k2] : memref<8xf64>
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %k3, %ns : index, f64
  }
  return
}
func.func @f_grad(%x: memref<8xf64>, %dx: memref<8xf64>, %y: memref<8xf64>, %dy: memref<8xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<8xf64>, memref<8xf64>, memref<8xf64>, memref<8xf64>) -> ()
  return
}
