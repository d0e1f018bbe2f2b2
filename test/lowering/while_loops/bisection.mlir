// The cube root of a by bisection on [0, a + 1] until the bracket is narrower
// than a tolerance (Numerical Recipes' rtbis, f(x) = x^3 - a), then one
// regula-falsi step on the final bracket, whose value depends smoothly on a: a
// while loop with a data-dependent exit carrying the bracket. Written anew.
func.func @f(%a: memref<1xf64>, %out: memref<1xf64>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %tol = arith.constant 1.0e-3 : f64
  %av = memref.load %a[%c0] : memref<1xf64>
  %hi0 = arith.addf %av, %one : f64
  %r:2 = scf.while (%lo = %zero, %hi = %hi0) : (f64, f64) -> (f64, f64) {
    %w = arith.subf %hi, %lo : f64
    %c = arith.cmpf ogt, %w, %tol : f64
    scf.condition(%c) %lo, %hi : f64, f64
  } do {
  ^bb0(%lo2: f64, %hi2: f64):
    %s = arith.addf %lo2, %hi2 : f64
    %mid = arith.mulf %s, %half : f64
    %m2 = arith.mulf %mid, %mid : f64
    %m3 = arith.mulf %m2, %mid : f64
    %fm = arith.subf %m3, %av : f64
    %neg = arith.cmpf olt, %fm, %zero : f64
    %nlo = arith.select %neg, %mid, %lo2 : f64
    %nhi = arith.select %neg, %hi2, %mid : f64
    scf.yield %nlo, %nhi : f64, f64
  }
  %l2 = arith.mulf %r#0, %r#0 : f64
  %l3 = arith.mulf %l2, %r#0 : f64
  %fl = arith.subf %l3, %av : f64
  %h2 = arith.mulf %r#1, %r#1 : f64
  %h3 = arith.mulf %h2, %r#1 : f64
  %fh = arith.subf %h3, %av : f64
  %dx = arith.subf %r#1, %r#0 : f64
  %df = arith.subf %fh, %fl : f64
  %ratio = arith.divf %dx, %df : f64
  %corr = arith.mulf %fl, %ratio : f64
  %x = arith.subf %r#0, %corr : f64
  memref.store %x, %out[%c0] : memref<1xf64>
  return
}
func.func @f_grad(%a: memref<1xf64>, %da: memref<1xf64>, %o: memref<1xf64>, %do: memref<1xf64>) {
  enzyme.autodiff @f(%a, %da, %o, %do) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<1xf64>, memref<1xf64>, memref<1xf64>, memref<1xf64>) -> ()
  return
}
