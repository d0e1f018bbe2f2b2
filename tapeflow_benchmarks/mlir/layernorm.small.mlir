// layernorm, preset small (R=4, C=6).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/layernorm.py, not this file.
func.func @layernorm(%x: memref<4x6xf64>, %gamma: memref<6xf64>, %beta: memref<6xf64>, %y: memref<4x6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %invc = arith.constant 0.16666666666666666 : f64
  %eps = arith.constant 1.0e-05 : f64
  scf.for %r = %c0 to %c4 step %c1 {
    %s = scf.for %j = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %x[%r, %j] : memref<4x6xf64>
      %next = arith.addf %acc, %xv : f64
      scf.yield %next : f64
    }
    %mean = arith.mulf %s, %invc : f64
    %v = scf.for %j = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %x[%r, %j] : memref<4x6xf64>
      %d = arith.subf %xv, %mean : f64
      %d2 = arith.mulf %d, %d : f64
      %next = arith.addf %acc, %d2 : f64
      scf.yield %next : f64
    }
    %var = arith.mulf %v, %invc : f64
    %vare = arith.addf %var, %eps : f64
    %sd = math.sqrt %vare : f64
    %rstd = arith.divf %one, %sd : f64
    scf.for %j = %c0 to %c6 step %c1 {
      %xv = memref.load %x[%r, %j] : memref<4x6xf64>
      %d = arith.subf %xv, %mean : f64
      %n = arith.mulf %d, %rstd : f64
      %g = memref.load %gamma[%j] : memref<6xf64>
      %b = memref.load %beta[%j] : memref<6xf64>
      %ng = arith.mulf %n, %g : f64
      %o = arith.addf %ng, %b : f64
      memref.store %o, %y[%r, %j] : memref<4x6xf64>
    }
  }
  return
}

func.func @layernorm_grad(%x: memref<4x6xf64>, %d_x: memref<4x6xf64>, %gamma: memref<6xf64>, %d_gamma: memref<6xf64>, %beta: memref<6xf64>, %d_beta: memref<6xf64>, %y: memref<4x6xf64>, %d_y: memref<4x6xf64>) {
  enzyme.autodiff @layernorm(%x, %d_x, %gamma, %d_gamma, %beta, %d_beta, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4x6xf64>, memref<4x6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<4x6xf64>, memref<4x6xf64>) -> ()
  return
}
