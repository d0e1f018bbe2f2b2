// jacobi1d, preset small (T=2, N=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/jacobi1d.py, not this file.
func.func @jacobi1d(%A: memref<5xf64>, %B: memref<5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %third = arith.constant 0.33333 : f64
  scf.for %t = %c0 to %c2 step %c1 {
    scf.for %i = %c1 to %c4 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      %l = memref.load %A[%im] : memref<5xf64>
      %c = memref.load %A[%i] : memref<5xf64>
      %r = memref.load %A[%ip] : memref<5xf64>
      %lc = arith.addf %l, %c : f64
      %sum = arith.addf %lc, %r : f64
      %avg = arith.mulf %third, %sum : f64
      %act = math.tanh %avg : f64
      memref.store %act, %B[%i] : memref<5xf64>
    }
    scf.for %i = %c1 to %c4 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      %l = memref.load %B[%im] : memref<5xf64>
      %c = memref.load %B[%i] : memref<5xf64>
      %r = memref.load %B[%ip] : memref<5xf64>
      %lc = arith.addf %l, %c : f64
      %sum = arith.addf %lc, %r : f64
      %avg = arith.mulf %third, %sum : f64
      %act = math.tanh %avg : f64
      memref.store %act, %A[%i] : memref<5xf64>
    }
  }
  return
}

func.func @jacobi1d_grad(%A: memref<5xf64>, %d_A: memref<5xf64>, %B: memref<5xf64>, %d_B: memref<5xf64>) {
  enzyme.autodiff @jacobi1d(%A, %d_A, %B, %d_B) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>) -> ()
  return
}
