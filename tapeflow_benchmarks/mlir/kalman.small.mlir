// kalman, preset small (C=3, N=6).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/kalman.py, not this file.
func.func @kalman(%z: memref<3x6xf64>, %q: memref<3xf64>, %r: memref<3xf64>, %e: memref<3x6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %one = arith.constant 1.0 : f64
  scf.for %c = %c0 to %c3 step %c1 {
    %x0 = memref.load %z[%c, %c0] : memref<3x6xf64>
    %qc = memref.load %q[%c] : memref<3xf64>
    %rc = memref.load %r[%c] : memref<3xf64>
    %xf, %pf = scf.for %t = %c1 to %c6 step %c1
        iter_args(%x = %x0, %p = %one) -> (f64, f64) {
      %pm = arith.addf %p, %qc : f64
      %den = arith.addf %pm, %rc : f64
      %k = arith.divf %pm, %den : f64
      %zt = memref.load %z[%c, %t] : memref<3x6xf64>
      %inn = arith.subf %zt, %x : f64
      %step = arith.mulf %k, %inn : f64
      %xn = arith.addf %x, %step : f64
      %omk = arith.subf %one, %k : f64
      %pn = arith.mulf %omk, %pm : f64
      memref.store %xn, %e[%c, %t] : memref<3x6xf64>
      scf.yield %xn, %pn : f64, f64
    }
  }
  return
}

func.func @kalman_grad(%z: memref<3x6xf64>, %d_z: memref<3x6xf64>, %q: memref<3xf64>, %d_q: memref<3xf64>, %r: memref<3xf64>, %d_r: memref<3xf64>, %e: memref<3x6xf64>, %d_e: memref<3x6xf64>) {
  enzyme.autodiff @kalman(%z, %d_z, %q, %d_q, %r, %d_r, %e, %d_e) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<3x6xf64>, memref<3x6xf64>, memref<3xf64>, memref<3xf64>, memref<3xf64>, memref<3xf64>, memref<3x6xf64>, memref<3x6xf64>) -> ()
  return
}
