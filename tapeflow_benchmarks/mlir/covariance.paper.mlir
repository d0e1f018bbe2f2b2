// covariance, preset paper (M=16, N=32).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/covariance.py, not this file.
func.func @covariance(%data: memref<32x16xf64>, %mean: memref<16xf64>, %cov: memref<16x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f64
  %n = arith.constant 32.0 : f64
  %n1 = arith.constant 31.0 : f64
  scf.for %j = %c0 to %c16 step %c1 {
    %sum = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f64) {
      %d = memref.load %data[%i, %j] : memref<32x16xf64>
      %next = arith.addf %acc, %d : f64
      scf.yield %next : f64
    }
    %m = arith.divf %sum, %n : f64
    memref.store %m, %mean[%j] : memref<16xf64>
  }
  scf.for %i = %c0 to %c32 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %d = memref.load %data[%i, %j] : memref<32x16xf64>
      %m = memref.load %mean[%j] : memref<16xf64>
      %c = arith.subf %d, %m : f64
      memref.store %c, %data[%i, %j] : memref<32x16xf64>
    }
  }
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %i to %c16 step %c1 {
      %dot = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %data[%k, %i] : memref<32x16xf64>
        %b = memref.load %data[%k, %j] : memref<32x16xf64>
        %p = arith.mulf %a, %b : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %v = arith.divf %dot, %n1 : f64
      memref.store %v, %cov[%i, %j] : memref<16x16xf64>
      memref.store %v, %cov[%j, %i] : memref<16x16xf64>
    }
  }
  return
}

func.func @covariance_grad(%data: memref<32x16xf64>, %d_data: memref<32x16xf64>, %mean: memref<16xf64>, %d_mean: memref<16xf64>, %cov: memref<16x16xf64>, %d_cov: memref<16x16xf64>) {
  enzyme.autodiff @covariance(%data, %d_data, %mean, %d_mean, %cov, %d_cov) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<32x16xf64>, memref<32x16xf64>, memref<16xf64>, memref<16xf64>, memref<16x16xf64>, memref<16x16xf64>) -> ()
  return
}
