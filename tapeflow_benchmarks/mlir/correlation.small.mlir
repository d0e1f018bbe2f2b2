// correlation, preset small (M=4, N=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/correlation.py, not this file.
func.func @correlation(%data: memref<5x4xf64>, %mean: memref<4xf64>, %stddev: memref<4xf64>, %corr: memref<4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %eps = arith.constant 0.1 : f64
  %n = arith.constant 5.0 : f64
  %sqrtn = math.sqrt %n : f64
  scf.for %j = %c0 to %c4 step %c1 {
    %sum = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f64) {
      %d = memref.load %data[%i, %j] : memref<5x4xf64>
      %next = arith.addf %acc, %d : f64
      scf.yield %next : f64
    }
    %m = arith.divf %sum, %n : f64
    memref.store %m, %mean[%j] : memref<4xf64>
  }
  scf.for %j = %c0 to %c4 step %c1 {
    %m = memref.load %mean[%j] : memref<4xf64>
    %ss = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f64) {
      %d = memref.load %data[%i, %j] : memref<5x4xf64>
      %c = arith.subf %d, %m : f64
      %sq = arith.mulf %c, %c : f64
      %next = arith.addf %acc, %sq : f64
      scf.yield %next : f64
    }
    %var = arith.divf %ss, %n : f64
    %sd = math.sqrt %var : f64
    %small = arith.cmpf ole, %sd, %eps : f64
    %guarded = arith.select %small, %one, %sd : f64
    memref.store %guarded, %stddev[%j] : memref<4xf64>
  }
  scf.for %i = %c0 to %c5 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %d = memref.load %data[%i, %j] : memref<5x4xf64>
      %m = memref.load %mean[%j] : memref<4xf64>
      %sd = memref.load %stddev[%j] : memref<4xf64>
      %c = arith.subf %d, %m : f64
      %scale = arith.mulf %sqrtn, %sd : f64
      %z = arith.divf %c, %scale : f64
      memref.store %z, %data[%i, %j] : memref<5x4xf64>
    }
  }
  scf.for %i = %c0 to %c3 step %c1 {
    memref.store %one, %corr[%i, %i] : memref<4x4xf64>
    %ip1 = arith.addi %i, %c1 : index
    scf.for %j = %ip1 to %c4 step %c1 {
      %dot = scf.for %k = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %data[%k, %i] : memref<5x4xf64>
        %b = memref.load %data[%k, %j] : memref<5x4xf64>
        %p = arith.mulf %a, %b : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      memref.store %dot, %corr[%i, %j] : memref<4x4xf64>
      memref.store %dot, %corr[%j, %i] : memref<4x4xf64>
    }
  }
  memref.store %one, %corr[%c3, %c3] : memref<4x4xf64>
  return
}

func.func @correlation_grad(%data: memref<5x4xf64>, %d_data: memref<5x4xf64>, %mean: memref<4xf64>, %d_mean: memref<4xf64>, %stddev: memref<4xf64>, %d_stddev: memref<4xf64>, %corr: memref<4x4xf64>, %d_corr: memref<4x4xf64>) {
  enzyme.autodiff @correlation(%data, %d_data, %mean, %d_mean, %stddev, %d_stddev, %corr, %d_corr) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5x4xf64>, memref<5x4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4x4xf64>, memref<4x4xf64>) -> ()
  return
}
