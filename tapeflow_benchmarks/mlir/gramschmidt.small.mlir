// gramschmidt, preset small (M=4, N=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gramschmidt.py, not this file.
func.func @gramschmidt(%A: memref<4x3xf64>, %R: memref<3x3xf64>, %Q: memref<4x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  scf.for %k = %c0 to %c3 step %c1 {
    %nrm = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %a = memref.load %A[%i, %k] : memref<4x3xf64>
      %sq = arith.mulf %a, %a : f64
      %next = arith.addf %acc, %sq : f64
      scf.yield %next : f64
    }
    %rkk = math.sqrt %nrm : f64
    memref.store %rkk, %R[%k, %k] : memref<3x3xf64>
    scf.for %i = %c0 to %c4 step %c1 {
      %a = memref.load %A[%i, %k] : memref<4x3xf64>
      %r = memref.load %R[%k, %k] : memref<3x3xf64>
      %q = arith.divf %a, %r : f64
      memref.store %q, %Q[%i, %k] : memref<4x3xf64>
    }
    %k1 = arith.addi %k, %c1 : index
    scf.for %j = %k1 to %c3 step %c1 {
      %rkj = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
        %q = memref.load %Q[%i, %k] : memref<4x3xf64>
        %a = memref.load %A[%i, %j] : memref<4x3xf64>
        %p = arith.mulf %q, %a : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      memref.store %rkj, %R[%k, %j] : memref<3x3xf64>
      scf.for %i = %c0 to %c4 step %c1 {
        %a = memref.load %A[%i, %j] : memref<4x3xf64>
        %q = memref.load %Q[%i, %k] : memref<4x3xf64>
        %r = memref.load %R[%k, %j] : memref<3x3xf64>
        %p = arith.mulf %q, %r : f64
        %d = arith.subf %a, %p : f64
        memref.store %d, %A[%i, %j] : memref<4x3xf64>
      }
    }
  }
  return
}

func.func @gramschmidt_grad(%A: memref<4x3xf64>, %d_A: memref<4x3xf64>, %R: memref<3x3xf64>, %d_R: memref<3x3xf64>, %Q: memref<4x3xf64>, %d_Q: memref<4x3xf64>) {
  enzyme.autodiff @gramschmidt(%A, %d_A, %R, %d_R, %Q, %d_Q) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4x3xf64>, memref<4x3xf64>, memref<3x3xf64>, memref<3x3xf64>, memref<4x3xf64>, memref<4x3xf64>) -> ()
  return
}
