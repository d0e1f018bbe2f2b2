// jacobi1d, preset paper (T=16, N=144).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/jacobi1d.py, not this file.
func.func @jacobi1d(%A: memref<144xf64>, %B: memref<144xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c143 = arith.constant 143 : index
  %third = arith.constant 0.33333 : f64
  scf.for %t = %c0 to %c16 step %c1 {
    scf.for %i = %c1 to %c143 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      %l = memref.load %A[%im] : memref<144xf64>
      %c = memref.load %A[%i] : memref<144xf64>
      %r = memref.load %A[%ip] : memref<144xf64>
      %lc = arith.addf %l, %c : f64
      %sum = arith.addf %lc, %r : f64
      %avg = arith.mulf %third, %sum : f64
      %act = math.tanh %avg : f64
      memref.store %act, %B[%i] : memref<144xf64>
    }
    scf.for %i = %c1 to %c143 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      %l = memref.load %B[%im] : memref<144xf64>
      %c = memref.load %B[%i] : memref<144xf64>
      %r = memref.load %B[%ip] : memref<144xf64>
      %lc = arith.addf %l, %c : f64
      %sum = arith.addf %lc, %r : f64
      %avg = arith.mulf %third, %sum : f64
      %act = math.tanh %avg : f64
      memref.store %act, %A[%i] : memref<144xf64>
    }
  }
  return
}

func.func @jacobi1d_grad(%A: memref<144xf64>, %d_A: memref<144xf64>, %B: memref<144xf64>, %d_B: memref<144xf64>) {
  enzyme.autodiff @jacobi1d(%A, %d_A, %B, %d_B) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<144xf64>, memref<144xf64>, memref<144xf64>, memref<144xf64>) -> ()
  return
}
