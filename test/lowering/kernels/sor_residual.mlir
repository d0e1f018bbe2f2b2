// Successive over-relaxation with the norm of the residual, after Numerical
// Recipes in C, 2nd ed., section 19.5, `sor()`: each sweep sets `anorm = 0`,
// and for each point computes `resid = a u[j-1] + b u[j] + c u[j+1] - f[j]`,
// adds `fabs(resid)` to `anorm` and relaxes `u[j] -= omega * resid / b`. Here on
// a 1-D Poisson grid (a = c = 1, b = -2), two sweeps, the left neighbour kept in
// a register (carried after the norm, as a C compiler keeps it), the norm of
// each sweep written out. Written anew.
func.func @f(%u: memref<8xf64>, %rhs: memref<8xf64>, %norms: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f64
  %b = arith.constant -2.0 : f64
  %omega = arith.constant 1.5 : f64
  scf.for %s = %c0 to %c2 step %c1 {
    %u0 = memref.load %u[%c0] : memref<8xf64>
    %r:2 = scf.for %j = %c1 to %c7 step %c1 iter_args(%anorm = %zero, %left = %u0) -> (f64, f64) {
      %jp = arith.addi %j, %c1 : index
      %uj = memref.load %u[%j] : memref<8xf64>
      %right = memref.load %u[%jp] : memref<8xf64>
      %fj = memref.load %rhs[%j] : memref<8xf64>
      %bu = arith.mulf %b, %uj : f64
      %lr = arith.addf %left, %right : f64
      %sum = arith.addf %lr, %bu : f64
      %resid = arith.subf %sum, %fj : f64
      %abs = math.absf %resid : f64
      %anorm2 = arith.addf %anorm, %abs : f64
      %step = arith.mulf %omega, %resid : f64
      %delta = arith.divf %step, %b : f64
      %unew = arith.subf %uj, %delta : f64
      memref.store %unew, %u[%j] : memref<8xf64>
      scf.yield %anorm2, %unew : f64, f64
    }
    memref.store %r#0, %norms[%s] : memref<2xf64>
  }
  return
}
func.func @f_grad(%u: memref<8xf64>, %du: memref<8xf64>, %rhs: memref<8xf64>, %drhs: memref<8xf64>, %norms: memref<2xf64>, %dnorms: memref<2xf64>) {
  enzyme.autodiff @f(%u, %du, %rhs, %drhs, %norms, %dnorms) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<8xf64>, memref<8xf64>, memref<8xf64>, memref<8xf64>, memref<2xf64>, memref<2xf64>) -> ()
  return
}
