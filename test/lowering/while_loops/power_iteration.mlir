// The power iteration for the dominant eigenvalue until the Rayleigh quotient
// settles, with a maximal count (`while (k < 40 && |lambda - lambda_old| > tol)`;
// Golub & Van Loan, Matrix Computations, 7.3.1): the iterate v lives in memory
// and is rewritten each iteration, so the exit depends on memory the loop
// writes; the count bounds the loop. The count is C's `int k` (an i32, as
// Polygeist emits it). Written anew, a 4x4 matrix.
func.func @f(%A: memref<4x4xf64>, %v: memref<4xf64>, %out: memref<1xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %k0 = arith.constant 0 : i32
  %k1 = arith.constant 1 : i32
  %c40 = arith.constant 40 : i32
  %zero = arith.constant 0.0 : f64
  %big = arith.constant 1.0e30 : f64
  %tol = arith.constant 1.0e-12 : f64
  %w = memref.alloca() : memref<4xf64>
  %r:3 = scf.while (%k = %k0, %lam = %zero, %old = %big) : (i32, f64, f64) -> (i32, f64, f64) {
    %more = arith.cmpi slt, %k, %c40 : i32
    %d = arith.subf %lam, %old : f64
    %ad = math.absf %d : f64
    %far = arith.cmpf ogt, %ad, %tol : f64
    %go = arith.andi %more, %far : i1
    scf.condition(%go) %k, %lam, %old : i32, f64, f64
  } do {
  ^bb0(%k2: i32, %lam2: f64, %old2: f64):
    // w = A v, lambda = v . w, v = w / |w|
    %nrm2, %rq = scf.for %i = %c0 to %c4 step %c1 iter_args(%n = %zero, %q = %zero) -> (f64, f64) {
      %row = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
        %aij = memref.load %A[%i, %j] : memref<4x4xf64>
        %vj = memref.load %v[%j] : memref<4xf64>
        %p = arith.mulf %aij, %vj : f64
        %s = arith.addf %acc, %p : f64
        scf.yield %s : f64
      }
      memref.store %row, %w[%i] : memref<4xf64>
      %vi = memref.load %v[%i] : memref<4xf64>
      %rr = arith.mulf %row, %row : f64
      %n2 = arith.addf %n, %rr : f64
      %rv = arith.mulf %row, %vi : f64
      %q2 = arith.addf %q, %rv : f64
      scf.yield %n2, %q2 : f64, f64
    }
    %nrm = math.sqrt %nrm2 : f64
    scf.for %i = %c0 to %c4 step %c1 {
      %wi = memref.load %w[%i] : memref<4xf64>
      %u = arith.divf %wi, %nrm : f64
      memref.store %u, %v[%i] : memref<4xf64>
    }
    %k3 = arith.addi %k2, %k1 : i32
    scf.yield %k3, %rq, %lam2 : i32, f64, f64
  }
  memref.store %r#1, %out[%c0] : memref<1xf64>
  return
}
func.func @f_grad(%A: memref<4x4xf64>, %dA: memref<4x4xf64>, %v: memref<4xf64>, %dv: memref<4xf64>, %o: memref<1xf64>, %do: memref<1xf64>) {
  enzyme.autodiff @f(%A, %dA, %v, %dv, %o, %do) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<4x4xf64>, memref<4x4xf64>, memref<4xf64>, memref<4xf64>, memref<1xf64>, memref<1xf64>) -> ()
  return
}
