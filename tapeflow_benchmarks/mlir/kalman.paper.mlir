// kalman, preset paper (C=32, N=128).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/kalman.py, not this file.
func.func @kalman(%z: memref<32x128xf64>, %q: memref<32xf64>, %r: memref<32xf64>, %e: memref<32x128xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f64
  scf.for %c = %c0 to %c32 step %c1 {
    %x0 = memref.load %z[%c, %c0] : memref<32x128xf64>
    %qc = memref.load %q[%c] : memref<32xf64>
    %rc = memref.load %r[%c] : memref<32xf64>
    %xf, %pf = scf.for %t = %c1 to %c128 step %c1
        iter_args(%x = %x0, %p = %one) -> (f64, f64) {
      %pm = arith.addf %p, %qc : f64
      %den = arith.addf %pm, %rc : f64
      %k = arith.divf %pm, %den : f64
      %zt = memref.load %z[%c, %t] : memref<32x128xf64>
      %inn = arith.subf %zt, %x : f64
      %step = arith.mulf %k, %inn : f64
      %xn = arith.addf %x, %step : f64
      %omk = arith.subf %one, %k : f64
      %pn = arith.mulf %omk, %pm : f64
      memref.store %xn, %e[%c, %t] : memref<32x128xf64>
      scf.yield %xn, %pn : f64, f64
    }
  }
  return
}

func.func @kalman_grad(%z: memref<32x128xf64>, %d_z: memref<32x128xf64>, %q: memref<32xf64>, %d_q: memref<32xf64>, %r: memref<32xf64>, %d_r: memref<32xf64>, %e: memref<32x128xf64>, %d_e: memref<32x128xf64>) {
  enzyme.autodiff @kalman(%z, %d_z, %q, %d_q, %r, %d_r, %e, %d_e) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<32x128xf64>, memref<32x128xf64>, memref<32xf64>, memref<32xf64>, memref<32xf64>, memref<32xf64>, memref<32x128xf64>, memref<32x128xf64>) -> ()
  return
}
