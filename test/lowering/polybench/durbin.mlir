// PolyBench/C 4.2 durbin (linear-algebra/solvers/durbin): Levinson-Durbin
// recursion for the Yule-Walker equations, `for k = 1 .. N; for i < k` three
// times, alpha and beta carried from one k to the next, z a temporary. Written
// anew in scf, N = 6.
func.func @f(%r: memref<6xf64>, %y: memref<6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cN = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %z = memref.alloca() : memref<6xf64>
  %r0 = memref.load %r[%c0] : memref<6xf64>
  %alpha0 = arith.negf %r0 : f64
  memref.store %alpha0, %y[%c0] : memref<6xf64>
  %res:2 = scf.for %k = %c1 to %cN step %c1 iter_args(%alpha = %alpha0, %beta = %one) -> (f64, f64) {
    %aa = arith.mulf %alpha, %alpha : f64
    %om = arith.subf %one, %aa : f64
    %beta1 = arith.mulf %om, %beta : f64
    %km1 = arith.subi %k, %c1 : index
    %sum = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f64) {
      %idx = arith.subi %km1, %i : index
      %rv = memref.load %r[%idx] : memref<6xf64>
      %yv = memref.load %y[%i] : memref<6xf64>
      %p = arith.mulf %rv, %yv : f64
      %s = arith.addf %acc, %p : f64
      scf.yield %s : f64
    }
    %rk = memref.load %r[%k] : memref<6xf64>
    %num = arith.addf %rk, %sum : f64
    %q = arith.divf %num, %beta1 : f64
    %alpha1 = arith.negf %q : f64
    scf.for %i = %c0 to %k step %c1 {
      %idx = arith.subi %km1, %i : index
      %yi = memref.load %y[%i] : memref<6xf64>
      %yk = memref.load %y[%idx] : memref<6xf64>
      %p = arith.mulf %alpha1, %yk : f64
      %s = arith.addf %yi, %p : f64
      memref.store %s, %z[%i] : memref<6xf64>
    }
    scf.for %i = %c0 to %k step %c1 {
      %zi = memref.load %z[%i] : memref<6xf64>
      memref.store %zi, %y[%i] : memref<6xf64>
    }
    memref.store %alpha1, %y[%k] : memref<6xf64>
    scf.yield %alpha1, %beta1 : f64, f64
  }
  return
}
func.func @f_grad(%r: memref<6xf64>, %dr: memref<6xf64>, %y: memref<6xf64>, %dy: memref<6xf64>) {
  enzyme.autodiff @f(%r, %dr, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>) -> ()
  return
}
