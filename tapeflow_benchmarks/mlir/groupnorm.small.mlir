// groupnorm, preset small (G=2, C=4, P=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/groupnorm.py, not this file.
func.func @groupnorm(%x: memref<4x3xf64>, %gamma: memref<4xf64>, %beta: memref<4xf64>, %y: memref<4x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %invn = arith.constant 0.16666666666666666 : f64
  %eps = arith.constant 1.0e-05 : f64
  scf.for %g = %c0 to %c2 step %c1 {
    %lo = arith.muli %g, %c2 : index
    %hi = arith.addi %lo, %c2 : index
    %s = scf.for %c = %lo to %hi step %c1 iter_args(%sc = %zero) -> (f64) {
      %sp = scf.for %p = %c0 to %c3 step %c1 iter_args(%acc = %sc) -> (f64) {
        %xv = memref.load %x[%c, %p] : memref<4x3xf64>
        %next = arith.addf %acc, %xv : f64
        scf.yield %next : f64
      }
      scf.yield %sp : f64
    }
    %mean = arith.mulf %s, %invn : f64
    %v = scf.for %c = %lo to %hi step %c1 iter_args(%vc = %zero) -> (f64) {
      %vp = scf.for %p = %c0 to %c3 step %c1 iter_args(%acc = %vc) -> (f64) {
        %xv = memref.load %x[%c, %p] : memref<4x3xf64>
        %d = arith.subf %xv, %mean : f64
        %d2 = arith.mulf %d, %d : f64
        %next = arith.addf %acc, %d2 : f64
        scf.yield %next : f64
      }
      scf.yield %vp : f64
    }
    %var = arith.mulf %v, %invn : f64
    %vare = arith.addf %var, %eps : f64
    %sd = math.sqrt %vare : f64
    %rstd = arith.divf %one, %sd : f64
    scf.for %c = %lo to %hi step %c1 {
      %gc = memref.load %gamma[%c] : memref<4xf64>
      %bc = memref.load %beta[%c] : memref<4xf64>
      scf.for %p = %c0 to %c3 step %c1 {
        %xv = memref.load %x[%c, %p] : memref<4x3xf64>
        %d = arith.subf %xv, %mean : f64
        %nv = arith.mulf %d, %rstd : f64
        %ng = arith.mulf %nv, %gc : f64
        %o = arith.addf %ng, %bc : f64
        memref.store %o, %y[%c, %p] : memref<4x3xf64>
      }
    }
  }
  return
}

func.func @groupnorm_grad(%x: memref<4x3xf64>, %d_x: memref<4x3xf64>, %gamma: memref<4xf64>, %d_gamma: memref<4xf64>, %beta: memref<4xf64>, %d_beta: memref<4xf64>, %y: memref<4x3xf64>, %d_y: memref<4x3xf64>) {
  enzyme.autodiff @groupnorm(%x, %d_x, %gamma, %d_gamma, %beta, %d_beta, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4x3xf64>, memref<4x3xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4x3xf64>, memref<4x3xf64>) -> ()
  return
}
