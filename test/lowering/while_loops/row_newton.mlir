// Newton's method (Numerical Recipes' rtnewt) on a monotone equation per row,
// sum_j tanh(t a[r][j]) = b[r], from t = 0 until the step is below a
// tolerance: the exit depends on a reduction loop over the row (f and f' in one
// scf.for) that reads only buffers the while loop does not write. Written anew,
// 2 rows of 3.
func.func @f(%a: memref<2x3xf64>, %b: memref<2xf64>, %t: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %tol = arith.constant 1.0e-12 : f64
  scf.for %r = %c0 to %c2 step %c1 {
    %br = memref.load %b[%r] : memref<2xf64>
    %res = scf.while (%x = %zero) : (f64) -> f64 {
      %f, %g = scf.for %j = %c0 to %c3 step %c1 iter_args(%fa = %zero, %ga = %zero) -> (f64, f64) {
        %av = memref.load %a[%r, %j] : memref<2x3xf64>
        %z = arith.mulf %x, %av : f64
        %th = math.tanh %z : f64
        %t2 = arith.mulf %th, %th : f64
        %om = arith.subf %one, %t2 : f64
        %dg = arith.mulf %av, %om : f64
        %fn = arith.addf %fa, %th : f64
        %gn = arith.addf %ga, %dg : f64
        scf.yield %fn, %gn : f64, f64
      }
      %fr = arith.subf %f, %br : f64
      %step = arith.divf %fr, %g : f64
      %nx = arith.subf %x, %step : f64
      %as = math.absf %step : f64
      %c = arith.cmpf ogt, %as, %tol : f64
      scf.condition(%c) %nx : f64
    } do {
    ^bb0(%x2: f64):
      scf.yield %x2 : f64
    }
    memref.store %res, %t[%r] : memref<2xf64>
  }
  return
}
func.func @f_grad(%a: memref<2x3xf64>, %da: memref<2x3xf64>, %b: memref<2xf64>, %db: memref<2xf64>, %t: memref<2xf64>, %dt: memref<2xf64>) {
  enzyme.autodiff @f(%a, %da, %b, %db, %t, %dt) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<2x3xf64>, memref<2x3xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>) -> ()
  return
}
