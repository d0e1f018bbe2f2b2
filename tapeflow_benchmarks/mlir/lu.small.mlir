// lu, preset small (N=6).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/lu.py, not this file.
func.func @lu(%A: memref<6x6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c6 step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      scf.for %k = %c0 to %j step %c1 {
        %aik = memref.load %A[%i, %k] : memref<6x6xf64>
        %akj = memref.load %A[%k, %j] : memref<6x6xf64>
        %p = arith.mulf %aik, %akj : f64
        %aij = memref.load %A[%i, %j] : memref<6x6xf64>
        %d = arith.subf %aij, %p : f64
        memref.store %d, %A[%i, %j] : memref<6x6xf64>
      }
      %aij = memref.load %A[%i, %j] : memref<6x6xf64>
      %ajj = memref.load %A[%j, %j] : memref<6x6xf64>
      %q = arith.divf %aij, %ajj : f64
      memref.store %q, %A[%i, %j] : memref<6x6xf64>
    }
    scf.for %j = %i to %c6 step %c1 {
      scf.for %k = %c0 to %i step %c1 {
        %aik = memref.load %A[%i, %k] : memref<6x6xf64>
        %akj = memref.load %A[%k, %j] : memref<6x6xf64>
        %p = arith.mulf %aik, %akj : f64
        %aij = memref.load %A[%i, %j] : memref<6x6xf64>
        %d = arith.subf %aij, %p : f64
        memref.store %d, %A[%i, %j] : memref<6x6xf64>
      }
    }
  }
  return
}

func.func @lu_grad(%A: memref<6x6xf64>, %d_A: memref<6x6xf64>) {
  enzyme.autodiff @lu(%A, %d_A) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<6x6xf64>, memref<6x6xf64>) -> ()
  return
}
