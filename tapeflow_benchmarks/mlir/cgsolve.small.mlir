// cgsolve, preset small (S=2, N=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/cgsolve.py, not this file.
func.func @cgsolve(%A: memref<2x3x3xf64>, %b: memref<2x3xf64>, %x: memref<2x3xf64>, %r: memref<2x3xf64>, %p: memref<2x3xf64>, %q: memref<2x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %tol = arith.constant 1.000000e-20 : f64
  scf.for %s = %c0 to %c2 step %c1 {
    %rr0 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
      %bi = memref.load %b[%s, %i] : memref<2x3xf64>
      memref.store %zero, %x[%s, %i] : memref<2x3xf64>
      memref.store %bi, %r[%s, %i] : memref<2x3xf64>
      memref.store %bi, %p[%s, %i] : memref<2x3xf64>
      %b2 = arith.mulf %bi, %bi : f64
      %next = arith.addf %acc, %b2 : f64
      scf.yield %next : f64
    }
    %res:2 = scf.while (%k = %c0, %rr = %rr0) : (index, f64) -> (index, f64) {
      %more = arith.cmpi slt, %k, %c3 : index
      %big = arith.cmpf ogt, %rr, %tol : f64
      %go = arith.andi %more, %big : i1
      scf.condition(%go) %k, %rr : index, f64
    } do {
    ^bb0(%k2: index, %rr2: f64):
      %pq = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %qi = scf.for %j = %c0 to %c3 step %c1 iter_args(%a = %zero) -> (f64) {
          %aij = memref.load %A[%s, %i, %j] : memref<2x3x3xf64>
          %pj = memref.load %p[%s, %j] : memref<2x3xf64>
          %t = arith.mulf %aij, %pj : f64
          %n = arith.addf %a, %t : f64
          scf.yield %n : f64
        }
        memref.store %qi, %q[%s, %i] : memref<2x3xf64>
        %pi = memref.load %p[%s, %i] : memref<2x3xf64>
        %t = arith.mulf %pi, %qi : f64
        %next = arith.addf %acc, %t : f64
        scf.yield %next : f64
      }
      %alpha = arith.divf %rr2, %pq : f64
      %rn = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %xi = memref.load %x[%s, %i] : memref<2x3xf64>
        %pi = memref.load %p[%s, %i] : memref<2x3xf64>
        %ap = arith.mulf %alpha, %pi : f64
        %nx = arith.addf %xi, %ap : f64
        memref.store %nx, %x[%s, %i] : memref<2x3xf64>
        %ri = memref.load %r[%s, %i] : memref<2x3xf64>
        %qi = memref.load %q[%s, %i] : memref<2x3xf64>
        %aq = arith.mulf %alpha, %qi : f64
        %nr = arith.subf %ri, %aq : f64
        memref.store %nr, %r[%s, %i] : memref<2x3xf64>
        %r2 = arith.mulf %nr, %nr : f64
        %next = arith.addf %acc, %r2 : f64
        scf.yield %next : f64
      }
      %beta = arith.divf %rn, %rr2 : f64
      scf.for %i = %c0 to %c3 step %c1 {
        %ri = memref.load %r[%s, %i] : memref<2x3xf64>
        %pi = memref.load %p[%s, %i] : memref<2x3xf64>
        %bp = arith.mulf %beta, %pi : f64
        %np = arith.addf %ri, %bp : f64
        memref.store %np, %p[%s, %i] : memref<2x3xf64>
      }
      %k3 = arith.addi %k2, %c1 : index
      scf.yield %k3, %rn : index, f64
    }
  }
  return
}

func.func @cgsolve_grad(%A: memref<2x3x3xf64>, %d_A: memref<2x3x3xf64>, %b: memref<2x3xf64>, %d_b: memref<2x3xf64>, %x: memref<2x3xf64>, %d_x: memref<2x3xf64>, %r: memref<2x3xf64>, %d_r: memref<2x3xf64>, %p: memref<2x3xf64>, %d_p: memref<2x3xf64>, %q: memref<2x3xf64>, %d_q: memref<2x3xf64>) {
  enzyme.autodiff @cgsolve(%A, %d_A, %b, %d_b, %x, %d_x, %r, %d_r, %p, %d_p, %q, %d_q) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<2x3x3xf64>, memref<2x3x3xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2x3xf64>) -> ()
  return
}
