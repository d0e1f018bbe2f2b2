// batchnorm, preset small (N=6, C=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/batchnorm.py, not this file.
func.func @batchnorm(%x: memref<6x4xf64>, %gamma: memref<4xf64>, %beta: memref<4xf64>, %y: memref<6x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %invn = arith.constant 0.16666666666666666 : f64
  %eps = arith.constant 1.0e-05 : f64
  scf.for %c = %c0 to %c4 step %c1 {
    %s = scf.for %n = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %x[%n, %c] : memref<6x4xf64>
      %next = arith.addf %acc, %xv : f64
      scf.yield %next : f64
    }
    %mean = arith.mulf %s, %invn : f64
    %v = scf.for %n = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %x[%n, %c] : memref<6x4xf64>
      %d = arith.subf %xv, %mean : f64
      %d2 = arith.mulf %d, %d : f64
      %next = arith.addf %acc, %d2 : f64
      scf.yield %next : f64
    }
    %var = arith.mulf %v, %invn : f64
    %vare = arith.addf %var, %eps : f64
    %sd = math.sqrt %vare : f64
    %rstd = arith.divf %one, %sd : f64
    %g = memref.load %gamma[%c] : memref<4xf64>
    %b = memref.load %beta[%c] : memref<4xf64>
    scf.for %n = %c0 to %c6 step %c1 {
      %xv = memref.load %x[%n, %c] : memref<6x4xf64>
      %d = arith.subf %xv, %mean : f64
      %nv = arith.mulf %d, %rstd : f64
      %ng = arith.mulf %nv, %g : f64
      %o = arith.addf %ng, %b : f64
      memref.store %o, %y[%n, %c] : memref<6x4xf64>
    }
  }
  return
}

func.func @batchnorm_grad(%x: memref<6x4xf64>, %d_x: memref<6x4xf64>, %gamma: memref<4xf64>, %d_gamma: memref<4xf64>, %beta: memref<4xf64>, %d_beta: memref<4xf64>, %y: memref<6x4xf64>, %d_y: memref<6x4xf64>) {
  enzyme.autodiff @batchnorm(%x, %d_x, %gamma, %d_gamma, %beta, %d_beta, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<6x4xf64>, memref<6x4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<6x4xf64>, memref<6x4xf64>) -> ()
  return
}
