// nussinov, preset small (N=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/nussinov.py, not this file.
func.func @nussinov(%M: memref<4x4xf64>, %T: memref<4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  scf.for %ii = %c0 to %c4 step %c1 {
    %i = arith.subi %c3, %ii : index
    %i1 = arith.addi %i, %c1 : index
    scf.for %j = %i1 to %c4 step %c1 {
      %acc = scf.for %k = %i1 to %j step %c1 iter_args(%a = %zero) -> (f64) {
        %k1 = arith.addi %k, %c1 : index
        %l = memref.load %T[%i, %k] : memref<4x4xf64>
        %r = memref.load %T[%k1, %j] : memref<4x4xf64>
        %lr = arith.addf %l, %r : f64
        %e = math.exp %lr : f64
        %next = arith.addf %a, %e : f64
        scf.yield %next : f64
      }
      %jm = arith.subi %j, %c1 : index
      %left = memref.load %T[%i, %jm] : memref<4x4xf64>
      %down = memref.load %T[%i1, %j] : memref<4x4xf64>
      %diag = memref.load %T[%i1, %jm] : memref<4x4xf64>
      %m = memref.load %M[%i, %j] : memref<4x4xf64>
      %dm = arith.addf %diag, %m : f64
      %e1 = math.exp %left : f64
      %e2 = math.exp %down : f64
      %e3 = math.exp %dm : f64
      %s1 = arith.addf %e1, %e2 : f64
      %s2 = arith.addf %s1, %e3 : f64
      %s3 = arith.addf %s2, %acc : f64
      %v = math.log %s3 : f64
      memref.store %v, %T[%i, %j] : memref<4x4xf64>
    }
  }
  return
}

func.func @nussinov_grad(%M: memref<4x4xf64>, %d_M: memref<4x4xf64>, %T: memref<4x4xf64>, %d_T: memref<4x4xf64>) {
  enzyme.autodiff @nussinov(%M, %d_M, %T, %d_T) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4x4xf64>, memref<4x4xf64>, memref<4x4xf64>, memref<4x4xf64>) -> ()
  return
}
