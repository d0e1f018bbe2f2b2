// trmm, preset small (M=5, N=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/trmm.py, not this file.
func.func @trmm(%A: memref<5x5xf64>, %B: memref<5x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %alpha = arith.constant 1.5 : f64
  scf.for %i = %c0 to %c5 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    scf.for %j = %c0 to %c3 step %c1 {
      scf.for %k = %i1 to %c5 step %c1 {
        %a = memref.load %A[%k, %i] : memref<5x5xf64>
        %bk = memref.load %B[%k, %j] : memref<5x3xf64>
        %p = arith.mulf %a, %bk : f64
        %bi = memref.load %B[%i, %j] : memref<5x3xf64>
        %sum = arith.addf %bi, %p : f64
        memref.store %sum, %B[%i, %j] : memref<5x3xf64>
      }
      %bi = memref.load %B[%i, %j] : memref<5x3xf64>
      %scaled = arith.mulf %alpha, %bi : f64
      memref.store %scaled, %B[%i, %j] : memref<5x3xf64>
    }
  }
  return
}

func.func @trmm_grad(%A: memref<5x5xf64>, %d_A: memref<5x5xf64>, %B: memref<5x3xf64>, %d_B: memref<5x3xf64>) {
  enzyme.autodiff @trmm(%A, %d_A, %B, %d_B) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5x5xf64>, memref<5x5xf64>, memref<5x3xf64>, memref<5x3xf64>) -> ()
  return
}
