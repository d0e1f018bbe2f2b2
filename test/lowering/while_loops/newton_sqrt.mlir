// Newton's iteration for square roots (Heron's method; Numerical Recipes'
// rtnewt with f(x) = x^2 - a) until the step is below a tolerance: a while loop
// with a data-dependent exit, one per element, inside a loop. Written anew.
func.func @f(%a: memref<4xf64>, %out: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %tol = arith.constant 1.0e-13 : f64
  %half = arith.constant 0.5 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    %av = memref.load %a[%i] : memref<4xf64>
    %x0 = arith.addf %av, %one : f64
    %r = scf.while (%x = %x0) : (f64) -> f64 {
      %q = arith.divf %av, %x : f64
      %s = arith.addf %x, %q : f64
      %nx = arith.mulf %s, %half : f64
      %d = arith.subf %nx, %x : f64
      %ad = math.absf %d : f64
      %c = arith.cmpf ogt, %ad, %tol : f64
      scf.condition(%c) %nx : f64
    } do {
    ^bb0(%x2: f64):
      scf.yield %x2 : f64
    }
    memref.store %r, %out[%i] : memref<4xf64>
  }
  return
}
func.func @f_grad(%a: memref<4xf64>, %da: memref<4xf64>, %o: memref<4xf64>, %do: memref<4xf64>) {
  enzyme.autodiff @f(%a, %da, %o, %do) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
