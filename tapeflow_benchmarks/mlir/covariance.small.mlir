// covariance, preset small (M=4, N=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/covariance.py, not this file.
func.func @covariance(%data: memref<5x4xf64>, %mean: memref<4xf64>, %cov: memref<4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f64
  %n = arith.constant 5.0 : f64
  %n1 = arith.constant 4.0 : f64
  scf.for %j = %c0 to %c4 step %c1 {
    %sum = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f64) {
      %d = memref.load %data[%i, %j] : memref<5x4xf64>
      %next = arith.addf %acc, %d : f64
      scf.yield %next : f64
    }
    %m = arith.divf %sum, %n : f64
    memref.store %m, %mean[%j] : memref<4xf64>
  }
  scf.for %i = %c0 to %c5 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %d = memref.load %data[%i, %j] : memref<5x4xf64>
      %m = memref.load %mean[%j] : memref<4xf64>
      %c = arith.subf %d, %m : f64
      memref.store %c, %data[%i, %j] : memref<5x4xf64>
    }
  }
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %i to %c4 step %c1 {
      %dot = scf.for %k = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %data[%k, %i] : memref<5x4xf64>
        %b = memref.load %data[%k, %j] : memref<5x4xf64>
        %p = arith.mulf %a, %b : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %v = arith.divf %dot, %n1 : f64
      memref.store %v, %cov[%i, %j] : memref<4x4xf64>
      memref.store %v, %cov[%j, %i] : memref<4x4xf64>
    }
  }
  return
}

func.func @covariance_grad(%data: memref<5x4xf64>, %d_data: memref<5x4xf64>, %mean: memref<4xf64>, %d_mean: memref<4xf64>, %cov: memref<4x4xf64>, %d_cov: memref<4x4xf64>) {
  enzyme.autodiff @covariance(%data, %d_data, %mean, %d_mean, %cov, %d_cov) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5x4xf64>, memref<5x4xf64>, memref<4xf64>, memref<4xf64>, memref<4x4xf64>, memref<4x4xf64>) -> ()
  return
}
