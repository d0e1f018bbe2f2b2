// durbin, preset small (N=6).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/durbin.py, not this file.
func.func @durbin(%r: memref<6xf64>, %y: memref<6xf64>, %z: memref<6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %r0 = memref.load %r[%c0] : memref<6xf64>
  %alpha0 = arith.negf %r0 : f64
  memref.store %alpha0, %y[%c0] : memref<6xf64>
  %last:2 = scf.for %k = %c1 to %c6 step %c1
      iter_args(%alpha = %alpha0, %beta = %one) -> (f64, f64) {
    %km1 = arith.subi %k, %c1 : index
    %aa = arith.mulf %alpha, %alpha : f64
    %om = arith.subf %one, %aa : f64
    %nbeta = arith.mulf %om, %beta : f64
    %sum = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f64) {
      %ri = arith.subi %km1, %i : index
      %rv = memref.load %r[%ri] : memref<6xf64>
      %yi = memref.load %y[%i] : memref<6xf64>
      %p = arith.mulf %rv, %yi : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %rk = memref.load %r[%k] : memref<6xf64>
    %num = arith.addf %rk, %sum : f64
    %q = arith.divf %num, %nbeta : f64
    %nalpha = arith.negf %q : f64
    scf.for %i = %c0 to %k step %c1 {
      %ri = arith.subi %km1, %i : index
      %yi = memref.load %y[%i] : memref<6xf64>
      %yr = memref.load %y[%ri] : memref<6xf64>
      %p = arith.mulf %nalpha, %yr : f64
      %zi = arith.addf %yi, %p : f64
      memref.store %zi, %z[%i] : memref<6xf64>
    }
    scf.for %i = %c0 to %k step %c1 {
      %zi = memref.load %z[%i] : memref<6xf64>
      memref.store %zi, %y[%i] : memref<6xf64>
    }
    memref.store %nalpha, %y[%k] : memref<6xf64>
    scf.yield %nalpha, %nbeta : f64, f64
  }
  return
}

func.func @durbin_grad(%r: memref<6xf64>, %d_r: memref<6xf64>, %y: memref<6xf64>, %d_y: memref<6xf64>, %z: memref<6xf64>, %d_z: memref<6xf64>) {
  enzyme.autodiff @durbin(%r, %d_r, %y, %d_y, %z, %d_z) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>) -> ()
  return
}
