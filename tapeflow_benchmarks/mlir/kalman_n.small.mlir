// kalman_n, preset small (C=3, N=6, n=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/kalman_n.py, not this file.
func.func @kalman_n(%z: memref<?x?xf64>, %q: memref<3xf64>, %r: memref<3xf64>, %e: memref<?x?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f64
  scf.for %c = %c0 to %c3 step %c1 {
    %x0 = memref.load %z[%c, %c0] : memref<?x?xf64>
    %qc = memref.load %q[%c] : memref<3xf64>
    %rc = memref.load %r[%c] : memref<3xf64>
    %xf, %pf = scf.for %t = %c1 to %n step %c1 iter_args(%x = %x0, %p = %one) -> (f64, f64) {
      %pm = arith.addf %p, %qc : f64
      %den = arith.addf %pm, %rc : f64
      %k = arith.divf %pm, %den : f64
      %zt = memref.load %z[%c, %t] : memref<?x?xf64>
      %inn = arith.subf %zt, %x : f64
      %step = arith.mulf %k, %inn : f64
      %xn = arith.addf %x, %step : f64
      %omk = arith.subf %one, %k : f64
      %pn = arith.mulf %omk, %pm : f64
      memref.store %xn, %e[%c, %t] : memref<?x?xf64>
      scf.yield %xn, %pn : f64, f64
    }
  }
  return
}

func.func @kalman_n_grad(%z: memref<?x?xf64>, %d_z: memref<?x?xf64>, %q: memref<3xf64>, %d_q: memref<3xf64>, %r: memref<3xf64>, %d_r: memref<3xf64>, %e: memref<?x?xf64>, %d_e: memref<?x?xf64>, %n: index) {
  enzyme.autodiff @kalman_n(%z, %d_z, %q, %d_q, %r, %d_r, %e, %d_e, %n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?x?xf64>, memref<?x?xf64>, memref<3xf64>, memref<3xf64>, memref<3xf64>, memref<3xf64>, memref<?x?xf64>, memref<?x?xf64>, index) -> ()
  return
}
